import type { FrontFigures } from "./prompts";

// The figures of the last run on the shared-D1 layout (every project's memories, versions, full-text
// index and sessions in one D1 database), 2026-11-29, same machine class: 2 cores (AMD EPYC), 24 GiB,
// Node v22.23.3. Copied from docs/benchmarks.md as it stood then; shown beside each new run as "before".

type P = [p50: number, p95: number, p99: number];

export const BEFORE = {
	date: "2026-11-29",
	health: 1.0,
	/** LoCoMo, Cairn's R@5 and R@10 per category (percent). */
	quality: {
		"single-hop": [62.8, 65.7],
		"multi-hop": [28.7, 36.3],
		temporal: [68.7, 73.5],
		"open-domain": [25.6, 29.7],
		"overall (1-4)": [55.2, 59.4],
		"adversarial (5)": [59.7, 65.3],
	} as Record<string, [number, number]>,
	latency: {
		1000: { recall: [6, 8, 13] as P, inject: [15, 24, 48] as P, floorFile: [0.9, 1.2, 1.4] as P, floorMemory: 0.9 },
		10000: { recall: [8, 11, 14] as P, inject: [18, 29, 68] as P, floorFile: [1.7, 2.6, 3.0] as P, floorMemory: 1.7 },
	} as Record<number, { recall: P; inject: P; floorFile: P; floorMemory: number }>,
	writes: { 10: [11, 17, 41] as P, 10000: [11, 18, 123] as P } as Record<number, P>,
	fillSeconds: { 10000: 74.0 } as Record<number, number>,
	index: { 10: { rebuild: 12, cached: 5 }, 10000: { rebuild: 29, cached: 8 } } as Record<number, { rebuild: number; cached: number }>,
	ingest: {
		"claude/codemie__session-196820da.jsonl": { post: 49, repost: 25, model: 52, offline: 8 },
		"claude/codemie__session-9eda1058.jsonl": { post: 14, repost: 6, model: 12, offline: 7 },
		"codex/codemie__exec-turn-2.jsonl": { post: 9, repost: 3, model: 9, offline: 6 },
		"codex/codemie__rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl": {
			post: 38,
			repost: 23,
			model: 25,
			offline: 8,
		},
	} as Record<string, { post: number; repost: number; model: number; offline: number }>,
	ingestTurnsPerSecond: 3_691,
	consolidation: {
		100: { touched: 7, model: [23, 79], offline: [48, 66] },
		1000: { touched: 9, model: [25, 33], offline: [44, 54] },
		10000: { touched: 9, model: [45, 60], offline: [53, 192] },
	} as Record<number, { touched: number; model: [number, number]; offline: [number, number] }>,
};

/**
 * Recall p95 (ms) per project size in the last run before per-prompt relevance (cues, concepts, the
 * relevance decision), docs/benchmarks.md of 2026-12-01: per-prompt inject is held to 2× this.
 */
export const RECALL_P95_BEFORE_PROMPTS: Record<number, number> = { 1000: 5.0, 10000: 9.0 };

/**
 * Per-prompt recall on bench/prompts/dev before any change for it (2026-12-01: the word-count floor — half
 * the query's terms, at most three — over lexical recall): hits / needing, noisy / needing none, memories per block.
 */
export const PROMPTS_BEFORE: Record<string, { hits: number; needing: number; noisy: number; none: number; perBlock: number }> = {
	en: { hits: 83, needing: 151, noisy: 55, none: 82, perBlock: 3.02 },
	ko: { hits: 30, needing: 61, noisy: 16, none: 38, perBlock: 1.83 },
	all: { hits: 113, needing: 212, noisy: 71, none: 120, perBlock: 2.67 },
};

/**
 * Batch-write throughput before a batch became one call into the project's object (each item its own
 * call, R2 put and transaction), measured by the same phase on this machine class, back to back with
 * the code after the change (`CAIRN_BENCH_ONLY=writes CAIRN_BENCH_LARGE=2000`, 2026-12-02).
 */
export const BATCH_BEFORE: { perSecond: number; what: string } | null = {
	perSecond: 118,
	what: "2,000 memories on 2026-12-02, load average 2.5 from other work on the machine",
};

/**
 * `npm run bench:writes-local` (through `wrangler dev`, as `npm start` runs it), which `npm run bench`
 * does not run: the figures of its last runs, before and after batches became one call into the
 * project's object, on 2026-12-02 (2 cores, other work on the machine).
 */
export const WRITES_LOCAL = {
	before: { memories: 2_000, perSecond: 77, load: 3.2 },
	after: { memories: 10_000, perSecond: 639, load: 3.0 },
};

/**
 * What was in front of the model before the start block became a ranked view and the prompt block
 * offered lines: the same calls (the start block as the hook asked for it then, `query` = folder name and
 * branch, MEMORY.md cut by name order; the prompt's block as today), measured on 2026-12-03 on the code
 * of that day. `fresh` and `holdout` were measured at their size only; `grown` (~1,000 memories) too.
 */
export const FRONT_BEFORE: FrontFigures[] = [
	{
		set: "dev",
		lang: "en",
		prompts: 233,
		needs: 175,
		inFront: 137,
		atPrompt: 32,
		inStart: 124,
		rules: { needs: 114, inFront: 114 },
		facts: { needs: 61, inFront: 23 },
		needingNone: 82,
		noisy: 4,
		promptChars: 199,
		startChars: 9430,
		offered: 0,
	},
	{
		set: "dev",
		lang: "ko",
		prompts: 99,
		needs: 67,
		inFront: 52,
		atPrompt: 16,
		inStart: 46,
		rules: { needs: 44, inFront: 44 },
		facts: { needs: 23, inFront: 8 },
		needingNone: 38,
		noisy: 1,
		promptChars: 148,
		startChars: 9430,
		offered: 0,
	},
	{
		set: "dev",
		lang: "all",
		prompts: 332,
		needs: 242,
		inFront: 189,
		atPrompt: 48,
		inStart: 170,
		rules: { needs: 158, inFront: 158 },
		facts: { needs: 84, inFront: 31 },
		needingNone: 120,
		noisy: 5,
		promptChars: 184,
		startChars: 9430,
		offered: 0,
	},
	{
		set: "fresh",
		lang: "en",
		prompts: 197,
		needs: 153,
		inFront: 116,
		atPrompt: 28,
		inStart: 110,
		rules: { needs: 101, inFront: 101 },
		facts: { needs: 52, inFront: 15 },
		needingNone: 73,
		noisy: 2,
		promptChars: 175,
		startChars: 9489,
		offered: 0,
	},
	{
		set: "fresh",
		lang: "ko",
		prompts: 96,
		needs: 67,
		inFront: 50,
		atPrompt: 8,
		inStart: 48,
		rules: { needs: 46, inFront: 46 },
		facts: { needs: 21, inFront: 4 },
		needingNone: 33,
		noisy: 1,
		promptChars: 74,
		startChars: 9489,
		offered: 0,
	},
	{
		set: "fresh",
		lang: "all",
		prompts: 293,
		needs: 220,
		inFront: 166,
		atPrompt: 36,
		inStart: 158,
		rules: { needs: 147, inFront: 147 },
		facts: { needs: 73, inFront: 19 },
		needingNone: 106,
		noisy: 3,
		promptChars: 142,
		startChars: 9489,
		offered: 0,
	},
	{
		set: "holdout",
		lang: "en",
		prompts: 221,
		needs: 174,
		inFront: 132,
		atPrompt: 30,
		inStart: 123,
		rules: { needs: 121, inFront: 121 },
		facts: { needs: 53, inFront: 11 },
		needingNone: 77,
		noisy: 4,
		promptChars: 195,
		startChars: 9478,
		offered: 0,
	},
	{
		set: "holdout",
		lang: "ko",
		prompts: 96,
		needs: 87,
		inFront: 67,
		atPrompt: 7,
		inStart: 62,
		rules: { needs: 59, inFront: 59 },
		facts: { needs: 28, inFront: 8 },
		needingNone: 32,
		noisy: 1,
		promptChars: 68,
		startChars: 9478,
		offered: 0,
	},
	{
		set: "holdout",
		lang: "all",
		prompts: 317,
		needs: 261,
		inFront: 199,
		atPrompt: 37,
		inStart: 185,
		rules: { needs: 180, inFront: 180 },
		facts: { needs: 81, inFront: 19 },
		needingNone: 109,
		noisy: 5,
		promptChars: 156,
		startChars: 9478,
		offered: 0,
	},
	{
		set: "grown",
		lang: "en",
		prompts: 425,
		needs: 329,
		inFront: 99,
		atPrompt: 51,
		inStart: 58,
		rules: { needs: 218, inFront: 75 },
		facts: { needs: 111, inFront: 24 },
		needingNone: 151,
		noisy: 33,
		promptChars: 402,
		startChars: 9438,
		offered: 0,
	},
	{
		set: "grown",
		lang: "ko",
		prompts: 109,
		needs: 82,
		inFront: 24,
		atPrompt: 14,
		inStart: 11,
		rules: { needs: 55, inFront: 19 },
		facts: { needs: 27, inFront: 5 },
		needingNone: 40,
		noisy: 1,
		promptChars: 186,
		startChars: 9438,
		offered: 0,
	},
	{
		set: "grown",
		lang: "all",
		prompts: 534,
		needs: 411,
		inFront: 123,
		atPrompt: 65,
		inStart: 69,
		rules: { needs: 273, inFront: 94 },
		facts: { needs: 138, inFront: 29 },
		needingNone: 191,
		noisy: 34,
		promptChars: 358,
		startChars: 9438,
		offered: 0,
	},
];

/**
 * The session-start and per-prompt blocks' p95 before the start block became a ranked view, from the
 * latency run of 2026-12-02 (the old start block: `inject` with a query, MEMORY.md by name; the prompt
 * block: `include: "memories"`), in ms. Target: within 1.5× of these.
 */
export const BLOCKS_P95_BEFORE: Record<number, { start: number; prompt: number }> = {
	1000: { start: 30, prompt: 15 },
	10000: { start: 21, prompt: 11 },
};
