/**
 * Memories served often and never used are proposed for archiving. A memory that recall and inject
 * handed to `memories.archiveUnusedAfterSessions` (20) sessions of its decider — sessions whose
 * transcript Cairn has, so their use could have been seen — without a single one citing or reading it
 * (src/memory/use.ts) becomes a pending `archive` item in the review queue (src/memory/reviews.ts) of
 * its owner, a team memory's for its last author (and, in the queue, the project's admins). Nothing is archived, let alone deleted, here:
 * approving the item archives it (src/memory/archive-rows.ts), rejecting it keeps the memory, and only
 * sessions served after a decision on an earlier item count towards the next proposal.
 *
 * Runs in the cron's sweep of each project, a page of candidates per visit: a cursor in the object's
 * storage goes on where the last visit stopped and wraps around at the end, so every candidate is
 * reached however many there are. Idempotent: a memory with a pending item is not proposed again, and
 * the count restarts after every decision.
 */
import { nowIso } from "../lib/ids";
import { newReviewId } from "../memory/reviews";
import type { MemoryRow } from "../memory/rows";
import type { MemoryScope } from "../memory/topic-file";
import { type EffectiveSettings, effectiveSettings, featureOff } from "../settings/settings";
import type { ProjectEnv } from "../storage/env";

/** Candidates examined per visit of a project; the next visit goes on after the last. */
export const ARCHIVE_CANDIDATES_PER_VISIT = 100;

/** Where the next visit starts (a memory id) in the object's storage. */
export const ARCHIVE_CURSOR_KEY = "archive-sweep:after";

interface CursorStore {
	get<T>(key: string): Promise<T | undefined>;
	put<T>(key: string, value: T): Promise<void>;
}

export interface ArchiveSweepResult {
	examined: number;
	queued: number;
}

type Candidate = Pick<MemoryRow, "id" | "scope" | "owner_id" | "name" | "version" | "author_id" | "served_sessions">;

/**
 * The sessions that count for a memory since `since`: those whose blocks held its file (`session_served`
 * with `listed` 0, keyed `<user id>/<session id as sent>`; an index line alone is not serving it) that have a transcript (a session row with turns; its id is the one
 * sent, or `<id>@<user id>` for a user whose id another held).
 */
const COUNTED_SESSIONS = `SELECT count(*) AS n FROM session_served s
	WHERE s.project_id = ?1 AND s.memory_id = ?2 AND s.listed = 0 AND s.served_at > ?3 AND EXISTS (
	  SELECT 1 FROM sessions t WHERE t.project_id = ?1 AND t.turns > 0
	    AND t.user_id = substr(s.session_id, 1, instr(s.session_id, '/') - 1)
	    AND t.id IN (substr(s.session_id, instr(s.session_id, '/') + 1),
	                 substr(s.session_id, instr(s.session_id, '/') + 1) || '@' || substr(s.session_id, 1, instr(s.session_id, '/') - 1)))`;

/** An item about this memory for its decider: a team memory's, whoever decided it. */
const ITEM_OF_MEMORY =
	"project_id = ? AND kind = 'archive' AND memory_scope = ? AND memory_name = ? AND (memory_scope = 'team' OR owner_id = ?)";

export async function proposeArchives(
	env: ProjectEnv,
	projectId: string,
	tenantId: string,
	cursors: CursorStore,
	options: { limit?: number } = {},
): Promise<ArchiveSweepResult> {
	const db = env.PDB;
	const after = (await cursors.get<number>(ARCHIVE_CURSOR_KEY)) ?? 0;
	const limit = options.limit ?? ARCHIVE_CANDIDATES_PER_VISIT;
	// Cheap first: the never-used memories served at least once, without a pending item.
	const { results } = await db
		.prepare(
			`SELECT m.id, m.scope, m.owner_id, m.name, m.version, m.author_id, m.served_sessions FROM memories m
			 WHERE m.project_id = ?1 AND m.id > ?3 AND m.archived_at IS NULL AND m.cited_sessions = 0 AND m.read_sessions = 0 AND m.served_sessions > 0
			   AND NOT EXISTS (SELECT 1 FROM review_items r WHERE r.project_id = ?1 AND r.kind = 'archive' AND r.status = 'pending'
			     AND r.memory_scope = m.scope AND r.memory_name = m.name AND (m.scope = 'team' OR r.owner_id = m.owner_id))
			 ORDER BY m.id LIMIT ?2`,
		)
		.bind(projectId, limit, after)
		.all<Candidate>();
	const settingsOf = new Map<string, Promise<EffectiveSettings>>();
	let queued = 0;
	for (const m of results) {
		// The person who decides: the owner of a personal memory, the last author of a team one.
		const owner = m.scope === "team" ? m.author_id : m.owner_id;
		if (!settingsOf.has(owner)) settingsOf.set(owner, effectiveSettings(env.DB, tenantId, owner, projectId));
		const settings = await (settingsOf.get(owner) as Promise<EffectiveSettings>);
		const threshold = Number(settings["memories.archiveUnusedAfterSessions"].value);
		if (threshold <= 0 || (m.served_sessions ?? 0) < threshold || featureOff(settings, "memory", ["memories.enabled"]) !== null) continue;
		const since =
			(
				await db
					.prepare(`SELECT max(decided_at) AS at FROM review_items WHERE ${ITEM_OF_MEMORY} AND status != 'pending'`)
					.bind(projectId, m.scope, m.name, owner)
					.first<{ at: string | null }>()
			)?.at ?? "";
		const sessions = (await db.prepare(COUNTED_SESSIONS).bind(projectId, m.id, since).first<{ n: number }>())?.n ?? 0;
		if (sessions < threshold) continue;
		if (await propose(env, projectId, owner, m.scope, m.name, m.version, sessions, since)) queued++;
	}
	// A short page is the end: the next visit starts over.
	await cursors.put(ARCHIVE_CURSOR_KEY, results.length < limit ? 0 : (results.at(-1)?.id ?? 0));
	return { examined: results.length, queued };
}

async function propose(
	env: ProjectEnv,
	projectId: string,
	owner: string,
	scope: MemoryScope,
	name: string,
	version: number,
	sessions: number,
	since: string,
): Promise<boolean> {
	const reason =
		`Served in ${sessions} sessions${since ? ` since the last decision (${since.slice(0, 10)})` : ""} and never cited or read in any. ` +
		"Approve to archive it: it is no longer served at session start, per prompt or by recall, and stays readable by its path, " +
		"listed and in history (a new version or a restore serves it again). Reject to keep it.";
	const inserted = await env.PDB.prepare(
		`INSERT OR IGNORE INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, run_id, created_at)
		 SELECT ?, ?, ?, 'archive', ?, ?, ?, 'archive', '{}', ?, ?, NULL, ?
		 WHERE NOT EXISTS (SELECT 1 FROM review_items WHERE ${ITEM_OF_MEMORY} AND status = 'pending')`,
	)
		.bind(
			newReviewId(),
			projectId,
			owner,
			name,
			scope,
			version,
			reason.slice(0, 500),
			JSON.stringify([`served-sessions:${sessions}`, "cited:0", "read:0"]),
			nowIso(),
			projectId,
			scope,
			name,
			owner,
		)
		.run();
	return inserted.meta.changes > 0;
}
