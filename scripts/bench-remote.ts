// `npm run bench:remote -- --url https://cairn.example.com --key cairn_… [--sets dev,fresh] [--locomo N] [--keep]`
//
// Runs the recall benchmarks against a deployment, where what the local run cannot have exists:
// semantic recall (Workers AI embeddings, fused with lexical recall) and the model selector. Through
// the public API only, with the key's own tenant:
// - LoCoMo (../shared/bench/locomo/locomo-dev.json, or CAIRN_BENCH_DATA): one project per conversation,
//   its observations written through the batch endpoint, embeddings backfilled, every question through
//   `POST /recall` (limit 10) asked the day after the last session; R@5 / R@10 per category.
// - Per-prompt recall (bench/prompts/<set>/): one project per labelled project, every prompt through
//   `POST /inject` as the Claude Code prompt hook sends it (with its 1.4 s `waitMs`); hit and noise rates.
// The answers record which retrieval (hybrid or lexical) and engine (llm, lexical, lexical-fallback) served
// each request, so the figures say what was measured. The projects' memory is cleared afterwards unless --keep.
// A deployment cannot backdate memories, so LoCoMo's temporal questions are asked without their dates
// mattering (the local run stamps them); compare categories other than temporal with the local run.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PromptProject } from "../bench/corpus";
import { percentile } from "../bench/corpus";
import { CATEGORIES, evidenceRecall, loadLocomo, questionTime, summarise } from "./bench/locomo";
import { figures, promptTable } from "./bench/prompts";

const args = new Map<string, string>();
for (let i = 2; i < process.argv.length; i++) {
	const a = process.argv[i] ?? "";
	if (!a.startsWith("--")) continue;
	const next = process.argv[i + 1];
	if (next && !next.startsWith("--")) {
		args.set(a.slice(2), next);
		i++;
	} else args.set(a.slice(2), "true");
}
const url = (args.get("url") ?? process.env.CAIRN_URL ?? "").replace(/\/+$/, "");
const key = args.get("key") ?? process.env.CAIRN_KEY ?? "";
if (!/^https?:\/\//.test(url) || !key) {
	console.error(
		"usage: npm run bench:remote -- --url https://your-deployment --key <API key with read and write> [--sets dev,fresh] [--locomo N] [--keep]",
	);
	process.exit(2);
}
const sets = (args.get("sets") ?? "dev").split(",").filter(Boolean);
const locomoLimit = Number(args.get("locomo") ?? 2);
const keep = args.get("keep") === "true";
const HOOK_WAIT_MS = 1_400;

async function api<T>(method: string, path: string, body?: unknown): Promise<{ status: number; data: T; ms: number }> {
	const t0 = performance.now();
	const res = await fetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
		...(body === undefined ? {} : { body: JSON.stringify(body) }),
	});
	const text = await res.text();
	const ms = performance.now() - t0;
	if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 300)}`);
	return { status: res.status, data: (text ? JSON.parse(text) : {}) as T, ms };
}

const created: string[] = [];
async function project(name: string, memories: { name: string; type: string; description: string; body: string }[]): Promise<string> {
	const { data } = await api<{ project: { id: string } }>("POST", "/v1/projects", {
		name,
		rootPath: `/bench-remote/${name}-${Date.now()}`,
	});
	const id = data.project.id;
	created.push(id);
	await api("PUT", `/v1/projects/${id}/settings`, { "memories.enabled": true });
	for (let i = 0; i < memories.length; i += 100) {
		await api("POST", `/v1/projects/${id}/memories/batch`, { memories: memories.slice(i, i + 100) });
	}
	// Embeddings: written on each write when the model answers in time; the backfill fills the rest.
	for (let round = 0; round < 100; round++) {
		try {
			const { data: b } = await api<{ remaining: number }>("POST", `/v1/projects/${id}/embeddings/backfill`, { limit: 500 });
			if (b.remaining === 0) break;
		} catch (err) {
			console.log(`  embeddings: ${(err as Error).message.slice(0, 160)} (lexical recall only)`);
			break;
		}
	}
	return id;
}

const tally = (counts: Map<string, number>, k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
const show = (counts: Map<string, number>) => [...counts].map(([k, n]) => `${k} ${n}`).join(", ");

try {
	// LoCoMo.
	const dataDir = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench");
	const locomoFile = join(dataDir, "locomo/locomo-dev.json");
	if (locomoLimit > 0 && existsSync(locomoFile)) {
		const locomo = loadLocomo(locomoFile);
		const perQuestion: { category: number; cairn: [number, number]; bm25: [number, number] }[] = [];
		const retrieval = new Map<string, number>();
		const ms: number[] = [];
		for (const conv of locomo.data.slice(0, locomoLimit)) {
			const obs = locomo.observations.filter((o) => o.conv === conv.sample_id);
			const id = await project(
				`locomo-${conv.sample_id}`,
				obs.map((o) => ({ name: o.name, type: "user", description: o.fact.slice(0, 500), body: `${o.fact}\n\nSaid by ${o.speaker}.` })),
			);
			const byName = new Map(obs.map((o) => [o.name, o.diaId]));
			const at = questionTime(conv);
			for (const qa of conv.qa) {
				const r = await api<{ memories: { name: string }[]; retrieval: string }>("POST", `/v1/projects/${id}/recall`, {
					query: qa.question,
					limit: 10,
					...(at ? { at } : {}),
				});
				ms.push(r.ms);
				tally(retrieval, r.data.retrieval);
				const got = r.data.memories.map((m) => byName.get(m.name) ?? "");
				const ev = qa.evidence.map(String);
				perQuestion.push({
					category: qa.category,
					cairn: [evidenceRecall(ev, got.slice(0, 5)), evidenceRecall(ev, got.slice(0, 10))],
					bm25: [0, 0],
				});
			}
		}
		console.log(`\n## LoCoMo through ${url} (${locomoLimit} conversations; retrieval: ${show(retrieval)})\n`);
		console.log("| category | questions | R@5 | R@10 |\n|---|---:|---:|---:|");
		for (const row of summarise(perQuestion))
			console.log(`| ${row.category} | ${row.questions} | ${(row.cairnR5 * 100).toFixed(1)} % | ${(row.cairnR10 * 100).toFixed(1)} % |`);
		console.log(
			`\nrecall round trip p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms (${Object.values(CATEGORIES).length} categories)`,
		);
	}

	// Per-prompt recall.
	for (const set of sets) {
		const dir = resolve("bench/prompts", set);
		if (!existsSync(dir)) continue;
		const rows = [];
		const engines = new Map<string, number>();
		const ms: number[] = [];
		const served: { lang: string; needs: string[]; served: string[] }[] = [];
		for (const file of readdirSync(dir).filter((f) => f.endsWith(".json"))) {
			const p = JSON.parse(readFileSync(join(dir, file), "utf8")) as PromptProject;
			const id = await project(`prompts-${set}-${p.project}`, p.memories);
			for (const [i, prompt] of p.prompts.entries()) {
				const r = await api<{ parts: { memories: { name: string }[] }; recall?: { engine: string; fallbackReason?: string } }>(
					"POST",
					`/v1/projects/${id}/inject`,
					{
						query: prompt.text.slice(0, 8000),
						include: "memories",
						sessionId: `bench-remote-${set}-${i}-${Date.now()}`,
						onlyNew: true,
						maxChars: 9500,
						waitMs: HOOK_WAIT_MS,
					},
				);
				ms.push(r.ms);
				tally(
					engines,
					r.data.recall?.fallbackReason
						? `${r.data.recall.engine} (${r.data.recall.fallbackReason.slice(0, 40)}…)`
						: (r.data.recall?.engine ?? "none"),
				);
				served.push({ lang: prompt.lang, needs: prompt.needs, served: r.data.parts.memories.map((m) => m.name) });
			}
		}
		for (const lang of ["en", "ko"]) {
			const some = served.filter((s) => s.lang === lang);
			if (some.length) rows.push(figures(set, lang, some));
		}
		rows.push(figures(set, "all", served));
		console.log(`\n## Per-prompt recall through ${url}, set ${set} (engines: ${show(engines)})\n`);
		for (const line of promptTable(rows)) console.log(line);
		console.log(
			`\n/inject round trip p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms (the prompt hook waits at most ${HOOK_WAIT_MS} ms)`,
		);
	}
} finally {
	// The projects stay registered (there is no project delete); their memory is cleared.
	if (!keep) for (const id of created) await api("DELETE", `/v1/projects/${id}/memory?confirm=${id}`).catch(() => undefined);
}
