// Single-write latency in a small project and a large one, through the local Worker.
import { type LocalWorker, percentile } from "./worker";

const TYPES = ["user", "feedback", "project", "reference"];

/** Writes are idempotent, so a 503 from a restarting local runtime is retried once. */
async function request(worker: LocalWorker, path: string, init: RequestInit & { token: string }, retried = false): Promise<Response> {
	const res = await fetch(`${worker.base}${path}`, {
		...init,
		headers: { Authorization: `Bearer ${init.token}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
	});
	if (res.status === 503 && !retried) return request(worker, path, init, true);
	if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${await res.text()}`);
	return res;
}

async function fill(worker: LocalWorker, token: string, projectId: string, count: number) {
	for (let start = 0; start < count; start += 100) {
		const memories = Array.from({ length: Math.min(100, count - start) }, (_, j) => {
			const i = start + j;
			return {
				name: `seed-${i}`,
				type: TYPES[i % 4],
				description: `Seed memory ${i}: how the ${["api", "web", "worker", "cli"][i % 4]} handles case ${i}`,
				body: `When working on component ${i % 97}, remember rule ${i}: run the integration suite against the real database before merging.`,
			};
		});
		await request(worker, `/v1/projects/${projectId}/memories/batch`, { method: "POST", token, body: JSON.stringify({ memories }) });
	}
}

export async function benchWrites(worker: LocalWorker, sizes: number[], samples: number) {
	const tenant = await (
		await fetch(`${worker.base}/v1/admin/tenants`, {
			method: "POST",
			headers: { Authorization: `Bearer ${worker.adminToken}`, "Content-Type": "application/json" },
			body: JSON.stringify({ name: "bench", user: "bench" }),
		})
	).json();
	const token: string = tenant.key.token;
	const projects: { size: number; id: string; fillSeconds: number }[] = [];
	for (const size of sizes) {
		const res = await request(worker, "/v1/projects", {
			method: "POST",
			token,
			body: JSON.stringify({ name: `p${size}`, gitRemote: `git@bench.local:b/p${size}.git` }),
		});
		const id = (await res.json()).project.id;
		const t0 = performance.now();
		await fill(worker, token, id, size);
		projects.push({ size, id, fillSeconds: (performance.now() - t0) / 1000 });
	}
	const timings = new Map<number, number[]>(sizes.map((s) => [s, []]));
	// Interleave the projects so that drift in the machine affects both alike.
	for (let i = 0; i < samples; i++) {
		for (const p of projects) {
			const body = JSON.stringify({ type: "feedback", description: `Measured write ${i}`, body: `Sample ${i} in a project of ${p.size}.` });
			const t0 = performance.now();
			await request(worker, `/v1/projects/${p.id}/memories/measured-${i}`, { method: "PUT", token, body });
			timings.get(p.size)?.push(performance.now() - t0);
		}
	}
	// MEMORY.md after the writes: the first read rebuilds, the second is served from cache.
	const index = [];
	for (const p of projects) {
		const t0 = performance.now();
		await request(worker, `/v1/projects/${p.id}/index`, { token });
		const rebuild = performance.now() - t0;
		const t1 = performance.now();
		await request(worker, `/v1/projects/${p.id}/index`, { token });
		index.push({ size: p.size, rebuildMs: rebuild, cachedMs: performance.now() - t1 });
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
