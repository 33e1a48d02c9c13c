import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { benchTranscripts } from "./bench-transcripts";
import { call, createProject, createTenant, expectError, json, type Loose, projectDb, type Tenant, until } from "./helpers";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
const bench = Object.fromEntries(benchTranscripts());
const claudeFixture = own["./fixtures/transcripts/claude-sidechain.jsonl"] as string;

let tenant: Tenant;
let projectId: string;

const post = (sessionId: string, body: string, query = "", token = tenant.token) =>
	call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript${query}`, {
		token,
		headers: { "Content-Type": "application/x-ndjson" },
		body,
	});
const getSession = async (sessionId: string) => call(`/v1/projects/${projectId}/sessions/${sessionId}`, { token: tenant.token });
const listR2 = async (prefix: string) => (await env.FILES.list({ prefix })).objects.map((o) => o.key);

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
});

describe("POST /sessions/:id/transcript", () => {
	it("ingests a whole file; posting it again, or an overlapping tail, adds nothing", async () => {
		const first = await post("fx-claude", claudeFixture);
		expect(first.status).toBe(200);
		expect(await json(first)).toEqual({ accepted: 9, duplicates: 0, skipped: 8, unknown: 1, turns: 9, agent: "claude" });

		const again = await json(await post("fx-claude", claudeFixture));
		expect(again).toMatchObject({ accepted: 0, duplicates: 9, turns: 9 });

		const lines = claudeFixture.trim().split("\n");
		const tail = lines.slice(8).join("\n");
		expect(await json(await post("fx-claude", tail))).toMatchObject({ accepted: 0, turns: 9 });

		const session = (await json(await getSession("fx-claude"))).session;
		expect(session).toMatchObject({
			id: "fx-claude",
			agent: "claude",
			turns: 9,
			cursor: 0,
			status: "active",
			cwd: "/home/dev/shop",
			branch: "main",
			startedAt: "2026-11-01T10:00:01.000Z",
			lastActivityAt: "2026-11-01T10:00:19.000Z",
			extraction: { state: "idle", lastError: null },
		});
	});

	it("every session file posted twice (the real ones and ours): the second post accepts nothing", async () => {
		const files = [...Object.entries(bench), ...Object.entries(own).filter(([p]) => !p.endsWith(".ndjson"))];
		expect(files.length).toBeGreaterThanOrEqual(2);
		for (const [i, [path, text]] of files.entries()) {
			const first = await json(await post(`real-${i}`, text));
			expect(first.accepted, path).toBeGreaterThan(0);
			expect(first.agent).toBe(path.includes("claude") ? "claude" : "codex");
			const second = await json(await post(`real-${i}`, text));
			expect(second, path).toMatchObject({ accepted: 0, duplicates: first.accepted, turns: first.turns });
		}
	});

	it("appends only new lines of a growing file, numbering turns on", async () => {
		const lines = claudeFixture.trim().split("\n");
		const head = await json(await post("grow", lines.slice(0, 7).join("\n")));
		expect(head).toMatchObject({ accepted: 3, turns: 3 });
		const rest = await json(await post("grow", lines.join("\n")));
		expect(rest).toMatchObject({ accepted: 6, duplicates: 3, turns: 9 });
		const chunks = await projectDb(projectId)
			.prepare("SELECT first_seq, last_seq FROM session_chunks WHERE project_id = ? ORDER BY first_seq")
			.bind(projectId)
			.all();
		expect(chunks.results).toEqual([
			{ first_seq: 0, last_seq: 2 },
			{ first_seq: 3, last_seq: 8 },
		]);
	});

	it("concurrent posts of the same file store each turn once", async () => {
		const results = await Promise.all([1, 2, 3].map(() => post("race", claudeFixture)));
		const bodies = await Promise.all(results.map((r) => json(r)));
		expect(results.map((r) => r.status)).toEqual([200, 200, 200]);
		expect(bodies.reduce((n, b) => n + b.accepted, 0)).toBe(9);
		expect((await json(await getSession("race"))).session.turns).toBe(9);
		const keys = await projectDb(projectId)
			.prepare("SELECT count(*) AS n FROM session_records WHERE project_id = ?")
			.bind(projectId)
			.first<{ n: number }>();
		expect(keys?.n).toBe(9);
	});

	it("accepts a real multi-megabyte-scale session file in one request", async () => {
		const file = Object.entries(bench).find(([p]) => p.includes("/claude/"))?.[1] as string;
		// Pad to over 10 MB with records of an unknown type: they are counted, never fatal.
		const filler = `${JSON.stringify({ type: "x-padding", data: "p".repeat(1000) })}\n`;
		const body = `${file}\n${filler.repeat(Math.ceil((10.5 * 1024 * 1024) / filler.length))}`;
		expect(body.length).toBeGreaterThan(10 * 1024 * 1024);
		const res = await post("big", body);
		expect(res.status).toBe(200);
		const out = await json(res);
		expect(out.accepted).toBeGreaterThan(0);
		expect(out.unknown).toBeGreaterThan(10_000);
	});

	it("redacts secrets before the transcript is stored", async () => {
		const key = `sk-ant-api03-${"Zx9".repeat(30)}AA`;
		const body = [
			JSON.stringify({ id: "1", role: "user", content: `deploy with ANTHROPIC_API_KEY=${key} please`, ts: "2026-11-01T00:00:00Z" }),
			JSON.stringify({ id: "2", role: "assistant", content: "Done.", ts: "2026-11-01T00:00:01Z" }),
		].join("\n");
		expect((await json(await post("secret", body))).accepted).toBe(2);
		const keys = await listR2(`tenants/${tenant.tenantId}/projects/${projectId}/sessions/`);
		expect(keys.length).toBe(1);
		const stored = await (await env.FILES.get(keys[0] as string))?.text();
		expect(stored).toContain("[REDACTED:");
		expect(stored).not.toContain(key);
		expect(stored).not.toContain("Zx9Zx9Zx9");
	});

	it("a line that is not JSON is a 400 naming the line, and nothing is stored", async () => {
		const res = await post("bad", `${JSON.stringify({ id: "1", role: "user", content: "hi" })}\n{"id": 2, role\n`);
		const body = await expectError(res, 400, "invalid_request");
		expect(body.error.message).toContain("line 2");
		expect(body.error.message).not.toContain("role");
		expect(body.error.details.line).toBe(2);
		await expectError(await getSession("bad"), 404, "not_found");
		expect(await listR2(`tenants/${tenant.tenantId}/projects/${projectId}/sessions/`)).toEqual([]);
	});

	it("bad input: session id, format, oversized body; another user's id of the same name is another session", async () => {
		await expectError(await post("bad id!", "{}"), 400, "invalid_request");
		await expectError(await post("ok", claudeFixture, "?format=word"), 400, "invalid_request");
		const big = await post("huge", "x".repeat(32 * 1024 * 1024 + 1));
		const tooLarge = await expectError(big, 413, "payload_too_large");
		expect(tooLarge.error.message).toContain(String(32 * 1024 * 1024));

		expect((await post("mine", claudeFixture)).status).toBe(200);
		const other = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "someone-else" } }));
		await expectError(await call(`/v1/projects/${projectId}/sessions/mine`, { token: other.key.token }), 404, "not_found");
		expect((await json(await call(`/v1/projects/${projectId}/sessions`, { token: other.key.token }))).sessions).toEqual([]);
		// Session ids are per user: the other user's post of the same id makes a session of their own.
		const theirs = await post("mine", '{"id":"t1","role":"user","content":"theirs"}', "", other.key.token);
		expect(theirs.status).toBe(200);
		expect((await json(theirs)).accepted).toBe(1);
		const listed = (await json(await call(`/v1/projects/${projectId}/sessions`, { token: other.key.token }))).sessions;
		expect(listed.map((x: Loose) => [x.id, x.turns, x.agent])).toEqual([["mine", 1, "generic"]]);
		const own = await json(await getSession("mine"));
		expect(own.session.agent).toBe("claude");
		expect(own.session.turns).toBeGreaterThan(1);

		const readOnly = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }));
		await expectError(await post("ro", claudeFixture, "", readOnly.key.token), 403, "forbidden");
		expect((await post("mixed", '{"id":"1","role":"user","content":"a"}')).status).toBe(200);
		await expectError(await post("mixed", claudeFixture), 409, "conflict");
	});
});

describe("session registry and triggers", () => {
	const enable = (values: Loose) => call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: values });

	it("lists the caller's sessions, most recent first; GET of an unknown session is 404", async () => {
		await post("older", JSON.stringify({ id: "1", role: "user", content: "a", ts: "2026-10-01T00:00:00Z" }));
		await post("newer", JSON.stringify({ id: "1", role: "user", content: "b", ts: "2026-10-05T00:00:00Z" }));
		const list = await json(await call(`/v1/projects/${projectId}/sessions`, { token: tenant.token }));
		expect(list.sessions.map((s: Loose) => s.id)).toEqual(["newer", "older"]);
		await expectError(await getSession("nope"), 404, "not_found");
		await expectError(await call(`/v1/projects/${projectId}/sessions?limit=0`, { token: tenant.token }), 400, "invalid_request");
	});

	it("end marks the session ended; with memory off nothing is queued", async () => {
		await post("s", claudeFixture);
		const res = await call(`/v1/projects/${projectId}/sessions/s/end`, { token: tenant.token, method: "POST" });
		expect(res.status).toBe(202);
		expect((await json(res)).session).toMatchObject({ status: "ended", extraction: { state: "idle" } });
		await expectError(await call(`/v1/projects/${projectId}/sessions/none/end`, { token: tenant.token, method: "POST" }), 404, "not_found");
	});

	it("end is idempotent: a repeated end (a client retrying one it never saw answered) answers the same and queues nothing twice", async () => {
		await enable({ "memories.enabled": true });
		await post("twice", claudeFixture);
		const first = await call(`/v1/projects/${projectId}/sessions/twice/end`, { token: tenant.token, method: "POST" });
		const second = await call(`/v1/projects/${projectId}/sessions/twice/end`, { token: tenant.token, method: "POST" });
		expect(first.status).toBe(202);
		expect(second.status).toBe(202);
		expect((await json(second)).session).toMatchObject({ id: "twice", status: "ended", turns: 9 });
		// Extracted once: one stage-1 output for the session's one range.
		const done = await until(
			() =>
				projectDb(projectId).prepare("SELECT cursor FROM sessions WHERE project_id = ? AND id = 'twice'").bind(projectId).first<Loose>(),
			(row) => row?.cursor === 9,
		);
		expect(done?.cursor).toBe(9);
		const outputs = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM stage1_outputs WHERE project_id = ? AND session_id = 'twice'")
			.bind(projectId)
			.first<Loose>();
		expect(outputs?.n).toBe(1);
	});

	it("explicit extract is refused while memory is off, then queues every session with unprocessed turns", async () => {
		await post("a", claudeFixture);
		await post("b", own["./fixtures/transcripts/generic.ndjson"] as string);
		const off = await expectError(
			await call(`/v1/projects/${projectId}/extract`, { token: tenant.token, method: "POST" }),
			403,
			"feature_disabled",
		);
		expect(off.error.message).toContain("memories.enabled");
		await enable({ "memories.enabled": true });
		const res = await call(`/v1/projects/${projectId}/extract`, { token: tenant.token, method: "POST" });
		expect(res.status).toBe(202);
		expect(await json(res)).toEqual({ enqueued: 2 });
	});

	it("per-turn mode queues each post with new turns", async () => {
		await enable({ "memories.enabled": true, "memories.extractionTrigger": "per-turn" });
		await post("pt", claudeFixture);
		const state = (await json(await getSession("pt"))).session.extraction.state;
		// Queued, or already processed by the local queue consumer.
		expect(["queued", "idle"]).toContain(state);
		const queued = await projectDb(projectId)
			.prepare("SELECT queued_at, cursor FROM sessions WHERE project_id = ? AND id = 'pt'")
			.bind(projectId)
			.first<Loose>();
		expect(queued?.queued_at !== null || queued?.cursor === 9).toBe(true);
	});
});
