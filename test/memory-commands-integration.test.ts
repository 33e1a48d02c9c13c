import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { normalise } from "../src/llm/embedding";
import type { ProjectCoordinator } from "../src/project/object";
import { call, createProject, createTenant, expectError, json, type Loose, projectDb, putMemory, type Tenant } from "./helpers";
import { setSeams } from "./worker";

/** Every table of a project's own database that holds project data. */
const PROJECT_DATA_TABLES = [
	"code_citations",
	"consolidation_events",
	"memories",
	"memories_cues",
	"memories_fts",
	"memories_grams",
	"memory_vectors",
	"memory_versions",
	"memory_visibility",
	"review_items",
	"session_chunks",
	"session_records",
	"session_served",
	"session_topics",
	"session_used",
	"session_writes",
	"sessions",
	"skills",
	"stage1_outputs",
	"topic_labelling",
	"topic_labels",
];

/**
 * What the object keeps about keys rather than memory (src/trust/vouch.ts: the keys an agent session used
 * there, which never vouch or approve): a clear leaves it, as it leaves the project's keys and settings.
 */
const KEY_TABLES = ["session_keys"];

/**
 * The tables of the project's object as they are: every table but SQLite's and Cloudflare's own,
 * the schema version record and the full-text indexes' shadow tables (read through `memories_fts`,
 * `memories_grams` and `memories_cues`).
 */
async function objectTables(projectId: string): Promise<string[]> {
	return runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (i: ProjectCoordinator) =>
		(
			await i.db
				.prepare(
					`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite!_%' ESCAPE '!'
					 AND name NOT LIKE '!_%' ESCAPE '!' AND name NOT LIKE 'memories!_fts!_%' ESCAPE '!'
					 AND name NOT LIKE 'memories!_grams!_%' ESCAPE '!' AND name NOT LIKE 'memories!_cues!_%' ESCAPE '!' ORDER BY name`,
				)
				.all<{ name: string }>()
		).results.map((r) => r.name),
	);
}

/** Row counts of every table of the project's object. */
async function tableCounts(projectId: string): Promise<Record<string, number>> {
	const counts: Record<string, number> = {};
	for (const table of await objectTables(projectId)) {
		counts[table] = (await projectDb(projectId).prepare(`SELECT count(*) AS n FROM ${table}`).first<{ n: number }>())?.n ?? -1;
	}
	return counts;
}

/** Every row of every table of the project's object. */
async function snapshot(projectId: string): Promise<Record<string, Loose[]>> {
	const rows: Record<string, Loose[]> = {};
	for (const table of await objectTables(projectId)) {
		rows[table] = (await projectDb(projectId).prepare(`SELECT rowid AS _rowid, * FROM ${table} ORDER BY rowid`).all()).results;
	}
	return rows;
}

async function populated(tenant: Tenant, remote?: string) {
	const projectId = await createProject(tenant.token, remote);
	const token = tenant.token;
	await call(`/v1/projects/${projectId}/settings`, { token, method: "PUT", json: { "memories.enabled": true } });
	// A scripted embedding model, so that memories get vectors; and a memory in Korean, so that the CJK index has a row.
	await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (i: ProjectCoordinator) => {
		setSeams(i, { embedder: { model: "test:constant", embed: async (texts: string[]) => texts.map(() => normalise([1, 2, 3])) } });
	});
	expect((await putMemory(token, projectId, "testing", "Use the real database for integration tests.")).status).toBe(201);
	expect((await putMemory(token, projectId, "deploy-ko", "금요일에는 배포하지 않는다.")).status).toBe(201);
	expect((await putMemory(token, projectId, "deploys", "No deploys on Fridays.", { scope: "team" })).status).toBe(201);
	await call(`/v1/projects/${projectId}/memories/testing`, {
		token,
		method: "PUT",
		headers: { "If-Match": '"1"' },
		json: {
			type: "feedback",
			description: "Integration tests use the real database",
			body: "Real DB, always: src/test/db-setup.ts starts it.",
		},
	});
	await call(`/v1/projects/${projectId}/logs/2026-11-28`, { token, json: { entry: "Worked on the release." } });
	await call(`/v1/projects/${projectId}/sessions/s1/transcript`, {
		token,
		headers: { "Content-Type": "application/x-ndjson" },
		body: [
			JSON.stringify({ id: "1", role: "user", content: "From now on always use pnpm, never npm.", ts: new Date().toISOString() }),
			JSON.stringify({
				id: "2",
				role: "user",
				content: "Here's how to cut a release:\n1. bump\n2. tag\n3. push",
				ts: new Date().toISOString(),
			}),
			// A team rule: proposed for team scope, so the review queue holds an item.
			JSON.stringify({ id: "3", role: "user", content: "Never push directly to main. That's a team rule.", ts: new Date().toISOString() }),
		].join("\n"),
	});
	// The agent's own write during the session, and an inject for it: what the session wrote and was handed.
	const agentWrite = await putMemory(token, projectId, "release-owner", "Releases are cut by the on-call engineer.", {
		headers: { "X-Cairn-Session": "s1" },
	});
	expect(agentWrite.status).toBe(201);
	await call(`/v1/projects/${projectId}/inject`, { token, json: { query: "integration tests database", sessionId: "s1" } });
	// …and a memory it read: what the session used.
	await call(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root/testing.md")}`, {
		token,
		headers: { "X-Cairn-Session": "s1" },
	});
	await call(`/v1/projects/${projectId}/sessions/s1/memory`, { token });
	await call(`/v1/projects/${projectId}/sessions/s1/end`, { token, method: "POST" });
	// Wait for the queue consumer, then consolidate: summary, skills, consolidated memories.
	for (let i = 0; i < 100; i++) {
		const s = (await json(await call(`/v1/projects/${projectId}/sessions/s1`, { token }))).session;
		if (s.cursor === s.turns) break;
		await new Promise((r) => setTimeout(r, 200));
	}
	await env.PROJECT_COORDINATOR.getByName(projectId).requestRun(projectId);
	await runDurableObjectAlarm(env.PROJECT_COORDINATOR.getByName(projectId));
	// A model's names for the user's topics, as consolidation stores them (src/search/topic-labels.ts; naming itself is
	// tested in topic-labels-integration with a scripted model over a project large enough to name).
	await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (i: ProjectCoordinator) => {
		const now = new Date().toISOString();
		await i.db.batch([
			i.db
				.prepare(
					"INSERT INTO topic_labels (project_id, owner_id, key, title, words_json, merge_into, labelled_at) VALUES (?, ?, 'testing', 'Tests', '[]', NULL, ?)",
				)
				.bind(projectId, tenant.userId, now),
			i.db
				.prepare("INSERT INTO topic_labelling (project_id, owner_id, topics_hash, labelled_at) VALUES (?, ?, 'h', ?)")
				.bind(projectId, tenant.userId, now),
			i.db
				.prepare("INSERT INTO session_topics (project_id, session_id, topic_key, shown_at) VALUES (?, 'u/s', 'facts-access', ?)")
				.bind(projectId, now),
		]);
	});
	// What the inject handed the session is recorded off the response path.
	for (let i = 0; i < 100; i++) {
		if ((await tableCounts(projectId)).session_served) break;
		await new Promise((r) => setTimeout(r, 50));
	}
	return projectId;
}

describe("memory commands", () => {
	it("view is the inject payload for an empty query", async () => {
		const tenant = await createTenant();
		const projectId = await populated(tenant);
		const view = await json(await call(`/v1/projects/${projectId}/view`, { token: tenant.token }));
		const inject = await json(await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: {} }));
		expect(view).toEqual(inject);
		expect(view.parts.summary).toContain("memory://root/");
		expect(view.parts.index).toContain("testing");
	}, 30_000);

	it("clear needs the right confirmation; then every artifact is gone and another project is untouched", async () => {
		const tenant = await createTenant();
		const projectId = await populated(tenant);
		const other = await populated(tenant);
		const token = tenant.token;
		const r2 = async (id: string) => (await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${id}/` })).objects.length;
		expect(await r2(projectId)).toBeGreaterThan(5);
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token }))).skills.length).toBe(1);
		// The object holds exactly the project's data tables (and its own project row), every one of them populated.
		expect(await objectTables(projectId)).toEqual([...PROJECT_DATA_TABLES, ...KEY_TABLES, "projects"].sort());
		const countsBefore = await tableCounts(projectId);
		for (const table of PROJECT_DATA_TABLES) expect(countsBefore[table], table).toBeGreaterThan(0);
		const generationBefore = await projectDb(projectId)
			.prepare("SELECT index_generation AS g FROM projects WHERE id = ?")
			.bind(projectId)
			.first<{ g: number }>();
		const otherBefore = {
			objects: await r2(other),
			memories: (await json(await call(`/v1/projects/${other}/memories`, { token }))).memories,
			rows: await snapshot(other),
		};
		for (const table of PROJECT_DATA_TABLES) expect(otherBefore.rows[table]?.length, `${table} of the other project`).toBeGreaterThan(0);

		await expectError(await call(`/v1/projects/${projectId}/memory`, { token, method: "DELETE" }), 400, "confirmation_required");
		await expectError(
			await call(`/v1/projects/${projectId}/memory?confirm=${other}`, { token, method: "DELETE" }),
			400,
			"confirmation_required",
		);
		const writer = (await json(await call("/v1/keys", { token, json: { scopes: ["read", "write"] } }))).key.token;
		await expectError(
			await call(`/v1/projects/${projectId}/memory?confirm=${projectId}`, { token: writer, method: "DELETE" }),
			403,
			"forbidden",
		);

		// The start block has read the summary (the object keeps what it read); after the clear it has none.
		const startBefore = await json(await call(`/v1/projects/${projectId}/inject`, { token, json: {} }));
		expect(startBefore.text).not.toContain("_No summary yet._");
		const res = await call(`/v1/projects/${projectId}/memory?confirm=${projectId}`, { token, method: "DELETE" });
		expect(res.status).toBe(204);
		expect((await json(await call(`/v1/projects/${projectId}/inject`, { token, json: {} }))).text).toContain("_No summary yet._");
		expect(await r2(projectId)).toBe(0);
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token }))).memories).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/memories?scope=team`, { token }))).memories).toEqual([]);
		const index = await (await call(`/v1/projects/${projectId}/index`, { token })).text();
		expect(index).not.toContain("testing");
		await expectError(await call(`/v1/projects/${projectId}/summary`, { token }), 404, "not_found");
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token }))).skills).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/logs`, { token }))).logs).toEqual([]);
		expect(
			(await json(await call(`/v1/projects/${projectId}/recall`, { token, json: { query: "database integration tests deploys" } })))
				.memories,
		).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/candidates`, { token }))).outputs).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/sessions`, { token }))).sessions).toEqual([]);
		// Every data table of the project's object is empty, the search index included (no search row outlives its memory).
		const countsAfter = await tableCounts(projectId);
		expect(Object.keys(countsAfter).sort()).toEqual([...PROJECT_DATA_TABLES, ...KEY_TABLES, "projects"].sort());
		for (const table of PROJECT_DATA_TABLES) expect(countsAfter[table], table).toBe(0);
		// Only the object's own project row stays, its MEMORY.md generation moved past every cached index.
		const projectRows = await projectDb(projectId).prepare("SELECT id, index_generation FROM projects").all();
		expect(projectRows.results).toEqual([{ id: projectId, index_generation: expect.any(Number) }]);
		expect(projectRows.results[0]?.index_generation).toBeGreaterThan(generationBefore?.g ?? Number.POSITIVE_INFINITY);

		// The project, its settings and keys stay; the other project is untouched.
		expect((await call(`/v1/projects/${projectId}`, { token })).status).toBe(200);
		const settings = await json(await call(`/v1/projects/${projectId}/settings/effective`, { token }));
		expect(settings.settings["memories.enabled"]).toEqual({ value: true, source: "project" });
		expect(await r2(other)).toBe(otherBefore.objects);
		expect(await snapshot(other)).toEqual(otherBefore.rows);
		expect((await json(await call(`/v1/projects/${other}/memories`, { token }))).memories).toEqual(otherBefore.memories);
		// Writing again works after a clear.
		expect((await putMemory(token, projectId, "fresh", "Starting over.")).status).toBe(201);
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token }))).memories.map((m: Loose) => m.name)).toEqual(["fresh"]);
	}, 60_000);
});
