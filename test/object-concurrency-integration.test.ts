import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { call, createProject, createTenant, json, projectDb, putMemory } from "./helpers";
import { setSeams } from "./worker";

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

describe("the project's object while a consolidation model call is in flight", () => {
	it("keeps answering recall, reads and writes; the run then completes", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		expect((await putMemory(tenant.token, projectId, "staging-deploys", "Staging deploys run through make ship.")).status).toBe(201);

		// Work for consolidation: one stage-1 output.
		const now = new Date().toISOString();
		const db = projectDb(projectId);
		await db.batch([
			db
				.prepare(
					`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, updated_at)
					 VALUES (?, 's1', ?, 'generic', ?, ?, 1, 1, ?)`,
				)
				.bind(projectId, tenant.userId, now, now, now),
			db
				.prepare(
					`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
					 VALUES (?, 's1', 0, 0, ?, 'offline', '- Use pnpm', 'A session.', ?, ?)`,
				)
				.bind(
					projectId,
					tenant.userId,
					JSON.stringify([
						{
							name: "use-pnpm",
							type: "feedback",
							description: "Use pnpm, never npm",
							body: "Use pnpm.",
							evidence: ["t0"],
							userStated: true,
						},
					]),
					now,
				),
		]);

		// A model that answers only when released: the run stays inside its model call meanwhile.
		let release: () => void = () => undefined;
		const gate = new Promise<void>((resolve) => {
			release = resolve;
		});
		let called = false;
		let answered = false;
		const model = new MockLanguageModelV4({
			doGenerate: async () => {
				called = true;
				await gate;
				answered = true;
				return {
					content: [{ type: "text", text: JSON.stringify({ operations: [], skills: [], summary: "Summary." }) }],
					finishReason: { unified: "stop", raw: "stop" },
					usage,
					warnings: [],
				};
			},
		});
		const stub = env.PROJECT_COORDINATOR.getByName(projectId);
		await runInDurableObject(stub, async (i: ProjectCoordinator) => {
			setSeams(i, { model: model });
		});
		await stub.requestRun(projectId);
		const run = runDurableObjectAlarm(stub);
		for (let i = 0; i < 200 && !called; i++) await new Promise((r) => setTimeout(r, 10));
		expect(called).toBe(true);

		// While the model call is pending: recall, a read and a write all complete.
		const t0 = performance.now();
		const recalled = await json(
			await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "how do staging deploys run" } }),
		);
		const recallMs = performance.now() - t0;
		expect(recalled.memories.map((m: { name: string }) => m.name)).toEqual(["staging-deploys"]);
		expect((await call(`/v1/projects/${projectId}/memories/staging-deploys`, { token: tenant.token })).status).toBe(200);
		expect((await putMemory(tenant.token, projectId, "written-meanwhile", "Written while consolidation waited.")).status).toBe(201);
		expect((await json(await call(`/v1/projects/${projectId}/status`, { token: tenant.token }))).pipeline.running).toBe(true);
		expect(answered).toBe(false);
		console.log(`recall during a pending consolidation model call: ${recallMs.toFixed(1)} ms`);

		release();
		await run;
		const status = (await json(await call(`/v1/projects/${projectId}/status`, { token: tenant.token }))).pipeline;
		expect(status.running).toBe(false);
		expect(status.lastRun.outcome).toBe("succeeded");
		expect(status.pendingOutputs).toBe(0);
	});
});
