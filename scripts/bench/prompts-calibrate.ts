// Calibration of the per-prompt relevance decision (src/recall/relevance.ts) on a benchmark run's traces.
// The run recorded, per prompt, its words' and concepts' weights in the project and its candidates; here
// the decision itself (`viewOf`, `judge`, `decide`) is replayed on those candidates, read from the
// labelled files, over a grid of its constants, and the best hit rate at each noise level is printed.
// Run after `CAIRN_BENCH_ONLY=prompts npm run bench`:
//   npx tsx scripts/bench/prompts-calibrate.ts [.bench/worker-result-partial.json] [set]
import { readFileSync } from "node:fs";
import type { BenchResult, PromptProject } from "../../bench/corpus";
import type { MemoryRow } from "../../src/memory/rows";
import type { ScoredMemory } from "../../src/recall/ranking";
import { decide, judge, type MemoryView, type PromptWeights, RELEVANCE, type RelevanceParams, viewOf } from "../../src/recall/relevance";
import { deriveCues } from "../../src/text/concepts";

const file = process.argv[2] ?? ".bench/worker-result-partial.json";
const only = process.argv[3] ?? "dev";
const result = JSON.parse(readFileSync(file, "utf8")) as BenchResult;
const projects = (result.prompts ?? []).filter((r) => r.set === only);

/** Per prompt: its labels, its weights, and each candidate's view (computed once). */
const cases = projects.flatMap((r) => {
	const data = JSON.parse(readFileSync(`bench/prompts/${only}/${r.project}.json`, "utf8")) as PromptProject;
	const memories = new Map(data.memories.map((m) => [m.name, m]));
	return r.prompts.flatMap((p) => {
		if (!p.weights) return [];
		const weights: PromptWeights = {
			words: new Map(Object.entries(p.weights.words)),
			concepts: p.weights.concepts,
			total: p.weights.total,
			rare: p.weights.rare,
		};
		const views = (p.candidates ?? []).flatMap((c) => {
			const m = memories.get(c.name);
			if (!m) return [];
			const row = { name: m.name, type: m.type, description: m.description, cues: JSON.stringify(deriveCues(m)) } as unknown as MemoryRow;
			const scored = { row, body: m.body, score: c.score } as unknown as ScoredMemory;
			return [{ name: c.name, score: c.score, view: viewOf(scored, weights) as MemoryView }];
		});
		return [{ lang: p.lang, needs: p.needs, weights, views }];
	});
});

function replay(params: RelevanceParams, lang?: string) {
	let needing = 0;
	let hits = 0;
	let none = 0;
	let noisy = 0;
	let served = 0;
	for (const c of cases) {
		if (lang && c.lang !== lang) continue;
		const judged = c.views.map((v) => ({ item: v.name, r: judge(v.view, c.weights, params), semantic: false, score: v.score }));
		const { kept } = decide(judged, 3, params);
		served += kept.length;
		if (c.needs.length > 0) {
			needing++;
			if (kept.some((n) => c.needs.includes(n))) hits++;
		} else {
			none++;
			if (kept.length > 0) noisy++;
		}
	}
	return { hit: hits / Math.max(1, needing), noise: noisy / Math.max(1, none), perBlock: served / Math.max(1, needing + none) };
}

const pct = (x: number) => (x * 100).toFixed(1);
const describe = (p: RelevanceParams) =>
	`project ${p.typeFactor.project} reference ${p.typeFactor.reference} body ${p.bodyShare} concept ${p.conceptWeight} evidence ${p.minEvidence} coverage ${p.minCoverage} of ${p.informativeWords} words, head ${p.headWords}, relative ${p.relativeFloor}`;
const rows: { params: RelevanceParams; hit: number; noise: number; perBlock: number }[] = [];
for (const project of [0.4, 0.6, 1.0])
	for (const reference of [0.8, 1.0])
		for (const bodyShare of [0.6, 1.0])
			for (const conceptWeight of [0.8, 1.0])
				for (const minEvidence of [0.3, 0.5, 0.7])
					for (const minCoverage of [0.2, 0.3, 0.4, 0.5, 0.6])
						for (const informativeWords of [6, 8, 1_000])
							for (const headWords of [2, 3, 4, 1_000]) {
								const params = {
									...RELEVANCE,
									typeFactor: { ...RELEVANCE.typeFactor, project, reference },
									bodyShare,
									conceptWeight,
									minEvidence,
									minCoverage,
									informativeWords,
									headWords,
								};
								rows.push({ params, ...replay(params) });
							}
const current = replay(RELEVANCE);
console.log(
	`as configured (${describe(RELEVANCE)}): hit ${pct(current.hit)} %, noise ${pct(current.noise)} %, ${current.perBlock.toFixed(2)} per block`,
);
for (const lang of ["en", "ko"]) {
	const r = replay(RELEVANCE, lang);
	console.log(`  ${lang}: hit ${pct(r.hit)} %, noise ${pct(r.noise)} %`);
}
console.log("best hit rate at each noise level:");
for (const limit of [0.05, 0.1, 0.15, 0.2, 0.3, 0.4]) {
	const best = rows.filter((r) => r.noise <= limit).sort((a, b) => b.hit - a.hit || a.noise - b.noise)[0];
	if (best) console.log(`  noise ≤ ${pct(limit)} %: hit ${pct(best.hit)} %, noise ${pct(best.noise)} % (${describe(best.params)})`);
}
const reachable = cases.filter((c) => c.needs.length > 0 && c.views.some((v) => c.needs.includes(v.name))).length;
console.log(`a needed memory among the candidates: ${reachable}/${cases.filter((c) => c.needs.length > 0).length}`);
