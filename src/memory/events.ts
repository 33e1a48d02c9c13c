import { clientSessionId } from "../sessions/turns";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import type { MemoryRow } from "./rows";

export interface MemoryEvent {
	runId: string;
	op: string;
	outcome: string;
	reason: string;
	sessions: string[];
	createdAt: string;
}

/**
 * What consolidation and review did to a memory (newest first): each change with its reason and the
 * sessions it rests on. Only that memory's events: a personal memory's are its owner's, of personal
 * scope; a team memory's are those recorded for team scope, where an event another member's run
 * recorded keeps its outcome but not that member's sessions or reasons.
 */
export async function memoryEvents(db: ProjectDb, ctx: ProjectContext, row: Pick<MemoryRow, "name" | "scope">): Promise<MemoryEvent[]> {
	const { results } = await db
		.prepare(
			`SELECT owner_id, run_id, op, outcome, reason, evidence_json, created_at FROM consolidation_events
			 WHERE project_id = ?1 AND target = ?2 AND (
			   (?3 = 'personal' AND owner_id = ?4 AND COALESCE(memory_scope, 'personal') = 'personal')
			   OR (?3 = 'team' AND memory_scope = 'team'))
			 ORDER BY id DESC LIMIT 200`,
		)
		.bind(ctx.projectId, row.name, row.scope, ctx.userId)
		.all<{
			owner_id: string;
			run_id: string;
			op: string;
			outcome: string;
			reason: string;
			evidence_json: string;
			created_at: string;
		}>();
	return results.map((e) => {
		const mine = e.owner_id === ctx.userId;
		return {
			runId: e.run_id,
			op: e.op,
			outcome: e.outcome,
			reason: mine ? e.reason : "recorded by another member's consolidation",
			sessions: mine ? (JSON.parse(e.evidence_json) as string[]).map(clientSessionId) : [],
			createdAt: e.created_at,
		};
	});
}
