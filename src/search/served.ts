import { nowIso } from "../lib/ids";
import { sessionUseKey } from "../memory/use";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import { servedSql } from "../trust/vouch";

// What a session was already handed is kept under (user, session id), `sessionUseKey`, like its uses: a
// caller can mark and read only its own sessions' deliveries, whatever session id it names, and whether
// or not the session has posted a transcript yet (inject runs at session start, before any).

/**
 * Records that these memories were served (times served, last served; with a session id, which
 * session was handed them, and the count of sessions each reached): the basis for ranking and for
 * proposing unused memories for archiving. `listedIds`: memories whose index line alone the session was
 * shown (the session-start block's ranked index): kept per session so that the prompt block does not
 * offer the line again, never counted as served; `topicKeys`: topic lines its prompt block named, kept per
 * session likewise. Called through waitUntil, off the response path, or
 * awaited where the next request of the session depends on it.
 */
export async function recordServed(
	db: ProjectDb,
	ctx: ProjectContext,
	memoryIds: number[],
	sessionId?: string,
	listedIds: number[] = [],
	topicKeys: string[] = [],
): Promise<void> {
	const ids = [...new Set(memoryIds)].slice(0, 90);
	const listed = sessionId ? [...new Set(listedIds)].filter((id) => !ids.includes(id)).slice(0, 400) : [];
	const topics = sessionId ? [...new Set(topicKeys)].slice(0, 20) : [];
	if (ids.length === 0 && listed.length === 0 && topics.length === 0) return;
	const now = nowIso();
	const statements = [];
	if (ids.length > 0)
		statements.push(
			db
				.prepare(`UPDATE memories SET times_served = times_served + 1, last_served_at = ? WHERE id IN (${ids.map(() => "?").join(",")})`)
				.bind(now, ...ids),
		);
	if (sessionId) {
		const key = sessionUseKey(ctx, sessionId);
		if (ids.length > 0)
			statements.push(
				// Before the rows below are written: a memory counts once per session whose block held its file.
				db
					.prepare(
						`UPDATE memories SET served_sessions = served_sessions + 1 WHERE id IN (SELECT value FROM json_each(?3))
						 AND NOT EXISTS (SELECT 1 FROM session_served s WHERE s.project_id = ?1 AND s.session_id = ?2 AND s.memory_id = memories.id AND s.listed = 0)`,
					)
					.bind(ctx.projectId, key, JSON.stringify(ids)),
			);
		// A file once served stays served (listed = 0) when its line is listed again later.
		const upsert = (list: number[], flag: number) =>
			db
				.prepare(
					`INSERT INTO session_served (project_id, session_id, memory_id, served_at, listed) SELECT ?1, ?2, value, ?3, ?5 FROM json_each(?4)
					 WHERE true ON CONFLICT (project_id, session_id, memory_id) DO UPDATE SET served_at = excluded.served_at, listed = MIN(listed, excluded.listed)`,
				)
				.bind(ctx.projectId, key, now, JSON.stringify(list), flag);
		if (ids.length > 0) statements.push(upsert(ids, 0));
		if (listed.length > 0) statements.push(upsert(listed, 1));
		if (topics.length > 0)
			statements.push(
				db
					.prepare(
						`INSERT INTO session_topics (project_id, session_id, topic_key, shown_at) SELECT ?1, ?2, value, ?3 FROM json_each(?4)
						 WHERE true ON CONFLICT (project_id, session_id, topic_key) DO UPDATE SET shown_at = excluded.shown_at`,
					)
					.bind(ctx.projectId, key, now, JSON.stringify(topics)),
			);
	}
	await db.batch(statements);
}

/** The topic lines the caller's session `sessionId` was already shown in its prompt blocks. */
export async function topicsShownTo(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<Set<string>> {
	const { results } = await db
		.prepare("SELECT topic_key FROM session_topics WHERE project_id = ? AND session_id = ?")
		.bind(ctx.projectId, sessionUseKey(ctx, sessionId))
		.all<{ topic_key: string }>();
	return new Set(results.map((r) => r.topic_key));
}

/** What the caller's session `sessionId` was already handed: memories whose file it was given, and those whose index line alone it was shown. */
export async function servedTo(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<{ served: string[]; listed: string[] }> {
	const { results } = await db
		.prepare(
			`SELECT m.name, s.listed FROM session_served s JOIN memories m ON m.id = s.memory_id
			 WHERE s.project_id = ?1 AND s.session_id = ?2 AND ${servedSql("m", "?3")}`,
		)
		.bind(ctx.projectId, sessionUseKey(ctx, sessionId), ctx.userId)
		.all<{ name: string; listed: number }>();
	return {
		served: results.filter((r) => r.listed === 0).map((r) => r.name),
		listed: results.filter((r) => r.listed === 1).map((r) => r.name),
	};
}
