import { nowIso } from "../lib/ids";
import { sessionUseKey } from "../memory/use";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";

// What a session was already handed is kept under (user, session id), `sessionUseKey`, like its uses: a
// caller can mark and read only its own sessions' deliveries, whatever session id it names, and whether
// or not the session has posted a transcript yet (inject runs at session start, before any).

/**
 * Records that these memories were served (times served, last served; with a session id, which
 * session was handed them, and the count of sessions each reached): the basis for ranking and for
 * proposing unused memories for archiving. Called through waitUntil, off the response path.
 */
export async function recordServed(db: ProjectDb, ctx: ProjectContext, memoryIds: number[], sessionId?: string): Promise<void> {
	const ids = [...new Set(memoryIds)].slice(0, 90);
	if (ids.length === 0) return;
	const now = nowIso();
	const statements = [
		db
			.prepare(`UPDATE memories SET times_served = times_served + 1, last_served_at = ? WHERE id IN (${ids.map(() => "?").join(",")})`)
			.bind(now, ...ids),
	];
	if (sessionId) {
		const key = sessionUseKey(ctx, sessionId);
		statements.push(
			// Before the rows below exist: a memory counts once per session it reached.
			db
				.prepare(
					`UPDATE memories SET served_sessions = served_sessions + 1 WHERE id IN (SELECT value FROM json_each(?3))
					 AND NOT EXISTS (SELECT 1 FROM session_served s WHERE s.project_id = ?1 AND s.session_id = ?2 AND s.memory_id = memories.id)`,
				)
				.bind(ctx.projectId, key, JSON.stringify(ids)),
			db
				.prepare(
					`INSERT INTO session_served (project_id, session_id, memory_id, served_at) SELECT ?1, ?2, value, ?3 FROM json_each(?4)
					 WHERE true ON CONFLICT (project_id, session_id, memory_id) DO UPDATE SET served_at = excluded.served_at`,
				)
				.bind(ctx.projectId, key, now, JSON.stringify(ids)),
		);
	}
	await db.batch(statements);
}

/** Names of the memories the caller's session `sessionId` was already handed (recall and inject with its id). */
export async function servedTo(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<string[]> {
	const { results } = await db
		.prepare(
			`SELECT m.name FROM session_served s JOIN memories m ON m.id = s.memory_id
			 WHERE s.project_id = ? AND s.session_id = ? AND (m.scope = 'team' OR m.owner_id = ?)`,
		)
		.bind(ctx.projectId, sessionUseKey(ctx, sessionId), ctx.userId)
		.all<{ name: string }>();
	return results.map((r) => r.name);
}
