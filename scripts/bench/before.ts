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
 * What was in front of the model before the start block came in parts: the same sets and calls on the code
 * of 2026-12-07 before that change (one session-start block of 9,500 characters as the hook asked for it then,
 * its facts few and a map of name words for the rest; up to six lines at the prompt; no topics, so nothing
 * was one read away). `grown` holds the nine grown projects.
 */
export const FRONT_BEFORE: FrontFigures[] = [
	{
		set: "dev",
		lang: "en",
		prompts: 233,
		needs: 175,
		inFront: 163,
		atPrompt: 31,
		inStart: 143,
		rules: {
			needs: 114,
			inFront: 114,
			oneRead: 0,
		},
		facts: {
			needs: 61,
			inFront: 49,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 82,
		noisy: 2,
		promptChars: 573,
		quietChars: 331,
		startChars: 9490,
		startTokens: 0,
		offered: 3.08,
	},
	{
		set: "dev",
		lang: "ko",
		prompts: 99,
		needs: 67,
		inFront: 63,
		atPrompt: 12,
		inStart: 57,
		rules: {
			needs: 44,
			inFront: 44,
			oneRead: 0,
		},
		facts: {
			needs: 23,
			inFront: 19,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 38,
		noisy: 0,
		promptChars: 394,
		quietChars: 158,
		startChars: 9490,
		startTokens: 0,
		offered: 2.26,
	},
	{
		set: "dev",
		lang: "all",
		prompts: 332,
		needs: 242,
		inFront: 226,
		atPrompt: 43,
		inStart: 200,
		rules: {
			needs: 158,
			inFront: 158,
			oneRead: 0,
		},
		facts: {
			needs: 84,
			inFront: 68,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 120,
		noisy: 2,
		promptChars: 520,
		quietChars: 276,
		startChars: 9490,
		startTokens: 0,
		offered: 2.83,
	},
	{
		set: "facts",
		lang: "en",
		prompts: 131,
		needs: 105,
		inFront: 74,
		atPrompt: 37,
		inStart: 37,
		rules: {
			needs: 28,
			inFront: 28,
			oneRead: 0,
		},
		facts: {
			needs: 77,
			inFront: 46,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 44,
		noisy: 1,
		promptChars: 479,
		quietChars: 340,
		startChars: 9483,
		startTokens: 0,
		offered: 2.82,
	},
	{
		set: "facts",
		lang: "ko",
		prompts: 89,
		needs: 79,
		inFront: 60,
		atPrompt: 19,
		inStart: 41,
		rules: {
			needs: 24,
			inFront: 24,
			oneRead: 0,
		},
		facts: {
			needs: 55,
			inFront: 36,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 23,
		noisy: 0,
		promptChars: 212,
		quietChars: 169,
		startChars: 9483,
		startTokens: 0,
		offered: 1.71,
	},
	{
		set: "facts",
		lang: "all",
		prompts: 220,
		needs: 184,
		inFront: 134,
		atPrompt: 56,
		inStart: 78,
		rules: {
			needs: 52,
			inFront: 52,
			oneRead: 0,
		},
		facts: {
			needs: 132,
			inFront: 82,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 67,
		noisy: 1,
		promptChars: 371,
		quietChars: 281,
		startChars: 9483,
		startTokens: 0,
		offered: 2.37,
	},
	{
		set: "fresh",
		lang: "en",
		prompts: 197,
		needs: 153,
		inFront: 141,
		atPrompt: 30,
		inStart: 122,
		rules: {
			needs: 101,
			inFront: 101,
			oneRead: 0,
		},
		facts: {
			needs: 52,
			inFront: 40,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 73,
		noisy: 1,
		promptChars: 497,
		quietChars: 261,
		startChars: 9491,
		startTokens: 0,
		offered: 2.4,
	},
	{
		set: "fresh",
		lang: "ko",
		prompts: 96,
		needs: 67,
		inFront: 64,
		atPrompt: 7,
		inStart: 60,
		rules: {
			needs: 46,
			inFront: 46,
			oneRead: 0,
		},
		facts: {
			needs: 21,
			inFront: 18,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 33,
		noisy: 0,
		promptChars: 227,
		quietChars: 73,
		startChars: 9491,
		startTokens: 0,
		offered: 1.36,
	},
	{
		set: "fresh",
		lang: "all",
		prompts: 293,
		needs: 220,
		inFront: 205,
		atPrompt: 37,
		inStart: 182,
		rules: {
			needs: 147,
			inFront: 147,
			oneRead: 0,
		},
		facts: {
			needs: 73,
			inFront: 58,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 106,
		noisy: 1,
		promptChars: 409,
		quietChars: 202,
		startChars: 9491,
		startTokens: 0,
		offered: 2.06,
	},
	{
		set: "grown",
		lang: "en",
		prompts: 651,
		needs: 502,
		inFront: 281,
		atPrompt: 218,
		inStart: 68,
		rules: {
			needs: 336,
			inFront: 194,
			oneRead: 0,
		},
		facts: {
			needs: 166,
			inFront: 87,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 232,
		noisy: 10,
		promptChars: 1078,
		quietChars: 911,
		startChars: 9492,
		startTokens: 0,
		offered: 5.44,
	},
	{
		set: "grown",
		lang: "ko",
		prompts: 291,
		needs: 221,
		inFront: 124,
		atPrompt: 94,
		inStart: 32,
		rules: {
			needs: 149,
			inFront: 84,
			oneRead: 0,
		},
		facts: {
			needs: 72,
			inFront: 40,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 103,
		noisy: 1,
		promptChars: 689,
		quietChars: 556,
		startChars: 9492,
		startTokens: 0,
		offered: 4.55,
	},
	{
		set: "grown",
		lang: "all",
		prompts: 942,
		needs: 723,
		inFront: 405,
		atPrompt: 312,
		inStart: 100,
		rules: {
			needs: 485,
			inFront: 278,
			oneRead: 0,
		},
		facts: {
			needs: 238,
			inFront: 127,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 335,
		noisy: 11,
		promptChars: 958,
		quietChars: 802,
		startChars: 9492,
		startTokens: 0,
		offered: 5.17,
	},
	{
		set: "holdout",
		lang: "en",
		prompts: 221,
		needs: 174,
		inFront: 159,
		atPrompt: 30,
		inStart: 135,
		rules: {
			needs: 121,
			inFront: 121,
			oneRead: 0,
		},
		facts: {
			needs: 53,
			inFront: 38,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 77,
		noisy: 0,
		promptChars: 474,
		quietChars: 255,
		startChars: 9480,
		startTokens: 0,
		offered: 2.44,
	},
	{
		set: "holdout",
		lang: "ko",
		prompts: 96,
		needs: 87,
		inFront: 80,
		atPrompt: 14,
		inStart: 67,
		rules: {
			needs: 59,
			inFront: 59,
			oneRead: 0,
		},
		facts: {
			needs: 28,
			inFront: 21,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 32,
		noisy: 0,
		promptChars: 200,
		quietChars: 98,
		startChars: 9480,
		startTokens: 0,
		offered: 1.18,
	},
	{
		set: "holdout",
		lang: "all",
		prompts: 317,
		needs: 261,
		inFront: 239,
		atPrompt: 44,
		inStart: 202,
		rules: {
			needs: 180,
			inFront: 180,
			oneRead: 0,
		},
		facts: {
			needs: 81,
			inFront: 59,
			oneRead: 0,
		},
		oneRead: 0,
		needingNone: 109,
		noisy: 0,
		promptChars: 391,
		quietChars: 209,
		startChars: 9480,
		startTokens: 0,
		offered: 2.06,
	},
];

/**
 * The session-start and per-prompt blocks' p95 before the start block came in parts (commit b94abf8: one
 * 9,500-character start block), in ms: the median of six `CAIRN_BENCH_ONLY=latency` runs of that tree on
 * 2026-12-08, interleaved with runs of the parts on the same machine (single runs there vary by ±30 %).
 * Target: within 1.5× of these. (Before the start block became a ranked view, 2026-12-02: 30 / 15 ms at
 * 1,000 memories, 21 / 11 ms at 10,000.)
 */
export const BLOCKS_P95_BEFORE: Record<number, { start: number; prompt: number }> = {
	1000: { start: 21, prompt: 9 },
	10000: { start: 24, prompt: 12 },
};
