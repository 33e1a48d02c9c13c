// Two users of one project (same tenant), from outside through HTTP: neither reads the other's events
// or evidence, neither changes what the other's sessions are served, and neither can tell whether a
// session id is in use by the other. Session ids are per user.
import { beforeEach, describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, type Loose, projectDb, putMemory, type Tenant, until } from "./helpers";

let tenant: Tenant;
let projectId: string;
/** A colleague in the same tenant, with read and write keys. */
let colleague: { token: string; readToken: string };

const base = () => `/v1/projects/${projectId}`;

async function keyFor(user: string, scopes: string[]) {
	const body = await json(await call("/v1/keys", { token: tenant.token, json: { scopes, user } }));
	return body.key as { token: string };
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	const write = await keyFor("colleague", ["read", "write"]);
	const read = await keyFor("colleague", ["read"]);
	colleague = { token: write.token, readToken: read.token };
});

/** An event as consolidation records it, for `owner`'s memory of `name` (scope null: a row from before scopes were recorded). */
async function recordEvent(owner: string, name: string, scope: "personal" | "team" | null, reason: string, sessions: string[]) {
	await projectDb(projectId)
		.prepare(
			`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
			 VALUES (?, ?, ?, 'run-1', 'update', ?, 'applied', ?, ?, ?)`,
		)
		.bind(projectId, owner, scope, name, reason, JSON.stringify(sessions), new Date().toISOString())
		.run();
}

describe("events and evidence", () => {
	it("a team memory named like a colleague's personal memory shows none of the colleague's events", async () => {
		await putMemory(tenant.token, projectId, "deploy-notes", "Mine.");
		await recordEvent(tenant.userId, "deploy-notes", "personal", "private reason of mine", ["my-session-1"]);
		await recordEvent(tenant.userId, "deploy-notes", null, "older private reason", ["my-session-0"]);
		// The colleague guesses the name and creates the team memory of it.
		expect((await putMemory(colleague.token, projectId, "deploy-notes", "Theirs.", { scope: "team" })).status).toBe(201);
		for (const token of [colleague.token, colleague.readToken]) {
			const res = await call(`${base()}/memories/deploy-notes/events?scope=team`, { token });
			expect(res.status).toBe(200);
			const text = await res.text();
			expect(JSON.parse(text).events).toEqual([]);
			expect(text).not.toContain("my-session");
			expect(text).not.toContain("private reason");
		}
		// The owner still reads both, with their sessions.
		const own = await json(await call(`${base()}/memories/deploy-notes/events?scope=personal`, { token: tenant.token }));
		expect(own.events.map((e: Loose) => [e.reason, e.sessions])).toEqual([
			["older private reason", ["my-session-0"]],
			["private reason of mine", ["my-session-1"]],
		]);
	});

	it("a team memory's events are shared, but another member's sessions and reasons are withheld", async () => {
		await putMemory(tenant.token, projectId, "team-rule", "Shared.", { scope: "team" });
		await recordEvent(tenant.userId, "team-rule", "team", "seen in my session", ["my-session-9"]);
		const theirs = await json(await call(`${base()}/memories/team-rule/events?scope=team`, { token: colleague.readToken }));
		expect(theirs.events).toHaveLength(1);
		expect(theirs.events[0]).toMatchObject({ outcome: "applied", sessions: [], reason: "recorded by another member's consolidation" });
		const mine = await json(await call(`${base()}/memories/team-rule/events?scope=team`, { token: tenant.token }));
		expect(mine.events[0]).toMatchObject({ sessions: ["my-session-9"], reason: "seen in my session" });
	});
});

/** What a prompt's block put in front of the model: its files, then the lines it offered. */
const reached = (parts: Loose) => [...parts.memories, ...parts.offered].map((m: Loose) => m.name as string);

describe("what a session is served", () => {
	it("a colleague's recall and inject under my session id do not change what my session is handed", async () => {
		await putMemory(tenant.token, projectId, "pnpm-only", "pnpm install; pnpm test.", {
			scope: "team",
			description: "Use pnpm, never npm, in this repository",
		});
		const query = "install the dependencies with npm or pnpm?";
		const sessionId = "2f0c3c52-5b4e-4d8e-9a53-0d6f5b1f3a11";
		// The colleague (read key only) asks first under my session's id, twice, with recall and with inject.
		for (const path of ["recall", "inject"]) {
			const res = await call(`${base()}/${path}`, {
				token: colleague.readToken,
				json: { query, sessionId, ...(path === "inject" ? { include: "memories", onlyNew: true } : {}) },
			});
			expect(res.status).toBe(200);
		}
		// The colleague's own session of that id has now been handed the memory: their next onlyNew is empty.
		await until(
			async () =>
				(
					await json(
						await call(`${base()}/inject`, {
							token: colleague.readToken,
							json: { query, sessionId, include: "memories", onlyNew: true },
						}),
					)
				).parts,
			(parts) => reached(parts).length === 0,
		);
		// Mine has not: it gets the memory, once.
		const mine = await json(
			await call(`${base()}/inject`, { token: tenant.token, json: { query, sessionId, include: "memories", onlyNew: true } }),
		);
		// A file or, when the decision is less sure, its line: either way once.
		expect(reached(mine.parts)).toEqual(["pnpm-only"]);
		await until(
			async () =>
				(
					await json(
						await call(`${base()}/inject`, { token: tenant.token, json: { query, sessionId, include: "memories", onlyNew: true } }),
					)
				).parts,
			(parts) => reached(parts).length === 0,
		);
	});
});

describe("session ids are per user", () => {
	const transcript = (token: string, sessionId: string, content: string) =>
		call(`${base()}/sessions/${sessionId}/transcript?format=generic`, {
			token,
			method: "POST",
			body: JSON.stringify({ id: `r-${content}`, role: "user", content }),
			headers: { "Content-Type": "application/x-ndjson" },
		});

	/** Everything a colleague can learn about a session id, as status and body with the id itself masked. */
	async function probe(sessionId: string) {
		const masked = async (res: Response) => `${res.status} ${(await res.text()).replaceAll(sessionId, "<id>")}`;
		return [
			await masked(await call(`${base()}/sessions/${sessionId}`, { token: colleague.token })),
			await masked(await call(`${base()}/sessions/${sessionId}/memory`, { token: colleague.token })),
			await masked(await call(`${base()}/sessions/${sessionId}/retry`, { token: colleague.token, method: "POST" })),
			await masked(await call(`${base()}/sessions/${sessionId}/end`, { token: colleague.token, method: "POST" })),
		];
	}

	it("a colleague cannot tell my session id from an unused one, and posting to it makes their own session", async () => {
		const mine = "9d5e2f10-aaaa-4bbb-8ccc-000000000001";
		expect((await transcript(tenant.token, mine, "my first prompt")).status).toBe(200);
		expect(await probe(mine)).toEqual(await probe("9d5e2f10-aaaa-4bbb-8ccc-0000000000ff"));

		// Posting under my id answers exactly as for a new id, and neither claims nor touches mine.
		const posted = await transcript(colleague.token, mine, "their prompt");
		const fresh = await transcript(colleague.token, "9d5e2f10-aaaa-4bbb-8ccc-0000000000fe", "their prompt");
		expect(posted.status).toBe(200);
		expect(await posted.json()).toEqual(await fresh.json());
		const theirs = await json(await call(`${base()}/sessions/${mine}`, { token: colleague.token }));
		expect(theirs.session).toMatchObject({ id: mine, turns: 1 });
		const own = await json(await call(`${base()}/sessions/${mine}`, { token: tenant.token }));
		expect(own.session).toMatchObject({ id: mine, turns: 1 });
		expect((await transcript(tenant.token, mine, "my second prompt")).status).toBe(200);
		expect((await json(await call(`${base()}/sessions/${mine}`, { token: tenant.token }))).session.turns).toBe(2);
		expect((await json(await call(`${base()}/sessions/${mine}`, { token: colleague.token }))).session.turns).toBe(1);
		const listed = (await json(await call(`${base()}/sessions`, { token: colleague.token }))).sessions.map((s: Loose) => s.id).sort();
		expect(listed).toEqual([mine, "9d5e2f10-aaaa-4bbb-8ccc-0000000000fe"].sort());
	});

	it("an agent write naming my session id is the colleague's own: accepted, and my session is not marked", async () => {
		const mine = "9d5e2f10-aaaa-4bbb-8ccc-000000000002";
		expect((await transcript(tenant.token, mine, "hello")).status).toBe(200);
		const res = await putMemory(colleague.token, projectId, "their-note", "Theirs.", { headers: { "X-Cairn-Session": mine } });
		expect(res.status).toBe(201);
		const history = await json(await call(`${base()}/memories/their-note/history`, { token: colleague.token }));
		expect(history.versions[0]).toMatchObject({ source: "agent", sessionId: mine });
		// Stored against the colleague's own session of that id, not mine.
		const row = await projectDb(projectId)
			.prepare("SELECT session_id FROM memories WHERE project_id = ? AND name = 'their-note'")
			.bind(projectId)
			.first<{ session_id: string }>();
		expect(row?.session_id).not.toBe(mine);
		await expectError(await call(`${base()}/sessions/${mine}x`, { token: colleague.token }), 404, "not_found");
	});
});
