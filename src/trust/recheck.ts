/**
 * The trust re-check: when the danger check changes (DANGER_POLICY_VERSION, src/security/danger.ts),
 * memories stored before are checked again, as the secret re-scan does (src/maintenance/secret-rescan.ts).
 * A stored memory no admin reviewed whose text the check now flags is held: its text goes to the review
 * queue as a `held` item (for its owner; a team memory's for its last author) and the memory is deleted
 * with all its rows, so it is no longer served, listed or readable; its content objects and pack ranges,
 * referenced by nothing, go with the orphan and pack sweeps. Approval writes it back as reviewed.
 *
 * A cursor in the project object's storage, per policy version, lets each visit go on where the last
 * stopped; new writes pass the gate themselves, so one pass per policy version suffices.
 */
import type { MemoryRow } from "../memory/rows";
import { cuesOf, deleteMemory } from "../memory/store";
import { DANGER_POLICY_VERSION } from "../security/danger";
import type { ProjectEnv } from "../storage/env";
import { gateFindings, holdStatements, newHeldId } from "./gate";

/** Memories examined per visit of a project (each one check of its text from the search index). */
export const RECHECK_PER_VISIT = 200;

export interface RecheckResult {
	checked: number;
	held: number;
	/** True when every memory up to the newest has been examined under this policy version. */
	done: boolean;
}

interface CursorStore {
	get<T>(key: string): Promise<T | undefined>;
	put<T>(key: string, value: T): Promise<void>;
}

export const recheckCursorKey = () => `trust-recheck:v${DANGER_POLICY_VERSION}`;

type Row = Pick<MemoryRow, "id" | "scope" | "owner_id" | "name" | "type" | "description" | "version" | "cues" | "source" | "trust"> & {
	author_id: string;
	body: string;
};

export async function recheckProjectTrust(
	env: ProjectEnv,
	tenantId: string,
	projectId: string,
	cursors: CursorStore,
	options: { limit?: number } = {},
): Promise<RecheckResult> {
	const db = env.PDB;
	const after = (await cursors.get<number>(recheckCursorKey())) ?? 0;
	const limit = options.limit ?? RECHECK_PER_VISIT;
	const { results } = await db
		.prepare(
			// The body from the search index, written in the same transaction as every version: no R2 read.
			`SELECT m.id, m.scope, m.owner_id, m.name, m.type, m.description, m.version, m.cues, m.source, m.trust, m.author_id, f.body
			 FROM memories m JOIN memories_fts f ON f.rowid = m.id
			 WHERE m.project_id = ? AND m.id > ? AND m.reviewed_by IS NULL ORDER BY m.id LIMIT ?`,
		)
		.bind(projectId, after, limit)
		.all<Row>();
	let held = 0;
	for (const row of results) {
		const file = { name: row.name, type: row.type, description: row.description, body: row.body };
		const findings = gateFindings({ file, cues: cuesOf(row) });
		if (findings.length === 0) continue;
		// The person who decides beside the admins: the owner of a personal memory, the last author of a team one.
		const ctx = { tenantId, projectId, userId: row.scope === "team" ? row.author_id : row.owner_id };
		const input = { scope: row.scope, file, source: row.source, ...(row.trust ? { trust: { tier: row.trust as never } } : {}) };
		await db.batch(holdStatements(db, ctx, input, findings, null, newHeldId(), ["recheck"]));
		await deleteMemory(env, { ...ctx, userId: row.owner_id || ctx.userId }, row.scope, row.name);
		held++;
	}
	const last = results.at(-1)?.id;
	if (last !== undefined) await cursors.put(recheckCursorKey(), last);
	return { checked: results.length, held, done: results.length < limit };
}
