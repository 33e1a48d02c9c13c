/**
 * Rows of the old shared D1 layout, copied into a project's object by the storage mover
 * (src/worker/mover.ts): the tables and columns copied, and the insert on the object's side.
 */

import type { ProjectDb } from "../storage/sql";
import { deriveCues } from "../text/concepts";
import { VOUCHED_AT_UPGRADE } from "../trust/vouch";
import { cueStatements, gramStatements, rowById } from "./index-rows";

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
export const TABLE_ORDER = Object.keys(LEGACY_TABLES) as LegacyTable[];

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
	// Team memories of the old layout were served to every teammate: they stay so, vouched for at upgrade (src/trust/vouch.ts).
	if (page.table === "memories" && page.rows.length > 0) {
		statements.push(
			db
				.prepare(
					"UPDATE memories SET vouched_by = ? WHERE scope = 'team' AND vouched_by IS NULL AND id IN (SELECT value FROM json_each(?))",
				)
				.bind(VOUCHED_AT_UPGRADE, JSON.stringify(page.rows.map((r) => r.id))),
		);
	}
	if (page.table === "memory_versions" && page.rows.length > 0) {
		statements.push(
			db
				.prepare(
					`UPDATE memory_versions SET vouched_by = ? WHERE vouched_by IS NULL AND memory_id IN (SELECT id FROM memories WHERE scope = 'team')
					 AND memory_id IN (SELECT value FROM json_each(?))`,
				)
				.bind(VOUCHED_AT_UPGRADE, JSON.stringify([...new Set(page.rows.map((r) => r.memory_id))])),
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
