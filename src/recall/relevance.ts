/**
 * Per-prompt relevance: does a ranked memory matter enough to interrupt the agent with it? Not a count
 * of shared words — what matched is weighed by how informative it is in this project. Each word of the
 * prompt weighs its inverse document frequency (a word most memories hold says little; a word no memory
 * holds still counts in the prompt, which is then about something memory does not cover); each concept
 * the prompt names (src/recall/concepts.ts) weighs its own, scaled by how strongly the prompt names it.
 * A memory's evidence is the weight of the words and concepts it shares with the prompt; it is relevant
 * when that evidence is large enough on its own (`MIN_EVIDENCE`, relative to the project's size) and covers enough of the prompt's
 * informative part (`MIN_COVERAGE`). Calibrated on the per-prompt benchmark (bench/prompts).
 */
import { cuesOf } from "../memory/store";
import type { TermStats } from "./candidates";
import { type ConceptHit, conceptToken, memoryConcepts } from "./concepts";
import { cjkStem, hasCjk } from "./grams";
import type { ScoredMemory } from "./lexical";

/**
 * A prompt word that names a concept the memory is about ("axios" → dependencies, for a memory about the
 * package manager) counts as matched at this share of its weight — at most the concept's own weight in
 * the project — scaled by how strongly the prompt names the concept (a bare package name: half; with
 * "bump" or "install": whole).
 */
export const CONCEPT_WEIGHT = 0.8;
/**
 * The least evidence a relevant memory shows, as a share of the weight of a word no memory holds
 * (ln(2N + 2) for N memories: 6.2 at 240): the bar scales with the project, so a small one is not silent.
 */
export const MIN_EVIDENCE = 0.5;
/** The least share of the prompt's informative weight a relevant memory covers. */
export const MIN_COVERAGE = 0.3;
/** A memory whose embedding is at least this similar to the query's is relevant without shared words (hybrid retrieval). */
export const SEMANTIC_FLOOR = 0.6;
/** A per-prompt block holds at most this many memories. */
export const PROMPT_LIMIT = 3;
/** A memory whose evidence is below this share of the best one's is left out (the best answer is clear). */
export const RELATIVE_FLOOR = 0.5;

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
	const words = new Map(terms.map((t) => [t, idf(stats.total, df.get(t) ?? 0)]));
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
	relevant: boolean;
}

/**
 * The evidence a memory shows for the prompt: the weight of the prompt's words it holds, plus the words
 * that name a concept it is about (at CONCEPT_WEIGHT, scaled by the concept's strength in the prompt).
 */
export function relevanceOf(m: ScoredMemory, weights: PromptWeights): Relevance {
	const haystack = `${m.row.name} ${m.row.description} ${m.body}`.toLowerCase();
	const credit = new Map<string, number>();
	for (const t of m.trace.matchedTerms) {
		// A CJK word counts when its stem is there, not any of its grams (해줘 is not what 배포해줘 is about).
		if (hasCjk(t) && !haystack.includes(cjkStem(t))) continue;
		credit.set(t, weights.words.get(t) ?? 0);
	}
	const shared: string[] = [];
	if (weights.concepts.length > 0) {
		const about = new Set(
			memoryConcepts({ name: m.row.name, description: m.row.description, body: m.body, cues: cuesOf(m.row) }).map((c) => c.id),
		);
		for (const c of weights.concepts) {
			if (!about.has(c.id)) continue;
			shared.push(c.id);
			// A word counts through a concept at most as much as the concept itself says in this project: a
			// rare word naming a concept half the memories are about is worth what the concept is.
			const share = CONCEPT_WEIGHT * Math.min(1, c.strength / 2);
			for (const w of c.words ?? []) {
				const own = weights.words.get(w);
				if (own === undefined) continue;
				const through = share * Math.min(own, c.weight);
				if (through > (credit.get(w) ?? 0)) credit.set(w, through);
			}
		}
	}
	let evidence = 0;
	for (const [, weight] of credit) evidence += weight;
	const coverage = weights.total > 0 ? evidence / weights.total : 0;
	return { evidence, coverage, concepts: shared, relevant: evidence >= MIN_EVIDENCE * weights.rare && coverage >= MIN_COVERAGE };
}

/** The concept tokens searched for a prompt's concepts. */
export const conceptTokens = (concepts: ConceptHit[]) => concepts.map((c) => conceptToken(c.id));
