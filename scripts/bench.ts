// `npm run bench`: measures, prints, and rewrites docs/benchmarks.md with the numbers of this run.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import { CATEGORIES, evidenceRecall, loadLocomo, runCairnRecall, summarise } from "./bench/locomo";
import { corpus, floorTask, measureRecall } from "./bench/recall-latency";
import { benchSecrets } from "./bench/secrets";
import { createTenant, seedProject, startWorker } from "./bench/worker";
import { benchWrites } from "./bench/writes";

const BENCH_DATA = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench");
const LARGE = Number(process.env.CAIRN_BENCH_LARGE ?? 10_000);
const SAMPLES = Number(process.env.CAIRN_BENCH_SAMPLES ?? 200);
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const lines: string[] = [];
const out = (s = "") => {
	lines.push(s);
	console.log(s);
};

/** better-sqlite3 is a native module built for the Node.js that ran `npm install`: run the floor there. */
function runSqlite(task: object): {
	floor?: Record<string, { p50: number; p95: number; p99: number }>;
	baseline?: Record<string, number[][]>;
} {
	const dir = mkdtempSync(join(tmpdir(), "cairn-floor-"));
	const file = join(dir, "task.json");
	writeFileSync(file, JSON.stringify(task));
	const node = process.env.npm_node_execpath || process.execPath;
	const child = spawnSync(node, [resolve("scripts/bench/sqlite-floor.mjs"), file], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 });
	if (child.status !== 0) throw new Error(`sqlite floor failed: ${child.stderr}`);
	return JSON.parse(child.stdout);
}

const locomoFile = `${BENCH_DATA}/locomo/locomo-dev.json`;
const locomo = existsSync(locomoFile) ? loadLocomo(locomoFile) : null;
const sentences = locomo
	? locomo.observations.map((o) => o.fact)
	: ["Integration tests use the real database.", "Deploys freeze on Fridays."];
const queries = locomo ? locomo.data.flatMap((c) => c.qa.map((q) => q.question)) : ["database tests", "deploy friday"];

const worker = await startWorker(8790 + Math.floor(Math.random() * 100));
let quality: ReturnType<typeof summarise> | null = null;
let writes: Awaited<ReturnType<typeof benchWrites>>;
const latency: { size: number; fill: number; worker: Awaited<ReturnType<typeof measureRecall>> }[] = [];
let floor: Record<string, { p50: number; p95: number; p99: number }> = {};
try {
	const token = await createTenant(worker);
	if (locomo) {
		console.log("LoCoMo: seeding and asking every question…");
		const answers = await runCairnRecall(worker, token, locomo.data, locomo.observations);
		const baseline =
			runSqlite({
				baseline: {
					k: 10,
					conversations: locomo.data.map((c) => ({
						id: c.sample_id,
						docs: locomo.observations.filter((o) => o.conv === c.sample_id).map((o) => o.fact),
						questions: c.qa.map((q) => q.question),
					})),
				},
			}).baseline ?? {};
		let i = 0;
		const perQuestion = locomo.data.flatMap((c) => {
			const obs = locomo.observations.filter((o) => o.conv === c.sample_id);
			return c.qa.map((qa, j) => {
				const a = answers[i++];
				const base = (baseline[c.sample_id]?.[j] ?? []).map((k) => obs[k]?.diaId ?? "");
				const ev = qa.evidence.map(String);
				return {
					category: qa.category,
					cairn: [evidenceRecall(ev, a?.retrieved.slice(0, 5) ?? []), evidenceRecall(ev, a?.retrieved.slice(0, 10) ?? [])] as [
						number,
						number,
					],
					bm25: [evidenceRecall(ev, base.slice(0, 5)), evidenceRecall(ev, base.slice(0, 10))] as [number, number],
				};
			});
		});
		quality = summarise(perQuestion);
	}
	console.log("Latency: seeding projects…");
	const sizes = [1_000, LARGE];
	const seeded = [];
	for (const size of sizes) {
		const memories = corpus(sentences, size);
		const { id, fillSeconds } = await seedProject(worker, token, `latency-${size}`, memories);
		seeded.push({ size, id, memories, fillSeconds });
	}
	for (const s of seeded)
		latency.push({ size: s.size, fill: s.fillSeconds, worker: await measureRecall(worker, token, s.id, queries, SAMPLES) });
	floor =
		runSqlite({
			floor: floorTask(
				seeded.map((s) => ({ key: String(s.size), memories: s.memories })),
				queries,
				SAMPLES,
			),
		}).floor ?? {};
	console.log("Writes…");
	const tiny = corpus(sentences, 10);
	const small = { size: 10, ...(await seedProject(worker, token, "writes-10", tiny)) };
	const largest = seeded.at(-1);
	writes = await benchWrites(
		worker,
		token,
		largest ? [small, { size: largest.size, id: largest.id, fillSeconds: largest.fillSeconds }] : [small],
		SAMPLES,
	);
} finally {
	worker.stop();
}
const secretFiles = ["gitleaks_tps_fps.jsonl", "secretlint_cases.jsonl"].map((f) => `${BENCH_DATA}/secrets/${f}`).filter(existsSync);
const secrets = secretFiles.length > 0 ? await benchSecrets(secretFiles) : null;

out("# Benchmarks");
out();
out(
	`Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
);
out("Every number below comes from one run of the command; rerun it to refresh this file. The Worker runs under");
out("`wrangler dev --local` (workerd with local D1 and R2), called over HTTP on loopback.");
out();
out("## Recall quality — LoCoMo");
out();
if (quality) {
	out("Each LoCoMo observation is one memory (linked to its dia_id); every QA question goes through `POST /recall`");
	out("(limit 10). Metric: LoCoMo's recall — the share of a question's evidence dia_ids among the top k. The plain");
	out("BM25 baseline is computed in the same run (one FTS5 column, porter stemming, every question token, default");
	out("`bm25()`). Published row: LoCoMo paper Table 3, DRAGON retriever over observations (50-conversation release).");
	out();
	out("| category | questions | Cairn R@5 | Cairn R@10 | plain BM25 R@5 | plain BM25 R@10 | published R@5 | published R@10 |");
	out("|---|---:|---:|---:|---:|---:|---:|---:|");
	const published: Record<string, [number, number]> = {
		"single-hop": [52.9, 57.4],
		"multi-hop": [40.1, 53.1],
		temporal: [81.1, 83.8],
		"open-domain": [38.5, 46.2],
		"overall (1-4)": [49.6, 57.1],
		"adversarial (5)": [29.8, 41.5],
	};
	for (const r of quality) {
		const p = published[r.category];
		out(
			`| ${r.category} | ${r.questions} | ${pct(r.cairnR5)} | ${pct(r.cairnR10)} | ${pct(r.bm25R5)} | ${pct(r.bm25R10)} | ${p ? `${p[0]} %` : ""} | ${p ? `${p[1]} %` : ""} |`,
		);
	}
	out();
	out(
		`Categories: ${Object.entries(CATEGORIES)
			.map(([k, v]) => `${k} ${v}`)
			.join(", ")}. The published overall excludes adversarial questions, as here.`,
	);
} else out(`LoCoMo data not found under ${BENCH_DATA}/locomo; set CAIRN_BENCH_DATA.`);
out();
out("## Recall and inject latency");
out();
out(`${SAMPLES} LoCoMo questions per project size, against memories built from LoCoMo observation sentences. The floor runs`);
out("the same FTS5 statement (`candidateSql` in `src/recall/lexical.ts`, same MATCH expressions) on the same rows in");
out("better-sqlite3, in process — no HTTP, no Worker, no D1. Target: Worker recall p50 ≤ 3 × floor p50 + 5 ms.");
out();
out(
	"| memories | recall p50 | p95 | p99 | inject p50 | p95 | p99 | SQLite floor p50 | p95 | p99 | recall p50 / floor p50 | 3 × floor + 5 ms |",
);
out("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const l of latency) {
	const f = floor[String(l.size)] ?? { p50: Number.NaN, p95: Number.NaN, p99: Number.NaN };
	out(
		`| ${l.size.toLocaleString("en")} | ${ms(l.worker.recall.p50)} | ${ms(l.worker.recall.p95)} | ${ms(l.worker.recall.p99)} | ${ms(l.worker.inject.p50)} | ${ms(l.worker.inject.p95)} | ${ms(l.worker.inject.p99)} | ${ms(f.p50)} | ${ms(f.p95)} | ${ms(f.p99)} | ${(l.worker.recall.p50 / f.p50).toFixed(1)}× | ${ms(3 * f.p50 + 5)} ${l.worker.recall.p50 <= 3 * f.p50 + 5 ? "✓" : "✗"} |`,
	);
}
out();
out("## Single-write latency");
out();
out(`\`PUT /v1/projects/:id/memories/:name\` (JSON body, a new memory each time), ${SAMPLES} writes per project, interleaved`);
out("between the projects. Projects are pre-filled through the batch endpoint.");
out();
out("| memories in project | p50 | p95 | p99 | fill time |");
out("|---:|---:|---:|---:|---:|");
for (const w of writes.writes)
	out(`| ${w.size.toLocaleString("en")} | ${ms(w.p50)} | ${ms(w.p95)} | ${ms(w.p99)} | ${w.fillSeconds.toFixed(1)} s |`);
const [small, large] = writes.writes;
if (small && large) out(`\nRatio of p50 (large / small): **${(large.p50 / small.p50).toFixed(2)}×** (target: within 2×).`);
out();
out("## MEMORY.md");
out();
out("The first read after writes rebuilds it lazily (bounded: ≤ 200 rows per type); the next read is served from the cached copy.");
out();
out("| memories in project | rebuild read | cached read |");
out("|---:|---:|---:|");
for (const i of writes.index) out(`| ${i.size.toLocaleString("en")} | ${ms(i.rebuildMs)} | ${ms(i.cachedMs)} |`);
out();
out("## Secret detector");
out();
if (secrets) {
	out("Recall on labelled secrets and false-positive rate on labelled non-secrets, Cairn's detector beside secretlint's");
	out('recommended preset alone, in the same run. "Consistent" drops samples whose exact text carries both labels in the file');
	out("(they come from rule options such as allow-lists); no detector can score on both.");
	out();
	out("| file | detector | recall | false positives | ms / sample |");
	out("|---|---|---:|---:|---:|");
	for (const r of secrets.rows) {
		out(
			`| ${r.file} (${r.cairn.secrets} secret / ${r.cairn.nonSecrets} not) | Cairn | ${pct(r.cairn.recall)} | ${pct(r.cairn.falsePositiveRate)} | ${r.cairn.msPerSample.toFixed(2)} |`,
		);
		out(
			`| ${r.file}, consistent (${r.contradictory} contradictory removed) | Cairn | ${pct(r.cairnConsistent.recall)} | ${pct(r.cairnConsistent.falsePositiveRate)} | |`,
		);
		out(
			`| ${r.file} | secretlint preset only | ${pct(r.preset.recall)} | ${pct(r.preset.falsePositiveRate)} | ${r.preset.msPerSample.toFixed(2)} |`,
		);
	}
	out();
	out(`Scanning 1 MB of ordinary text: ${ms(secrets.oneMbMs)}.`);
} else out(`Labelled samples not found under ${BENCH_DATA}/secrets; set CAIRN_BENCH_DATA.`);
writeFileSync("docs/benchmarks.md", `${lines.join("\n")}\n`);
console.log("\nwrote docs/benchmarks.md");
