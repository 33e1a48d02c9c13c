import { nowIso } from "../lib/ids";
import type { ProjectContext } from "../memory/store";
import { projectStore } from "../project/client";
import type { ProjectDb } from "../project/sql";

/**
 * Records that these memories were served (times served, last served; with a session id, which
 * session was handed them): the basis for ranking and pruning later. Called through waitUntil, off
 * the response path.
 */
export async function recordServed(db: ProjectDb, projectId: string, memoryIds: number[], sessionId?: string): Promise<void> {
	const ids = [...new Set(memoryIds)].slice(0, 90);
	if (ids.length === 0) return;
	const now = nowIso();
	const statements = [
		db
			.prepare(`UPDATE memories SET times_served = times_served + 1, last_served_at = ? WHERE id IN (${ids.map(() => "?").join(",")})`)
			.bind(now, ...ids),
	];
	if (sessionId) {
		statements.push(
			db
				.prepare(
					`INSERT INTO session_served (project_id, session_id, memory_id, served_at) SELECT ?1, ?2, value, ?3 FROM json_each(?4)
					 WHERE true ON CONFLICT (project_id, session_id, memory_id) DO UPDATE SET served_at = excluded.served_at`,
				)
				.bind(projectId, sessionId, now, JSON.stringify(ids)),
		);
	}
	await db.batch(statements);
}

/** From the Worker: records what was served in the project's object, off the response path. */
export function servedInBackground(
	env: Env,
	waitUntil: (p: Promise<unknown>) => void,
	ctx: ProjectContext,
	memoryIds: number[],
	sessionId?: string,
): void {
	if (memoryIds.length === 0) return;
	waitUntil(
		projectStore(env, ctx.projectId)
			.recordServed(ctx, memoryIds, sessionId)
			.catch((err) => console.error("recording served memories failed", err instanceof Error ? err.message : String(err))),
	);
}
