import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { recall } from "../src/recall/recall";
import type { ProjectContext } from "../src/storage/context";
import { call, createProject, createTenant } from "./helpers";

let ctx: ProjectContext;

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const answering = (text: string) =>
	new MockLanguageModelV4({
		doGenerate: { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] },
	});

beforeAll(async () => {
	const tenant = await createTenant();
	const projectId = await createProject(tenant.token);
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const [name, description] of [
		["db-tests", "Integration tests use the real database"],
		["db-migrations", "Database migrations run before the tests in CI"],
		["db-backups", "Database backups run nightly"],
	]) {
		await call(`/v1/projects/${projectId}/memories/${name}`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "project", description, body: description },
		});
	}
});

describe("recall with a selector model", () => {
	it("uses the model's choice, limited to known candidates, by default when a model is configured", async () => {
		const model = answering(JSON.stringify({ names: ["db-backups", "invented-name"] }));
		const result = await recall(env, ctx, { query: "database tests", trace: true }, Date.now(), undefined, model);
		expect(result.engine).toBe("llm");
		expect(result.memories.map((m) => m.name)).toEqual(["db-backups"]);
		expect(result.trace?.candidates.find((c) => c.name === "db-tests")?.decision).toBe("not selected by model");
		expect(JSON.stringify(model.doGenerateCalls[0]?.prompt)).toContain("db-migrations (project, updated today)");
	});

	it("falls back to lexical on malformed output and says so", async () => {
		const result = await recall(
			env,
			ctx,
			{ query: "database tests" },
			Date.now(),
			undefined,
			answering("Sure! The best memory is db-tests."),
		);
		expect(result.engine).toBe("lexical-fallback");
		expect(result.fallbackReason).toMatch(/^model selection failed/);
		expect(result.memories[0]?.name).toBe("db-tests");
	});

	it("falls back to lexical when the model errors", async () => {
		const failing = new MockLanguageModelV4({
			doGenerate: async () => {
				throw new Error("rate limited");
			},
		});
		const result = await recall(env, ctx, { query: "database tests", engine: "llm" }, Date.now(), undefined, failing);
		expect(result.engine).toBe("lexical-fallback");
		expect(result.memories.length).toBeGreaterThan(0);
	});

	it("stays lexical when asked to, even with a model", async () => {
		const model = answering('{"names": ["db-backups"]}');
		const result = await recall(env, ctx, { query: "database tests", engine: "lexical" }, Date.now(), undefined, model);
		expect(result.engine).toBe("lexical");
		expect(model.doGenerateCalls).toHaveLength(0);
	});
});
