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
