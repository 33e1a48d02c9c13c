/**
 * The concept map of software work (src/text/concept-data.json, built by scripts/concepts/build.mjs):
 * tool, library, service and package names and everyday words → the concepts they belong to (package
 * managers and dependencies, dates and time zones, logging, tests, releases…), with Korean names. It
 * joins a prompt and a memory that share no word: "bump axios" and "we use pnpm, never npm install" both
 * name the `deps` concept. Used on both sides — a memory's concepts are indexed (`memories_cues`), a
 * prompt's are searched — and to derive a memory's cues when no model wrote them.
 */
import data from "./concept-data.json";

interface ConceptData {
	version: number;
	concepts: { id: string; en: string; ko: string }[];
	/** word → codes (concept index × 10 + weight). */
	words: Record<string, number[]>;
	korean: Record<string, number[]>;
	/** Package names of the main registries, space-separated: each names "a dependency". */
	packages: string;
}

const MAP = data as ConceptData;
export const CONCEPT_MAP_VERSION = MAP.version;
export const CONCEPTS = MAP.concepts;
const DEPS = CONCEPTS.findIndex((c) => c.id === "deps");

/**
 * Strong signals (a tool's name) count 2, weak ones (a generic word) 1. A bare package name is coded 0:
 * in a prompt it counts 1 ("a dependency": bump axios), in a memory nothing (a note naming redis is
 * not about installing packages).
 */
const PACKAGE_CODE_WEIGHT = 0;
const PACKAGE_WEIGHT = 1;
/** A memory is about a concept when its signals add up to this (a strong word in its name or description does). */
export const MEMORY_CONCEPT_MIN = 3;
/** At most this many concepts per memory, strongest first. */
export const MAX_MEMORY_CONCEPTS = 6;
/** Derived cues: the situations of a memory's strongest concepts, at most this many. */
export const MAX_DERIVED_CUES = 3;
/** A concept becomes a derived cue at this strength (a strong word in the name or description, or two in the body). */
const CUE_CONCEPT_MIN = 4;

let packages: Set<string> | undefined;
/** Parsed on first use, not at start-up. */
const packageNames = () => {
	packages ??= new Set(MAP.packages.split(" "));
	return packages;
};

/** The token a concept is indexed and searched as: letters only, so no tokenizer splits or stems it apart. */
export const conceptToken = (id: string) => `zqc${id.replace(/[^a-z0-9]/g, "")}`;

const TOKEN = /[a-z0-9@][a-z0-9._@/+-]*[a-z0-9]|[a-z0-9]|\p{Script=Hangul}+/gu;
const HANGUL = /^\p{Script=Hangul}/u;
const SIMPLE = /^[a-z]+$/;

/**
 * Lookups by user text go through Maps: a plain object would answer "constructor" or "__proto__" with
 * Object.prototype's members. Built on first use.
 */
let wordMap: Map<string, number[]> | undefined;
let koreanMap: Map<string, number[]> | undefined;
const words = () => {
	wordMap ??= new Map(Object.entries(MAP.words));
	return wordMap;
};
const korean = () => {
	koreanMap ??= new Map(Object.entries(MAP.korean));
	return koreanMap;
};

/**
 * What each Latin word looked up so far signals (or `null`): a memory's body is read again for every prompt
 * it is a candidate of, and its words mostly repeat, so the endings are stripped once per word. Bounded:
 * words up to WORD_CACHE_MAX_LENGTH characters (no map word is longer), cleared at WORD_CACHE_SIZE entries.
 */
const wordCache = new Map<string, number[] | null>();
const WORD_CACHE_SIZE = 50_000;
const WORD_CACHE_MAX_LENGTH = 40;

/** The codes a Latin word signals: itself, then without a plural or verb ending. */
function wordCodes(word: string): number[] | undefined {
	if (word.length > WORD_CACHE_MAX_LENGTH) return lookUpWord(word);
	const cached = wordCache.get(word);
	if (cached !== undefined) return cached ?? undefined;
	const codes = lookUpWord(word);
	if (wordCache.size >= WORD_CACHE_SIZE) wordCache.clear();
	wordCache.set(word, codes ?? null);
	return codes;
}

function lookUpWord(word: string): number[] | undefined {
	const direct = words().get(word);
	if (direct) return direct;
	for (const [end, add] of [
		["ies", "y"],
		["es", ""],
		["s", ""],
		["ing", ""],
		["ing", "e"],
		["ed", ""],
		["ed", "e"],
	] as const) {
		if (word.length > end.length + 2 && word.endsWith(end)) {
			const hit = words().get(word.slice(0, -end.length) + add);
			if (hit) return hit;
		}
	}
	return undefined;
}

/** The longest Korean entry a Hangul word starts with (particles and endings follow the stem). */
function koreanCodes(word: string): number[] | undefined {
	const chars = [...word];
	for (let n = Math.min(chars.length, 6); n >= 2; n--) {
		const hit = korean().get(chars.slice(0, n).join(""));
		if (hit) return hit;
	}
	return undefined;
}

/**
 * Every signal in a text: (matched word, codes). A word is looked up whole (`date-fns`, `package.json`),
 * as its parts (`email-sender` → email, sender), with its neighbour (`time zone` → time-zone), and as a
 * package name.
 */
function signals(text: string): Map<string, number[]> {
	const found = new Map<string, number[]>();
	const tokens = text.normalize("NFKC").toLowerCase().match(TOKEN) ?? [];
	let previous: string | undefined;
	for (const token of tokens) {
		if (HANGUL.test(token)) {
			const codes = koreanCodes(token);
			if (codes) found.set(token, codes);
			previous = undefined;
			continue;
		}
		const codes = wordCodes(token);
		// A package name is a dependency too, beside any concept of its own (axios: HTTP calls).
		const isPackage = packageNames().has(token) && !codes?.some((c) => Math.floor(c / 10) === DEPS);
		if (codes || isPackage) found.set(token, [...(codes ?? []), ...(isPackage ? [DEPS * 10 + PACKAGE_CODE_WEIGHT] : [])]);
		if (/[-_./@]/.test(token) && !codes) {
			for (const part of token.split(/[-_./@]+/)) {
				const partCodes = part.length > 2 ? wordCodes(part) : undefined;
				if (partCodes) found.set(part, partCodes);
			}
		}
		if (previous && SIMPLE.test(token)) {
			const pair = wordCodes(`${previous}-${token}`);
			if (pair) found.set(`${previous}-${token}`, pair);
		}
		previous = SIMPLE.test(token) ? token : undefined;
	}
	return found;
}

/**
 * Concept index → strength, each distinct signal word counted once, times `weight`; with `words`, the
 * words (letter and digit runs, as query terms are cut) that signalled each concept.
 */
function addStrengths(into: Map<number, number>, text: string, weight: number, words?: Map<number, Set<string>>, packageWeight = 0): void {
	let packages = 0;
	for (const [token, codes] of signals(text)) {
		for (const code of codes) {
			const concept = Math.floor(code / 10);
			// Package names together count once: prose full of library-like words is not about dependencies.
			const signal = code % 10 === PACKAGE_CODE_WEIGHT ? (packages++ === 0 ? packageWeight : 0) : code % 10;
			if (signal === 0) continue;
			into.set(concept, (into.get(concept) ?? 0) + signal * weight);
			if (words) {
				const set = words.get(concept) ?? new Set<string>();
				for (const part of token.match(/[\p{L}\p{N}]+/gu) ?? []) set.add(part);
				words.set(concept, set);
			}
		}
	}
}

export interface ConceptHit {
	id: string;
	strength: number;
	/** For a text's concepts: the words of the text that name it. */
	words?: string[];
}

const ranked = (strengths: Map<number, number>, min: number, max: number, words?: Map<number, Set<string>>): ConceptHit[] =>
	[...strengths.entries()]
		.filter(([, s]) => s >= min)
		.sort((a, b) => b[1] - a[1] || a[0] - b[0])
		.slice(0, max)
		.map(([i, strength]) => ({ id: CONCEPTS[i]?.id ?? "", strength, ...(words ? { words: [...(words.get(i) ?? [])] } : {}) }));

/** The concepts a prompt or query names (every signal counts), each with the words that name it. */
export function textConcepts(text: string): ConceptHit[] {
	const strengths = new Map<number, number>();
	const words = new Map<number, Set<string>>();
	addStrengths(strengths, text, 1, words, PACKAGE_WEIGHT);
	return ranked(strengths, 1, 12, words);
}

export interface MemoryText {
	name: string;
	description: string;
	body: string;
	cues?: string[];
}

/**
 * The concepts a memory is about: its name (words split at hyphens), description and cues count
 * twice as much as its body; only concepts with MEMORY_CONCEPT_MIN or more, at most MAX_MEMORY_CONCEPTS.
 */
export function memoryConcepts(memory: MemoryText): ConceptHit[] {
	const strengths = new Map<number, number>();
	addStrengths(strengths, `${memory.name.replace(/-/g, " ")}\n${memory.description}\n${(memory.cues ?? []).join("\n")}`, 2);
	addStrengths(strengths, memory.body, 1);
	return ranked(strengths, MEMORY_CONCEPT_MIN, MAX_MEMORY_CONCEPTS);
}

const HAS_HANGUL = /\p{Script=Hangul}/u;

/**
 * Cues derived without a model: the situations of the memory's strongest concepts, in English and, for
 * a memory written in Korean, in Korean too. Empty when the memory names no concept strongly enough.
 */
export function deriveCues(memory: MemoryText): string[] {
	const korean = HAS_HANGUL.test(`${memory.description}\n${memory.body}`);
	const cues: string[] = [];
	for (const hit of memoryConcepts({ ...memory, cues: [] })) {
		if (hit.strength < CUE_CONCEPT_MIN) continue;
		const concept = CONCEPTS.find((c) => c.id === hit.id);
		if (!concept) continue;
		if (korean) cues.push(concept.ko);
		cues.push(concept.en);
		if (cues.length >= MAX_DERIVED_CUES * (korean ? 2 : 1)) break;
	}
	return cues;
}

const BY_TOKEN = new Map(CONCEPTS.map((c) => [conceptToken(c.id), c.id]));

/**
 * The concepts a memory is about, read back from its cue row's `concepts` column (`conceptColumn`, written
 * with the memory and its cues): the ids of `memoryConcepts` in the same order, without deriving them again.
 * Null when a token names no concept of this map.
 */
export function storedConcepts(column: string): string[] | null {
	const ids: string[] = [];
	for (const token of column.split(" ")) {
		if (token === "") continue;
		const id = BY_TOKEN.get(token);
		if (id === undefined) return null;
		if (ids.at(-1) !== id) ids.push(id);
	}
	return ids;
}

/** The `concepts` column of a memory's cue row: its concepts' tokens, the stronger repeated (BM25 counts them). */
export function conceptColumn(memory: MemoryText): string {
	return memoryConcepts(memory)
		.flatMap((c) => Array.from({ length: Math.min(3, Math.floor(c.strength / MEMORY_CONCEPT_MIN)) }, () => conceptToken(c.id)))
		.join(" ");
}
