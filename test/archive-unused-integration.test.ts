// A memory served in many sessions and never cited or read is proposed for archiving in its owner's
// review queue by the cron's sweep; nothing is archived or deleted until a person approves, an archived
// memory is no longer served but stays readable and in history, and rejecting restarts the count.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { proposeArchives } from "../src/maintenance/archive-unused";
import { projectStore } from "../src/project/client";
import type { ProjectCoordinator } from "../src/project/object";
import { ORPHAN_GRACE_MS } from "../src/storage/content-holds";
import { call, createProject, createTenant, expectError, json, type Loose, putMemory, type Tenant, until } from "./helpers";

let tenant: Tenant;
let projectId: string;
const base = () => `/v1/projects/${projectId}`;

/** One Claude Code session's transcript: the user's request and the agent's reply, as Claude Code writes them. */
function transcript(sessionId: string, reply: string): string {
	const record = (uuid: string, parent: string | null, type: "user" | "assistant", message: Loose, extra: Loose = {}) => ({
		parentUuid: parent,
		isSidechain: false,
		userType: "external",
		cwd: "/home/dev/shop",
		sessionId,
		version: "2.1.197",
		gitBranch: "main",
		entrypoint: "cli",
		type,
		message,
		...extra,
		uuid,
		timestamp: new Date().toISOString(),
	});
	return [
		record(`${sessionId}-u1`, null, "user", { role: "user", content: "Move the release to Thursday." }, { origin: { kind: "human" } }),
		record(`${sessionId}-a1`, `${sessionId}-u1`, "assistant", {
			id: `msg_${sessionId}`,
			type: "message",
			role: "assistant",
			model: "claude-opus-4-5",
			content: [{ type: "text", text: reply }],
			stop_reason: "end_turn",
		}),
	]
		.map((r) => JSON.stringify(r))
		.join("\n");
}

/** Sessions that were handed the deploy-window memories at their start and posted their transcripts. */
async function sessions(ids: string[], reply = (_id: string) => "Moved it to Thursday.", query = "deploy window rules") {
	for (const id of ids) {
		expect((await call(`${base()}/inject`, { token: tenant.token, json: { query, sessionId: id } })).status).toBe(200);
		const res = await call(`${base()}/sessions/${id}/transcript`, {
			token: tenant.token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: transcript(id, reply(id)),
		});
		expect(res.status).toBe(200);
	}
}

const range = (prefix: string, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `${prefix}-${from + i}`);

const memory = async (name: string, scope = "personal", token = tenant.token): Promise<Loose> => {
	const res = await call(`${base()}/memories/${name}?scope=${scope}`, { token, headers: { Accept: "application/json" } });
	expect(res.status, name).toBe(200);
	return (await json(res)).memory;
};
const servedIn = (name: string, n: number, scope = "personal") =>
	until(
		() => memory(name, scope),
		(m) => m.sessionsServed >= n,
	);
const sweep = () => projectStore(env, projectId).sweep(projectId, tenant.tenantId, Date.now(), ORPHAN_GRACE_MS);
const archiveItems = async (token = tenant.token, status = "pending"): Promise<Loose[]> =>
	(await json(await call(`${base()}/reviews?kind=archive&status=${status}`, { token }))).items;
const decide = (id: string, decision: "approve" | "reject", token = tenant.token) =>
	call(`${base()}/reviews/${id}/${decision}`, { method: "POST", token });
const recalled = async (query: string): Promise<string[]> =>
	((await json(await call(`${base()}/recall`, { token: tenant.token, json: { query } }))).memories as Loose[]).map((m) => m.name);
const indexText = async () => (await call(`${base()}/index`, { token: tenant.token })).text();
const setting = (value: unknown) =>
	call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.archiveUnusedAfterSessions": value } });

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("proposing unused memories for archiving", () => {
	it("served in 20 sessions and never cited or read: proposed once, to its owner; archived only on approval, and never deleted", async () => {
		const put = (name: string, description: string, body: string, scope = "personal") =>
			putMemory(tenant.token, projectId, name, body, { description, scope, type: "project" });
		expect((await put("deploy-window", "Deploy window rules", "Deploys run Tuesday to Thursday.")).status).toBe(201);
		expect((await put("deploy-exceptions", "Deploy window exceptions", "Hotfixes may deploy any day.")).status).toBe(201);
		expect((await put("lint-config", "Lint config with Biome", "Biome, not ESLint.")).status).toBe(201);

		// 19 sessions: one of them cites deploy-exceptions in the agent's reply.
		await sessions(range("s", 1, 19), (id) =>
			id === "s-7" ? "Per memory://root/deploy-exceptions.md a hotfix may go out today." : "Moved it to Thursday.",
		);
		// lint-config is served in 25 sessions that never posted a transcript: their use could not be seen.
		for (const id of range("bare", 1, 25))
			expect((await call(`${base()}/inject`, { token: tenant.token, json: { query: "lint config biome", sessionId: id } })).status).toBe(
				200,
			);
		await servedIn("deploy-window", 19);
		await servedIn("lint-config", 25);
		await sweep();
		expect(await archiveItems()).toEqual([]);

		await sessions(["s-20"]);
		await servedIn("deploy-window", 20);
		await sweep();
		await sweep();
		const items = await archiveItems();
		expect(items).toHaveLength(1);
		const [item] = items as [Loose];
		expect(item).toMatchObject({
			kind: "archive",
			status: "pending",
			memory: { name: "deploy-window", scope: "personal", baseVersion: 1, currentVersion: 1 },
			proposal: { op: "archive", type: null, body: null },
			evidence: ["served-sessions:20", "cited:0", "read:0"],
		});
		expect(item.reason).toContain("never cited or read");
		expect(await memory("deploy-exceptions")).toMatchObject({ sessionsServed: 20, sessionsCited: 1 });
		// Proposed, not acted on: still served and whole.
		expect(await memory("deploy-window")).toMatchObject({ archivedAt: null, version: 1 });
		expect(await recalled("deploy window rules")).toContain("deploy-window");

		// Deciding needs the owner and the write scope, as every review decision does.
		const bob = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bob" } }))).key.token;
		expect(await archiveItems(bob)).toEqual([]);
		await expectError(await decide(item.id, "approve", bob), 404, "not_found");
		const readOnly = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key.token;
		await expectError(await decide(item.id, "approve", readOnly), 403, "forbidden");
		await expectError(await call(`${base()}/reviews/${item.id}/approve`, { method: "POST" }), 401, "unauthorized");
		expect(await memory("deploy-window")).toMatchObject({ archivedAt: null });

		const approved = await json(await decide(item.id, "approve"));
		expect(approved).toMatchObject({ item: { status: "approved", decidedBy: tenant.userId }, memory: { name: "deploy-window" } });
		expect(approved.memory.archivedAt).toEqual(expect.any(String));
		await expectError(await decide(item.id, "approve"), 409, "conflict");

		// Archived: no longer served by recall, inject or the index; still readable, listed and in history.
		expect(await recalled("deploy window rules")).not.toContain("deploy-window");
		const block = await json(await call(`${base()}/inject`, { token: tenant.token, json: { query: "deploy window rules" } }));
		expect(block.text).not.toContain("memory://root/deploy-window.md");
		expect(await indexText()).not.toContain("deploy-window");
		expect(await indexText()).toContain("deploy-exceptions");
		expect(await memory("deploy-window")).toMatchObject({ version: 1, sessionsServed: 20, body: "Deploys run Tuesday to Thursday.\n" });
		const resolved = await call(`${base()}/resolve?url=${encodeURIComponent("memory://root/deploy-window.md")}`, { token: tenant.token });
		expect(await resolved.text()).toContain("Deploys run Tuesday to Thursday.");
		expect((await json(await call(`${base()}/memories/deploy-window/history`, { token: tenant.token }))).versions).toHaveLength(1);
		const listed = (await json(await call(`${base()}/memories`, { token: tenant.token }))).memories as Loose[];
		expect(listed.map((m) => m.name).sort()).toEqual(["deploy-exceptions", "deploy-window", "lint-config"]);
		const events = (await json(await call(`${base()}/memories/deploy-window/events`, { token: tenant.token }))).events as Loose[];
		expect(events[0]).toMatchObject({ op: "review-archive", outcome: "approved" });
		await sweep();
		expect(await archiveItems()).toEqual([]);

		// A restore serves it again.
		const restored = await call(`${base()}/memories/deploy-window/restore`, { method: "POST", token: tenant.token });
		expect(restored.status).toBe(200);
		expect((await json(restored)).memory).toMatchObject({ archivedAt: null, version: 1 });
		expect(await recalled("deploy window rules")).toContain("deploy-window");
		expect(await indexText()).toContain("deploy-window");
	});

	it("rejecting keeps the memory and restarts the count; a memory changed since the proposal is a conflict; the setting tunes or stops it", async () => {
		expect((await setting(2)).status).toBe(200);
		expect(
			(
				await putMemory(tenant.token, projectId, "deploy-window", "Deploys run Tuesday to Thursday.", {
					description: "Deploy window rules",
				})
			).status,
		).toBe(201);
		await sessions(["r-1", "r-2"]);
		await servedIn("deploy-window", 2);
		await sweep();
		const [first] = (await archiveItems()) as [Loose];
		expect(first).toMatchObject({ memory: { name: "deploy-window" }, evidence: ["served-sessions:2", "cited:0", "read:0"] });

		const rejected = await json(await decide(first.id, "reject"));
		expect(rejected).toMatchObject({ item: { status: "rejected" }, memory: { name: "deploy-window", archivedAt: null } });
		// The sessions before the decision no longer count.
		await sweep();
		expect(await archiveItems()).toEqual([]);
		await sessions(["r-3"]);
		await servedIn("deploy-window", 3);
		await sweep();
		expect(await archiveItems()).toEqual([]);
		await sessions(["r-4"]);
		await servedIn("deploy-window", 4);
		await sweep();
		const [second] = (await archiveItems()) as [Loose];
		expect(second).toMatchObject({
			memory: { name: "deploy-window", baseVersion: 1 },
			evidence: ["served-sessions:2", "cited:0", "read:0"],
		});
		expect(second.reason).toContain("since the last decision");

		// Changed since it was proposed: nothing is archived, the item stays pending.
		expect(
			(await putMemory(tenant.token, projectId, "deploy-window", "Deploys run Monday to Thursday.", { description: "Deploy window rules" }))
				.status,
		).toBe(200);
		await expectError(await decide(second.id, "approve"), 412, "version_conflict");
		expect(await memory("deploy-window")).toMatchObject({ archivedAt: null, version: 2 });
		expect((await archiveItems()).map((i) => i.id)).toEqual([second.id]);

		// 0 stops the proposals; the setting is checked like every other.
		await decide(second.id, "reject");
		expect((await setting(0)).status).toBe(200);
		await sessions(["r-5", "r-6", "r-7"]);
		await servedIn("deploy-window", 7);
		await sweep();
		expect(await archiveItems()).toEqual([]);
		for (const bad of [-1, 1.5, "20", 10_001, true]) await expectError(await setting(bad), 400, "invalid_request");
	});

	it("a team memory's proposal goes to its last author; archiving it needs team memory on; a new version serves it again", async () => {
		expect((await setting(2)).status).toBe(200);
		expect(
			(
				await putMemory(tenant.token, projectId, "deploy-window", "Deploys run Tuesday to Thursday.", {
					description: "Deploy window rules",
					scope: "team",
				})
			).status,
		).toBe(201);
		await sessions(["t-1", "t-2"]);
		await servedIn("deploy-window", 2, "team");
		await sweep();
		const [item] = (await archiveItems()) as [Loose];
		expect(item).toMatchObject({ memory: { name: "deploy-window", scope: "team" } });

		await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.teamMemory": false } });
		await expectError(await decide(item.id, "approve"), 403, "feature_disabled");
		await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.teamMemory": true } });
		expect((await json(await decide(item.id, "approve"))).memory.archivedAt).toEqual(expect.any(String));
		expect(await recalled("deploy window rules")).not.toContain("deploy-window");

		expect(
			(
				await putMemory(tenant.token, projectId, "deploy-window", "Deploys run Monday to Thursday.", {
					description: "Deploy window rules",
					scope: "team",
				})
			).status,
		).toBe(200);
		expect(await memory("deploy-window", "team")).toMatchObject({ archivedAt: null, version: 2 });
		expect(await recalled("deploy window rules")).toContain("deploy-window");
	});
});

describe("the sweep's pages", () => {
	it("a visit examines a page of candidates and the next goes on after it, wrapping around at the end", async () => {
		expect((await setting(1)).status).toBe(200);
		for (const name of ["deploy-window", "deploy-days"])
			expect(
				(await putMemory(tenant.token, projectId, name, "Deploys run Tuesday to Thursday.", { description: "Deploy window rules" })).status,
			).toBe(201);
		await sessions(["p-1"]);
		await servedIn("deploy-days", 1);
		await servedIn("deploy-window", 1);
		const visit = () =>
			runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (i: ProjectCoordinator, state) =>
				proposeArchives(i.penv, projectId, tenant.tenantId, state.storage, { limit: 1 }),
			);
		expect(await visit()).toEqual({ examined: 1, queued: 1 });
		expect((await archiveItems()).map((i) => i.memory.name)).toEqual(["deploy-window"]);
		expect(await visit()).toEqual({ examined: 1, queued: 1 });
		// The end of the list: the next visit starts over, and what is pending is not proposed twice.
		expect(await visit()).toEqual({ examined: 0, queued: 0 });
		expect(await visit()).toEqual({ examined: 0, queued: 0 });
		expect((await archiveItems()).map((i) => i.memory.name).sort()).toEqual(["deploy-days", "deploy-window"]);
	});
});

describe("POST …/memories/:name/restore", () => {
	it("refuses bad input and callers without the write scope; a memory not archived comes back unchanged", async () => {
		expect((await putMemory(tenant.token, projectId, "deploy-window")).status).toBe(201);
		const restore = (name: string, query = "", token: string | null = tenant.token) =>
			call(`${base()}/memories/${name}/restore${query}`, { method: "POST", token });
		expect(await json(await restore("deploy-window"))).toMatchObject({ memory: { name: "deploy-window", archivedAt: null, version: 1 } });
		await expectError(await restore("Not_A_Name"), 400, "invalid_name");
		await expectError(await restore("deploy-window", "?scope=everyone"), 400, "invalid_request");
		await expectError(await restore("no-such-memory"), 404, "not_found");
		await expectError(await restore("deploy-window", "?scope=team"), 404, "not_found");
		await expectError(await restore("deploy-window", "", null), 401, "unauthorized");
		const readOnly = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key.token;
		await expectError(await restore("deploy-window", "", readOnly), 403, "forbidden");
	});
});
