import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { sweepProjectOrphans } from "../src/maintenance/sweep";
import { objectKey } from "../src/memory/paths";
import { getMemoryRow, listVersions, readMemoryContent, type WriteFaults, type WriteInput, writeMemory } from "../src/memory/store";
import type { MemoryScope, TopicFile } from "../src/memory/topic-file";
import type { ProjectCoordinator } from "../src/project/object";
import { ORPHAN_GRACE_MS } from "../src/storage/content-holds";
import type { ProjectContext } from "../src/storage/context";
import { sweepSlice } from "../src/worker/cron";
import { call, createProject, createTenant, projectDb } from "./helpers";

let ctx: ProjectContext;
let token: string;
const file = (body: string): TopicFile => ({ name: "runbook", type: "reference", description: "How to restart the API", body });

beforeAll(async () => {
	const tenant = await createTenant();
	token = tenant.token;
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: await createProject(tenant.token) };
});

/** Runs `fn` inside the project's object, where its memories live. */
const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(ctx.projectId), fn);
const write = (input: WriteInput, faults?: WriteFaults) => inProject((i) => writeMemory(i.penv, ctx, input, faults));
const memoryRow = (scope: MemoryScope, name: string) => inProject((i) => getMemoryRow(i.db, ctx, scope, name));
const versions = (memoryId: number) => inProject((i) => listVersions(i.db, memoryId));
/** The project's orphan sweep, as the cron runs it in the project's object. */
const sweep = (now = Date.now(), graceMs = ORPHAN_GRACE_MS) =>
	inProject((i) => sweepProjectOrphans(i.penv, ctx.projectId, ctx.tenantId, now, graceMs));

async function objectCount() {
	return (await env.FILES.list({ prefix: `tenants/${ctx.tenantId}/projects/${ctx.projectId}/objects/` })).objects.length;
}

describe("crash safety of the write path", () => {
	it("a failure after the R2 put leaves the old version whole and an orphan that the sweep removes", async () => {
		await write({ scope: "personal", source: "user", file: file("Restart with systemctl restart api.") });
		const before = await memoryRow("personal", "runbook");
		expect(before?.version).toBe(1);

		const crash = write(
			{ scope: "personal", source: "user", file: file("Restart with kubectl rollout restart.") },
			{
				afterObjectPut: () => {
					throw new Error("injected crash between R2 and the database");
				},
			},
		);
		await expect(crash).rejects.toThrow("injected crash");

		// The project's database still points at version 1, whose object is intact and readable.
		const after = await memoryRow("personal", "runbook");
		expect(after).toEqual(before);
		expect(await readMemoryContent(env, ctx, after as NonNullable<typeof after>)).toContain("systemctl");
		expect((await versions(before?.id ?? 0)).map((v) => v.version)).toEqual([1]);
		const fts = await projectDb(ctx.projectId)
			.prepare("SELECT body FROM memories_fts WHERE rowid = ?")
			.bind(before?.id)
			.first<{ body: string }>();
		expect(fts?.body).toContain("systemctl");
		// Through the API as well.
		const api = await call(`/v1/projects/${ctx.projectId}/memories/runbook`, { token });
		expect(api.headers.get("ETag")).toBe('"1"');
		expect(await api.text()).toContain("systemctl");

		// The new object exists but nothing references it; the sweep removes it and only it.
		expect(await objectCount()).toBe(2);
		const removed = await sweep(Date.now(), 0);
		expect(removed).toBe(1);
		expect(await objectCount()).toBe(1);
		expect(await env.FILES.head(objectKey(ctx.tenantId, ctx.projectId, before?.content_hash ?? ""))).not.toBeNull();

		// A retry after the crash succeeds and history is continuous.
		const retry = await write({ scope: "personal", source: "user", file: file("Restart with kubectl rollout restart.") });
		expect(retry).toMatchObject({ status: "updated", memory: { version: 2 } });
	});

	it("a failed first write leaves no memory row at all", async () => {
		const crash = write(
			{ scope: "team", source: "agent", sessionId: "s-9", file: { ...file("never lands"), name: "ghost" } },
			{
				afterObjectPut: () => {
					throw new Error("injected crash");
				},
			},
		);
		await expect(crash).rejects.toThrow("injected crash");
		expect(await memoryRow("team", "ghost")).toBeNull();
		const visible = await projectDb(ctx.projectId)
			.prepare("SELECT COUNT(*) AS n FROM memory_visibility WHERE project_id = ? AND scope = 'team'")
			.bind(ctx.projectId)
			.first<{ n: number }>();
		expect(visible?.n).toBe(0);
		const fts = await projectDb(ctx.projectId)
			.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE name = 'ghost'")
			.first<{ n: number }>();
		expect(fts?.n).toBe(0);
	});

	it("the sweep keeps young objects, which may belong to a write still in flight", async () => {
		const key = objectKey(ctx.tenantId, ctx.projectId, "f".repeat(64));
		await env.FILES.put(key, "in flight");
		expect(await sweep()).toBe(0);
		expect(await env.FILES.head(key)).not.toBeNull();
		expect(await sweep(Date.now() + 2 * 60 * 60 * 1000)).toBeGreaterThanOrEqual(1);
		expect(await env.FILES.head(key)).toBeNull();
	});

	it("the cron's sweep reaches the project: it removes old orphans and keeps live content", async () => {
		const key = objectKey(ctx.tenantId, ctx.projectId, "e".repeat(64));
		await env.FILES.put(key, "left over");
		// A limit above the number of projects: this run's slice covers every project.
		const young = await sweepSlice(env, { limit: 10_000 });
		expect(young.projects).toBeGreaterThanOrEqual(1);
		expect(await env.FILES.head(key)).not.toBeNull();
		const old = await sweepSlice(env, { now: Date.now() + 2 * 60 * 60 * 1000, limit: 10_000 });
		expect(old.removed).toBeGreaterThanOrEqual(1);
		expect(await env.FILES.head(key)).toBeNull();
		const live = await memoryRow("personal", "runbook");
		expect(await env.FILES.head(objectKey(ctx.tenantId, ctx.projectId, live?.content_hash ?? ""))).not.toBeNull();
		expect((await call(`/v1/projects/${ctx.projectId}/memories/runbook`, { token })).status).toBe(200);
	});

	it("a concurrent writer with the same base version loses with a conflict, not a lost update", async () => {
		const results = await Promise.allSettled(
			["A", "B", "C"].map((who) => write({ scope: "personal", source: "user", file: { ...file(`writer ${who}`), name: "contended" } })),
		);
		const ok = results.filter((r) => r.status === "fulfilled");
		expect(ok.length).toBeGreaterThanOrEqual(1);
		const row = await memoryRow("personal", "contended");
		const history = await versions(row?.id ?? 0);
		// Every successful write is a version; none vanished silently.
		expect(history.length).toBe(ok.length);
		expect(row?.version).toBe(ok.length);
		for (const r of results) if (r.status === "rejected") expect(String(r.reason)).toMatch(/concurrent|changed/);
	});
});
