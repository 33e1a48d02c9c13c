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

import { LEGACY_TABLE_NAMES } from "../db/schema";
import { nowIso } from "../lib/ids";
import { type LegacyRows, type LegacyTable, TABLE_ORDER } from "../memory/legacy";
import { projectStore } from "../project/client";
import { markMoved, nextUnmovedProject } from "../registry/projects";

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
		const project = await nextUnmovedProject(env.DB);
		if (!project) return { moved, rows, done: true };
		const store = projectStore(env, project.id);
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
			if (results.length > 0 || page.indexGeneration !== undefined) await store.importLegacy(project.id, page);
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
			markMoved(env.DB, project.id, nowIso()),
			env.DB.prepare("DELETE FROM storage_moves WHERE project_id = ?").bind(project.id),
		]);
		moved += 1;
	}
}

/**
 * Tables of the old shared layout that may still hold a project's rows until the mover's cleanup, keyed
 * by project id (`memories` and its search index go first, by hand: the index is keyed by row id).
 */
const LEGACY_PROJECT_TABLES = LEGACY_TABLE_NAMES.filter((t) => t !== "memories" && t !== "memories_fts");

/** Deletes a project's rows from the old shared tables (nothing once the mover's cleanup dropped them). */
export const legacyRowDeletes = (db: D1Database, projectId: string) => [
	db.prepare("DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?)").bind(projectId),
	db.prepare("DELETE FROM memories WHERE project_id = ?").bind(projectId),
	...LEGACY_PROJECT_TABLES.map((t) => db.prepare(`DELETE FROM ${t} WHERE project_id = ?`).bind(projectId)),
];
