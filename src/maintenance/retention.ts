/**
 * Transcript retention: raw transcript chunks are kept only as long as they are useful for
 * extraction. The cron's sweep removes, per user, the chunks of sessions whose last activity and
 * whose chunk are older than `memories.transcriptRetentionDays` (default 30, in line with
 * `memories.maxRolloutAgeDays`) — and only chunks wholly before the session's cursor, so a range
 * still waiting for extraction keeps every turn it needs. Record keys stay, so re-posting an old file
 * adds nothing; readers that replay a session (session memory) work from the turns that remain.
 */

import { effectiveSettings } from "../settings/settings";
import type { ProjectEnv } from "../storage/env";

const DAY_MS = 86_400_000;
/** Chunks removed per user per sweep, at most: the next sweep goes on. */
const PER_SWEEP = 500;

export async function sweepTranscripts(env: ProjectEnv, projectId: string, tenantId: string, now: number): Promise<number> {
	const { results: users } = await env.PDB.prepare(
		"SELECT DISTINCT s.user_id FROM sessions s JOIN session_chunks c ON c.project_id = s.project_id AND c.session_id = s.id WHERE s.project_id = ?",
	)
		.bind(projectId)
		.all<{ user_id: string }>();
	let removed = 0;
	for (const { user_id } of users) {
		const settings = await effectiveSettings(env.DB, tenantId, user_id, projectId);
		const cutoff = new Date(now - Number(settings["memories.transcriptRetentionDays"].value) * DAY_MS).toISOString();
		const { results: chunks } = await env.PDB.prepare(
			`SELECT c.session_id, c.first_seq, c.object_key FROM session_chunks c
			 JOIN sessions s ON s.project_id = c.project_id AND s.id = c.session_id
			 WHERE c.project_id = ? AND s.user_id = ? AND c.last_seq < s.cursor AND s.last_activity_at < ? AND c.created_at < ?
			 ORDER BY c.created_at LIMIT ?`,
		)
			.bind(projectId, user_id, cutoff, cutoff, PER_SWEEP)
			.all<{ session_id: string; first_seq: number; object_key: string }>();
		if (chunks.length === 0) continue;
		// Rows first, each still wholly before its session's cursor; the objects after. An object whose
		// delete fails is named by no row, and the orphan sweep removes it later.
		await env.PDB.batch(
			chunks.map((c) =>
				env.PDB.prepare(
					`DELETE FROM session_chunks WHERE project_id = ?1 AND session_id = ?2 AND first_seq = ?3
					 AND last_seq < (SELECT cursor FROM sessions WHERE project_id = ?1 AND id = ?2)`,
				).bind(projectId, c.session_id, c.first_seq),
			),
		);
		const keys = chunks.map((c) => c.object_key);
		for (let i = 0; i < keys.length; i += 1000) await env.FILES.delete(keys.slice(i, i + 1000));
		removed += chunks.length;
	}
	return removed;
}
