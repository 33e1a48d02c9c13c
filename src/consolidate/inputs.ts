import type { Candidate } from "../extract/schema";
import type { StoredCandidate } from "../extract/statement-time";
import { type CandidateRow, candidateStatement } from "../memory/lexical";
import type { MemoryRow } from "../memory/rows";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { queryTerms } from "../text/terms";
import { tokenCount } from "../text/tokens";
import { servedSql } from "../trust/vouch";
import { type CodeNote, codeNotes } from "./code-state";

/** A stage-1 output waiting for consolidation, with its session's last activity (the time of outputs stored before candidates carried `statedAt`). */
export interface PendingOutput {
	session_id: string;
	from_seq: number;
	to_seq: number;
	user_id: string;
	extractor: string;
	raw_memory: string;
	summary: string;
	candidates: StoredCandidate[];
	created_at: string;
	session_activity: string | null;
}

/** Outputs folded into one run at most; the rest wait for the next run, which the coordinator schedules. */
export const MAX_OUTPUTS_PER_RUN = 50;
/** Existing memories shown to the consolidator per run. */
export const TOUCHED_TOKEN_BUDGET = 12_000;
const PER_CANDIDATE = 3;

export async function loadPending(db: ProjectDb, projectId: string, limit = MAX_OUTPUTS_PER_RUN): Promise<PendingOutput[]> {
	const { results } = await db
		.prepare(
			`SELECT o.session_id, o.from_seq, o.to_seq, o.user_id, o.extractor, o.raw_memory, o.summary, o.candidates_json, o.created_at,
			        s.last_activity_at AS session_activity
			 FROM stage1_outputs o LEFT JOIN sessions s ON s.project_id = o.project_id AND s.id = o.session_id
			 WHERE o.project_id = ? AND o.consolidated_at IS NULL
			 ORDER BY o.created_at, o.session_id, o.from_seq LIMIT ?`,
		)
		.bind(projectId, limit)
		.all<Omit<PendingOutput, "candidates"> & { candidates_json: string }>();
	return results.map(({ candidates_json, ...r }) => ({ ...r, candidates: JSON.parse(candidates_json) as StoredCandidate[] }));
}

export const pendingCount = async (db: ProjectDb, projectId: string) =>
	(
		await db
			.prepare("SELECT count(*) AS n FROM stage1_outputs WHERE project_id = ? AND consolidated_at IS NULL")
			.bind(projectId)
			.first<{ n: number }>()
	)?.n ?? 0;

/** An existing memory the new material touches, with its body (from the search index, no R2 read) and what became of its cited code. */
export type TouchedMemory = MemoryRow & { body: string; code?: CodeNote };

/**
 * The current memories the new candidates touch: for each candidate, the best lexical matches of its
 * name and description through the same full-text index recall uses, plus exact name matches; kept
 * within a token budget. Cost follows the number of candidates, not the size of the project.
 */
export async function touchedMemories(
	db: ProjectDb,
	ctx: ProjectContext,
	candidates: Candidate[],
	budget = TOUCHED_TOKEN_BUDGET,
): Promise<TouchedMemory[]> {
	if (candidates.length === 0) return [];
	const statements: ProjectStatement[] = [
		db
			.prepare(
				`SELECT m.*, f.body AS fts_body, 0 AS rank FROM memories m JOIN memories_fts f ON f.rowid = m.id
				 WHERE m.project_id = ?1 AND ${servedSql("m", "?2")} AND m.name IN (SELECT value FROM json_each(?3))`,
			)
			.bind(ctx.projectId, ctx.userId, JSON.stringify([...new Set(candidates.map((c) => c.name))])),
	];
	for (const c of candidates) {
		const terms = queryTerms(`${c.name.replace(/-/g, " ")} ${c.description}`).slice(0, 24);
		if (terms.length > 0) statements.push(candidateStatement(db, ctx, terms, { scopes: ["personal", "team"], limit: PER_CANDIDATE }));
	}
	const results = await db.batch<CandidateRow>(statements);
	const seen = new Set<number>();
	const out: TouchedMemory[] = [];
	let used = 0;
	for (const result of results) {
		for (const { fts_body, rank: _rank, ...row } of result.results) {
			if (seen.has(row.id)) continue;
			seen.add(row.id);
			const cost = tokenCount(`${row.name} ${row.description} ${fts_body}`);
			if (used + cost > budget && out.length > 0) continue;
			used += cost;
			out.push({ ...(row as MemoryRow), body: fts_body });
		}
	}
	const notes = await codeNotes(db, out);
	return out.map((m) => (notes.has(m.id) ? { ...m, code: notes.get(m.id) } : m));
}
