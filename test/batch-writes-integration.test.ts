import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockEmbeddingModelV4 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import { embedderFromModel } from "../src/llm/embedding";
import { type BatchWrite, writeMemories } from "../src/memory/batch";
import { PACKED_VERSIONS, sweepProjectPacks } from "../src/memory/packs";
import { deleteMemory, type WriteFaults } from "../src/memory/store";
import type { ProjectCoordinator } from "../src/project/object";
import type { ProjectContext } from "../src/storage/context";
import { call, createProject, createTenant, expectError, json, projectDb, type Tenant } from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;

beforeAll(async () => {
	tenant = await createTenant();
});

const SECRET = "ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq";
const item = (name: string, body = `Body of ${name}.`, extra: object = {}) => ({
	name,
	type: "project",
	description: `About ${name}`,
	body,
	...extra,
});
const batch = (projectId: string, memories: unknown[], query = "", headers: Record<string, string> = {}) =>
	call(`/v1/projects/${projectId}/memories/batch${query}`, { token: tenant.token, json: { memories }, headers });

async function newProject(): Promise<{ projectId: string; ctx: ProjectContext }> {
	const projectId = await createProject(tenant.token);
	return { projectId, ctx: { tenantId: tenant.tenantId, userId: tenant.userId, projectId } };
}

/** Every row a written memory has: the memory, its versions, visibility and full-text row. */
async function rowCounts(projectId: string) {
	const db = projectDb(projectId);
	const count = async (table: string) => (await db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).first<{ n: number }>())?.n ?? 0;
	return {
		memories: await count("memories"),
		versions: await count("memory_versions"),
		visibility: await count("memory_visibility"),
		fts: await count("memories_fts"),
	};
}

const generation = async (projectId: string) =>
	(await projectDb(projectId).prepare("SELECT index_generation AS g FROM projects WHERE id = ?").bind(projectId).first<{ g: number }>())
		?.g ?? 0;

/** Runs a batch inside the project's object, as its RPC method does, with fault points. */
const inObject = (projectId: string, ctx: ProjectContext, input: BatchWrite, faults: (i: ProjectCoordinator) => WriteFaults) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (instance: ProjectCoordinator) =>
		writeMemories(instance.penv, ctx, input, faults(instance)),
	);

describe("batch writes", () => {
	it("answers per item in request order; a refused secret or a bad item fails alone", async () => {
		const { projectId } = await newProject();
		const before = await generation(projectId);
		const res = await batch(projectId, [
			item("first"),
			item("leaky", `token ${SECRET}`),
			item("Not A Name"),
			item("second", "Second body.", { cues: ["when deploying"] }),
			item("bad-cues", "x", { cues: "not a list" }),
			item("first", "again"),
			42,
			item("third", "x".repeat(70 * 1024)),
			item("fourth"),
		]);
		expect(res.status).toBe(200);
		const { results } = await json(res);
		expect(results.map((r: { name: string; status: string }) => `${r.name}:${r.status}`)).toEqual([
			"first:created",
			"leaky:error",
			"#2:error",
			"second:created",
			"bad-cues:error",
			"first:error",
			"#6:error",
			"third:error",
			"fourth:created",
		]);
		expect(results.map((r: { error?: { code: string } }) => r.error?.code ?? null)).toEqual([
			null,
			"secret_detected",
			"invalid_name",
			null,
			"invalid_request",
			"invalid_request",
			"invalid_name",
			"payload_too_large",
			null,
		]);
		expect(JSON.stringify(results)).not.toContain(SECRET);
		// Exactly the three good items, each whole, and one index generation for the batch.
		expect(await rowCounts(projectId)).toEqual({ memories: 3, versions: 3, visibility: 3, fts: 3 });
		expect(await generation(projectId)).toBe(before + 1);
		const second = await json(
			await call(`/v1/projects/${projectId}/memories/second`, { token: tenant.token, headers: { Accept: "application/json" } }),
		);
		expect(second.memory).toMatchObject({ body: "Second body.\n", cues: ["when deploying"], cuesSource: "written", version: 1 });
		const leaked = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE body LIKE '%ghp_%'")
			.first<{ n: number }>();
		expect(leaked?.n).toBe(0);
	});

	it("creates, updates and leaves unchanged in one batch, and a repeated batch changes nothing", async () => {
		const { projectId } = await newProject();
		const first = [item("a"), item("b"), item("c")];
		expect((await json(await batch(projectId, first))).results.map((r: { status: string }) => r.status)).toEqual([
			"created",
			"created",
			"created",
		]);
		const second = [item("a"), item("b", "A new body for b."), item("d")];
		expect((await json(await batch(projectId, second))).results.map((r: { status: string }) => r.status)).toEqual([
			"unchanged",
			"updated",
			"created",
		]);
		const counts = await rowCounts(projectId);
		expect(counts).toEqual({ memories: 4, versions: 5, visibility: 4, fts: 4 });
		const generationAfter = await generation(projectId);
		expect((await json(await batch(projectId, second))).results.map((r: { status: string }) => r.status)).toEqual([
			"unchanged",
			"unchanged",
			"unchanged",
		]);
		expect(await rowCounts(projectId)).toEqual(counts);
		expect(await generation(projectId)).toBe(generationAfter);
		const b = await call(`/v1/projects/${projectId}/memories/b`, { token: tenant.token });
		expect(b.headers.get("ETag")).toBe('"2"');
		expect(await b.text()).toContain("A new body for b.");
		const fts = await projectDb(projectId).prepare("SELECT body FROM memories_fts WHERE name = 'b'").all<{ body: string }>();
		expect(fts.results).toEqual([{ body: "A new body for b." }]);
	});

	it("keeps the scope, the source and the agent's session for every item", async () => {
		const { projectId } = await newProject();
		const res = await batch(projectId, [item("team-one"), item("team-two")], "?scope=team", { "X-Cairn-Session": "batch-session" });
		expect((await json(res)).results.map((r: { status: string }) => r.status)).toEqual(["created", "created"]);
		const rows = await projectDb(projectId)
			.prepare("SELECT name, scope, owner_id, source, session_id FROM memories ORDER BY name")
			.all<{ name: string; scope: string; owner_id: string; source: string; session_id: string }>();
		expect(rows.results).toEqual([
			{ name: "team-one", scope: "team", owner_id: "", source: "agent", session_id: "batch-session" },
			{ name: "team-two", scope: "team", owner_id: "", source: "agent", session_id: "batch-session" },
		]);
		const marks = await projectDb(projectId).prepare("SELECT memory_name FROM session_writes ORDER BY memory_name").all();
		expect(marks.results.map((r) => r.memory_name)).toEqual(["team-one", "team-two"]);
		const imported = await json(await batch(projectId, [item("moved-in")], "?source=import"));
		expect(imported.results[0].status).toBe("created");
		const source = await projectDb(projectId).prepare("SELECT source FROM memories WHERE name = 'moved-in'").first<{ source: string }>();
		expect(source?.source).toBe("import");
	});

	it("refuses the whole batch when its scope is switched off, and more than 100 items", async () => {
		const { projectId } = await newProject();
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.teamMemory": false } });
		const off = await expectError(await batch(projectId, [item("x")], "?scope=team"), 403, "feature_disabled");
		expect(off.error.message).toContain("memories.teamMemory");
		await expectError(
			await batch(
				projectId,
				Array.from({ length: 101 }, (_, i) => item(`m-${i}`)),
			),
			400,
			"invalid_request",
		);
		expect((await rowCounts(projectId)).memories).toBe(0);
	});

	it("writes nothing when the batch fails after its R2 puts", async () => {
		const { projectId, ctx } = await newProject();
		await batch(projectId, [item("kept")]);
		const counts = await rowCounts(projectId);
		const crash = inObject(
			projectId,
			ctx,
			{ scope: "personal", source: "user", items: [item("kept", "changed"), item("new-one"), item("new-two")] },
			() => ({
				afterObjectPut: () => {
					throw new Error("injected crash between R2 and the database");
				},
			}),
		);
		await expect(crash).rejects.toThrow("injected crash");
		expect(await rowCounts(projectId)).toEqual(counts);
		expect(await (await call(`/v1/projects/${projectId}/memories/kept`, { token: tenant.token })).text()).toContain("Body of kept.");
	});

	it("fails only the item that a concurrent delete reached during the R2 puts", async () => {
		const { projectId, ctx } = await newProject();
		await batch(projectId, [item("gone"), item("stays")]);
		const results = await inObject(
			projectId,
			ctx,
			{ scope: "personal", source: "user", items: [item("gone", "updated"), item("stays", "updated"), item("fresh")] },
			(instance) => ({ afterObjectPut: () => deleteMemory(instance.penv, ctx, "personal", "gone") }),
		);
		expect(results.map((r) => `${r.name}:${r.status}`)).toEqual(["gone:error", "stays:updated", "fresh:created"]);
		expect(results[0]?.status === "error" && results[0].error.code).toBe("version_conflict");
		expect(await rowCounts(projectId)).toEqual({ memories: 2, versions: 3, visibility: 2, fts: 2 });
	});

	it("stores a batch's contents as one pack that reads, versions and sweeps like single objects", async () => {
		const { projectId, ctx } = await newProject();
		const prefix = `tenants/${ctx.tenantId}/projects/${projectId}/`;
		const list = async (under: string) => (await env.FILES.list({ prefix: `${prefix}${under}` })).objects.map((o) => o.key);
		await batch(projectId, [item("p-one", "Первый — 첫째 first."), item("p-two"), item("p-three", "Body of p-two.")]);
		// One pack for the batch, no per-memory objects.
		expect(await list("packs/")).toHaveLength(1);
		expect(await list("objects/")).toHaveLength(0);
		const read = async (name: string, version = "") =>
			(await call(`/v1/projects/${projectId}/memories/${name}${version}`, { token: tenant.token })).text();
		expect(await read("p-one")).toContain("Первый — 첫째 first.");
		expect(await read("p-two")).toContain("Body of p-two.");
		expect(await read("p-three")).toMatch(/^---\nname: p-three\n/);
		// A single write replaces one of them; its first version is still read from the pack.
		const put = await call(`/v1/projects/${projectId}/memories/p-one`, {
			method: "PUT",
			token: tenant.token,
			json: { type: "project", description: "About p-one", body: "Rewritten alone." },
		});
		expect(put.status).toBe(200);
		expect(await read("p-one")).toContain("Rewritten alone.");
		expect(await read("p-one", "/history/1")).toContain("Первый — 첫째 first.");
		expect(await list("objects/")).toHaveLength(1);
		// Referenced packs survive the sweep; once no version points into a pack it goes.
		const sweep = () =>
			runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (instance: ProjectCoordinator) =>
				sweepProjectPacks(instance.penv, projectId, ctx.tenantId, Date.now(), 0),
			);
		expect(await sweep()).toBe(0);
		for (const name of ["p-one", "p-two", "p-three"]) {
			expect((await call(`/v1/projects/${projectId}/memories/${name}`, { method: "DELETE", token: tenant.token })).status).toBe(204);
		}
		expect(await sweep()).toBe(1);
		expect(await list("packs/")).toHaveLength(0);
	});

	it("dissolves a pack holding a deleted memory's bytes: the others move to objects of their own, its text leaves storage", async () => {
		const { projectId, ctx } = await newProject();
		const prefix = `tenants/${ctx.tenantId}/projects/${projectId}/`;
		const list = async (under: string) => (await env.FILES.list({ prefix: `${prefix}${under}` })).objects.map((o) => o.key);
		await batch(projectId, [item("d-keep"), item("d-gone", "Forget this sentence entirely."), item("d-also")]);
		expect(await list("packs/")).toHaveLength(1);
		expect((await call(`/v1/projects/${projectId}/memories/d-gone`, { method: "DELETE", token: tenant.token })).status).toBe(204);
		const removed = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (instance: ProjectCoordinator) =>
			sweepProjectPacks(instance.penv, projectId, ctx.tenantId, Date.now(), 0),
		);
		expect(removed).toBe(1);
		expect(await list("packs/")).toHaveLength(0);
		const objects = await list("objects/");
		expect(objects).toHaveLength(2);
		for (const key of objects) expect(await (await env.FILES.get(key))?.text()).not.toContain("Forget this sentence");
		for (const name of ["d-keep", "d-also"]) {
			const res = await call(`/v1/projects/${projectId}/memories/${name}`, { token: tenant.token });
			expect(await res.text()).toContain(`Body of ${name}.`);
			expect(await (await call(`/v1/projects/${projectId}/memories/${name}/history/1`, { token: tenant.token })).text()).toContain(
				`Body of ${name}.`,
			);
		}
	});

	it("embeds a batch's new versions in one model call, each vector in the batch's transaction", async () => {
		const { projectId } = await newProject();
		const calls: string[][] = [];
		// A model that takes many texts per call, as the Workers AI provider does (up to 3,000).
		const model = new MockEmbeddingModelV4({
			maxEmbeddingsPerCall: 100,
			doEmbed: async ({ values }) => {
				calls.push(values);
				return { embeddings: values.map((v) => [v.length % 7, 1, 0.5]), warnings: [] };
			},
		});
		const stub = env.PROJECT_COORDINATOR.getByName(projectId);
		await runInDurableObject(stub, (instance: ProjectCoordinator) => {
			setSeams(instance, { embedder: embedderFromModel(model, "test:batch") });
		});
		try {
			const res = await batch(projectId, [item("v-one"), item("v-two"), item("v-three")]);
			expect((await json(res)).results.map((r: { status: string }) => r.status)).toEqual(["created", "created", "created"]);
			expect(calls).toHaveLength(1);
			expect(calls[0]).toHaveLength(3);
			const vectors = await projectDb(projectId)
				.prepare(
					"SELECT m.name, v.model, v.content_hash = m.content_hash AS current FROM memory_vectors v JOIN memories m ON m.id = v.memory_id ORDER BY m.name",
				)
				.all();
			expect(vectors.results).toEqual([
				{ name: "v-one", model: "test:batch", current: 1 },
				{ name: "v-three", model: "test:batch", current: 1 },
				{ name: "v-two", model: "test:batch", current: 1 },
			]);
		} finally {
			await runInDurableObject(stub, (instance: ProjectCoordinator) => {
				setSeams(instance, { embedder: undefined });
			});
		}
	});

	it("the pack sweep finds a page's versions through the pack index, not by scanning every version", async () => {
		const { projectId } = await newProject();
		const plan = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (instance: ProjectCoordinator) =>
			instance.db
				.prepare(`EXPLAIN QUERY PLAN ${PACKED_VERSIONS}`)
				.bind(projectId, JSON.stringify(["a"]))
				.all<{ detail: string }>(),
		);
		const details = plan.results.map((r) => r.detail).join("\n");
		expect(details).toContain("memory_versions_pack");
		expect(details).not.toMatch(/SCAN memory_versions(?! USING)/);
	});
});
