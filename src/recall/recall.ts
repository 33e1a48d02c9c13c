import type { LanguageModel } from "ai";
import { MAX_EMBED_CHARS, type VectorHit } from "../llm/embedding";
import { hasModel, ModelConfigError, type ModelEnv, resolveModel } from "../llm/models";
import type { CandidateRow } from "../memory/lexical";
import type { MemoryScope } from "../memory/topic-file";
import { projectStore } from "../project/client";
import type { CandidateSet, Retrieval } from "../search/candidates";
import { type EffectiveSettings, effectiveSettings, featureOff } from "../settings/settings";
import type { ProjectContext } from "../storage/context";
import { textConcepts } from "../text/concepts";
import { type DateWindow, dateWindows, writtenIn } from "../text/dates";
import { withForms } from "../text/forms";
import { queryGrams, scoringTerms } from "../text/grams";
import { queryTerms } from "../text/terms";
import { matchesOf } from "./explain";
import {
	documentsToolInUse,
	freshness,
	type RecalledMemory,
	readableScores,
	type ScoredMemory,
	score,
	toCandidates,
	toRecalled,
} from "./ranking";
import { conceptTokens, decide, OFFER, PROMPT_LIMIT, promptWeights, relevanceOf, SEMANTIC_FLOOR } from "./relevance";
import { SELECTOR_TIMEOUT_MS, selectWithModel, withinTokens } from "./selector";

export interface RecallRequest {
	query: string;
	recentTools?: string[];
	limit?: number;
	exclude?: string[];
	scope?: MemoryScope;
	engine?: "lexical" | "llm";
	/** "lexical": word and CJK indexes only, even with an embedding model configured. */
	retrieval?: Retrieval;
	trace?: boolean;
	/**
	 * Internal (inject with a session id): the session whose memories already handed are read with the
	 * candidates and told to the model selector; with `onlyNew` they are excluded too.
	 */
	session?: { id: string; onlyNew: boolean };
	/** The moment the question is asked from (ISO 8601): relative dates in the query ("last week") count back from it. Default: now. */
	at?: string;
	/**
	 * How long the caller can wait for the answer, in milliseconds from when the request arrived (a
	 * hook's remaining budget). The model selector runs only within it; past it the ranked answer is served.
	 */
	waitMs?: number;
	/** Internal: "prompt" — per-prompt recall: the relevance decision (src/recall/relevance.ts) picks at most PROMPT_LIMIT. */
	purpose?: "prompt";
	/** Internal (not part of the API): switches ranking steps off or on, to measure each one's contribution. */
	ranking?: Partial<Ranking>;
}

/** The lexical ranking's optional steps, each switchable. */
export interface Ranking {
	/** Leave question-shaping words ("how many", "what kind", "how long ago") out of the query's terms (QUESTION_WORDS in src/text/stopwords/en.ts). */
	questionWords: boolean;
	/** Search irregular forms of the query's words too: went → go, children → child (src/text/forms.ts). */
	wordForms: boolean;
	/** Prefer memories written when the query says ("a week ago", "in March"), and read the best matches written then (src/text/dates.ts). */
	dateCues: boolean;
	/** Add the memories the best match's session wrote next to it, below the first places (NEIGHBOUR_* below). */
	neighbours: boolean;
	/** Search the cue index with the query's words and concepts (src/text/concepts.ts): memories that apply in the situation the query names. */
	concepts: boolean;
}

export const RANKING: Ranking = { questionWords: true, wordForms: true, dateCues: true, neighbours: true, concepts: true };

/** A memory written inside a window of time the query names scores this much more (×3 at 2). */
export const DATE_CUE_WEIGHT = 2;
/** The best this many raw lexical candidates lend their neighbours; only the final first one's are used. */
const NEIGHBOUR_SEEDS = 3;
/** A neighbour scores this share of its seed's score... */
export const NEIGHBOUR_SHARE = 0.15;
/** ...and never reaches this place or above: the direct matches keep the first places. */
export const NEIGHBOUR_FIRST_RANK = 6;

export type Engine = "lexical" | "llm" | "lexical-fallback";

/** A candidate as the trace shows it: how ranking scored it (`ScoredMemory.trace`), and what became of it. */
export interface TraceEntry extends Omit<ScoredMemory["trace"], "coverage"> {
	name: string;
	scope: MemoryScope;
	/** 0–1, as the answer's memories show it (readableScores in src/recall/ranking.ts). */
	score: number;
	/** The score the ranking sorts by, unscaled: BM25 × type prior × freshness × coverage (× date cue), or the fused reciprocal ranks. */
	rankingScore: number;
	/** Per-prompt recall: the weight of what matched, its share of the prompt's, and the concepts shared. */
	evidence?: number;
	coverage?: number;
	concepts?: string[];
	/** Per-prompt recall: every concept the memory is about, and the prompt's words it holds as counted. */
	about?: string[];
	held?: string[];
	/** Its cues (the situations it applies in) that hold a query word: how the cue index found it. */
	cues?: string[];
	decision:
		| "returned"
		| "excluded"
		| "skipped: documents a tool in use"
		| "below limit"
		| "not selected by model"
		| "not relevant enough"
		| "below the best match"
		| "offered as a line"
		| "line already shown";
}

export interface RecallResult {
	engine: Engine;
	/** "hybrid": lexical and embedding candidates fused by reciprocal rank; "lexical": word and CJK indexes only. */
	retrieval: Retrieval;
	/** Why retrieval is lexical although an embedding model was wanted (none configured, model failure). */
	retrievalNote?: string;
	memories: RecalledMemory[];
	/** Internal: the rows served, for usage recording and injection. */
	served: ScoredMemory[];
	/** Internal, per-prompt recall: the next candidates whose index lines the block offers (`OFFER`). */
	offered: ScoredMemory[];
	/** Internal: every candidate that could be served, in ranked order (the session-start index ranks by it). */
	ranked: ScoredMemory[];
	/** Internal: the query's distinct terms (the relevance floor counts matches against them). */
	terms: string[];
	warnings: string[];
	fallbackReason?: string;
	trace?: {
		terms: string[];
		concepts: string[];
		candidates: TraceEntry[];
		note?: string;
		/** Per-prompt recall: the weight of each word and concept of the prompt in this project. */
		weights?: {
			words: Record<string, number>;
			concepts: { id: string; strength: number; weight: number; words: string[] }[];
			total: number;
			rare: number;
		};
	};
}

/** Reciprocal rank fusion's constant: a list's first place counts 1/(K+1), its tenth 1/(K+10). */
export const RRF_K = 60;
/** The best fused score: first place in both the lexical and the vector list (each counts 1.0). */
export const FUSED_BEST = 2;

/**
 * Reciprocal rank fusion of the lexical ranking (BM25 with priors, src/recall/ranking.ts) and the
 * vector ranking (cosine similarity): each memory scores Σ 1/(RRF_K + rank) over the lists that hold
 * it, scaled by RRF_K + 1 so that first place in one list is 1.0 (2.0 when first in both). Memories
 * found by their vector alone have no lexical evidence: a BM25 of 0 and no matched terms.
 */
export function fuse(lexical: ScoredMemory[], vectorOnly: ScoredMemory[], vector: VectorHit[]): ScoredMemory[] {
	const share = (rank: number) => (RRF_K + 1) / (RRF_K + rank);
	const fused = new Map<number, ScoredMemory>();
	lexical.forEach((m, i) => {
		fused.set(m.row.id, { ...m, score: share(i + 1), trace: { ...m.trace, lexicalRank: i + 1 } });
	});
	const rest = new Map(vectorOnly.map((m) => [m.row.id, m]));
	vector.forEach((hit, i) => {
		const seen = fused.get(hit.id) ?? rest.get(hit.id);
		if (!seen) return; // not visible to the caller any more (scope switched off)
		const score = (fused.has(hit.id) ? seen.score : 0) + share(i + 1);
		fused.set(hit.id, { ...seen, score, trace: { ...seen.trace, similarity: hit.similarity, vectorRank: i + 1 } });
	});
	return [...fused.values()].sort((a, b) => b.score - a.score || b.trace.bm25 - a.trace.bm25);
}

/** Memories written inside one of the windows score DATE_CUE_WEIGHT more; the ranking is sorted again. */
export function withDateCues(ranked: ScoredMemory[], windows: DateWindow[]): ScoredMemory[] {
	if (windows.length === 0) return ranked;
	return ranked
		.map((m) => (writtenIn(m.row, windows) ? { ...m, score: m.score * (1 + DATE_CUE_WEIGHT), trace: { ...m.trace, dated: true } } : m))
		.sort((a, b) => b.score - a.score);
}

/**
 * A session's memories written next to each other often hold the rest of one story (what happened,
 * then why): the first result's neighbours (`seeds`: neighbour id → seed id) join the ranking at
 * NEIGHBOUR_SHARE of its score, or their own when higher, but below the first NEIGHBOUR_FIRST_RANK − 1 places.
 */
export function withNeighbours(ranked: ScoredMemory[], neighbours: ScoredMemory[], seeds: Map<number, number>): ScoredMemory[] {
	const first = ranked[0];
	if (!first) return ranked;
	const mine = neighbours.filter((m) => seeds.get(m.row.id) === first.row.id);
	if (mine.length === 0) return ranked;
	const ceiling = (ranked[NEIGHBOUR_FIRST_RANK - 2]?.score ?? 0) * 0.999;
	const added = mine.map((m) => ({
		...m,
		score: Math.min(ceiling, Math.max(m.score, NEIGHBOUR_SHARE * first.score)),
		trace: { ...m.trace, neighbourOf: first.row.name },
	}));
	return [...ranked, ...added].sort((a, b) => b.score - a.score);
}

/** Candidates read and scored: enough for the relevance decision and the largest limit, no more (each costs a row read). */
const CANDIDATES = 25;
/** The model selector is not started with less time than this left (it could not answer). */
export const MIN_SELECTOR_MS = 250;
/** Kept back from the caller's wait for reading the memories and answering after the selector. */
export const ANSWER_MARGIN_MS = 100;

/**
 * Recall: which memories matter for this query? Lexical by default (BM25 over name, description and
 * body with field weights, plus the cue index of cues and concepts; type and freshness priors);
 * optionally a small model picks from the whole manifest. Honours the master switch and scope switches,
 * `exclude` and `recentTools`. With `purpose: "prompt"`, the relevance decision (src/recall/relevance.ts)
 * keeps only memories that matter enough, at most PROMPT_LIMIT; the selector's picks are its own evidence.
 */
export async function recall(
	env: Env,
	ctx: ProjectContext,
	request: RecallRequest,
	now = Date.now(),
	preloaded?: EffectiveSettings,
	/** The selector model; by default the `smol` role from the environment. */
	selectorModel?: LanguageModel | null,
): Promise<RecallResult> {
	const started = Date.now();
	const ranking: Ranking = { ...RANKING, ...request.ranking };
	const words = queryTerms(request.query, ranking.questionWords);
	const windows = ranking.dateCues ? dateWindows(request.query, new Date(request.at ?? now)) : [];
	const grams = queryGrams(request.query);
	// A question's concepts are searched when it names them clearly (a tool's name, or two words); a prompt's
	// all count, each weighed by its strength in the relevance decision.
	const concepts = ranking.concepts
		? textConcepts(request.query).filter((c) => request.purpose === "prompt" || c.strength >= QUESTION_CONCEPT_MIN)
		: [];
	// Relevance is counted per word; a CJK run written without spaces counts as its bigrams.
	const terms = scoringTerms(words);
	const exclude = new Set(request.exclude ?? []);
	const recentTools = request.recentTools ?? [];
	const semantic = request.retrieval !== "lexical" && request.query.trim() !== "";
	const forPrompt = request.purpose === "prompt";
	const searched = ranking.wordForms ? withForms(words) : words;
	const store = projectStore(env, ctx.projectId);
	// Settings (D1) and candidates (the project's object) concurrently: one round trip's latency. The
	// scope switches are applied to the rows after.
	const [settings, candidates] = await Promise.all([
		preloaded ?? effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId),
		words.length > 0 || grams.length > 0 || semantic || concepts.length > 0
			? store.recallCandidates(ctx, searched, {
					scopes: request.scope ? [request.scope] : ["personal", "team"],
					limit: CANDIDATES + exclude.size,
					grams,
					...(concepts.length > 0 ? { concepts: conceptTokens(concepts) } : {}),
					...(forPrompt ? { stats: true } : {}),
					// The relevance decision reads what each candidate is about when the prompt names a concept.
					...((forPrompt || request.trace) && concepts.length > 0 ? { memoryConcepts: true } : {}),
					...(windows.length > 0 ? { windows } : {}),
					...(ranking.neighbours ? { neighbours: NEIGHBOUR_SEEDS } : {}),
					...(semantic ? { semanticQuery: request.query.slice(0, MAX_EMBED_CHARS) } : {}),
					...(request.session
						? { servedTo: { sessionId: request.session.id, leaveOut: request.session.onlyNew, excluded: [...exclude] } }
						: {}),
				})
			: ({ rows: [] as CandidateRow[], vectorRows: [], vector: [], retrieval: "lexical" } as CandidateSet),
	]);
	const { rows, retrieval } = candidates;
	// What the session was already handed (read with the candidates): left out with `onlyNew`, told to the selector.
	const shown = candidates.served ?? [];
	if (request.session?.onlyNew) for (const name of shown) exclude.add(name);
	const retrievalNote = request.retrieval === "lexical" ? undefined : candidates.note;
	const retrievalFields = { retrieval, ...(retrievalNote ? { retrievalNote } : {}) };

	const limit = request.limit ?? Number(settings["memories.recallLimit"].value);
	const warnings: string[] = [];
	const memoryOff = featureOff(settings, "memory", ["memories.enabled"]);
	if (memoryOff !== null) {
		warnings.push(memoryOff);
		return { engine: "lexical", ...retrievalFields, memories: [], served: [], offered: [], ranked: [], terms, warnings };
	}
	const off = new Set<MemoryScope>();
	const scopes = request.scope ? [request.scope] : (["personal", "team"] as MemoryScope[]);
	for (const s of scopes) {
		const scopeOff = featureOff(settings, `${s} memory`, [s === "team" ? "memories.teamMemory" : "memories.personalMemory"]);
		if (scopeOff !== null) {
			off.add(s);
			warnings.push(scopeOff);
		}
	}
	const visible = (rows: CandidateRow[]) =>
		score(
			toCandidates(rows).filter((c) => !off.has(c.row.scope)),
			terms,
			now,
			ranking.wordForms,
		);
	const neighbourRows = candidates.neighbourRows ?? [];
	const lexicallyRanked = withNeighbours(
		withDateCues(visible(rows), windows),
		visible(neighbourRows),
		new Map(neighbourRows.map((r) => [r.id, r.seed])),
	);
	const ranked = retrieval === "hybrid" ? fuse(lexicallyRanked, visible(candidates.vectorRows), candidates.vector) : lexicallyRanked;
	// What people read: each score as a share of the best this answer could hold (0–1, same order).
	const readable = readableScores(retrieval === "hybrid" ? FUSED_BEST : Math.max(0, ...ranked.map((m) => m.score)));

	const trace: TraceEntry[] = [];
	const eligible: ScoredMemory[] = [];
	for (const m of ranked) {
		const entry = { name: m.row.name, scope: m.row.scope, score: readable(m.score), rankingScore: m.score, ...m.trace };
		if (exclude.has(m.row.name)) {
			trace.push({ ...entry, decision: "excluded" });
			continue;
		}
		if (documentsToolInUse(m, recentTools)) {
			trace.push({ ...entry, decision: "skipped: documents a tool in use" });
			continue;
		}
		eligible.push(m);
		trace.push({ ...entry, decision: "below limit" });
	}
	const entryOf = (m: ScoredMemory) => trace.find((t) => t.name === m.row.name && t.scope === m.row.scope);

	// The ranked answer: the first `limit`, or for a prompt those the relevance decision keeps.
	const servedLimit = forPrompt ? Math.min(PROMPT_LIMIT, limit) : limit;
	let chosen = eligible.slice(0, limit);
	let offerable: ScoredMemory[] = [];
	/** Candidates with some evidence covering at least `OFFER.topCoverage`: offered when among the first `OFFER.top` not yet seen. */
	let faint = new Set<ScoredMemory>();
	const coverageOf = new Map<ScoredMemory, number>();
	let weightsTrace: NonNullable<RecallResult["trace"]>["weights"];
	if (forPrompt) {
		const weights = promptWeights(terms, searched, concepts, candidates.stats ?? { total: 0, words: [], concepts: [] });
		weightsTrace = {
			words: Object.fromEntries([...weights.words].map(([w, x]) => [w, round(x)])),
			concepts: weights.concepts.map((c) => ({ id: c.id, strength: c.strength, weight: round(c.weight), words: c.words ?? [] })),
			total: round(weights.total),
			rare: round(weights.rare),
		};
		const judged = eligible.map((m) => ({
			item: m,
			r: relevanceOf(m, weights, candidates.memoryConcepts?.[m.row.id]),
			semantic: (m.trace.similarity ?? 0) >= SEMANTIC_FLOOR,
			score: m.score,
		}));
		for (const { item, r } of judged) {
			const entry = entryOf(item);
			if (entry)
				Object.assign(entry, {
					evidence: round(r.evidence),
					coverage: round(r.coverage),
					concepts: r.concepts,
					about: r.about,
					held: r.held,
					decision: r.relevant ? entry.decision : "not relevant enough",
				});
		}
		offerable = judged.filter((j) => (j.r.evidence > 0 && j.r.coverage >= OFFER.minCoverage) || j.semantic).map((j) => j.item);
		faint = new Set(judged.filter((j) => j.r.evidence > 0 && j.r.coverage >= OFFER.topCoverage).map((j) => j.item));
		for (const j of judged) coverageOf.set(j.item, j.semantic ? 1 : j.r.coverage);
		const { kept, belowBest } = decide(judged, servedLimit);
		for (const m of belowBest) {
			const entry = entryOf(m);
			if (entry) entry.decision = "below the best match";
		}
		chosen = kept;
	}

	let engine: Engine = "lexical";
	let fallbackReason: string | undefined;
	const modelConfigured = selectorModel !== undefined ? selectorModel !== null : hasModel(env as ModelEnv, "smol");
	const wantModel = request.engine === "llm" || (request.engine === undefined && modelConfigured);
	if (wantModel && (terms.length > 0 || concepts.length > 0)) {
		let model: LanguageModel | null = null;
		try {
			model = selectorModel !== undefined ? selectorModel : resolveModel(env as ModelEnv, "smol");
		} catch (err) {
			fallbackReason = err instanceof ModelConfigError ? err.message : "model could not be configured";
		}
		if (!model && !fallbackReason) fallbackReason = "no model is configured for the smol role";
		const left = () => (request.waitMs === undefined ? SELECTOR_TIMEOUT_MS : request.waitMs - (Date.now() - started) - ANSWER_MARGIN_MS);
		if (model && left() < MIN_SELECTOR_MS) {
			fallbackReason = `no time left for the model selector within waitMs (${request.waitMs} ms); the ranked answer is served`;
			model = null;
		}
		if (model) {
			const manifest = await manifestFor(store, ctx, scopes, off, eligible, exclude, now);
			const timeoutMs = Math.min(SELECTOR_TIMEOUT_MS, left());
			const selection = await selectWithModel(model, request.query, recentTools, manifest, servedLimit, shown, timeoutMs);
			if (selection.ok) {
				engine = "llm";
				for (const t of trace)
					if (t.decision === "below limit" || t.decision === "not relevant enough") t.decision = "not selected by model";
				chosen = selection.memories;
			} else fallbackReason = selection.reason;
		}
		if (fallbackReason) engine = "lexical-fallback";
	}

	// The next candidates in ranked order, as lines: neither chosen nor already shown to the session. The first
	// few of them are offered on fainter evidence: recall's best guesses, for the agent to judge by their line.
	const listed = new Set(candidates.listed ?? []);
	const unseen = (m: ScoredMemory) => !chosen.includes(m) && !listed.has(m.row.name) && !shown.includes(m.row.name);
	const offerableSet = new Set(offerable);
	const top = new Set(eligible.filter(unseen).slice(0, OFFER.top));
	const offered = eligible
		.filter((m) => unseen(m) && (offerableSet.has(m) || (top.has(m) && faint.has(m))))
		.filter((m, i) => i < OFFER.first || (coverageOf.get(m) ?? 0) >= OFFER.wideCoverage)
		.slice(0, OFFER.limit);
	for (const t of trace) {
		if (chosen.some((c) => c.row.name === t.name && c.row.scope === t.scope)) t.decision = "returned";
		else if (offered.some((c) => c.row.name === t.name && c.row.scope === t.scope)) t.decision = "offered as a line";
		else if (listed.has(t.name) && offerable.some((c) => c.row.name === t.name && c.row.scope === t.scope))
			t.decision = "line already shown";
	}
	const result: RecallResult = {
		engine,
		...retrievalFields,
		memories: chosen.map((m) => toRecalled(m, readable)),
		served: chosen,
		offered,
		ranked: eligible,
		terms,
		warnings,
		...(fallbackReason ? { fallbackReason } : {}),
	};
	if (request.trace) {
		// What each candidate matched beyond its words: the concepts and cues that brought it in.
		const byKey = new Map(ranked.map((m) => [`${m.row.scope}/${m.row.name}`, m]));
		for (const t of trace) {
			const m = byKey.get(`${t.scope}/${t.name}`);
			if (!m) continue;
			const matches = matchesOf(m, terms, concepts, candidates.memoryConcepts?.[m.row.id]);
			t.concepts ??= matches.concepts;
			t.cues = matches.cues;
		}
		result.trace = {
			terms,
			concepts: concepts.map((c) => c.id),
			candidates: trace,
			...(fallbackReason ? { note: fallbackReason } : {}),
			...(weightsTrace ? { weights: weightsTrace } : {}),
		};
	}
	return result;
}

/** A concept a (non-prompt) query names with less than this strength is not searched: one generic word ("day") says little. */
export const QUESTION_CONCEPT_MIN = 2;

const round = (x: number) => Math.round(x * 1000) / 1000;

/** The selector reads at most this many tokens of manifest. */
export const MANIFEST_TOKENS = 6_000;
/** Rows of the manifest read from the project's object before the token budget is applied. */
const MANIFEST_ROWS = 2_000;

/**
 * The model's manifest: every memory the caller may see (the scopes switched on, not excluded), the
 * ranked candidates first, then the rest as the object lists them (most used, then most recent), cut
 * at MANIFEST_TOKENS.
 */
async function manifestFor(
	store: ReturnType<typeof projectStore>,
	ctx: ProjectContext,
	scopes: MemoryScope[],
	off: Set<MemoryScope>,
	eligible: ScoredMemory[],
	exclude: Set<string>,
	now: number,
): Promise<ScoredMemory[]> {
	const rest = await store.manifest(
		ctx,
		scopes.filter((s) => !off.has(s)),
		MANIFEST_ROWS,
	);
	const seen = new Set(eligible.map((m) => `${m.row.scope}/${m.row.name}`));
	const all = [...eligible];
	for (const row of rest) {
		if (exclude.has(row.name) || seen.has(`${row.scope}/${row.name}`)) continue;
		const { ageDays, confirmed } = freshness(row, now);
		all.push({
			row,
			body: "",
			score: 0,
			ageDays,
			confirmed,
			trace: { bm25: 0, typePrior: 1, freshness: 1, coverage: 0, matchedTerms: [] },
		});
	}
	return withinTokens(all, MANIFEST_TOKENS);
}
