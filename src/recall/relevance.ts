/**
 * Per-prompt relevance: does a ranked memory matter enough to interrupt the agent with it? Not a count
 * of shared words — what matched is weighed by how informative it is in this project. Each word of the
 * prompt weighs its inverse document frequency (a word most memories hold says little; a word no memory
 * holds still counts in the prompt, which is then about something memory does not cover); each concept
 * the prompt names (src/text/concepts.ts) weighs its own, scaled by how strongly the prompt names it.
 * A memory's evidence is the weight of the words and concepts it shares with the prompt, times a factor
 * for its type; it is relevant when that evidence is large enough on its own (relative to the project's
 * size) and covers enough of the prompt's informative part. Constants: `RELEVANCE`, calibrated on the
 * per-prompt benchmark (bench/prompts/dev).
 */

import { cuesOf } from "../memory/store";
import type { MemoryType } from "../memory/topic-file";
import type { TermStats } from "../search/candidates";
import { type ConceptHit, conceptToken, memoryConcepts, storedConcepts } from "../text/concepts";
import { otherForms } from "../text/forms";
import { cjkStem, hasCjk } from "../text/grams";
import type { ScoredMemory } from "./ranking";

/** The relevance decision's constants (calibrated on bench/prompts/dev with scripts/bench/prompts-calibrate.ts). */
export interface RelevanceParams {
	/**
	 * A prompt word that names a concept the memory is about ("axios" → dependencies, for a memory about
	 * the package manager) counts at this share of its weight — at most the concept's own weight in the
	 * project — scaled by how strongly the prompt names the concept (a bare package name: half; with
	 * "bump" or "install": whole).
	 */
	conceptWeight: number;
	/** A word the memory holds only in its body, not its name or description, counts this share. */
	bodyShare: number;
	/**
	 * Evidence factor per type: rules and preferences change how a task is done and are what a prompt
	 * needs; a project fact or a reference must match more strongly to interrupt the agent.
	 */
	typeFactor: Record<MemoryType, number>;
	/**
	 * The least evidence a relevant memory shows, as a share of the weight of a word no memory holds
	 * (ln(2N + 2) for N memories: 6.2 at 240): the bar scales with the project, so a small one is not silent.
	 */
	minEvidence: number;
	/** The least share of the prompt's informative weight a relevant memory covers. */
	minCoverage: number;
	/** The prompt's informative part: its this many weightiest words (a long prompt's many others are incidental). */
	informativeWords: number;
	/** A memory whose evidence is below this share of the best one's is left out (the best answer is clear). */
	relativeFloor: number;
	/**
	 * A memory whose name or description holds this many of the prompt's words, each at least half as
	 * informative as a word no memory holds, is relevant whatever its coverage: a long prompt that names
	 * what the memory is about.
	 */
	headWords: number;
}

export const RELEVANCE: RelevanceParams = {
	conceptWeight: 0.8,
	bodyShare: 0.6,
	typeFactor: { feedback: 1, user: 1, project: 0.4, reference: 1 },
	minEvidence: 0.3,
	minCoverage: 0.6,
	informativeWords: 8,
	relativeFloor: 0.5,
	headWords: 4,
};
/** A memory whose embedding is at least this similar to the query's is relevant without shared words (hybrid retrieval). */
export const SEMANTIC_FLOOR = 0.6;
/** A per-prompt block holds at most this many memories. */
export const PROMPT_LIMIT = 3;

/**
 * Beside the memories it is sure of, a prompt's block offers the index lines of the next candidates in
 * ranked order — for the agent, a model, to judge and open — when they show some evidence (a word or a
 * concept of the prompt's) covering at least `minCoverage` of its informative part; at most `limit`,
 * never a line the session was already shown, within the prompt budget (`memories.promptBudget`).
 * `minCoverage` was calibrated on bench/prompts/dev like `RELEVANCE`; `limit` is recall's top 15, the
 * depth at which a grown project's needed fact is among the candidates for most prompts. The first `top`
 * candidates not yet seen need only cover `topCoverage`: in a project of ~1,000 memories the fact a prompt
 * needs is often recall's first or second guess on a few of the prompt's words (an hour, a port, a
 * retention), below the coverage the rest must show. Past the `first` four lines, a line must cover
 * `wideCoverage` of the prompt: in grown projects the lines past the fourth were needed about once in twenty
 * on prompts that need nothing, the first guesses far more often — the room goes to those.
 */
export const OFFER = { limit: 15, minCoverage: 0.1, first: 4, wideCoverage: 0.2, top: 3, topCoverage: 0.05 };

/** BM25's inverse document frequency: ln(1 + (N − df + 0.5) / (df + 0.5)). */
export const idf = (total: number, df: number) => Math.log(1 + (Math.max(total, df) - df + 0.5) / (df + 0.5));

export interface PromptWeights {
	/** Query word → weight. */
	words: Map<string, number>;
	/** The prompt's concepts, with the words that name them and their own weight in this project. */
	concepts: (ConceptHit & { weight: number })[];
	/** The prompt's whole informative weight: its words'. */
	total: number;
	/** The weight of a word no memory holds: the unit of MIN_EVIDENCE. */
	rare: number;
}

/** The weight of each word of the prompt, from the project's document frequencies. */
export function promptWeights(terms: string[], statTerms: string[], concepts: ConceptHit[], stats: TermStats): PromptWeights {
	const df = new Map(statTerms.map((t, i) => [t, stats.words[i] ?? 0]));
	const words = new Map(terms.filter(countable).map((t) => [t, idf(stats.total, df.get(t) ?? 0)]));
	let total = 0;
	for (const w of words.values()) total += w;
	const weighted = concepts.map((c, i) => ({ ...c, weight: idf(stats.total, stats.concepts[i] ?? 0) }));
	return { words, concepts: weighted, total, rare: idf(stats.total, 0) };
}

export interface Relevance {
	evidence: number;
	coverage: number;
	/** The prompt's concepts this memory is about. */
	concepts: string[];
	/** Every concept the memory is about (for the trace). */
	about: string[];
	/** The prompt's words the memory holds, as counted (a CJK word by its stem). */
	held: string[];
	relevant: boolean;
}

/** What the decision reads of a memory: computed once per memory, whatever the constants. */
export interface MemoryView {
	type: MemoryType;
	/** The prompt's words it holds anywhere, and those in its name or description. */
	held: string[];
	inHead: Set<string>;
	/** The concepts it is about. */
	about: Set<string>;
}

/**
 * The decision's view of a candidate. `conceptColumn`: its cue row's stored concepts, read with the
 * candidates (src/search/candidates.ts) — what `memoryConcepts` would derive again from its text and cues.
 */
export function viewOf(m: ScoredMemory, weights: PromptWeights, conceptColumn?: string): MemoryView {
	const terms = [...weights.words.keys()];
	const name = m.row.name.replace(/-/g, " ");
	return {
		type: m.row.type,
		held: heldTerms(terms, `${name} ${m.row.description} ${m.body}`),
		inHead: new Set(heldTerms(terms, `${name} ${m.row.description}`)),
		about: new Set(
			weights.concepts.length > 0
				? ((conceptColumn !== undefined ? storedConcepts(conceptColumn) : null) ??
						memoryConcepts({ name: m.row.name, description: m.row.description, body: m.body, cues: cuesOf(m.row) }).map((c) => c.id))
				: [],
		),
	};
}

/**
 * The evidence a memory shows for the prompt: the weight of the prompt's words it holds (less for words
 * only in its body), plus the words that name a concept it is about, times its type's factor.
 */
export function judge(view: MemoryView, weights: PromptWeights, params: RelevanceParams = RELEVANCE): Relevance {
	const credit = new Map<string, number>();
	for (const t of view.held) credit.set(t, (weights.words.get(t) ?? 0) * (view.inHead.has(t) ? 1 : params.bodyShare));
	const shared: string[] = [];
	for (const c of weights.concepts) {
		if (!view.about.has(c.id)) continue;
		shared.push(c.id);
		// A word counts through a concept at most as much as the concept itself says in this project: a
		// rare word naming a concept half the memories are about is worth what the concept is.
		const share = params.conceptWeight * Math.min(1, c.strength / 2);
		for (const w of c.words ?? []) {
			const own = weights.words.get(w);
			if (own === undefined) continue;
			const through = share * Math.min(own, c.weight);
			if (through > (credit.get(w) ?? 0)) credit.set(w, through);
		}
	}
	let evidence = 0;
	for (const [, weight] of credit) evidence += weight;
	evidence *= params.typeFactor[view.type] ?? 1;
	const informative = informativeWeight(weights, params.informativeWords);
	const coverage = informative > 0 ? Math.min(1, evidence / informative) : 0;
	return {
		evidence,
		coverage,
		concepts: shared,
		about: [...view.about],
		held: view.held,
		relevant:
			(evidence >= params.minEvidence * weights.rare && coverage >= params.minCoverage) ||
			[...view.inHead].filter((t) => (weights.words.get(t) ?? 0) >= 0.5 * weights.rare).length >= params.headWords,
	};
}

/** The weight of the prompt's `count` weightiest words. */
function informativeWeight(weights: PromptWeights, count: number): number {
	if (count >= weights.words.size) return weights.total;
	return [...weights.words.values()]
		.sort((a, b) => b - a)
		.slice(0, count)
		.reduce((n, w) => n + w, 0);
}

/** The decision for one candidate, with the calibrated constants. */
export const relevanceOf = (m: ScoredMemory, weights: PromptWeights, conceptColumn?: string) =>
	judge(viewOf(m, weights, conceptColumn), weights);

/**
 * The memories a prompt is handed: the relevant ones by evidence, those below `relativeFloor` of the
 * best left out, at most `limit`. `semantic` marks candidates relevant by their embedding alone.
 */
export function decide<T>(
	judged: { item: T; r: Relevance; semantic: boolean; score: number }[],
	limit: number,
	params: RelevanceParams = RELEVANCE,
): { kept: T[]; belowBest: T[] } {
	const relevant = judged.filter((j) => j.r.relevant || j.semantic).sort((a, b) => b.r.evidence - a.r.evidence || b.score - a.score);
	const best = relevant[0]?.r.evidence ?? 0;
	const kept: T[] = [];
	const belowBest: T[] = [];
	for (const j of relevant) {
		if (j.r.evidence < params.relativeFloor * best && !j.semantic) belowBest.push(j.item);
		else if (kept.length < limit) kept.push(j.item);
	}
	return { kept, belowBest };
}

/** A word counted for relevance: not a bare number of one or two digits (line numbers, ports' fragments, list items). */
export const countable = (term: string) => !/^\d{1,2}$/.test(term);

/**
 * The prompt words a memory's text holds, matched as words: a word of the text equal to the term, or
 * starting with its stem (the term less a plural or verb ending, at least four letters: `retries` →
 * `retr`… holds `retry`) or with one of its irregular forms; a CJK word by its stem (배포해줘 → 배포, not
 * 해줘). Stricter than the ranking's coverage count, which matches inside words.
 */
export function heldTerms(terms: string[], text: string): string[] {
	const lower = text.normalize("NFKC").toLowerCase();
	const words = new Set(lower.match(/[\p{L}\p{N}]+/gu) ?? []);
	const held: string[] = [];
	for (const t of terms) {
		if (!countable(t)) continue;
		if (hasCjk(t)) {
			if (lower.includes(cjkStem(t))) held.push(t);
			continue;
		}
		let found = words.has(t);
		if (!found) {
			const stems = longStems(t);
			if (stems.length > 0)
				for (const w of words) {
					if (stems.some((s) => w.startsWith(s))) {
						found = true;
						break;
					}
				}
		}
		if (found) held.push(t);
	}
	return held;
}

/** A word less a plural or verb ending: retries → retr, installs → install, deployed → deploy. */
const stemOf = (w: string) => w.replace(/(?:ies|es|s|ing|ed|er|ers)$/, "") || w;

/**
 * The stems a text's word may start with to hold `term`: its own and its irregular forms', four letters or
 * more. Kept per term (a prompt's terms are matched against every candidate); cleared at STEM_CACHE_SIZE.
 */
function longStems(term: string): string[] {
	let stems = stemCache.get(term);
	if (!stems) {
		stems = [term, ...otherForms(term)].map(stemOf).filter((s) => s.length >= 4);
		if (stemCache.size >= STEM_CACHE_SIZE) stemCache.clear();
		stemCache.set(term, stems);
	}
	return stems;
}
const stemCache = new Map<string, string[]>();
const STEM_CACHE_SIZE = 10_000;

/** The concept tokens searched for a prompt's concepts. */
export const conceptTokens = (concepts: ConceptHit[]) => concepts.map((c) => conceptToken(c.id));
