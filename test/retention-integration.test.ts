/**
 * Transcript retention: the cron's sweep removes old transcript chunks that extraction has consumed,
 * never one a pending range still needs; re-posting the old file adds nothing, and session memory
 * is rebuilt from what remains.
 */
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { projectStore } from "../src/project/client";
import { call, createProject, createTenant, json, projectDb, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
const DAY = 86_400_000;

const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(path, { token: tenant.token, ...init });
const lines = (from: number, to: number) =>
	Array.from({ length: to - from }, (_, k) => {
		const i = from + k;
		return JSON.stringify({
			id: `m${i}`,
			role: i % 2 ? "assistant" : "user",
			content: `message ${i} about the release checklist`,
			ts: "2026-10-01T10:00:00Z",
		});
	}).join("\n");
const post = async (sessionId: string, body: string) =>
	json(
		await api(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, { headers: { "Content-Type": "application/x-ndjson" }, body }),
	);
const chunks = async (sessionId: string) =>
	(
		await projectDb(projectId)
			.prepare("SELECT first_seq, last_seq, object_key FROM session_chunks WHERE project_id = ? AND session_id = ? ORDER BY first_seq")
			.bind(projectId, sessionId)
			.all<{ first_seq: number; last_seq: number; object_key: string }>()
	).results;
const sweep = (now: number) => projectStore(env, projectId).sweep(projectId, tenant.tenantId, now, 3_600_000);

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await api(`/v1/projects/${projectId}/settings`, {
		method: "PUT",
		json: { "memories.enabled": true, "memories.transcriptRetentionDays": 14 },
	});
});

describe("transcript retention", () => {
	it("removes consumed chunks past the retention period and keeps what a pending range needs", async () => {
		// Two posts each: chunks [0-3] and [4-7]. "done" is fully extracted; "pending" only up to turn 4.
		for (const s of ["done", "pending"]) {
			await post(s, lines(0, 4));
			await post(s, lines(4, 8));
		}
		const db = projectDb(projectId);
		await db.prepare("UPDATE sessions SET cursor = 8 WHERE project_id = ? AND id = 'done'").bind(projectId).run();
		await db.prepare("UPDATE sessions SET cursor = 4 WHERE project_id = ? AND id = 'pending'").bind(projectId).run();
		const old = new Date(Date.now() - 20 * DAY).toISOString();
		await db.prepare("UPDATE sessions SET last_activity_at = ? WHERE project_id = ?").bind(old, projectId).run();
		await db.prepare("UPDATE session_chunks SET created_at = ? WHERE project_id = ?").bind(old, projectId).run();
		const before = [...(await chunks("done")), ...(await chunks("pending"))].map((c) => c.object_key);

		// Within the retention period nothing goes.
		await sweep(Date.now() - 10 * DAY);
		expect((await chunks("done")).length).toBe(2);

		await sweep(Date.now());
		expect(await chunks("done")).toEqual([]);
		// The pending range [4, 7] keeps its chunk; the consumed one before it goes.
		expect((await chunks("pending")).map((c) => [c.first_seq, c.last_seq])).toEqual([[4, 7]]);
		const stored = (await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/sessions/` })).objects.map(
			(o) => o.key,
		);
		expect(stored.sort()).toEqual((await chunks("pending")).map((c) => c.object_key).sort());
		expect(before.length).toBe(4);

		// Re-posting the old file adds nothing: the record keys stay.
		expect(await post("done", lines(0, 8))).toMatchObject({ accepted: 0, duplicates: 8, turns: 8 });
		// Session memory works from the turns that remain.
		const memory = await api(`/v1/projects/${projectId}/sessions/pending/memory`);
		expect(memory.status).toBe(200);
		expect(await memory.text()).toContain("message 6");
	});

	it("the retention setting is validated", async () => {
		const res = await api(`/v1/projects/${projectId}/settings`, { method: "PUT", json: { "memories.transcriptRetentionDays": 0 } });
		expect(res.status).toBe(400);
	});
});
