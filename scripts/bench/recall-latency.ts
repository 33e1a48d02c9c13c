// Recall and inject latency through the local Worker, and the same FTS5 statement on plain SQLite.
import { candidateSql } from "../../src/recall/lexical";
import { matchExpression, queryTerms } from "../../src/recall/terms";
import { api, type LocalWorker, percentile, type SeedMemory } from "./worker";

export interface LatencyRow {
	size: number;
	recall: { p50: number; p95: number; p99: number };
	inject: { p50: number; p95: number; p99: number };
}

/** A corpus of `size` memories built from real observation sentences (pairs, so documents vary). */
export function corpus(sentences: string[], size: number): SeedMemory[] {
	const types = ["user", "feedback", "project", "reference"];
	return Array.from({ length: size }, (_, i) => {
		const a = sentences[i % sentences.length] ?? "";
		const b = sentences[(i * 7 + 3) % sentences.length] ?? "";
		return { name: `m-${i}`, type: types[i % 4] ?? "user", description: a.slice(0, 500), body: `${a}\n\n${b}` };
	});
}

const stats = (t: number[]) => ({ p50: percentile(t, 50), p95: percentile(t, 95), p99: percentile(t, 99) });

export async function measureRecall(worker: LocalWorker, token: string, projectId: string, queries: string[], rounds: number) {
	const recallTimes: number[] = [];
	const injectTimes: number[] = [];
	// Warm-up, then measured rounds; recall and inject alternate.
	for (const q of queries.slice(0, 20))
		await api(worker, `/v1/projects/${projectId}/recall`, { method: "POST", token, body: JSON.stringify({ query: q }) });
	for (let i = 0; i < rounds; i++) {
		const query = queries[i % queries.length] ?? "";
		let t0 = performance.now();
		await api(worker, `/v1/projects/${projectId}/recall`, { method: "POST", token, body: JSON.stringify({ query }) });
		recallTimes.push(performance.now() - t0);
		t0 = performance.now();
		await (await api(worker, `/v1/projects/${projectId}/inject`, { method: "POST", token, body: JSON.stringify({ query }) })).arrayBuffer();
		injectTimes.push(performance.now() - t0);
	}
	return { recall: stats(recallTimes), inject: stats(injectTimes) };
}

/** The floor task for sqlite-floor.mjs: Cairn's statement, its rows, and the MATCH expressions of the queries. */
export function floorTask(projects: { key: string; memories: SeedMemory[] }[], queries: string[], rounds: number) {
	let id = 0;
	const rows = projects.flatMap((p) =>
		p.memories.map((m) => ({
			id: ++id,
			project: p.key,
			name: m.name,
			type: m.type,
			description: m.description,
			body: m.body,
			updatedAt: new Date().toISOString(),
		})),
	);
	const matches = queries
		.map((q) => queryTerms(q))
		.filter((t) => t.length > 0)
		.map(matchExpression);
	const perProject = Array.from({ length: rounds }, (_, i) => matches[i % matches.length] ?? "");
	return { sql: candidateSql(["personal", "team"]), rows, queries: Object.fromEntries(projects.map((p) => [p.key, perProject])) };
}
