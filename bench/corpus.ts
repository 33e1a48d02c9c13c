/** Benchmark inputs shared by the Node orchestrator and the in-Worker benchmark. Pure functions only. */

export interface SeedMemory {
	name: string;
	type: string;
	description: string;
	body: string;
}

export interface BenchInput {
	samples: number;
	sizes: number[];
	sentences: string[];
	queries: string[];
	locomo: { id: string; memories: SeedMemory[]; questions: string[] }[];
	/** Real session files (Claude Code, Codex) for ingest and stage-1 measurements. */
	transcripts: { name: string; text: string }[];
}

/** `size` memories built from real sentences, paired so that documents vary. Deterministic. */
export function corpus(sentences: string[], size: number): SeedMemory[] {
	const types = ["user", "feedback", "project", "reference"];
	return Array.from({ length: size }, (_, i) => {
		const a = sentences[i % sentences.length] ?? "";
		const b = sentences[(i * 7 + 3) % sentences.length] ?? "";
		return { name: `m-${i}`, type: types[i % 4] ?? "user", description: a.slice(0, 500), body: `${a}\n\n${b}` };
	});
}

export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

export const stats = (t: number[]) => ({ p50: percentile(t, 50), p95: percentile(t, 95), p99: percentile(t, 99), samples: t.length });
export type Stats = ReturnType<typeof stats>;

export interface BenchResult {
	locomo: Record<string, string[][]>;
	latency: { size: number; fillSeconds: number; recall: Stats; inject: Stats }[];
	writes: { size: number; write: Stats }[];
	index: { size: number; rebuildMs: number; cachedMs: number }[];
	health: Stats;
	ingest: { name: string; bytes: number; turns: number; post: Stats; repost: Stats }[];
	stageOne: { name: string; turns: number; model: Stats; offline: Stats }[];
	consolidation: { size: number; model: Stats; offline: Stats; touched: number }[];
}
