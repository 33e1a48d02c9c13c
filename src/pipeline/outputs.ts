import type { Candidate } from "../extract/schema";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";

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
