/**
 * The storage mover: copies an existing deployment's per-project rows from the shared D1 tables into
 * each project's Durable Object. Resumable and idempotent:
 *
 * - projects are moved one at a time, in id order; `projects.storage_moved_at` marks a finished one;
 * - within a project, tables are copied in a fixed order, a page at a time by rowid, and the position
 *   (`storage_moves.phase`, `cursor`) is saved after every page, so an interrupted run continues where
 *   it stopped;
 * - the object inserts with `INSERT OR REPLACE` on each table's own key (memory ids are kept, so the
 *   full-text rows keep pointing at their memories), so a page copied twice changes nothing.
 *
 * The old tables are left in place; a later migration drops them once every project is moved.
 */

import { nowIso } from "../lib/ids";
import { deriveCues } from "../recall/concepts";
import { cueStatements, gramStatements, rowById } from "../recall/index-rows";
import type { ProjectDb } from "./sql";

/** Tables in copy order with the columns copied. `memories_fts` is read by rowid alongside. */
export const LEGACY_TABLES = {
	memories: [
		"id",
		"project_id",
		"scope",
		"owner_id",
		"name",
		"type",
		"description",
		"version",
		"content_hash",
		"bytes",
		"source",
		"session_id",
		"author_id",
		"created_at",
		"updated_at",
		"verified_at",
		"times_served",
		"last_served_at",
	],
	memory_versions: [
		"memory_id",
		"project_id",
		"version",
		"content_hash",
		"type",
		"description",
		"source",
		"session_id",
		"author_id",
		"created_at",
	],
	memory_visibility: ["memory_id", "project_id", "scope", "owner_id"],
	sessions: [
		"project_id",
		"id",
		"user_id",
		"agent",
		"cwd",
		"branch",
		"started_at",
		"last_activity_at",
		"turns",
		"cursor",
		"status",
		"extraction_state",
		"queued_at",
		"last_error",
		"updated_at",
		"memory_turns",
		"memory_tokens",
		"memory_updated_at",
	],
	session_records: ["project_id", "session_id", "record_key"],
	session_chunks: ["project_id", "session_id", "first_seq", "last_seq", "object_key", "bytes", "created_at"],
	session_writes: ["project_id", "session_id", "seq", "memory_name", "created_at"],
	stage1_outputs: [
		"project_id",
		"session_id",
		"from_seq",
		"to_seq",
		"user_id",
		"extractor",
		"raw_memory",
		"summary",
		"candidates_json",
		"created_at",
		"consolidated_at",
	],
	skills: ["project_id", "owner_id", "name", "description", "content_hash", "updated_at"],
	consolidation_events: ["id", "project_id", "owner_id", "run_id", "op", "target", "outcome", "reason", "evidence_json", "created_at"],
} as const;

export type LegacyTable = keyof typeof LEGACY_TABLES;
const TABLE_ORDER = Object.keys(LEGACY_TABLES) as LegacyTable[];

/** One page of one table, as read from D1; `fts` rows accompany a page of memories. */
export interface LegacyRows {
	table: LegacyTable;
	rows: Record<string, unknown>[];
	fts?: { rowid: number; name: string; description: string; body: string }[];
	/** The project's MEMORY.md generation in the old layout (sent once, with the first page). */
	indexGeneration?: number;
}

/** Inside the object: writes one page. Rows of any other project are refused. */
export async function importLegacyRows(db: ProjectDb, projectId: string, page: LegacyRows): Promise<number> {
	const columns = LEGACY_TABLES[page.table];
	if (!columns) throw new Error("unknown table");
	const statements = [];
	for (const row of page.rows) {
		if (row.project_id !== projectId) throw new Error("a row of another project");
		statements.push(
			db
				.prepare(`INSERT OR REPLACE INTO ${page.table} (${columns.join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`)
				.bind(...columns.map((c) => row[c] ?? null)),
		);
	}
	for (const f of page.fts ?? []) {
		statements.push(db.prepare("DELETE FROM memories_fts WHERE rowid = ?").bind(f.rowid));
		statements.push(
			db
				.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)")
				.bind(f.rowid, f.name, f.description, f.body),
			...gramStatements(db, rowById(f.rowid), f),
		);
		// The old layout had no cues: derived from the concept map, as the schema step does for stored memories.
		const cues = deriveCues(f);
		statements.push(
			db.prepare("UPDATE memories SET cues = ?, cues_source = 'derived' WHERE id = ?").bind(JSON.stringify(cues), f.rowid),
			...cueStatements(db, rowById(f.rowid), { ...f, cues }),
		);
	}
	if (page.indexGeneration !== undefined) {
		// Past the old generation: a MEMORY.md cached under the old layout is never mistaken for current.
		statements.push(
			db.prepare("UPDATE projects SET index_generation = max(index_generation, ?) + 1 WHERE id = ?").bind(page.indexGeneration, projectId),
		);
	}
	if (statements.length > 0) await db.batch(statements);
	return page.rows.length;
}

export const MOVE_PAGE_ROWS = 200;

export interface MoveReport {
	/** Projects finished by this call. */
	moved: number;
	/** Rows copied by this call. */
	rows: number;
	/** True when every project is moved. */
	done: boolean;
}

/**
 * Moves projects until every one is moved or `maxRows` rows have been copied in this call (then
 * `done` is false and the next call resumes). Safe to run again at any time.
 */
export async function moveStorage(env: Env, options: { maxRows?: number; pageRows?: number } = {}): Promise<MoveReport> {
	const maxRows = options.maxRows ?? Number.POSITIVE_INFINITY;
	const pageRows = options.pageRows ?? MOVE_PAGE_ROWS;
	let rows = 0;
	let moved = 0;
	for (;;) {
		const project = await env.DB.prepare(
			"SELECT id, index_generation FROM projects WHERE storage_moved_at IS NULL ORDER BY id LIMIT 1",
		).first<{
			id: string;
			index_generation: number;
		}>();
		if (!project) return { moved, rows, done: true };
		const stub = env.PROJECT_COORDINATOR.getByName(project.id);
		const position = await env.DB.prepare("SELECT phase, cursor FROM storage_moves WHERE project_id = ?")
			.bind(project.id)
			.first<{ phase: string; cursor: string }>();
		let phase = TABLE_ORDER.indexOf((position?.phase ?? TABLE_ORDER[0]) as LegacyTable);
		let cursor = Number(position?.cursor ?? 0);
		let first = !position;
		while (phase < TABLE_ORDER.length) {
			if (rows >= maxRows) return { moved, rows, done: false };
			const table = TABLE_ORDER[phase] as LegacyTable;
			const { results } = await env.DB.prepare(
				`SELECT rowid AS _rowid, * FROM ${table} WHERE project_id = ? AND rowid > ? ORDER BY rowid LIMIT ?`,
			)
				.bind(project.id, cursor, pageRows)
				.all<Record<string, unknown> & { _rowid: number }>();
			const page: LegacyRows = { table, rows: results };
			if (table === "memories" && results.length > 0) {
				const { results: fts } = await env.DB.prepare(
					"SELECT rowid, name, description, body FROM memories_fts WHERE rowid IN (SELECT value FROM json_each(?))",
				)
					.bind(JSON.stringify(results.map((r) => r.id)))
					.all<{ rowid: number; name: string; description: string; body: string }>();
				page.fts = fts;
			}
			if (first) {
				page.indexGeneration = project.index_generation;
				first = false;
			}
			if (results.length > 0 || page.indexGeneration !== undefined) await stub.importLegacy(project.id, page);
			rows += results.length;
			if (results.length < pageRows) {
				phase += 1;
				cursor = 0;
			} else cursor = results.at(-1)?._rowid ?? cursor;
			await env.DB.prepare(
				`INSERT INTO storage_moves (project_id, phase, cursor, updated_at) VALUES (?1, ?2, ?3, ?4)
				 ON CONFLICT (project_id) DO UPDATE SET phase = ?2, cursor = ?3, updated_at = ?4`,
			)
				.bind(project.id, TABLE_ORDER[Math.min(phase, TABLE_ORDER.length - 1)], String(phase >= TABLE_ORDER.length ? 0 : cursor), nowIso())
				.run();
		}
		await env.DB.batch([
			env.DB.prepare("UPDATE projects SET storage_moved_at = ? WHERE id = ?").bind(nowIso(), project.id),
			env.DB.prepare("DELETE FROM storage_moves WHERE project_id = ?").bind(project.id),
		]);
		moved += 1;
	}
}
