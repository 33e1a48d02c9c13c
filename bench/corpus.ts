import type { Presence } from "./front";
import type { PoisonEntry, PoisonResult } from "./poisoning-set";
import type { ReviewLoadResult } from "./review-load-set";
import type { SubjectScore } from "./updates-eval";
/** Benchmark inputs shared by the Node orchestrator and the in-Worker benchmark. Pure functions only. */

export interface SeedMemory {
	name: string;
	type: string;
	description: string;
	body: string;
	/** When the memory was written (ISO 8601): the date of the session it came from. Now when absent. */
	writtenAt?: string;
	/** The session that wrote it. */
	session?: string;
}

export interface BenchInput {
	samples: number;
	sizes: number[];
	sentences: string[];
	queries: string[];
	/** `at`: when the questions are asked (the day after the last session), for dates in them. */
	locomo: { id: string; memories: SeedMemory[]; questions: string[]; at?: string }[];
	/** Real session files (Claude Code, Codex) for ingest and stage-1 measurements. */
	transcripts: { name: string; text: string }[];
	/** Tenancy: how many other projects of the largest size are present at each step after "alone", ascending. */
	neighbours: number[];
	/** Phases to run (development aid); all when absent. */
	only?: string[];
	/** The poisoning benchmark's labelled sets (bench/poisoning/), by name: "dev", and "holdout" once measured. */
	poisoning?: Record<string, PoisonEntry[]>;
	/** Development: the per-prompt sets to run (dev, fresh, holdout, grown); all when absent. */
	promptSets?: string[];
	/** The update sets to run (bench/updates/<set>.jsonl, e.g. en-dev); all when absent. */
	updateSets?: string[];
	/** Korean, Japanese and Chinese recall (bench/cjk-recall.json): memories, and questions naming the memory that answers each. */
	cjk?: { memories: SeedMemory[]; questions: { lang: string; query: string; expected: string }[] };
	/** LongMemEval turn-level retrieval: each haystack session's user turns as memories, and per question its haystack. */
	longmemeval?: {
		/** How each question's project is filled: directly inside its object, or through the batch endpoint. */
		seed: "direct" | "batch";
		sessions: Record<string, SeedMemory[]>;
		questions: { id: string; query: string; haystack: string[]; at?: string }[];
	};
}

/**
 * `size` memories built from real sentences, paired so that documents vary. Deterministic. `variant`
 * shifts the pairing, so that projects of the same size hold different text (variant 0 is the
 * benchmark's own project; other projects of the deployment use 1, 2, …).
 * scripts/bench/sqlite-floor.mjs repeats this rule in plain JavaScript (checked at run time).
 */
export function corpus(sentences: string[], size: number, variant = 0): SeedMemory[] {
	const types = ["user", "feedback", "project", "reference"];
	const n = Math.max(1, sentences.length);
	return Array.from({ length: size }, (_, i) => {
		const a = sentences[(i + variant * 37) % n] ?? "";
		const b = sentences[(i * 7 + 3 + variant * 101) % n] ?? "";
		return { name: `m-${i}`, type: types[(i + variant) % 4] ?? "user", description: a.slice(0, 500), body: `${a}\n\n${b}` };
	});
}

/**
 * Memories of about `chars` characters each (description and body), built from the corpus sentences:
 * the size of a typical imported topic file, for batch-write throughput.
 */
export function longCorpus(sentences: string[], size: number, chars = 1_000): SeedMemory[] {
	const types = ["user", "feedback", "project", "reference"];
	const n = Math.max(1, sentences.length);
	return Array.from({ length: size }, (_, i) => {
		const description = (sentences[i % n] ?? "").slice(0, 200) || `memory ${i}`;
		const parts: string[] = [];
		let length = description.length;
		for (let k = 1; length < chars; k++) {
			const s = sentences[(i * 13 + k * 7) % n] || `sentence ${k}`;
			parts.push(s);
			length += s.length + 1;
		}
		return { name: `b-${i}`, type: types[i % 4] ?? "user", description, body: parts.join(" ").slice(0, chars - description.length) };
	});
}

export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/**
 * The median of samples timed on a whole-millisecond clock, interpolated within the median's
 * millisecond (grouped-data median: each whole value k stands for [k - 0.5, k + 0.5)). Whole-ms p50s
 * of 5 and 6 ms differ by 20 % on one tick; this estimate moves smoothly with the samples. Samples
 * that are not whole numbers give the plain median.
 */
export function interpolatedMedian(values: number[]): number {
	const m = percentile(values, 50);
	if (!values.every(Number.isInteger) || Number.isNaN(m)) return m;
	const below = values.filter((v) => v < m).length;
	const at = values.filter((v) => v === m).length;
	return m - 0.5 + (values.length / 2 - below) / at;
}

export const stats = (t: number[]) => ({
	p50: percentile(t, 50),
	p95: percentile(t, 95),
	p99: percentile(t, 99),
	p50i: interpolatedMedian(t),
	samples: t.length,
});
export type Stats = ReturnType<typeof stats>;

/** One step of the tenancy benchmark: the same project measured with `others` projects of its size present. */
export interface TenancyStep {
	others: number;
	/** Memories held by the whole deployment's projects of this size at this step (the project's own included). */
	memories: number;
	/** Seconds spent seeding the projects added for this step (0 for "alone"). */
	seedSeconds: number;
	recall: Stats;
	write: Stats;
}

export interface BenchResult {
	/** The poisoning phase (bench/poisoning.ts): per set, each entry through each path; single writes by key. */
	poisoning?: PoisonResult;
	/** The review load (bench/review-load.ts): per real session, what waits for a person once it went through the pipeline. */
	reviewLoad?: ReviewLoadResult;
	locomo: Record<string, string[][]>;
	/** `prompt`: per-prompt inject, as the prompt hook calls it (absent in results older than it). */
	latency: { size: number; fillSeconds: number; recall: Stats; inject: Stats; prompt?: Stats; start?: Stats }[];
	writes: { size: number; write: Stats }[];
	/**
	 * Batch-write throughput: `memories` of about `chars` characters each written into a new project
	 * through `POST …/memories/batch`, 100 per request, one request after another.
	 */
	batch?: { memories: number; chars: number; seconds: number };
	index: { size: number; rebuildMs: number; cachedMs: number }[];
	health: Stats;
	/**
	 * What authentication adds to a request that touches no project data (`GET …/settings/effective`),
	 * beside `GET /health` sampled alternately: means in ms (workerd's clock ticks in whole ms, so the mean
	 * of many samples is the figure), warm (key, project row and settings in the isolate cache) and cold
	 * (each request the first of a newly issued key).
	 */
	auth?: { samples: number; health: number; warm: number; coldSamples: number; cold: number };
	ingest: { name: string; bytes: number; turns: number; post: Stats; repost: Stats }[];
	stageOne: { name: string; turns: number; model: Stats; offline: Stats }[];
	consolidation: { size: number; model: Stats; offline: Stats; touched: number }[];
	tenancy: { size: number; steps: TenancyStep[] } | null;
	/** LongMemEval: per question, the names `POST /recall` returned (limit 10), best first. */
	longmemeval?: {
		seed: "direct" | "batch";
		projects: number;
		memories: number;
		seedSeconds: number;
		recallSeconds: number;
		answers: Record<string, string[]>;
	};
	/**
	 * Each ranking step's contribution: recall (limit 10) with the steps switched on one by one, `steps[0]`
	 * with none; per step, the names returned per LoCoMo conversation and question, and per LongMemEval question.
	 */
	contributions?: { steps: string[]; locomo: Record<string, string[][]>[]; longmemeval: Record<string, string[]>[] };
	/** CJK set: per question, the names `POST /recall` returned (limit 10), and those of the word index alone (recall before the CJK index). */
	cjk?: { now: string[][]; words: string[][] };
	/** Hybrid recall at the largest size: a vector for every memory, a zero-latency scripted embedder, beside lexical recall. */
	vectors?: { size: number; dims: number; hybrid: Stats; lexical: Stats; seedSeconds: number };
	/**
	 * Per-prompt recall (bench/prompts): per set and project, each prompt through `POST /inject` as the
	 * Claude Code prompt hook calls it — the names served and the time taken — and, for calibration, the
	 * relevance decision's view of the candidates (recall with a trace, in the Worker).
	 */
	prompts?: PromptSetResult[];
	/** What gets remembered, end to end with no model, per labelled set (bench/extraction): each project's memory texts. */
	extraction?: Record<string, { texts: Record<string, string[]>; seconds: number }>;
	/** Memory that stays true over time, per labelled update set (bench/updates) and per mode (no model, scripted models). */
	updates?: Record<string, { mode: "offline" | "scripted"; rows: SubjectScore[]; changeOnly: string[]; seconds: number }>;
	/** The machine's 1-minute load average during the run (added by scripts/bench.ts): whole run and per tenancy step. */
	load?: { mean: number; max: number; steps: Record<string, { mean: number; max: number }> };
}

/** One labelled project of the per-prompt benchmark (bench/prompts/<set>/<project>.json). */
export interface PromptProject {
	project: string;
	memories: SeedMemory[];
	prompts: { id: string; lang: string; kind: string; text: string; needs: string[] }[];
}

export interface PromptSetResult {
	set: string;
	project: string;
	memories: number;
	prompts: {
		id: string;
		lang: string;
		kind: string;
		needs: string[];
		served: string[];
		ms: number;
		/** Each needed memory: how it was in the session-start block and in the prompt's block (bench/front.ts). */
		front: { name: string; type: string; start: Presence; prompt: Presence; topic?: boolean }[];
		/** Characters of the prompt's block (0 when it was empty). */
		promptChars: number;
		/** Characters of the session-start block. */
		startChars: number;
		/** The session-start block's tokens (all its parts). */
		startTokens?: number;
		/** Headers (index lines) the prompt's block offered. */
		offered: string[];
		candidates?: { name: string; evidence: number; coverage: number; score: number; matched: string[]; about: string[] }[];
		/** The prompt's word and concept weights in its project (src/recall/relevance.ts). */
		weights?: {
			words: Record<string, number>;
			concepts: { id: string; strength: number; weight: number; words: string[] }[];
			total: number;
			rare: number;
		};
	}[];
}
