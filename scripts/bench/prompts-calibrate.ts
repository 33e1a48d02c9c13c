// Calibration of the per-prompt relevance decision (src/recall/relevance.ts) on a benchmark run's traces:
// for each prompt, every candidate's evidence and coverage as recall computed them; the decision is
// replayed over a grid of thresholds and each setting's hit and noise rates printed, best first, with
// the noise limit the issue sets. Run after `CAIRN_BENCH_ONLY=prompts npm run bench`:
//   npx tsx scripts/bench/prompts-calibrate.ts [.bench/worker-result-partial.json] [set]
import { readFileSync } from "node:fs";
import type { BenchResult } from "../../bench/corpus";
import { idf } from "../../src/recall/relevance";

const file = process.argv[2] ?? ".bench/worker-result-partial.json";
const only = process.argv[3] ?? "dev";
const result = JSON.parse(readFileSync(file, "utf8")) as BenchResult;
const sets = (result.prompts ?? []).filter((r) => r.set === only);
const NOISE_LIMIT = 0.05;

interface Setting {
	evidence: number;
	coverage: number;
	relative: number;
}

function replay(s: Setting, lang?: string) {
	let needing = 0;
	let hits = 0;
	let none = 0;
	let noisy = 0;
	for (const set of sets) {
		const rare = idf(set.memories, 0);
		for (const p of set.prompts) {
			if (lang && p.lang !== lang) continue;
			const kept = (p.candidates ?? [])
				.filter((c) => c.evidence >= s.evidence * rare && c.coverage >= s.coverage)
				.sort((a, b) => b.evidence - a.evidence);
			const best = kept[0]?.evidence ?? 0;
			const served = kept.filter((c) => c.evidence >= s.relative * best).slice(0, 3).map((c) => c.name);
			if (p.needs.length > 0) {
				needing++;
				if (served.some((n) => p.needs.includes(n))) hits++;
			} else {
				none++;
				if (served.length > 0) noisy++;
			}
		}
	}
	return { hit: hits / Math.max(1, needing), noise: noisy / Math.max(1, none) };
}

const rows: (Setting & { hit: number; noise: number; en: string; ko: string })[] = [];
for (const evidence of [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1.0])
	for (const coverage of [0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5])
		for (const relative of [0.3, 0.5, 0.7]) {
			const s = { evidence, coverage, relative };
			const all = replay(s);
			const en = replay(s, "en");
			const ko = replay(s, "ko");
			rows.push({ ...s, ...all, en: `${(en.hit * 100).toFixed(1)}/${(en.noise * 100).toFixed(1)}`, ko: `${(ko.hit * 100).toFixed(1)}/${(ko.noise * 100).toFixed(1)}` });
		}
rows.sort((a, b) => Number(b.noise <= NOISE_LIMIT) - Number(a.noise <= NOISE_LIMIT) || b.hit - a.hit || a.noise - b.noise);
console.log("evidence×rare coverage relative | hit noise | en hit/noise | ko hit/noise");
for (const r of rows.slice(0, 25))
	console.log(`${r.evidence} ${r.coverage} ${r.relative} | ${(r.hit * 100).toFixed(1)} ${(r.noise * 100).toFixed(1)} | ${r.en} | ${r.ko}`);
// The ceiling: a needed memory among the candidates at all.
let reachable = 0;
let needing = 0;
for (const set of sets)
	for (const p of set.prompts)
		if (p.needs.length > 0) {
			needing++;
			if ((p.candidates ?? []).some((c) => p.needs.includes(c.name))) reachable++;
		}
console.log(`needed memory among the candidates: ${reachable}/${needing}`);
