import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import { matchExpression } from "../text/terms";
import type { MemoryRow } from "./rows";
import type { MemoryScope } from "./topic-file";

/** BM25 column weights: name, description, body. A hit in the name or description says more. */
export const FIELD_WEIGHTS = [3.0, 2.0, 1.0] as const;

/** BM25 column weights of the cue index (`memories_cues`): cues, concepts. */
export const CUE_FIELD_WEIGHTS = [1.0, 1.0] as const;

/** The indexes a candidate can be read from. */
export type LexicalIndex = "memories_fts" | "memories_grams" | "memories_cues";

/**
 * The visibility condition over `memory_visibility` rows (alias `alias`), the caller's id bound as ?3:
 * their personal memories and the project's team ones, or one scope of them. A team row's owner is ''
 * once a person vouched for its text and its writer while it is a proposal (src/trust/vouch.ts), so a
 * proposal is a candidate for its writer only. (Over `memories` rows, use servedInSql.)
 */
export function visibleIn(scopes: MemoryScope[], alias: string): string {
	return scopes.length === 2
		? `(${alias}.owner_id = ?3 OR (${alias}.scope = 'team' AND ${alias}.owner_id = ''))`
		: scopes[0] === "team"
			? `${alias}.scope = 'team' AND ${alias}.owner_id IN ('', ?3)`
			: `${alias}.scope = 'personal' AND ${alias}.owner_id = ?3`;
}

/**
 * The candidate query: ?1 MATCH expression, ?2 project, ?3 user, ?4 limit. Exported so the
 * benchmark runs exactly this statement on plain SQLite as the latency floor. The same query runs
 * over the CJK index (`memories_grams`, src/text/grams.ts) with a MATCH over grams and over the cue
 * index (`memories_cues`: cues and concepts, src/text/concepts.ts); bodies always
 * come from `memories_fts`. `dated` keeps only memories written (created or last changed) between
 * ?5 and ?6 (ISO instants, src/text/dates.ts), each match's dates read by its row id: the match drives
 * (CROSS JOIN fixes the order). Driven the other way — the window's ids handed to the index as
 * `rowid IN (…)` — the full-text index is searched once per id, which took 0.6 s when a window held
 * 2,000 memories (a project imported at once, asked about "right now").
 */
export function candidateSql(scopes: MemoryScope[], index: LexicalIndex = "memories_fts", dated = false): string {
	const dates = dated ? ` CROSS JOIN memories d ON d.id = ${index}.rowid` : "";
	const written = dated
		? " AND d.project_id = ?2 AND ((d.created_at >= ?5 AND d.created_at < ?6) OR (d.updated_at >= ?5 AND d.updated_at < ?6))"
		: "";
	// Rank inside, fetch outside: every match is checked against the narrow visibility table and the
	// sorter holds only (id, rank); full rows and bodies are read only for the candidates kept.
	return `SELECT m.*, f.body AS fts_body, top.rank AS rank FROM (
	   SELECT ${index}.rowid AS id, bm25(${index}, ${(index === "memories_cues" ? CUE_FIELD_WEIGHTS : FIELD_WEIGHTS).join(", ")}) AS rank
	   FROM ${index}${dates} JOIN memory_visibility v ON v.memory_id = ${index}.rowid
	   WHERE ${index} MATCH ?1 AND v.project_id = ?2 AND ${visibleIn(scopes, "v")}${written}
	   ORDER BY rank LIMIT ?4
	 ) AS top
	 JOIN memories m ON m.id = top.id
	 JOIN memories_fts f ON f.rowid = top.id
	 ORDER BY top.rank`;
}

/** The candidate statement for these terms, ready to run or to batch with other reads. */
export function candidateStatement(db: ProjectDb, ctx: ProjectContext, terms: string[], options: { scopes: MemoryScope[]; limit: number }) {
	return db.prepare(candidateSql(options.scopes)).bind(matchExpression(terms), ctx.projectId, ctx.userId, options.limit);
}

export type CandidateRow = MemoryRow & { fts_body: string; rank: number };
