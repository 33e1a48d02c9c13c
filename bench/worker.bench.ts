// Runs inside workerd (the Workers Vitest integration) against real local D1 and R2, calling the
// Worker's own fetch entry point: routing, auth, D1 and R2 included, no dev-server proxy or HTTP hop.
// Started by `npm run bench` (scripts/bench.ts), which passes the input and reads the result line.
import { env, exports } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { it } from "vitest";
import { touchedMemories } from "../src/consolidate/inputs";
import { consolidateProject } from "../src/consolidate/run";
import { processRange } from "../src/pipeline/consumer";
import { type BenchInput, type BenchResult, corpus, type SeedMemory, stats } from "./corpus";

const input = JSON.parse((env as unknown as { BENCH_INPUT: string }).BENCH_INPUT) as BenchInput;

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
	const headers = new Headers(init.headers);
	if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
	if (init.body) headers.set("Content-Type", "application/json");
	const res = await exports.default.fetch(new Request(`https://bench.local${path}`, { ...init, headers }));
	if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${await res.text()}`);
	return res;
}

async function seed(token: string, name: string, memories: SeedMemory[]) {
	const res = await call("/v1/projects", { method: "POST", token, body: JSON.stringify({ name, rootPath: `/bench/${name}` }) });
	const id = ((await res.json()) as { project: { id: string } }).project.id;
	await call(`/v1/projects/${id}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	const t0 = performance.now();
	for (let i = 0; i < memories.length; i += 100) {
		const r = await call(`/v1/projects/${id}/memories/batch`, {
			method: "POST",
			token,
			body: JSON.stringify({ memories: memories.slice(i, i + 100) }),
		});
		const { results } = (await r.json()) as { results: { status: string }[] };
		if (results.some((x) => x.status === "error")) throw new Error(`seeding ${name} failed`);
	}
	return { id, fillSeconds: (performance.now() - t0) / 1000 };
}

async function timed(f: () => Promise<Response>): Promise<number> {
	const t0 = performance.now();
	await (await f()).arrayBuffer();
	return performance.now() - t0;
}

it("benchmarks the Worker", { timeout: 3_600_000 }, async () => {
	const tenant = await call("/v1/admin/tenants", {
		method: "POST",
		token: env.CAIRN_ADMIN_TOKEN,
		body: JSON.stringify({ name: "bench", user: "bench" }),
	});
	const created = (await tenant.json()) as { key: { token: string }; user: { id: string }; tenant: { id: string } };
	const token = created.key.token;
	const result: BenchResult = {
		locomo: {},
		latency: [],
		writes: [],
		index: [],
		health: stats([]),
		ingest: [],
		stageOne: [],
		consolidation: [],
	};

	// Transport floor of this harness: the cheapest route.
	const health: number[] = [];
	for (let i = 0; i < input.samples; i++) health.push(await timed(() => call("/health")));
	result.health = stats(health);

	// Recall quality: one project per LoCoMo conversation, every question through /recall.
	for (const conv of input.locomo) {
		const { id } = await seed(token, `locomo-${conv.id}`, conv.memories);
		const answers: string[][] = [];
		for (const question of conv.questions) {
			const r = await call(`/v1/projects/${id}/recall`, { method: "POST", token, body: JSON.stringify({ query: question, limit: 10 }) });
			answers.push(((await r.json()) as { memories: { name: string }[] }).memories.map((m) => m.name));
		}
		result.locomo[conv.id] = answers;
	}

	// Recall and inject latency at each size.
	const projects: { size: number; id: string }[] = [];
	for (const size of input.sizes) {
		const { id, fillSeconds } = await seed(token, `latency-${size}`, corpus(input.sentences, size));
		projects.push({ size, id });
		for (const q of input.queries.slice(0, 20))
			await call(`/v1/projects/${id}/recall`, { method: "POST", token, body: JSON.stringify({ query: q }) });
		const recall: number[] = [];
		const inject: number[] = [];
		for (let i = 0; i < input.samples; i++) {
			const body = JSON.stringify({ query: input.queries[i % input.queries.length] });
			recall.push(await timed(() => call(`/v1/projects/${id}/recall`, { method: "POST", token, body })));
			inject.push(await timed(() => call(`/v1/projects/${id}/inject`, { method: "POST", token, body })));
		}
		result.latency.push({ size, fillSeconds, recall: stats(recall), inject: stats(inject) });
	}

	// Single writes in a tiny project and in the largest one, interleaved.
	const tiny = await seed(token, "writes-10", corpus(input.sentences, 10));
	const writeTargets = [{ size: 10, id: tiny.id }, ...projects.slice(-1)];
	const writes = new Map<number, number[]>(writeTargets.map((p) => [p.size, []]));
	for (let i = 0; i < input.samples; i++) {
		for (const p of writeTargets) {
			const body = JSON.stringify({ type: "feedback", description: `Measured write ${i}`, body: `Sample ${i} in a project of ${p.size}.` });
			writes.get(p.size)?.push(await timed(() => call(`/v1/projects/${p.id}/memories/measured-${i}`, { method: "PUT", token, body })));
		}
	}
	result.writes = writeTargets.map((p) => ({ size: p.size, write: stats(writes.get(p.size) ?? []) }));

	// MEMORY.md right after writes (lazy rebuild), then cached.
	for (const p of writeTargets) {
		const rebuildMs = await timed(() => call(`/v1/projects/${p.id}/index`, { token }));
		const cachedMs = await timed(() => call(`/v1/projects/${p.id}/index`, { token }));
		result.index.push({ size: p.size, rebuildMs, cachedMs });
	}

	await benchPipeline(token, result);
	const hundred = await seed(token, "consolidation-100", corpus(input.sentences, 100));
	await benchConsolidation([{ size: 100, id: hundred.id }, ...projects], created.user.id, created.tenant.id, result);

	console.log(`CAIRN_BENCH_RESULT ${JSON.stringify(result)}`);
});

/** A model that answers at once with a valid stage-1 output: what remains is Cairn's own cost. */
const zeroLatencyModel = () =>
	new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [
				{
					type: "text",
					text: JSON.stringify({
						raw_memory: "- The project uses pnpm.",
						summary: "Benchmark range.",
						candidates: [{ name: "pnpm", type: "feedback", description: "Use pnpm", body: "Use pnpm, never npm.", evidence: ["t0"] }],
					}),
				},
			],
			finishReason: { unified: "stop", raw: "stop" },
			usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
			warnings: [],
		}),
	});

/**
 * Ingest: each real session file posted whole to a new session (parse, normalise, redact, R2 chunk,
 * D1 batch), then posted again (all duplicates). Stage 1: each session as one range, through the
 * consumer's code path with a zero-latency scripted model and with the offline extractor.
 */
async function benchPipeline(token: string, result: BenchResult) {
	if (input.transcripts.length === 0) return;
	const res = await call("/v1/projects", {
		method: "POST",
		token,
		body: JSON.stringify({ name: "pipeline", rootPath: "/bench/pipeline" }),
	});
	const projectId = ((await res.json()) as { project: { id: string } }).project.id;
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	const rounds = Math.max(3, Math.min(20, Math.floor(input.samples / 10)));
	for (const t of input.transcripts) {
		const post: number[] = [];
		const repost: number[] = [];
		let turns = 0;
		const sessions: string[] = [];
		for (let i = 0; i < rounds; i++) {
			const session = `${t.name.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 80)}-${i}`;
			sessions.push(session);
			const send = () =>
				call(`/v1/projects/${projectId}/sessions/${session}/transcript`, {
					method: "POST",
					token,
					body: t.text,
					headers: { "Content-Type": "application/x-ndjson" },
				});
			const t0 = performance.now();
			const r = await send();
			post.push(performance.now() - t0);
			turns = ((await r.json()) as { turns: number }).turns;
			repost.push(await timed(send));
		}
		result.ingest.push({ name: t.name, bytes: t.text.length, turns, post: stats(post), repost: stats(repost) });

		const model: number[] = [];
		const offline: number[] = [];
		for (const [i, session] of sessions.entries()) {
			const message = { projectId, sessionId: session, fromSeq: 0, toSeq: turns - 1 };
			const t0 = performance.now();
			const outcome = await processRange(env, message, { model: i % 2 === 0 ? zeroLatencyModel() : null });
			(i % 2 === 0 ? model : offline).push(performance.now() - t0);
			if (outcome !== "extracted") throw new Error(`stage 1 on ${session}: ${outcome}`);
		}
		result.stageOne.push({ name: t.name, turns, model: stats(model), offline: stats(offline) });
	}
}

/** A consolidation model that answers at once: one memory updated per run. */
const zeroLatencyConsolidation = () => {
	let n = 0;
	return new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [
				{
					type: "text",
					text: JSON.stringify({
						operations: [
							{
								op: "update",
								name: "bench-session-notes",
								type: "project",
								description: "What the latest benchmark session established",
								body: `Session fold ${++n}.`,
								reason: "new session",
								evidence: [],
							},
						],
						skills: [],
						summary: `# Memory summary\n\nRun ${n}.`,
					}),
				},
			],
			finishReason: { unified: "stop", raw: "stop" },
			usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
			warnings: [],
		}),
	});
};

/**
 * Consolidation cost as the project grows: one new session (three candidates phrased like the corpus)
 * folded into projects of 100, 1,000 and the largest size, through the same run the coordinator makes
 * (touched-memory search, plan, writes, summary, audit), with a zero-latency model and offline.
 */
async function benchConsolidation(targets: { size: number; id: string }[], userId: string, tenantId: string, result: BenchResult) {
	const rounds = Math.max(5, Math.min(30, Math.floor(input.samples / 10)));
	for (const target of targets) {
		const model: number[] = [];
		const offline: number[] = [];
		let touched = 0;
		for (let i = 0; i < rounds * 2; i++) {
			const sentences = [0, 1, 2].map((k) => input.sentences[(i * 31 + k * 7 + target.size) % input.sentences.length] ?? "A fact.");
			const candidates = sentences.map((s, k) => ({
				name: `fold-${i}-${k}`,
				type: "project",
				description: s.slice(0, 200),
				body: s,
				evidence: ["t0"],
				userStated: true,
			}));
			const now = new Date().toISOString();
			await env.DB.prepare(
				`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
				 VALUES (?, ?, 0, 0, ?, 'bench', '', 'A benchmark session.', ?, ?)`,
			)
				.bind(target.id, `fold-${i}`, userId, JSON.stringify(candidates), now)
				.run();
			if (i === 0) {
				touched = (await touchedMemories(env.DB, { tenantId, userId, projectId: target.id }, candidates as never)).length;
			}
			const t0 = performance.now();
			const outcome = await consolidateProject(env, target.id, `bench-${i}`, { model: i % 2 === 0 ? zeroLatencyConsolidation() : null });
			(i % 2 === 0 ? model : offline).push(performance.now() - t0);
			if (outcome.outputs !== 1) throw new Error(`consolidation folded ${outcome.outputs} outputs`);
		}
		result.consolidation.push({ size: target.size, model: stats(model), offline: stats(offline), touched });
	}
}
