import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import { consolidateProject } from "../src/consolidate/run";
import type { Candidate } from "../src/extract/schema";
import { getMemoryRow, writeMemory } from "../src/memory/store";
import type { ProjectCoordinator } from "../src/project/object";
import type { ProjectContext } from "../src/storage/context";
import { call, createProject, createTenant, projectDb } from "./helpers";

let ctx: ProjectContext;
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(ctx.projectId), fn);

beforeEach(async () => {
	const tenant = await createTenant();
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: await createProject(tenant.token) };
	await call(`/v1/projects/${ctx.projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

async function addOutput(candidates: Candidate[]) {
	const later = new Date(Date.now() + 60_000).toISOString();
	const db = projectDb(ctx.projectId);
	await db.batch([
		db
			.prepare(
				`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, updated_at)
				 VALUES (?, 's1', ?, 'generic', ?, ?, 4, 4, ?)`,
			)
			.bind(ctx.projectId, ctx.userId, later, later, later),
		db
			.prepare(
				`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
				 VALUES (?, 's1', 0, 3, ?, 'model', '', 'A session.', ?, ?)`,
			)
			.bind(ctx.projectId, ctx.userId, JSON.stringify(candidates), later),
	]);
}

const planModel = (plan: unknown) =>
	new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [{ type: "text", text: JSON.stringify(plan) }],
			finishReason: { unified: "stop", raw: "stop" },
			usage,
			warnings: [],
		}),
	});

describe("memories written on purpose against tool-derived material", () => {
	it("an unrelated user statement in the same output does not let a tool-derived change overwrite an explicit memory", async () => {
		await inProject((i) =>
			writeMemory(i.penv, ctx, {
				scope: "personal",
				source: "user",
				file: { name: "testing", type: "feedback", description: "Integration tests hit the real database", body: "Use the real database." },
			}),
		);
		await addOutput([
			{ name: "use-pnpm", type: "feedback", description: "Use pnpm, never npm", body: "Always pnpm.", evidence: ["t0"], userStated: true },
			{
				name: "testing",
				type: "project",
				description: "Integration tests use mocks",
				body: "Integration tests must use mocks (from CONTRIBUTING.md output).",
				evidence: ["t2"],
				userStated: false,
			},
		]);
		const model = planModel({
			operations: [
				{
					op: "update",
					name: "testing",
					type: "feedback",
					description: "Integration tests use mocks",
					body: "Integration tests must use mocks.",
					reason: "seen",
					evidence: ["s1"],
				},
				{
					op: "create",
					name: "use-pnpm",
					type: "feedback",
					description: "Use pnpm, never npm",
					body: "Always pnpm.",
					reason: "said",
					evidence: ["s1"],
				},
			],
			skills: [],
			summary: "",
		});
		await inProject((i) => consolidateProject(i.penv, ctx.projectId, "run-1", { model }));
		const testing = await inProject((i) => getMemoryRow(i.db, ctx, "personal", "testing"));
		expect(testing).toMatchObject({ version: 1, source: "user", description: "Integration tests hit the real database" });
		expect(await inProject((i) => getMemoryRow(i.db, ctx, "personal", "use-pnpm"))).toMatchObject({ version: 1 });
	});

	it("a user statement about the change still updates it", async () => {
		await inProject((i) =>
			writeMemory(i.penv, ctx, {
				scope: "personal",
				source: "user",
				file: { name: "testing", type: "feedback", description: "Integration tests hit the real database", body: "Use the real database." },
			}),
		);
		await addOutput([
			{
				name: "integration-tests-mocks",
				type: "feedback",
				description: "Integration tests may use mocks now",
				body: "Integration tests may use mocks now.",
				evidence: ["t0"],
				userStated: true,
			},
		]);
		const model = planModel({
			operations: [
				{
					op: "update",
					name: "testing",
					type: "feedback",
					description: "Integration tests may use mocks now",
					body: "Integration tests may use mocks now.",
					reason: "the user said so",
					evidence: ["s1"],
				},
			],
			skills: [],
			summary: "",
		});
		await inProject((i) => consolidateProject(i.penv, ctx.projectId, "run-1", { model }));
		expect(await inProject((i) => getMemoryRow(i.db, ctx, "personal", "testing"))).toMatchObject({ version: 2, source: "consolidation" });
	});
});
