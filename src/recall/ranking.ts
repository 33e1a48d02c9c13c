/**
 * Worker-side ranking of the candidates the project's object returns (src/search/candidates.ts):
 * BM25 with type and freshness priors, query-word coverage and proximity, and what a recalled memory
 * looks like to callers.
 */
import type { CandidateRow } from "../memory/lexical";
import { memoryUrl } from "../memory/paths";
import type { MemoryRow } from "../memory/rows";
import type { MemoryScope, MemoryType } from "../memory/topic-file";
import { otherForms } from "../text/forms";
import { cjkTermIn } from "../text/grams";

/** Rules and corrections matter most at session start; references are looked up when needed. */
export const TYPE_PRIORS: Record<MemoryType, number> = { feedback: 1.1, user: 1.05, project: 1.05, reference: 1.0 };

const DAY_MS = 86_400_000;

/** How much a memory that matches more of the query's distinct words is preferred (0 = plain BM25). */
export const COVERAGE_WEIGHT = 0.5;

/** Bonus per pair of consecutive query words that also stand next to each other in the memory ("support group"). */
export const PROXIMITY_BONUS = 0.15;

const stemPrefix = (t: string) => t.slice(0, Math.max(3, t.length - 2));

/**
 * How many consecutive query-word pairs appear within two words of each other in the text (the second
 * after the first). Linear: one pass over the words; each word is looked up by its prefixes in a map
 * from stem prefix to the query positions using it, and only the last position each query word was
 * seen at is kept — the nearest earlier occurrence is the only one that can be within two words.
 */
export function adjacentPairs(text: string, terms: string[]): number {
	if (terms.length < 2) return 0;
	const byPrefix = new Map<string, number[]>();
	let longest = 0;
	terms.forEach((t, i) => {
		const prefix = stemPrefix(t);
		longest = Math.max(longest, prefix.length);
		const list = byPrefix.get(prefix);
		if (list) list.push(i);
		else byPrefix.set(prefix, [i]);
	});
	let shortest = Number.POSITIVE_INFINITY;
	for (const prefix of byPrefix.keys()) shortest = Math.min(shortest, prefix.length);
	// Every prefix starts with one of these: a word that starts with none of them matches no prefix.
	const heads = new Set([...byPrefix.keys()].map((p) => p.slice(0, shortest)));
	const last = new Array<number>(terms.length).fill(-Infinity);
	const found = new Array<boolean>(terms.length - 1).fill(false);
	let pairs = 0;
	let position = 0;
	const matched: number[] = [];
	for (const m of text.matchAll(/[\p{L}\p{N}]+/gu)) {
		const word = m[0];
		matched.length = 0;
		if (!heads.has(word.slice(0, shortest))) {
			position++;
			continue;
		}
		for (let len = shortest; len <= Math.min(longest, word.length); len++) {
			const hit = byPrefix.get(word.slice(0, len));
			if (hit) matched.push(...hit);
		}
		// Pairs first, against earlier words only; then this word becomes the latest position.
		for (const i of matched) {
			if (i > 0 && !found[i - 1] && position - (last[i - 1] ?? -Infinity) <= 2) {
				found[i - 1] = true;
				pairs++;
			}
		}
		for (const i of matched) last[i] = position;
		position++;
	}
	return pairs;
}

/**
 * How long ago a memory was last known true: the later of its last edit and its last confirmation
 * (a session restating it raises `verified_at`), in whole days.
 */
export function freshness(row: Pick<MemoryRow, "updated_at" | "verified_at">, now = Date.now()): { ageDays: number; confirmed: boolean } {
	const updated = Date.parse(row.updated_at);
	const verified = Date.parse(row.verified_at);
	const confirmed = Number.isFinite(verified) && verified > updated;
	const at = confirmed ? verified : updated;
	return { ageDays: Math.max(0, Math.floor((now - at) / DAY_MS)), confirmed };
}

/** Older memories fade a little (never below 0.85): a current-state fact may be stale. */
export const freshnessPrior = (ageDays: number) => 0.85 + 0.15 * Math.exp(-ageDays / 90);

export interface Candidate {
	row: MemoryRow;
	body: string;
	bm25: number;
}

export interface ScoredMemory {
	row: MemoryRow;
	body: string;
	score: number;
	/** Days since the memory was last known true: the later of its last edit and its last confirmation. */
	ageDays: number;
	/** A session confirmed it after its last edit. */
	confirmed: boolean;
	trace: {
		bm25: number;
		typePrior: number;
		freshness: number;
		coverage: number;
		matchedTerms: string[];
		/** Written inside a window of time the query names (src/text/dates.ts). */
		dated?: boolean;
		/** Added as a neighbour of this memory (written next to it by the same session). */
		neighbourOf?: string;
		/** Hybrid retrieval only: cosine similarity to the query, and the ranks fused (1-based; absent when not in that list). */
		similarity?: number;
		lexicalRank?: number;
		vectorRank?: number;
	};
}

export const toCandidates = (rows: CandidateRow[]): Candidate[] =>
	rows.map(({ fts_body, rank, ...row }) => ({ row: row as MemoryRow, body: fts_body, bm25: -rank }));

/**
 * Applies type and freshness priors to BM25 relevance. With `forms`, a query word also counts as
 * matched by its other forms (src/text/forms.ts: won → win).
 */
export function score(candidates: Candidate[], terms: string[], now = Date.now(), forms = false): ScoredMemory[] {
	const spellings = terms.map((t) => (forms ? [t, ...otherForms(t)] : [t]).map(stemPrefix));
	return candidates
		.map(({ row, body, bm25 }) => {
			const { ageDays, confirmed } = freshness(row, now);
			const typePrior = TYPE_PRIORS[row.type] ?? 1;
			const haystack = `${row.name} ${row.description} ${body}`.toLowerCase();
			const matchedTerms = terms.filter((t, i) => cjkTermIn(t, haystack) ?? (spellings[i] ?? []).some((p) => haystack.includes(p)));
			const coverage =
				(terms.length > 1 ? (Math.max(1, matchedTerms.length) / terms.length) ** COVERAGE_WEIGHT : 1) *
				(1 + PROXIMITY_BONUS * adjacentPairs(haystack, terms));
			return {
				row,
				body,
				ageDays,
				confirmed,
				score: bm25 * typePrior * freshnessPrior(ageDays) * coverage,
				trace: { bm25, typePrior, freshness: freshnessPrior(ageDays), coverage, matchedTerms },
			};
		})
		.sort((a, b) => b.score - a.score);
}

const WARNING_MARKERS =
	/\b(?:warn(?:ing)?s?|caveats?|pitfalls?|gotchas?|known issues?|bugs?|beware|careful|don'?t|do not|never|avoid|broken|breaks|fails?|failing|flaky|workaround|deprecated|must not|instead)\b/i;

/** Generic agent tools say nothing about which product is in use. */
const GENERIC_TOOLS = new Set(
	"bash shell sh read write edit multiedit grep glob ls task todowrite webfetch websearch notebookedit create update get list run exec apply patch view".split(
		" ",
	),
);

/**
 * Names worth matching from tool identifiers: `Bash(gh pr create:*)` → gh, `mcp__github__create_issue`
 * → github, `kubectl` → kubectl.
 */
export function toolNames(recentTools: string[]): string[] {
	const names = new Set<string>();
	const add = (word: string | undefined) => {
		const w = word?.toLowerCase().replace(/[^a-z0-9.-]/g, "");
		if (w && w.length >= 2 && !GENERIC_TOOLS.has(w)) names.add(w);
	};
	for (const tool of recentTools) {
		const m = /^([\w.-]+)(?:\((.*)\))?$/s.exec(tool.trim());
		if (!m) continue;
		const mcp = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(m[1] ?? "");
		if (mcp) add(mcp[1]);
		else add(m[1]);
		add(m[2]?.trim().split(/[\s:]+/)[0]);
	}
	return [...names];
}

/**
 * A reference memory that only documents a tool the agent is already using adds nothing; one that
 * records a warning or known issue about it still matters.
 */
export function documentsToolInUse(memory: ScoredMemory, recentTools: string[]): string | null {
	if (memory.row.type !== "reference" || recentTools.length === 0) return null;
	const label = `${memory.row.name} ${memory.row.description}`.toLowerCase();
	const words = new Set(label.split(/[^a-z0-9.]+/));
	const tool = toolNames(recentTools).find((t) => words.has(t));
	if (!tool) return null;
	return WARNING_MARKERS.test(`${memory.row.description}\n${memory.body}`) ? null : tool;
}

export interface RecalledMemory {
	name: string;
	type: MemoryType;
	description: string;
	scope: MemoryScope;
	path: string;
	/** 0–1, as {@link readableScores} shows the ranking's score. */
	score: number;
	updatedAt: string;
	verifiedAt: string;
	ageDays: number;
}

/**
 * Scores as people read them: 0 to 1, in the ranking's order. The ranking's own score has no fixed
 * scale — BM25 with priors runs from about 0.000001 in a small project (FTS5 floors the inverse document
 * frequency of a word most memories hold) to tens in a large one — so each is shown as a share of the
 * best score this answer could hold: `best`, the first candidate's (lexical retrieval) or first place in
 * every list fused (hybrid). Rounded to two decimals, as every surface prints it (the CLI, the console);
 * a positive score never shows as 0. The ranking itself keeps the raw scores: showing them changes no
 * order and no decision.
 */
export function readableScores(best: number): (raw: number) => number {
	return (raw) => (raw > 0 && best > 0 ? Math.min(1, Math.max(0.01, Math.round((raw / best) * 100) / 100)) : 0);
}

export const toRecalled = (m: ScoredMemory, shown: (raw: number) => number): RecalledMemory => ({
	name: m.row.name,
	type: m.row.type,
	description: m.row.description,
	scope: m.row.scope,
	path: memoryUrl(m.row.scope, m.row.name),
	score: shown(m.score),
	updatedAt: m.row.updated_at,
	verifiedAt: m.row.verified_at,
	ageDays: m.ageDays,
});
