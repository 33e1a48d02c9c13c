/**
 * What archiving a memory changes in its rows. An archived memory (`memories.archived_at`, schema
 * version 16) is one a person agreed is not worth serving: it has no `memory_visibility` row, so recall
 * and inject never find it, and MEMORY.md, the offline summary and the selector's manifest leave it out.
 * Nothing else changes: its file, versions, history and use counts stay, it is listed and readable by
 * its path, and a new version or a restore brings it back (src/memory/archive.ts).
 */
import type { ProjectDb, ProjectStatement } from "../storage/sql";

/** Archives the memory at `version` (a memory changed since is left alone: guard it in the same batch). */
export const archiveStatements = (db: ProjectDb, memory: { id: number; version: number }, now: string): ProjectStatement[] => [
	db.prepare("UPDATE memories SET archived_at = ? WHERE id = ? AND version = ?").bind(now, memory.id, memory.version),
	db.prepare("DELETE FROM memory_visibility WHERE memory_id = ?").bind(memory.id),
];

/**
 * Serves an archived memory again: its visibility row back, the mark gone. A team memory no person vouched
 * for comes back as the proposal it is: visible to its writer only (src/trust/vouch.ts).
 */
export const restoreStatements = (db: ProjectDb, memoryId: number): ProjectStatement[] => [
	db.prepare("UPDATE memories SET archived_at = NULL WHERE id = ?").bind(memoryId),
	db
		.prepare(
			`INSERT OR IGNORE INTO memory_visibility (memory_id, project_id, scope, owner_id)
			 SELECT id, project_id, scope, CASE WHEN scope = 'team' AND vouched_by IS NULL THEN author_id ELSE owner_id END FROM memories WHERE id = ?`,
		)
		.bind(memoryId),
];
