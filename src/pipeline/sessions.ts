import type { Candidate } from "../extract/schema";
import type { SessionRow } from "../ingest/ingest";
import { nowIso } from "../lib/ids";
import type { ProjectContext } from "../memory/store";
import type { ProjectDb } from "../project/sql";

/** The caller's sessions in this project, most recently active first. */
export async function listSessions(db: ProjectDb, ctx: ProjectContext, limit: number): Promise<SessionRow[]> {
	const { results } = await db
		.prepare("SELECT * FROM sessions WHERE project_id = ? AND user_id = ? ORDER BY last_activity_at DESC, id LIMIT ?")
		.bind(ctx.projectId, ctx.userId, limit)
		.all<SessionRow>();
	return results;
}

export async function markEnded(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<void> {
	await db
		.prepare("UPDATE sessions SET status = 'ended', updated_at = ? WHERE project_id = ? AND id = ?")
		.bind(nowIso(), ctx.projectId, sessionId)
		.run();
}

/** The caller's sessions with turns stage 1 has not processed. */
export async function sessionsWithPendingTurns(db: ProjectDb, ctx: ProjectContext): Promise<SessionRow[]> {
	const { results } = await db
		.prepare("SELECT * FROM sessions WHERE project_id = ? AND user_id = ? AND cursor < turns")
		.bind(ctx.projectId, ctx.userId)
		.all<SessionRow>();
	return results;
}

export interface CandidateOutput {
	sessionId: string;
	fromSeq: number;
	toSeq: number;
	extractor: string;
	summary: string;
	rawMemory: string;
	candidates: Candidate[];
	createdAt: string;
}

/** The caller's stage-1 outputs not yet consolidated, newest first. */
export async function listCandidateOutputs(db: ProjectDb, ctx: ProjectContext, limit: number): Promise<CandidateOutput[]> {
	const { results } = await db
		.prepare(
			`SELECT session_id, from_seq, to_seq, extractor, summary, raw_memory, candidates_json, created_at FROM stage1_outputs
			 WHERE project_id = ? AND user_id = ? AND consolidated_at IS NULL ORDER BY created_at DESC, session_id, from_seq LIMIT ?`,
		)
		.bind(ctx.projectId, ctx.userId, limit)
		.all<{
			session_id: string;
			from_seq: number;
			to_seq: number;
			extractor: string;
			summary: string;
			raw_memory: string;
			candidates_json: string;
			created_at: string;
		}>();
	return results.map((r) => ({
		sessionId: r.session_id,
		fromSeq: r.from_seq,
		toSeq: r.to_seq,
		extractor: r.extractor,
		summary: r.summary,
		rawMemory: r.raw_memory,
		candidates: JSON.parse(r.candidates_json) as Candidate[],
		createdAt: r.created_at,
	}));
}

export const deadLetterCount = async (db: ProjectDb, projectId: string) =>
	(
		await db
			.prepare("SELECT count(*) AS n FROM sessions WHERE project_id = ? AND extraction_state = 'dead_letter'")
			.bind(projectId)
			.first<{ n: number }>()
	)?.n ?? 0;
