// Single-write latency in projects of different sizes, through the local Worker.
import { api, type LocalWorker, percentile } from "./worker";

/** Writes new memories into already seeded projects, interleaved so machine drift hits all sizes alike. */
export async function benchWrites(
	worker: LocalWorker,
	token: string,
	projects: { size: number; id: string; fillSeconds: number }[],
	samples: number,
) {
	const timings = new Map<number, number[]>(projects.map((p) => [p.size, []]));
	for (let i = 0; i < samples; i++) {
		for (const p of projects) {
			const body = JSON.stringify({ type: "feedback", description: `Measured write ${i}`, body: `Sample ${i} in a project of ${p.size}.` });
			const t0 = performance.now();
			await api(worker, `/v1/projects/${p.id}/memories/measured-${i}`, { method: "PUT", token, body });
			timings.get(p.size)?.push(performance.now() - t0);
		}
	}
	// MEMORY.md after the writes: the first read rebuilds, the second is served from cache.
	const index = [];
	for (const p of projects) {
		const t0 = performance.now();
		await (await api(worker, `/v1/projects/${p.id}/index`, { token })).text();
		const rebuildMs = performance.now() - t0;
		const t1 = performance.now();
		await (await api(worker, `/v1/projects/${p.id}/index`, { token })).text();
		index.push({ size: p.size, rebuildMs, cachedMs: performance.now() - t1 });
	}
	return {
		writes: projects.map((p) => {
			const t = timings.get(p.size) ?? [];
			return {
				size: p.size,
				fillSeconds: p.fillSeconds,
				samples: t.length,
				p50: percentile(t, 50),
				p95: percentile(t, 95),
				p99: percentile(t, 99),
			};
		}),
		index,
	};
}
