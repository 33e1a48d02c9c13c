/**
 * Recall's candidates, gathered inside the project's object from up to three indexes: the word index
 * (`memories_fts`, BM25), the CJK gram index (`memories_grams`, BM25) and, when an embedding model is
 * configured, the memories' vectors (`memory_vectors`, cosine similarity by brute force). The two
 * lexical lists are merged by adding their BM25 relevance (a memory found by both ranks above one
 * found by either); the vector list is returned beside them for reciprocal rank fusion (src/recall/recall.ts).
 */

import { EMBED_TIMEOUT_MS, type Embedder, embeddingText, nearest, toBlob, type VectorHit } from "../llm/embedding";
import { type CandidateRow, candidateSql, type LexicalIndex, visibleIn } from "../memory/lexical";
import type { MemoryScope } from "../memory/topic-file";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import { cjkStem, gramMatchExpression, hasCjk } from "../text/grams";
import { matchExpression } from "../text/terms";
import { servedTo } from "./served";

/** Vectors less similar than this to the query are not candidates (unrelated text still scores above 0). */
export const MIN_SIMILARITY = 0.3;

export interface CandidateOptions {
	scopes: MemoryScope[];
	limit: number;
	/** The query's CJK grams (src/text/grams.ts). */
	grams?: string[];
	/** The query text, to embed for semantic candidates; absent for lexical retrieval only. */
	semanticQuery?: string;
	/** Windows of time the query names (src/text/dates.ts): the best matches written in each are candidates too. */
	windows?: { from: string; to: string }[];
	/** Also read the memories written next to the best this many lexical candidates (`neighbourRows`). */
	neighbours?: number;
	/** The query's concepts as index tokens (src/text/concepts.ts): searched with its words in the cue index. */
	concepts?: string[];
	/** Also count how many memories hold each word and concept (`stats`), to weigh what a candidate matched. */
	stats?: boolean;
	/**
	 * A session whose memories already handed are read in the same call (`served`, by name); with
	 * `leaveOut` they are left out, so `limit` (which counts `excluded`) grows by those not among `excluded`.
	 */
	servedTo?: { sessionId: string; leaveOut: boolean; excluded: string[] };
	/** Also read each candidate's stored concepts (`memoryConcepts`): the `concepts` column of its cue row. */
	memoryConcepts?: boolean;
}

/** How many of the project's memories hold each query word and concept, and how many there are. */
export interface TermStats {
	total: number;
	/** Per query word, in order. */
	words: number[];
	/** Per concept token, in order. */
	concepts: number[];
}

export type Retrieval = "lexical" | "hybrid";

export interface CandidateSet {
	/** Lexical candidates, best first. */
	rows: CandidateRow[];
	/** Memories found by their vector alone (rank 0), hybrid retrieval only. */
	vectorRows: CandidateRow[];
	/** Vector hits, most similar first (hybrid retrieval only). */
	vector: VectorHit[];
	retrieval: Retrieval;
	/** Why retrieval is lexical although semantic candidates were asked for. */
	note?: string;
	/** With `neighbours`: memories of the same session written next to a top lexical candidate (`seed`, its id), not among `rows`. */
	neighbourRows?: (CandidateRow & { seed: number })[];
	/** With `stats`. */
	stats?: TermStats;
	/** With `servedTo`: the names of the memories whose body that session was already handed. */
	served?: string[];
	/** With `servedTo`: the names of the memories whose index line alone that session was shown. */
	listed?: string[];
	/** With `memoryConcepts`: memory id → its cue row's `concepts` column ("" without a cue row). */
	memoryConcepts?: Record<number, string>;
}

/** A cue-index match ranks at this share of a word-index match of the same BM25: cues support, words lead. */
export const CUE_INDEX_WEIGHT = 0.5;

/** The best word matches read from each window of time the query names, beyond the ordinary candidates. */
export const DATED_CANDIDATES = 10;
/** How many ids either side of a seed are looked at for its neighbours. */
export const NEIGHBOUR_SPAN = 2;

/**
 * The lexical candidates: both indexes, BM25 added per memory, best `limit` first; then, per window of
 * time the query names, the best DATED_CANDIDATES word matches written in it that are not there yet.
 */
export async function lexicalCandidates(
	db: ProjectDb,
	ctx: ProjectContext,
	terms: string[],
	options: CandidateOptions,
): Promise<CandidateRow[]> {
	/** The best `limit` matches in one index, optionally only those written inside `window`. */
	const expression = (index: LexicalIndex) =>
		index === "memories_fts"
			? matchExpression(terms)
			: index === "memories_grams"
				? gramMatchExpression(options.grams ?? [])
				: matchExpression([...terms, ...(options.concepts ?? [])]);
	const matches = (index: LexicalIndex, limit: number, window?: { from: string; to: string }) =>
		db
			.prepare(candidateSql(options.scopes, index, window !== undefined))
			.bind(expression(index), ctx.projectId, ctx.userId, limit, ...(window ? [window.from, window.to] : []))
			.all<CandidateRow>();
	const lists: Promise<{ results: CandidateRow[] }>[] = [];
	if (terms.length > 0) lists.push(matches("memories_fts", options.limit));
	if (options.grams?.length) lists.push(matches("memories_grams", options.limit));
	const cueList = terms.length > 0 || options.concepts?.length ? matches("memories_cues", options.limit) : undefined;
	// Dated reads go through the word index when the query has words, else through the grams.
	const datedIndex = terms.length > 0 ? "memories_fts" : options.grams?.length ? "memories_grams" : undefined;
	const dated = datedIndex ? (options.windows ?? []).map((w) => matches(datedIndex, DATED_CANDIDATES, w)) : [];
	const [results, datedResults, cueResults] = await Promise.all([Promise.all(lists), Promise.all(dated), cueList]);
	if (cueResults) results.push({ results: cueResults.results.map((r) => ({ ...r, rank: r.rank * CUE_INDEX_WEIGHT })) });
	let rows: CandidateRow[];
	if (results.length === 1) rows = results[0]?.results ?? [];
	else {
		const byId = new Map<number, CandidateRow>();
		for (const { results: found } of results) {
			for (const row of found) {
				const seen = byId.get(row.id);
				if (seen) seen.rank += row.rank;
				else byId.set(row.id, { ...row });
			}
		}
		rows = [...byId.values()].sort((a, b) => a.rank - b.rank).slice(0, options.limit);
	}
	const known = new Set(rows.map((r) => r.id));
	for (const { results: found } of datedResults) {
		for (const row of found) {
			if (known.has(row.id)) continue;
			known.add(row.id);
			rows.push(row);
		}
	}
	return rows;
}

/**
 * The memories written next to the best `count` rows: ids within NEIGHBOUR_SPAN of a seed and
 * recorded by the same session, visible to the caller, not among `rows`. A session's memories are
 * written together, so ids close to each other and one session are what "written next to" means.
 */
export async function neighbourCandidates(
	db: ProjectDb,
	ctx: ProjectContext,
	rows: CandidateRow[],
	options: CandidateOptions,
): Promise<(CandidateRow & { seed: number })[]> {
	const seeds = rows.slice(0, options.neighbours ?? 0).filter((r) => r.session_id);
	if (seeds.length === 0) return [];
	const known = new Set(rows.map((r) => r.id));
	const wanted = new Set<number>();
	for (const s of seeds) for (let d = -NEIGHBOUR_SPAN; d <= NEIGHBOUR_SPAN; d++) if (!known.has(s.id + d)) wanted.add(s.id + d);
	if (wanted.size === 0) return [];
	const { results } = await db
		.prepare(
			`SELECT m.*, f.body AS fts_body, 0 AS rank FROM memories m JOIN memories_fts f ON f.rowid = m.id
			 JOIN memory_visibility v ON v.memory_id = m.id
			 WHERE m.id IN (SELECT value FROM json_each(?1)) AND v.project_id = ?2 AND ${visibleIn(options.scopes, "v")}`,
		)
		.bind(JSON.stringify([...wanted]), ctx.projectId, ctx.userId)
		.all<CandidateRow>();
	return results.flatMap((row) => {
		const seed = seeds.find((s) => Math.abs(s.id - row.id) <= NEIGHBOUR_SPAN && s.session_id === row.session_id);
		return seed ? [{ ...row, seed: seed.id }] : [];
	});
}

/** Embeds the query, bounded by EMBED_TIMEOUT_MS; throws on failure or timeout. */
async function embedQuery(embedder: Embedder, query: string): Promise<Float32Array> {
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		const timeout = new Promise<never>((_, reject) => {
			timer = setTimeout(() => reject(new Error(`no answer within ${EMBED_TIMEOUT_MS} ms`)), EMBED_TIMEOUT_MS);
		});
		const [vector] = await Promise.race([embedder.embed([query]), timeout]);
		if (!vector) throw new Error("no vector returned");
		return vector;
	} finally {
		if (timer) clearTimeout(timer);
	}
}

/** The memories nearest to a query vector among those the caller may see: one scan of the project's vectors. */
export function vectorCandidates(db: ProjectDb, ctx: ProjectContext, model: string, query: Float32Array, options: CandidateOptions) {
	return db
		.prepare(
			`SELECT v.memory_id AS id, v.vector AS vector FROM memory_vectors v JOIN memory_visibility vis ON vis.memory_id = v.memory_id
			 WHERE v.project_id = ?1 AND v.model = ?2 AND ${visibleIn(options.scopes, "vis")}`,
		)
		.bind(ctx.projectId, model, ctx.userId)
		.all<{ id: number; vector: ArrayBuffer }>()
		.then(({ results }) => ({ scanned: results.length, hits: nearest(results, query, options.limit, MIN_SIMILARITY) }));
}

/**
 * Every candidate for a query. Semantic candidates are asked for with `semanticQuery`; without an
 * embedder, when the model fails, or before any memory has a vector, retrieval is lexical and `note`
 * says why. With `servedTo`, what that session was already handed is read in the same call (one round
 * trip less for a per-prompt inject), and the limit grows by the served memories the caller leaves
 * out, so as many remain.
 */
export async function findCandidates(
	db: ProjectDb,
	ctx: ProjectContext,
	terms: string[],
	options: CandidateOptions,
	embedding: { embedder: Embedder | null; reason?: string },
): Promise<CandidateSet> {
	const session = options.servedTo;
	if (session) {
		const { served, listed } = await servedTo(db, ctx, session.sessionId);
		const excluded = new Set(session.excluded);
		const more = session.leaveOut ? new Set(served.filter((name) => !excluded.has(name))).size : 0;
		const set = await findCandidates(db, ctx, terms, { ...options, servedTo: undefined, limit: options.limit + more }, embedding);
		return { ...set, served, listed };
	}
	const [set, stats] = await Promise.all([
		gatherCandidates(db, ctx, terms, options, embedding),
		options.stats ? termStats(db, ctx, terms, options.concepts ?? []) : undefined,
	]);
	if (options.neighbours) set.neighbourRows = await neighbourCandidates(db, ctx, set.rows, options);
	if (stats) set.stats = stats;
	if (options.memoryConcepts) {
		const ids = [...set.rows, ...set.vectorRows, ...(set.neighbourRows ?? [])].map((r) => r.id);
		const { results } = await db
			.prepare("SELECT rowid AS id, concepts FROM memories_cues WHERE rowid IN (SELECT value FROM json_each(?))")
			.bind(JSON.stringify(ids))
			.all<{ id: number; concepts: string }>();
		set.memoryConcepts = Object.fromEntries(ids.map((id) => [id, ""]));
		for (const r of results) set.memoryConcepts[r.id] = r.concepts;
	}
	return set;
}

/**
 * Document frequencies in one statement: the project's memory count, then for each word the memories
 * whose name, description or body hold it (a CJK word: its stem, src/text/grams.ts), and for each
 * concept token the memories about it.
 */
export async function termStats(db: ProjectDb, ctx: ProjectContext, words: string[], concepts: string[]): Promise<TermStats> {
	const columns = [
		"(SELECT count(*) FROM memories WHERE project_id = ?1) AS n0",
		...words.map(
			(w, i) =>
				`(SELECT count(*) FROM ${hasCjk(w) ? "memories_grams" : "memories_fts"} WHERE ${hasCjk(w) ? "memories_grams" : "memories_fts"} MATCH ?${i + 2}) AS w${i}`,
		),
		...concepts.map((_, i) => `(SELECT count(*) FROM memories_cues WHERE memories_cues MATCH ?${words.length + i + 2}) AS c${i}`),
	];
	const row = await db
		.prepare(`SELECT ${columns.join(", ")}`)
		.bind(
			ctx.projectId,
			...words.map((w) => (hasCjk(w) ? gramMatchExpression([cjkStem(w)]) : matchExpression([w]))),
			...concepts.map((c) => `concepts : ${matchExpression([c])}`),
		)
		.first<Record<string, number>>();
	return {
		total: row?.n0 ?? 0,
		words: words.map((_, i) => row?.[`w${i}`] ?? 0),
		concepts: concepts.map((_, i) => row?.[`c${i}`] ?? 0),
	};
}

async function gatherCandidates(
	db: ProjectDb,
	ctx: ProjectContext,
	terms: string[],
	options: CandidateOptions,
	embedding: { embedder: Embedder | null; reason?: string },
): Promise<CandidateSet> {
	const lexical = lexicalCandidates(db, ctx, terms, options);
	if (options.semanticQuery === undefined) return { rows: await lexical, vectorRows: [], vector: [], retrieval: "lexical" };
	const { embedder } = embedding;
	if (!embedder)
		return {
			rows: await lexical,
			vectorRows: [],
			vector: [],
			retrieval: "lexical",
			note: embedding.reason ?? "no embedding model is configured",
		};
	let query: Float32Array;
	try {
		query = await embedQuery(embedder, options.semanticQuery);
	} catch (err) {
		const why = err instanceof Error && err.message ? err.message.slice(0, 200) : "unknown error";
		return {
			rows: await lexical,
			vectorRows: [],
			vector: [],
			retrieval: "lexical",
			note: `the embedding model failed (${why}); lexical retrieval only`,
		};
	}
	const [rows, { scanned, hits }] = await Promise.all([lexical, vectorCandidates(db, ctx, embedder.model, query, options)]);
	if (scanned === 0) {
		return {
			rows,
			vectorRows: [],
			vector: [],
			retrieval: "lexical",
			note: "no memory has an embedding yet (POST …/embeddings/backfill); lexical retrieval only",
		};
	}
	const known = new Set(rows.map((r) => r.id));
	const missing = hits.filter((h) => !known.has(h.id)).map((h) => h.id);
	let vectorRows: CandidateRow[] = [];
	if (missing.length > 0) {
		const { results } = await db
			.prepare(
				"SELECT m.*, f.body AS fts_body, 0 AS rank FROM memories m JOIN memories_fts f ON f.rowid = m.id WHERE m.id IN (SELECT value FROM json_each(?))",
			)
			.bind(JSON.stringify(missing))
			.all<CandidateRow>();
		vectorRows = results;
	}
	return { rows, vectorRows, vector: hits, retrieval: "hybrid" };
}

export interface BackfillResult {
	model: string;
	embedded: number;
	/** Memories still without a vector of this model for their current content. */
	remaining: number;
	/** Set when the model failed part-way: what was embedded is kept; call again to continue. */
	error?: string;
}

export const BACKFILL_BATCH = 16;

/**
 * Embeds up to `limit` memories that have no vector of the current model for their current content,
 * a batch at a time. Resumable by construction: what is missing is found again on the next call. A
 * vector is stored only if its memory still holds the content it was made from.
 */
export async function backfillVectors(db: ProjectDb, projectId: string, embedder: Embedder, limit: number): Promise<BackfillResult> {
	const pending = (n: number) =>
		db
			.prepare(
				`SELECT m.id, m.name, m.description, m.content_hash, f.body FROM memories m JOIN memories_fts f ON f.rowid = m.id
				 WHERE m.project_id = ?1 AND NOT EXISTS (
				   SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?2 AND v.content_hash = m.content_hash
				 ) ORDER BY m.id LIMIT ?3`,
			)
			.bind(projectId, embedder.model, n)
			.all<{ id: number; name: string; description: string; content_hash: string; body: string }>();
	let embedded = 0;
	let error: string | undefined;
	while (embedded < limit) {
		const { results: batch } = await pending(Math.min(BACKFILL_BATCH, limit - embedded));
		if (batch.length === 0) break;
		let vectors: Float32Array[];
		try {
			vectors = await embedder.embed(batch.map((m) => embeddingText(m.name, m.description, m.body)));
		} catch (err) {
			error = `the embedding model failed (${err instanceof Error && err.message ? err.message.slice(0, 200) : "unknown error"})`;
			break;
		}
		await db.batch(
			batch.map((m, i) => {
				const vector = vectors[i] as Float32Array;
				return db
					.prepare(
						`INSERT OR REPLACE INTO memory_vectors (memory_id, project_id, model, content_hash, dims, vector)
						 SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE EXISTS (SELECT 1 FROM memories WHERE id = ?1 AND content_hash = ?4)`,
					)
					.bind(m.id, projectId, embedder.model, m.content_hash, vector.length, toBlob(vector));
			}),
		);
		embedded += batch.length;
	}
	const remaining =
		(await db
			.prepare(
				`SELECT count(*) AS n FROM memories m WHERE m.project_id = ?1 AND NOT EXISTS (
				   SELECT 1 FROM memory_vectors v WHERE v.memory_id = m.id AND v.model = ?2 AND v.content_hash = m.content_hash)`,
			)
			.bind(projectId, embedder.model)
			.first<number>("n")) ?? 0;
	return { model: embedder.model, embedded, remaining, ...(error ? { error } : {}) };
}
