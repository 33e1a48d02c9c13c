import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import { consolidateProject } from "../src/consolidate/run";
import { sweepProjectOrphans } from "../src/maintenance/sweep";
import { clearProjectMemory } from "../src/memory/clear";
import { objectKey, summaryKey } from "../src/memory/paths";
import { deleteMemory, getMemoryRow, readMemoryContent, writeMemory } from "../src/memory/store";
import type { TopicFile } from "../src/memory/topic-file";
import { processRange } from "../src/pipeline/consumer";
import type { ProjectCoordinator } from "../src/project/object";
import { ORPHAN_GRACE_MS } from "../src/storage/content-holds";
import type { ProjectContext } from "../src/storage/context";
import { call, createProject, createTenant, projectDb } from "./helpers";

let ctx: ProjectContext;
let token: string;

beforeEach(async () => {
	const tenant = await createTenant();
	token = tenant.token;
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: await createProject(tenant.token) };
});

const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(ctx.projectId), fn);
const file = (name: string, body: string): TopicFile => ({ name, type: "project", description: `About ${name}`, body });

async function leftovers(memoryId: number) {
	const db = projectDb(ctx.projectId);
	const count = async (sql: string) => (await db.prepare(sql).bind(memoryId).first<{ n: number }>())?.n ?? 0;
	return {
		versions: await count("SELECT count(*) AS n FROM memory_versions WHERE memory_id = ?"),
		fts: await count("SELECT count(*) AS n FROM memories_fts WHERE rowid = ?"),
		visibility: await count("SELECT count(*) AS n FROM memory_visibility WHERE memory_id = ?"),
		memories: await count("SELECT count(*) AS n FROM memories WHERE id = ?"),
	};
}

describe("orphan sweep against a writer re-putting an old object", () => {
	it("a sweep between the writer's put and its commit never deletes the object the memory then points at", async () => {
		const content = "The deploy pipeline lives in the infra repository.";
		await inProject((i) => writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("deploys", content) }));
		await inProject((i) => deleteMemory(i.penv, ctx, "personal", "deploys")); // its object is now unreferenced
		let swept = -1;
		const written = await inProject((i) =>
			writeMemory(
				i.penv,
				ctx,
				{ scope: "personal", source: "user", file: file("deploys", content) },
				{
					// The sweep runs while the identical re-write is between its R2 put and its commit; its
					// clock is past the grace period, as for a listing made before the re-put.
					afterObjectPut: async () => {
						swept = await sweepProjectOrphans(i.penv, ctx.projectId, ctx.tenantId, Date.now() + 2 * ORPHAN_GRACE_MS, ORPHAN_GRACE_MS);
					},
				},
			),
		);
		expect(written.status).toBe("created");
		expect(swept).toBe(0);
		const row = await inProject((i) => getMemoryRow(i.db, ctx, "personal", "deploys"));
		expect(row).not.toBeNull();
		expect(await env.FILES.head(objectKey(ctx.tenantId, ctx.projectId, row?.content_hash ?? ""))).not.toBeNull();
		expect(await readMemoryContent(env, ctx, row as NonNullable<typeof row>)).toContain("infra repository");
		// Once committed it is live, and a later sweep keeps it too.
		expect(
			await inProject((i) => sweepProjectOrphans(i.penv, ctx.projectId, ctx.tenantId, Date.now() + 2 * ORPHAN_GRACE_MS, ORPHAN_GRACE_MS)),
		).toBe(0);
		expect(await env.FILES.head(objectKey(ctx.tenantId, ctx.projectId, row?.content_hash ?? ""))).not.toBeNull();
	});

	it("still removes real orphans", async () => {
		await inProject((i) => writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("gone", "Old text.") }));
		await inProject((i) => deleteMemory(i.penv, ctx, "personal", "gone"));
		expect(await inProject((i) => sweepProjectOrphans(i.penv, ctx.projectId, ctx.tenantId, Date.now(), 0))).toBe(1);
	});
});

describe("update and delete of the same memory", () => {
	it("a delete that lands while an update awaits its R2 put leaves no version, search or visibility rows", async () => {
		const first = await inProject((i) =>
			writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("ports", "API on 8080.") }),
		);
		const id = (await inProject((i) => getMemoryRow(i.db, ctx, "personal", "ports")))?.id ?? 0;
		expect(first.status).toBe("created");
		const update = inProject((i) =>
			writeMemory(
				i.penv,
				ctx,
				{ scope: "personal", source: "user", file: file("ports", "API on 9090.") },
				{ afterObjectPut: () => deleteMemory(i.penv, ctx, "personal", "ports") },
			),
		);
		await expect(update).rejects.toMatchObject({ code: "version_conflict" });
		expect(await leftovers(id)).toEqual({ versions: 0, fts: 0, visibility: 0, memories: 0 });
		// Recall finds nothing of it.
		const recalled = await call(`/v1/projects/${ctx.projectId}/recall`, { token, json: { query: "API 9090" } });
		expect(JSON.stringify(await recalled.json())).not.toContain("ports");
	});

	it("updates racing without If-Match all land, one after another, each its own version; the last committed is the text", async () => {
		await inProject((i) => writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("owner", "Billing owns it.") }));
		const texts = ["Payments owns it.", "Ledger owns it.", "Treasury owns it."];
		const results = await inProject((i) =>
			Promise.all(texts.map((t) => writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("owner", t) }))),
		);
		expect(results.map((r) => r.status)).toEqual(["updated", "updated", "updated"]);
		expect(results.map((r) => r.memory.version).sort()).toEqual([2, 3, 4]);
		const row = await inProject((i) => getMemoryRow(i.db, ctx, "personal", "owner"));
		expect(row?.version).toBe(4);
		expect((await leftovers(row?.id ?? 0)).versions).toBe(4);
		const last = results.find((r) => r.memory.version === 4);
		const content = await readMemoryContent(env, ctx, row as NonNullable<typeof row>);
		expect(content).toContain(texts[results.indexOf(last as (typeof results)[number])]);
	});

	it("an update with If-Match that another update overtakes is refused, and nothing of it is stored", async () => {
		await inProject((i) => writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("owner", "Billing owns it.") }));
		const stale = inProject((i) =>
			writeMemory(
				i.penv,
				ctx,
				{ scope: "personal", source: "user", file: file("owner", "Payments owns it."), ifMatch: 1 },
				{
					afterObjectPut: () =>
						writeMemory(i.penv, ctx, { scope: "personal", source: "user", file: file("owner", "Ledger owns it.") }).then(() => undefined),
				},
			),
		);
		await expect(stale).rejects.toMatchObject({ code: "version_conflict" });
		const row = await inProject((i) => getMemoryRow(i.db, ctx, "personal", "owner"));
		expect(row?.version).toBe(2);
		expect(await readMemoryContent(env, ctx, row as NonNullable<typeof row>)).toContain("Ledger owns it.");
	});
});

describe("clear during a consolidation run", () => {
	const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

	it("a run that started before the clear writes nothing back", async () => {
		await call(`/v1/projects/${ctx.projectId}/settings`, { token, method: "PUT", json: { "memories.enabled": true } });
		const now = new Date().toISOString();
		const db = projectDb(ctx.projectId);
		await db.batch([
			db
				.prepare(
					`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, updated_at)
					 VALUES (?, 's1', ?, 'generic', ?, ?, 1, 1, ?)`,
				)
				.bind(ctx.projectId, ctx.userId, now, now, now),
			db
				.prepare(
					`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
					 VALUES (?, 's1', 0, 0, ?, 'model', '- pnpm', 'A session.', ?, ?)`,
				)
				.bind(
					ctx.projectId,
					ctx.userId,
					JSON.stringify([
						{ name: "use-pnpm", type: "feedback", description: "Use pnpm", body: "Use pnpm.", evidence: ["t0"], userStated: true },
					]),
					now,
				),
		]);
		const plan = {
			operations: [
				{
					op: "create",
					name: "use-pnpm",
					type: "feedback",
					description: "Use pnpm",
					body: "Use pnpm, never npm.",
					reason: "said",
					evidence: ["s1"],
				},
			],
			skills: [{ name: "release", description: "How to release", body: "## When to use\n\nAlways.\n\n## Procedure\n\n1. tag" }],
			summary: "# Summary\n\n- use pnpm",
		};
		const outcome = await inProject(async (i) => {
			// The clear arrives while the run waits for its model.
			const model = new MockLanguageModelV4({
				doGenerate: async () => {
					await clearProjectMemory(i.penv, ctx);
					return {
						content: [{ type: "text", text: JSON.stringify(plan) }],
						finishReason: { unified: "stop", raw: "stop" },
						usage,
						warnings: [],
					};
				},
			});
			return consolidateProject(i.penv, ctx.projectId, "run-1", { model });
		});
		expect(outcome.changes).toBe(0);
		const count = async (table: string) =>
			(await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(ctx.projectId).first<{ n: number }>())?.n ?? 0;
		expect({
			memories: await count("memories"),
			versions: await count("memory_versions"),
			skills: await count("skills"),
			events: await count("consolidation_events"),
			outputs: await count("stage1_outputs"),
		}).toEqual({ memories: 0, versions: 0, skills: 0, events: 0, outputs: 0 });
		expect(await env.FILES.head(summaryKey(ctx.tenantId, ctx.projectId, ctx.userId))).toBeNull();
	});
});

describe("clear during a stage-1 extraction", () => {
	const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

	it("a range being extracted when the project is cleared writes no output back", async () => {
		await call(`/v1/projects/${ctx.projectId}/settings`, { token, method: "PUT", json: { "memories.enabled": true } });
		const posted = await call(`/v1/projects/${ctx.projectId}/sessions/x1/transcript`, {
			token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: `${JSON.stringify({ id: "1", role: "user", content: "From now on always use pnpm, never npm.", ts: "2026-11-28T10:00:00Z" })}\n`,
		});
		expect(posted.status).toBe(200);
		const answer = {
			raw_memory: "- use pnpm",
			summary: "The user set the package manager.",
			candidates: [{ name: "use-pnpm", type: "feedback", description: "Use pnpm, never npm", body: "Use pnpm.", evidence: ["t0"] }],
		};
		const outcome = await inProject(async (i) => {
			// The clear arrives while the range waits for its model.
			const model = new MockLanguageModelV4({
				doGenerate: async () => {
					await clearProjectMemory(i.penv, ctx);
					return {
						content: [{ type: "text", text: JSON.stringify(answer) }],
						finishReason: { unified: "stop", raw: "stop" },
						usage,
						warnings: [],
					};
				},
			});
			return processRange(
				i.penv,
				{ projectId: ctx.projectId, sessionId: "x1", fromSeq: 0, toSeq: 0 },
				{ model, markDirty: async () => {} },
			);
		});
		expect(outcome).toBe("gone");
		const db = projectDb(ctx.projectId);
		for (const table of ["stage1_outputs", "sessions"]) {
			const n = await db.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(ctx.projectId).first<{ n: number }>();
			expect(n?.n, table).toBe(0);
		}
	});
});
