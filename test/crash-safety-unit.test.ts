import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sweepOrphans } from "../src/maintenance/sweep";
import { objectKey } from "../src/memory/paths";
import { getMemoryRow, listVersions, type ProjectContext, readMemoryContent, writeMemory } from "../src/memory/store";
import type { TopicFile } from "../src/memory/topic-file";
import { call, createProject, createTenant } from "./helpers";

let ctx: ProjectContext;
let token: string;
const file = (body: string): TopicFile => ({ name: "runbook", type: "reference", description: "How to restart the API", body });

beforeAll(async () => {
	const tenant = await createTenant();
	token = tenant.token;
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: await createProject(tenant.token) };
});

async function objectCount() {
	return (await env.FILES.list({ prefix: `tenants/${ctx.tenantId}/projects/${ctx.projectId}/objects/` })).objects.length;
}

describe("crash safety of the write path", () => {
	it("a failure after the R2 put leaves the old version whole and an orphan that the sweep removes", async () => {
		await writeMemory(env, ctx, { scope: "personal", source: "user", file: file("Restart with systemctl restart api.") });
		const before = await getMemoryRow(env.DB, ctx, "personal", "runbook");
		expect(before?.version).toBe(1);

		const crash = writeMemory(
			env,
			ctx,
			{ scope: "personal", source: "user", file: file("Restart with kubectl rollout restart.") },
			{
				afterObjectPut: () => {
					throw new Error("injected crash between R2 and D1");
				},
			},
		);
		await expect(crash).rejects.toThrow("injected crash");

		// D1 still points at version 1, whose object is intact and readable.
		const after = await getMemoryRow(env.DB, ctx, "personal", "runbook");
		expect(after).toEqual(before);
		expect(await readMemoryContent(env, ctx, after as NonNullable<typeof after>)).toContain("systemctl");
		expect((await listVersions(env.DB, before?.id ?? 0)).map((v) => v.version)).toEqual([1]);
		const fts = await env.DB.prepare("SELECT body FROM memories_fts WHERE rowid = ?").bind(before?.id).first<{ body: string }>();
		expect(fts?.body).toContain("systemctl");
		// Through the API as well.
		const api = await call(`/v1/projects/${ctx.projectId}/memories/runbook`, { token });
		expect(api.headers.get("ETag")).toBe('"1"');
		expect(await api.text()).toContain("systemctl");

		// The new object exists but nothing references it; the sweep removes it and only it.
		expect(await objectCount()).toBe(2);
		const removed = await sweepOrphans(env, { graceMs: 0 });
		expect(removed).toBe(1);
		expect(await objectCount()).toBe(1);
		expect(await env.FILES.head(objectKey(ctx.tenantId, ctx.projectId, before?.content_hash ?? ""))).not.toBeNull();

		// A retry after the crash succeeds and history is continuous.
		const retry = await writeMemory(env, ctx, { scope: "personal", source: "user", file: file("Restart with kubectl rollout restart.") });
		expect(retry).toMatchObject({ status: "updated", memory: { version: 2 } });
	});

	it("a failed first write leaves no memory row at all", async () => {
		const crash = writeMemory(
			env,
			ctx,
			{ scope: "team", source: "agent", sessionId: "s-9", file: { ...file("never lands"), name: "ghost" } },
			{
				afterObjectPut: () => {
					throw new Error("injected crash");
				},
			},
		);
		await expect(crash).rejects.toThrow("injected crash");
		expect(await getMemoryRow(env.DB, ctx, "team", "ghost")).toBeNull();
		const visible = await env.DB.prepare("SELECT COUNT(*) AS n FROM memory_visibility WHERE project_id = ? AND scope = 'team'")
			.bind(ctx.projectId)
			.first<{ n: number }>();
		expect(visible?.n).toBe(0);
		const fts = await env.DB.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE name = 'ghost'").first<{ n: number }>();
		expect(fts?.n).toBe(0);
	});

	it("the sweep keeps young objects, which may belong to a write still in flight", async () => {
		const key = objectKey(ctx.tenantId, ctx.projectId, "f".repeat(64));
		await env.FILES.put(key, "in flight");
		expect(await sweepOrphans(env)).toBe(0);
		expect(await env.FILES.head(key)).not.toBeNull();
		expect(await sweepOrphans(env, { now: Date.now() + 2 * 60 * 60 * 1000 })).toBeGreaterThanOrEqual(1);
		expect(await env.FILES.head(key)).toBeNull();
	});

	it("a concurrent writer with the same base version loses with a conflict, not a lost update", async () => {
		const results = await Promise.allSettled(
			["A", "B", "C"].map((who) =>
				writeMemory(env, ctx, { scope: "personal", source: "user", file: { ...file(`writer ${who}`), name: "contended" } }),
			),
		);
		const ok = results.filter((r) => r.status === "fulfilled");
		expect(ok.length).toBeGreaterThanOrEqual(1);
		const row = await getMemoryRow(env.DB, ctx, "personal", "contended");
		const versions = await listVersions(env.DB, row?.id ?? 0);
		// Every successful write is a version; none vanished silently.
		expect(versions.length).toBe(ok.length);
		expect(row?.version).toBe(ok.length);
		for (const r of results) if (r.status === "rejected") expect(String(r.reason)).toMatch(/concurrent|changed/);
	});
});
