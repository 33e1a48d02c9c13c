import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockEmbeddingModelV4 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { type Embedder, embedderFromModel, nearest, normalise, resolveEmbedder } from "../src/llm/embedding";
import type { ProjectCoordinator } from "../src/project/object";
import { call, createProject, createTenant, expectError, json, type Loose, projectDb, putMemory, recallAs, type Tenant } from "./helpers";
import { setSeams } from "./worker";

/** A scripted embedding model: one dimension per concept, so related words are near without sharing a word. */
const CONCEPTS = [
	["ship", "release", "deploy", "rollout", "배포"],
	["database", "postgres", "sql"],
	["dashboard", "grafana", "latency", "monitoring"],
	["weekday", "friday", "monday", "thursday", "weekend"],
];
const conceptVector = (text: string) => {
	const lower = text.toLowerCase();
	return CONCEPTS.map((words) => (words.some((w) => lower.includes(w)) ? 1 : 0.02));
};

function scripted(calls: string[][] = []): Embedder {
	const model = new MockEmbeddingModelV4({
		doEmbed: async ({ values }) => {
			calls.push(values);
			return { embeddings: values.map(conceptVector), warnings: [] };
		},
	});
	return embedderFromModel(model, "test:concepts");
}

const failing = (): Embedder =>
	embedderFromModel(
		new MockEmbeddingModelV4({
			doEmbed: async () => {
				throw new Error("model unavailable");
			},
		}),
		"test:concepts",
	);

let tenant: Tenant;
let projectId: string;
const calls: string[][] = [];

const stub = () => env.PROJECT_COORDINATOR.getByName(projectId);
const useEmbedder = (embedder: Embedder | null | undefined) =>
	runInDurableObject(stub(), (instance: ProjectCoordinator) => {
		setSeams(instance, { embedder: embedder });
	});

async function write(name: string, type: string, description: string, body: string) {
	expect((await putMemory(tenant.token, projectId, name, body, { type, description })).status).toBeLessThan(300);
}

const recall = (query: string, extra: Loose = {}) => recallAs(tenant.token, projectId, { query, ...extra });

const vectorRow = (name: string) =>
	projectDb(projectId)
		.prepare(
			"SELECT v.model, v.dims, v.content_hash = m.content_hash AS current FROM memory_vectors v JOIN memories m ON m.id = v.memory_id WHERE m.name = ?",
		)
		.bind(name)
		.first<{ model: string; dims: number; current: number }>();

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	await call(`/v1/projects/${projectId}/memories/warm-up`, {
		token: tenant.token,
		method: "PUT",
		json: { type: "user", description: "w", body: "w" },
	});
	await call(`/v1/projects/${projectId}/memories/warm-up`, { token: tenant.token, method: "DELETE" });
	await useEmbedder(scripted(calls));
	await write("release-cadence", "project", "We ship builds only on weekdays", "Rollouts happen Monday to Thursday, never later.");
	await write("db-tests", "feedback", "Integration tests use the real Postgres", "A mocked database hid a broken migration.");
	await write("grafana-dashboards", "reference", "Grafana dashboards for latency", "grafana.internal/d/api-latency");
});

describe("hybrid recall with a scripted embedding model", () => {
	it("embeds each memory on write, in the same commit as its text", async () => {
		expect(calls.flat().some((t) => t.includes("We ship builds only on weekdays"))).toBe(true);
		for (const name of ["release-cadence", "db-tests", "grafana-dashboards"]) {
			expect(await vectorRow(name)).toEqual({ model: "test:concepts", dims: 4, current: 1 });
		}
		await write("db-tests", "feedback", "Integration tests use the real Postgres", "Never mock the database in integration tests.");
		expect(await vectorRow("db-tests")).toEqual({ model: "test:concepts", dims: 4, current: 1 });
	});

	it("finds a memory by meaning when no word is shared, and says the retrieval was hybrid", async () => {
		// No word, form or concept of the query is in the memory ("deploy" would reach it through the concept map).
		const body = await recall("Is friday ok?", { trace: true });
		expect(body.retrieval).toBe("hybrid");
		expect(body.retrievalNote).toBeUndefined();
		expect(body.memories[0].name).toBe("release-cadence");
		const top = body.trace.candidates.find((c: Loose) => c.name === "release-cadence");
		expect(top.vectorRank).toBe(1);
		expect(top.lexicalRank).toBeUndefined();
		expect(top.similarity).toBeGreaterThan(0.7);
	});

	it("fuses lexical and vector ranks: first in both reads 1, the best fused score (2) as a share of itself", async () => {
		const body = await recall("grafana latency", { trace: true });
		expect(body.memories[0].name).toBe("grafana-dashboards");
		expect(body.memories[0].score).toBe(1);
		const top = body.trace.candidates[0];
		expect([top.lexicalRank, top.vectorRank]).toEqual([1, 1]);
		expect(top.rankingScore).toBe(2);
		expect(top.score).toBe(1);
		// Every other candidate reads its fused score over that best: in (0, 1), in ranking order.
		const shown = (body.trace.candidates as Loose[]).map((c) => c.score);
		expect([...shown].sort((a, b) => b - a)).toEqual(shown);
		for (const c of body.trace.candidates as Loose[]) expect(c.score).toBe(Math.max(0.01, Math.round((c.rankingScore / 2) * 100) / 100));
	});

	it("stays lexical when asked to", async () => {
		const body = await recall("Is friday ok?", { retrieval: "lexical" });
		expect(body.retrieval).toBe("lexical");
		expect(body.retrievalNote).toBeUndefined();
		expect(body.memories.map((m: Loose) => m.name)).not.toContain("release-cadence");
	});

	it("injects a memory found by meaning, which clears the relevance floor by similarity", async () => {
		const res = await call(`/v1/projects/${projectId}/inject`, {
			token: tenant.token,
			json: { query: "When can I deploy?", include: "memories" },
		});
		expect(res.status).toBe(200);
		const body = await json(res);
		expect(body.parts.memories.map((m: Loose) => m.name)).toContain("release-cadence");
		expect(body.text).toContain("Rollouts happen Monday to Thursday");
	});

	it("falls back to lexical when the model fails, and says so; a write lands without a vector", async () => {
		await useEmbedder(failing());
		const body = await recall("grafana latency");
		expect(body.retrieval).toBe("lexical");
		expect(body.retrievalNote).toMatch(/embedding model failed/);
		expect(body.memories[0].name).toBe("grafana-dashboards");
		await write("rollback-runbook", "reference", "How to roll back a release", "Run make rollback and announce it.");
		expect(await vectorRow("rollback-runbook")).toBeNull();
		// Backfill while the model still fails: 200 with the error, nothing lost.
		const failed = await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, json: {} });
		expect(failed.status).toBe(200);
		expect(await json(failed)).toMatchObject({ embedded: 0, remaining: 1, error: expect.stringMatching(/model unavailable/) });
	});

	it("backfills memories without a vector, resumably", async () => {
		await useEmbedder(scripted());
		await projectDb(projectId)
			.prepare("DELETE FROM memory_vectors WHERE memory_id IN (SELECT id FROM memories WHERE name = 'db-tests')")
			.run();
		const first = await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, json: { limit: 1 } });
		expect(await json(first)).toEqual({ model: "test:concepts", embedded: 1, remaining: 1 });
		const rest = await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, method: "POST" });
		expect(await json(rest)).toEqual({ model: "test:concepts", embedded: 1, remaining: 0 });
		expect(await vectorRow("rollback-runbook")).toEqual({ model: "test:concepts", dims: 4, current: 1 });
		const again = await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, json: { limit: 10 } });
		expect(await json(again)).toEqual({ model: "test:concepts", embedded: 0, remaining: 0 });
		expect((await recall("how do I undo a rollout?")).memories.map((m: Loose) => m.name)).toContain("rollback-runbook");
	});

	it("drops a memory's vector on delete and every vector on clear", async () => {
		const db = projectDb(projectId);
		const id = (await db.prepare("SELECT id FROM memories WHERE name = 'rollback-runbook'").first<{ id: number }>())?.id;
		expect(
			(await call(`/v1/projects/${projectId}/memories/rollback-runbook`, { token: tenant.token, method: "DELETE" })).status,
		).toBeLessThan(300);
		expect(await db.prepare("SELECT count(*) AS n FROM memory_vectors WHERE memory_id = ?").bind(id).first("n")).toBe(0);
		const scratch = await createProject(tenant.token);
		await call(`/v1/projects/${scratch}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(scratch), (instance: ProjectCoordinator) => {
			setSeams(instance, { embedder: scripted() });
		});
		await call(`/v1/projects/${scratch}/memories/deploy-ko`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "user", description: "배포 규칙", body: "금요일 배포 금지" },
		});
		const sdb = projectDb(scratch);
		expect(await sdb.prepare("SELECT (SELECT count(*) FROM memory_vectors) + (SELECT count(*) FROM memories_grams) AS n").first("n")).toBe(
			2,
		);
		const cleared = await call(`/v1/projects/${scratch}/memory?confirm=${scratch}`, { token: tenant.token, method: "DELETE" });
		expect(cleared.status).toBeLessThan(300);
		expect(await sdb.prepare("SELECT (SELECT count(*) FROM memory_vectors) + (SELECT count(*) FROM memories_grams) AS n").first("n")).toBe(
			0,
		);
	});

	it("refuses bad backfill input with stable codes, and a project without a model", async () => {
		for (const body of [{ limit: 0 }, { limit: 5000 }, { limit: "ten" }, { limit: 1.5 }]) {
			await expectError(
				await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, json: body }),
				400,
				"invalid_request",
			);
		}
		await expectError(
			await call(`/v1/projects/${projectId}/embeddings/backfill`, {
				token: tenant.token,
				body: "{not json",
				headers: { "Content-Type": "application/json" },
				method: "POST",
			}),
			400,
			"invalid_request",
		);
		await expectError(await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: null, json: {} }), 401, "unauthorized");
		const other = await createTenant();
		await expectError(await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: other.token, json: {} }), 404, "not_found");
		await expectError(
			await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "x", retrieval: "semantic" } }),
			400,
			"invalid_request",
		);
		await useEmbedder(null);
		await expectError(await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tenant.token, json: {} }), 409, "conflict");
		const body = await recall("grafana latency");
		expect(body.retrieval).toBe("lexical");
		expect(body.retrievalNote).toMatch(/no embedding model/);
		await useEmbedder(scripted());
	});

	it("says so when no memory has a vector yet", async () => {
		const fresh = await createProject(tenant.token);
		await call(`/v1/projects/${fresh}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		await call(`/v1/projects/${fresh}/memories/note`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "user", description: "grafana", body: "b" },
		});
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(fresh), (instance: ProjectCoordinator) => {
			setSeams(instance, { embedder: scripted() });
		});
		const res = await call(`/v1/projects/${fresh}/recall`, { token: tenant.token, json: { query: "grafana" } });
		const body = await json(res);
		expect(body).toMatchObject({ retrieval: "lexical", retrievalNote: expect.stringMatching(/no memory has an embedding yet/) });
		expect(body.memories.map((m: Loose) => m.name)).toEqual(["note"]);
	});
});

describe("embedding engine", () => {
	it("is absent without configuration and refuses providers it does not know", () => {
		expect(resolveEmbedder({})).toBeNull();
		expect(resolveEmbedder({ CAIRN_EMBEDDING_MODEL: "" })).toBeNull();
		expect(() => resolveEmbedder({ CAIRN_EMBEDDING_MODEL: "openai:text-embedding-3-small" })).toThrow(/workers-ai/);
		expect(() => resolveEmbedder({ CAIRN_EMBEDDING_MODEL: "bge-m3" })).toThrow(/provider:model/);
		// Workers AI is bound in the deployed environment only (wrangler.toml): a stand-in binding here.
		const ai = {} as Ai;
		expect(resolveEmbedder({ CAIRN_EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-m3", AI: ai })?.model).toBe("workers-ai:@cf/baai/bge-m3");
		expect(() => resolveEmbedder({ CAIRN_EMBEDDING_MODEL: "workers-ai:@cf/baai/bge-m3" })).toThrow(/needs the AI binding/);
	});

	it("ranks by cosine similarity, keeps the k best and skips vectors of another size", () => {
		const q = normalise([1, 0, 0]);
		const rows = [
			{ id: 1, vector: normalise([1, 1, 0]).buffer as ArrayBuffer },
			{ id: 2, vector: normalise([1, 0, 0]).buffer as ArrayBuffer },
			{ id: 3, vector: normalise([0, 1, 0]).buffer as ArrayBuffer },
			{ id: 4, vector: normalise([1, 0, 0, 0]).buffer as ArrayBuffer },
			{ id: 5, vector: normalise([2, 1, 0]).buffer as ArrayBuffer },
		];
		expect(nearest(rows, q, 2, 0.3).map((h) => h.id)).toEqual([2, 5]);
		expect(nearest(rows, q, 10, 0.3).map((h) => h.id)).toEqual([2, 5, 1]);
	});
});
