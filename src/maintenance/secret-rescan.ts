/**
 * The secret re-scan: memories stored before the current secret policy (docs/reliability.md, "Secret
 * policy") are scanned again under it, and every hit becomes a `secret` item in the review queue
 * (src/memory/reviews.ts) for the memory's owner — a team memory's for its last author (and, in the queue, the project's admins). Nothing is
 * deleted here: approving the item deletes the memory through the ordinary path, rejecting it keeps
 * the memory and records the decision.
 *
 * Idempotent: an item is made once per memory version (whatever became of it), so a re-scan after a
 * rejection does not ask again about the same text; a pending item for an older version is replaced.
 * A cursor in the project object's storage, per policy version, lets each visit go on where the last
 * stopped; new writes are scanned by the write path itself, so one pass per policy version suffices.
 * Bump SECRET_POLICY_VERSION when the policy changes to re-scan everything.
 */
import { nowIso } from "../lib/ids";
import { newReviewId } from "../memory/reviews";
import type { MemoryRow } from "../memory/rows";
import { cuesOf, secretScanText } from "../memory/store";
import { findSecrets, ruleNames } from "../security/secrets";
import type { ProjectEnv } from "../storage/env";

// 2: GitLab prefixes in addresses and paths, Discord `mfa.` tokens, tokens as a URL's user-info, `%` in URL passwords.
export const SECRET_POLICY_VERSION = 2;
/** Memories examined per visit of a project (each one scan of its text from the search index). */
export const RESCAN_PER_VISIT = 200;

export interface RescanResult {
	scanned: number;
	flagged: number;
	queued: number;
	/** True when every memory up to the newest has been examined under this policy version. */
	done: boolean;
}

interface CursorStore {
	get<T>(key: string): Promise<T | undefined>;
	put<T>(key: string, value: T): Promise<void>;
}

export const cursorKey = () => `secret-rescan:v${SECRET_POLICY_VERSION}`;

type Row = Pick<MemoryRow, "id" | "scope" | "owner_id" | "name" | "description" | "version" | "cues"> & {
	author_id: string;
	body: string;
};

export async function rescanProjectSecrets(
	env: ProjectEnv,
	projectId: string,
	cursors: CursorStore,
	options: { limit?: number } = {},
): Promise<RescanResult> {
	const db = env.PDB;
	const after = (await cursors.get<number>(cursorKey())) ?? 0;
	const limit = options.limit ?? RESCAN_PER_VISIT;
	const { results } = await db
		.prepare(
			// The body from the search index, written in the same transaction as every version: no R2 read,
			// whether the content is an object of its own or a range of a batch's pack.
			`SELECT m.id, m.scope, m.owner_id, m.name, m.description, m.version, m.cues, m.author_id, f.body
			 FROM memories m JOIN memories_fts f ON f.rowid = m.id WHERE m.project_id = ? AND m.id > ? ORDER BY m.id LIMIT ?`,
		)
		.bind(projectId, after, limit)
		.all<Row>();
	let flagged = 0;
	let queued = 0;
	for (const row of results) {
		// The person who decides: the owner of a personal memory, the last author of a team one.
		const owner = row.scope === "team" ? row.author_id : row.owner_id;
		const findings = await findSecrets(secretScanText(row.description, row.body, cuesOf(row)));
		if (findings.length === 0) continue;
		flagged++;
		const rules = ruleNames(findings);
		const now = nowIso();
		const [, inserted] = await db.batch([
			// A pending item for an older version of this memory is superseded by this one.
			db
				.prepare(
					// A team memory's item goes to its last author, who may have changed since: any owner's.
					"DELETE FROM review_items WHERE project_id = ? AND kind = 'secret' AND memory_scope = ? AND memory_name = ? AND status = 'pending' AND (memory_scope = 'team' OR owner_id = ?) AND base_version IS NOT ?",
				)
				.bind(projectId, row.scope, row.name, owner, row.version),
			db
				.prepare(
					`INSERT OR IGNORE INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, run_id, created_at)
					 SELECT ?, ?, ?, 'secret', ?, ?, ?, 'delete', '{}', ?, ?, NULL, ?
					 WHERE NOT EXISTS (SELECT 1 FROM review_items WHERE project_id = ? AND kind = 'secret' AND memory_scope = ? AND memory_name = ? AND (memory_scope = 'team' OR owner_id = ?) AND base_version = ?)`,
				)
				.bind(
					newReviewId(),
					projectId,
					owner,
					row.name,
					row.scope,
					row.version,
					`The secret re-scan found what the secret policy calls a credential (${rules.join(", ")}). Approve to delete the memory; reject to keep it.`.slice(
						0,
						500,
					),
					JSON.stringify(rules.map((r) => `rule:${r}`)),
					now,
					projectId,
					row.scope,
					row.name,
					owner,
					row.version,
				),
		]);
		if ((inserted?.meta.changes ?? 0) > 0) queued++;
	}
	const last = results.at(-1)?.id;
	if (last !== undefined) await cursors.put(cursorKey(), last);
	return { scanned: results.length, flagged, queued, done: results.length < limit };
}
