import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../src/lib/ids";
import { LEGACY_TABLES, type LegacyTable } from "../src/memory/legacy";
import { objectKey } from "../src/memory/paths";
import type { ProjectCoordinator } from "../src/project/object";
import { migrateProjectSchema, PROJECT_MIGRATIONS, PROJECT_SCHEMA_VERSION, refreshConcepts } from "../src/storage/schema";
import { CONCEPT_MAP_VERSION, conceptColumn, deriveCues } from "../src/text/concepts";
import { moveStorage } from "../src/worker/mover";
import { ADMIN_TOKEN, call, createProject, createTenant, expectError, json, type Loose, projectDb } from "./helpers";

const NOW = "2026-11-20T10:00:00.000Z";

/** Fills the old shared D1 layout for one project, as a deployment before the move holds it. */
async function fillLegacy(tenantId: string, userId: string, projectId: string, memories: number) {
	const db = env.DB;
	const statements: D1PreparedStatement[] = [];
	const base = (await db.prepare("SELECT coalesce(max(id), 0) AS n FROM memories").first<{ n: number }>())?.n ?? 0;
	for (let i = 0; i < memories; i++) {
		const id = base + i + 1;
		const name = `legacy-${i}`;
		const body = `Legacy fact number ${i}: the ${i % 2 ? "staging" : "billing"} service deploys with make ship-${i}.`;
		const content = `---\nname: ${name}\ndescription: Legacy memory ${i}\ntype: project\n---\n\n${body}\n`;
		const hash = await sha256Hex(content);
		await env.FILES.put(objectKey(tenantId, projectId, hash), content);
		const scope = i % 3 === 0 ? "team" : "personal";
		const owner = scope === "team" ? "" : userId;
		statements.push(
			db
				.prepare(
					`INSERT INTO memories (id, project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, session_id, author_id, created_at, updated_at, verified_at, times_served)
					 VALUES (?, ?, ?, ?, ?, 'project', ?, 2, ?, ?, 'user', NULL, ?, ?, ?, ?, ?)`,
				)
				.bind(id, projectId, scope, owner, name, `Legacy memory ${i}`, hash, content.length, userId, NOW, NOW, NOW, i),
			db
				.prepare(
					"INSERT INTO memory_versions (memory_id, project_id, version, content_hash, type, description, source, author_id, created_at) VALUES (?, ?, 1, 'old', 'project', 'old', 'user', ?, ?)",
				)
				.bind(id, projectId, userId, NOW),
			db
				.prepare(
					"INSERT INTO memory_versions (memory_id, project_id, version, content_hash, type, description, source, author_id, created_at) VALUES (?, ?, 2, ?, 'project', ?, 'user', ?, ?)",
				)
				.bind(id, projectId, hash, `Legacy memory ${i}`, userId, NOW),
			db
				.prepare("INSERT INTO memory_visibility (memory_id, project_id, scope, owner_id) VALUES (?, ?, ?, ?)")
				.bind(id, projectId, scope, owner),
			db
				.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)")
				.bind(id, name, `Legacy memory ${i}`, body),
		);
	}
	for (let s = 0; s < 3; s++) {
		statements.push(
			db
				.prepare(
					`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, status, extraction_state, updated_at, memory_turns)
					 VALUES (?, ?, ?, 'claude', ?, ?, 4, ?, 'ended', 'idle', ?, 2)`,
				)
				.bind(projectId, `sess-${s}`, userId, NOW, NOW, s === 0 ? 2 : 4, NOW),
			db
				.prepare(
					"INSERT INTO session_chunks (project_id, session_id, first_seq, last_seq, object_key, bytes, created_at) VALUES (?, ?, 0, 3, ?, 10, ?)",
				)
				.bind(projectId, `sess-${s}`, `tenants/${tenantId}/projects/${projectId}/sessions/x${s}/chunks/00000000-a.ndjson`, NOW),
			db
				.prepare(
					"INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at) VALUES (?, ?, 0, 1, ?, 'offline', '', 's', '[]', ?)",
				)
				.bind(projectId, `sess-${s}`, userId, NOW),
			db
				.prepare("INSERT INTO session_writes (project_id, session_id, seq, memory_name, created_at) VALUES (?, ?, 1, 'legacy-1', ?)")
				.bind(projectId, `sess-${s}`, NOW),
		);
		for (let k = 0; k < 4; k++) {
			statements.push(
				db
					.prepare("INSERT INTO session_records (project_id, session_id, record_key) VALUES (?, ?, ?)")
					.bind(projectId, `sess-${s}`, `rec-${k}`),
			);
		}
	}
	statements.push(
		db
			.prepare(
				"INSERT INTO skills (project_id, owner_id, name, description, content_hash, updated_at) VALUES (?, ?, 'ship-it', 'How to ship', 'h', ?)",
			)
			.bind(projectId, userId, NOW),
		db
			.prepare(
				"INSERT INTO consolidation_events (project_id, owner_id, run_id, op, target, outcome, reason, evidence_json, created_at) VALUES (?, ?, 'run1', 'create', 'legacy-0', 'applied', 'r', '[]', ?)",
			)
			.bind(projectId, userId, NOW),
		db.prepare("UPDATE projects SET storage_moved_at = NULL, index_generation = 7 WHERE id = ?").bind(projectId),
	);
	for (let i = 0; i < statements.length; i += 50) await db.batch(statements.slice(i, i + 50));
}

const ORDER: Record<LegacyTable, string> = {
	memories: "id",
	memory_versions: "memory_id, version",
	memory_visibility: "memory_id",
	sessions: "id",
	session_records: "session_id, record_key",
	session_chunks: "session_id, first_seq",
	session_writes: "session_id, seq",
	stage1_outputs: "session_id, from_seq",
	skills: "owner_id, name",
	consolidation_events: "id",
};

/** Every row of every moved table, old layout against the project's object. */
async function expectSameRows(projectId: string) {
	const pdb = projectDb(projectId);
	for (const table of Object.keys(LEGACY_TABLES) as LegacyTable[]) {
		const columns = LEGACY_TABLES[table].join(", ");
		const sql = `SELECT ${columns} FROM ${table} WHERE project_id = ? ORDER BY ${ORDER[table]}`;
		const before = (await env.DB.prepare(sql).bind(projectId).all()).results;
		const after = (await pdb.prepare(sql).bind(projectId).all()).results;
		expect(after, table).toEqual(before);
		expect(before.length, table).toBeGreaterThan(0);
	}
	const fts =
		"SELECT rowid, name, description, body FROM memories_fts WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?) ORDER BY rowid";
	expect((await pdb.prepare(fts).bind(projectId).all()).results).toEqual((await env.DB.prepare(fts).bind(projectId).all()).results);
}

describe("storage mover", () => {
	it("moves a populated old layout into the objects, resumes after an interruption, and a second run changes nothing", async () => {
		const t = await createTenant();
		const p1 = await createProject(t.token);
		const p2 = await createProject(t.token);
		await fillLegacy(t.tenantId, t.userId, p1, 25);
		await fillLegacy(t.tenantId, t.userId, p2, 12);

		// Interrupted: a small row budget stops the mover part-way through the first project.
		const partial = await moveStorage(env, { maxRows: 30, pageRows: 7 });
		expect(partial.done).toBe(false);
		expect(partial.moved).toBe(0);
		const position = await env.DB.prepare("SELECT phase, cursor FROM storage_moves WHERE project_id = ?")
			.bind([p1, p2].sort()[0])
			.first<Loose>();
		expect(position).not.toBeNull();

		// Resumed through the operator route, a page at a time, until done.
		for (let i = 0; i < 50; i++) {
			const res = await call("/v1/operator/storage/move", { token: ADMIN_TOKEN, json: { maxRows: 40 } });
			expect(res.status).toBe(200);
			if ((await json(res)).done) break;
		}
		const moved = await env.DB.prepare("SELECT count(*) AS n FROM projects WHERE storage_moved_at IS NULL").first<{ n: number }>();
		expect(moved?.n).toBe(0);
		await expectSameRows(p1);
		await expectSameRows(p2);

		// A second full run over the same data (as after a crash that lost the "moved" marks) changes nothing.
		await env.DB.prepare("UPDATE projects SET storage_moved_at = NULL WHERE id IN (?, ?)").bind(p1, p2).run();
		const again = await moveStorage(env, { pageRows: 5 });
		expect(again).toMatchObject({ done: true, moved: 2 });
		await expectSameRows(p1);
		await expectSameRows(p2);

		// The moved project works through the API: read, recall, history, and a new write continues the ids.
		const read = await call(`/v1/projects/${p1}/memories/legacy-4`, { token: t.token });
		expect(read.status).toBe(200);
		expect(await read.text()).toContain("Legacy fact number 4");
		await call(`/v1/projects/${p1}/settings`, { method: "PUT", token: t.token, json: { "memories.enabled": true } });
		const recalled = await json(
			await call(`/v1/projects/${p1}/recall`, { token: t.token, json: { query: "billing service deploys ship" } }),
		);
		expect(recalled.memories.length).toBeGreaterThan(0);
		const history = await json(await call(`/v1/projects/${p1}/memories/legacy-4/history`, { token: t.token }));
		expect(history.versions.map((v: Loose) => v.version)).toEqual([2, 1]);
		const created = await call(`/v1/projects/${p1}/memories/after-move`, {
			method: "PUT",
			token: t.token,
			json: { type: "user", description: "Written after the move", body: "New." },
		});
		expect(created.status).toBe(201);
		// MEMORY.md is rebuilt past the old generation, and lists the moved memories.
		const index = await (await call(`/v1/projects/${p1}/index`, { token: t.token })).text();
		expect(index).toContain("legacy-4");
		expect(index).toContain("after-move");
		const generation = await projectDb(p1)
			.prepare("SELECT index_generation AS g FROM projects WHERE id = ?")
			.bind(p1)
			.first<{ g: number }>();
		expect(generation?.g).toBeGreaterThan(7);
	});

	it("is for the operator only", async () => {
		const t = await createTenant();
		await expectError(await call("/v1/operator/storage/move", { token: t.token, json: {} }), 401, "unauthorized");
		await expectError(await call("/v1/operator/storage/move", { token: ADMIN_TOKEN, json: { maxRows: 0 } }), 400, "invalid_request");
	});
});

describe("operator deletions", () => {
	it("deleting a project removes its object's data, its files and its registry rows; other projects are untouched", async () => {
		const t = await createTenant();
		const gone = await createProject(t.token);
		const kept = await createProject(t.token);
		for (const pid of [gone, kept]) {
			await call(`/v1/projects/${pid}/memories/note`, {
				method: "PUT",
				token: t.token,
				json: { type: "user", description: "d", body: "b" },
			});
		}
		const res = await call(`/v1/operator/projects/${gone}`, { method: "DELETE", token: ADMIN_TOKEN });
		expect(res.status).toBe(200);
		expect((await json(res)).objects).toBeGreaterThan(0);
		expect((await call(`/v1/projects/${gone}/memories`, { token: t.token })).status).toBe(404);
		const listed = await env.FILES.list({ prefix: `tenants/${t.tenantId}/projects/${gone}/` });
		expect(listed.objects).toHaveLength(0);
		const rows = await runInDurableObject(
			env.PROJECT_COORDINATOR.getByName(gone),
			async (i: ProjectCoordinator) => (await i.db.prepare("SELECT count(*) AS n FROM memories").first<{ n: number }>())?.n,
		);
		expect(rows).toBe(0);
		expect((await json(await call(`/v1/projects/${kept}/memories`, { token: t.token }))).memories).toHaveLength(1);
		await expectError(await call(`/v1/operator/projects/${gone}`, { method: "DELETE", token: ADMIN_TOKEN }), 404, "not_found");
		await expectError(await call("/v1/operator/projects/not-an-id", { method: "DELETE", token: ADMIN_TOKEN }), 400, "invalid_request");
		await expectError(await call(`/v1/operator/projects/${kept}`, { method: "DELETE", token: t.token }), 401, "unauthorized");
	});

	it("deleting a tenant removes every project, key and user; the tenant's keys stop working", async () => {
		const t = await createTenant();
		const other = await createTenant();
		const pid = await createProject(t.token);
		const otherPid = await createProject(other.token);
		await call(`/v1/projects/${pid}/memories/note`, { method: "PUT", token: t.token, json: { type: "user", description: "d", body: "b" } });
		await call(`/v1/projects/${otherPid}/memories/note`, {
			method: "PUT",
			token: other.token,
			json: { type: "user", description: "d", body: "b" },
		});
		const res = await call(`/v1/operator/tenants/${t.tenantId}`, { method: "DELETE", token: ADMIN_TOKEN });
		expect(res.status).toBe(200);
		expect((await json(res)).projects.map((p: Loose) => p.projectId)).toEqual([pid]);
		await expectError(await call("/v1/projects", { token: t.token }), 401, "unauthorized");
		for (const table of ["tenants", "users", "api_keys", "projects"]) {
			const column = table === "tenants" ? "id" : "tenant_id";
			const n = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`).bind(t.tenantId).first<{ n: number }>();
			expect(n?.n, table).toBe(0);
		}
		expect((await env.FILES.list({ prefix: `tenants/${t.tenantId}/` })).objects).toHaveLength(0);
		expect((await json(await call(`/v1/projects/${otherPid}/memories`, { token: other.token }))).memories).toHaveLength(1);
	});
});

describe("schema versions inside the object", () => {
	it("upgrades from every earlier version to the current one, keeping the data", async () => {
		expect(PROJECT_SCHEMA_VERSION).toBe(PROJECT_MIGRATIONS.length);
		for (let from = 0; from < PROJECT_SCHEMA_VERSION; from++) {
			const stub = env.PROJECT_COORDINATOR.getByName(`schema-upgrade-${from}`);
			await runInDurableObject(stub, async (_instance: ProjectCoordinator, state) => {
				// Start over at `from`: an object created by an older release.
				state.storage.sql.exec("DROP TABLE IF EXISTS _cairn_schema");
				for (const row of state.storage.sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray()) {
					if (!row.name.startsWith("_cf_") && !row.name.startsWith("memories_fts_") && !row.name.startsWith("sqlite_"))
						state.storage.sql.exec(`DROP TABLE IF EXISTS "${row.name}"`);
				}
				expect(migrateProjectSchema(state.storage, from)).toBe(0);
				if (from >= 1) {
					state.storage.sql.exec(
						`INSERT INTO memories (project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, author_id, created_at, updated_at, verified_at)
						 VALUES ('p', 'team', '', 'kept', 'user', 'd', 1, 'h', 1, 'user', 'u', ?1, ?1, ?1)`,
						NOW,
					);
				}
				expect(migrateProjectSchema(state.storage)).toBe(from);
				const version = state.storage.sql.exec<{ version: number }>("SELECT version FROM _cairn_schema").one().version;
				expect(version).toBe(PROJECT_SCHEMA_VERSION);
				if (from >= 1) expect(state.storage.sql.exec("SELECT name FROM memories").toArray()).toEqual([{ name: "kept" }]);
				// The newest tables are usable.
				state.storage.sql.exec("INSERT INTO session_served (project_id, session_id, memory_id, served_at) VALUES ('p', 's', 1, ?)", NOW);
				// Running again changes nothing.
				expect(migrateProjectSchema(state.storage)).toBe(PROJECT_SCHEMA_VERSION);
			});
		}
	});

	it("rebuilds derived cues and stored concepts when the concept map's version changes, keeping written cues", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		const put = (name: string, description: string, body: string, cues?: string[]) =>
			call(`/v1/projects/${projectId}/memories/${name}`, {
				method: "PUT",
				token: tenant.token,
				json: { scope: "team", type: "feedback", description, body, ...(cues ? { cues } : {}) },
			});
		expect((await put("pnpm-only", "Install packages with pnpm, never npm", "Use pnpm add for every dependency.")).status).toBe(201);
		expect((await put("dates-utc", "Store dates in UTC", "Show times in the user's time zone.", ["when storing a timestamp"])).status).toBe(
			201,
		);
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (_instance: ProjectCoordinator, state) => {
			const sql = state.storage.sql;
			const cueRows = () =>
				sql
					.exec<{ name: string; cues: string; cues_source: string; row_cues: string | null; concepts: string | null }>(
						`SELECT m.name, m.cues, m.cues_source, c.cues AS row_cues, c.concepts FROM memories m
						 LEFT JOIN memories_cues c ON c.rowid = m.id ORDER BY m.name`,
					)
					.toArray();
			const before = cueRows();
			expect(refreshConcepts(state.storage)).toBe(0);
			// Made with an older map: stale concepts and derived cues, as a map change would leave them.
			sql.exec("UPDATE _cairn_schema SET concept_map = ?", CONCEPT_MAP_VERSION - 1);
			sql.exec("UPDATE memories SET cues = '[\"stale\"]' WHERE cues_source = 'derived'");
			sql.exec("UPDATE memories_cues SET concepts = 'stale'");
			expect(refreshConcepts(state.storage)).toBe(2);
			const after = cueRows();
			expect(after).toEqual(before);
			const pnpm = after.find((r) => r.name === "pnpm-only");
			expect(pnpm?.cues).toBe(
				JSON.stringify(
					deriveCues({
						name: "pnpm-only",
						description: "Install packages with pnpm, never npm",
						body: "Use pnpm add for every dependency.\n",
					}),
				),
			);
			expect(after.find((r) => r.name === "dates-utc")).toMatchObject({
				cues: JSON.stringify(["when storing a timestamp"]),
				cues_source: "written",
			});
			expect(pnpm?.concepts).toBe(
				conceptColumn({
					name: "pnpm-only",
					description: "Install packages with pnpm, never npm",
					body: "Use pnpm add for every dependency.\n",
					cues: JSON.parse(pnpm?.cues ?? "[]"),
				}),
			);
			expect(sql.exec<{ concept_map: number }>("SELECT concept_map FROM _cairn_schema").one().concept_map).toBe(CONCEPT_MAP_VERSION);
			expect(refreshConcepts(state.storage)).toBe(0);
		});
	});
});
