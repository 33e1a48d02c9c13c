// `npm run bench`: measures, prints, and rewrites docs/benchmarks.md with the numbers of this run.
// The Worker is measured inside workerd (bench/worker.bench.ts); SQLite floors run in a child Node process.
// Knobs: CAIRN_BENCH_POISON_SETS (the poisoning sets to run: dev, holdout, fresh, blind), CAIRN_BENCH_UPDATE_SETS (the update sets to run, e.g. en-dev,ko-dev), CAIRN_BENCH_LARGE (largest project, 10,000), CAIRN_BENCH_SAMPLES (200), CAIRN_BENCH_NEIGHBOURS
// (other projects of the largest size present at each tenancy step, "10,100"), CAIRN_BENCH_DATA,
// CAIRN_BENCH_REUSE=1 (reuse the last Worker result), CAIRN_BENCH_ONLY (development: some phases of the
// Worker run only — quality, latency, cjk, vectors, writes, pipeline, consolidation, tenancy, longmemeval, poisoning, review-load — printed, doc untouched).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join, resolve } from "node:path";
import { type BenchInput, type BenchResult, corpus, percentile } from "../bench/corpus";
import { durableKeysOf, parseSessions, precision, scoreEndToEnd, score as scoreExtraction, toTurns } from "../bench/extraction-eval";
import { type LabelledTurn, type Score, scoreOffline } from "../src/extract/evaluate";
import { extractOffline } from "../src/extract/offline";
import { normalise, readRecords } from "../src/ingest/parse";
import { candidateSql } from "../src/memory/lexical";
import { PROJECT_MIGRATIONS } from "../src/storage/schema";
import { matchExpression, queryTerms } from "../src/text/terms";
import {
	BATCH_BEFORE,
	BEFORE,
	BLOCKS_P95_BEFORE,
	FRONT_BEFORE,
	PROMPTS_BEFORE,
	RECALL_P95_BEFORE_PROMPTS,
	WRITES_LOCAL,
} from "./bench/before";
import { CATEGORIES, evidenceRecall, loadLocomo, questionTime, summarise, toMemory } from "./bench/locomo";
import { loadLongMemEval, longMemEvalBaseline, longMemEvalInput, longMemEvalSection, summariseLongMemEval } from "./bench/longmemeval";
import { loadPoisoning, poisoningSection } from "./bench/poisoning";
import { frontFigures, frontTable, promptFigures, promptTable } from "./bench/prompts";
import { reviewLoadSection } from "./bench/review-load";
import { benchSecrets } from "./bench/secrets";

const BENCH_DATA = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench");
const LARGE = Number(process.env.CAIRN_BENCH_LARGE ?? 10_000);
const SAMPLES = Number(process.env.CAIRN_BENCH_SAMPLES ?? 200);
const NEIGHBOURS = (process.env.CAIRN_BENCH_NEIGHBOURS ?? "10,100").split(",").map(Number);
const ONLY = process.env.CAIRN_BENCH_ONLY?.split(",").map((s) => s.trim());
if (NEIGHBOURS.some((n, i) => !Number.isInteger(n) || n < 1 || n <= (NEIGHBOURS[i - 1] ?? 0)))
	throw new Error("CAIRN_BENCH_NEIGHBOURS: ascending positive integers, e.g. 10,100");
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
const ms = (x: number) => `${x.toFixed(1)} ms`;
const work = mkdtempSync(join(tmpdir(), "cairn-bench-"));

type FloorStats = { p50: number; p95: number; p99: number };
type FloorMode = "memory" | "file";
type SqliteResult = {
	floor?: Record<FloorMode, Record<string, FloorStats>>;
	shared?: (FloorStats & { others: number; loadSeconds: number })[];
	baseline?: Record<string, number[][]>;
};

/** The floor runs on `node:sqlite` in a child of this Node (the toolchain's Node 22 under `npm run bench`), apart from the Worker's memory. */
function runSqlite(task: object): SqliteResult {
	const file = join(work, `task-${Date.now()}.json`);
	writeFileSync(file, JSON.stringify(task));
	const child = spawnSync(process.execPath, ["--disable-warning=ExperimentalWarning", resolve("scripts/bench/sqlite-floor.mjs"), file], {
		encoding: "utf8",
		maxBuffer: 256 * 1024 * 1024,
	});
	if (child.status !== 0) throw new Error(`sqlite floor failed: ${child.stderr}`);
	return JSON.parse(child.stdout);
}

// Inputs.
const locomoFile = `${BENCH_DATA}/locomo/locomo-dev.json`;
const locomo = existsSync(locomoFile) ? loadLocomo(locomoFile) : null;
const longmemeval = loadLongMemEval(BENCH_DATA);
const sentences = locomo
	? locomo.observations.map((o) => o.fact)
	: ["Integration tests use the real database.", "Deploys freeze on Fridays."];
const queries = locomo ? locomo.data.flatMap((c) => c.qa.map((q) => q.question)) : ["database tests", "deploy friday"];
const input: BenchInput = {
	samples: SAMPLES,
	sizes: [1_000, LARGE],
	sentences,
	queries,
	locomo: (locomo?.data ?? []).map((c) => ({
		id: c.sample_id,
		memories:
			locomo?.observations.filter((o) => o.conv === c.sample_id).map((o) => toMemory(o, c.conversation[`${o.session}_date_time`])) ?? [],
		questions: c.qa.map((q) => q.question),
		...(() => {
			const at = questionTime(c);
			return at ? { at } : {};
		})(),
	})),
	transcripts: [],
	neighbours: NEIGHBOURS,
	...(ONLY ? { only: ONLY } : {}),
	...(process.env.CAIRN_BENCH_UPDATE_SETS ? { updateSets: process.env.CAIRN_BENCH_UPDATE_SETS.split(",").map((s) => s.trim()) } : {}),
	...(process.env.CAIRN_BENCH_PROMPT_SETS ? { promptSets: process.env.CAIRN_BENCH_PROMPT_SETS.split(",").map((s) => s.trim()) } : {}),
	...(longmemeval ? { longmemeval: longMemEvalInput(longmemeval) } : {}),
};
// Korean, Japanese and Chinese recall: written for Cairn (bench/cjk-recall.json).
const cjkSet = JSON.parse(readFileSync("bench/cjk-recall.json", "utf8")) as {
	memories: (BenchInput["locomo"][number]["memories"][number] & { lang: string })[];
	questions: { lang: string; query: string; expected: string }[];
};
input.cjk = { memories: cjkSet.memories.map(({ lang: _lang, ...m }) => m), questions: cjkSet.questions };
const transcriptRoot = `${BENCH_DATA}/transcripts`;
input.transcripts = existsSync(transcriptRoot)
	? readdirSync(transcriptRoot).flatMap((agent) =>
			readdirSync(join(transcriptRoot, agent))
				.filter((f) => f.endsWith(".jsonl"))
				.map((f) => ({ name: `${agent}/${f}`, text: readFileSync(join(transcriptRoot, agent, f), "utf8") })),
		)
	: [];
// The poisoning benchmark's labelled sets (bench/poisoning/).
const poisoning = loadPoisoning();
if (poisoning) input.poisoning = poisoning;
const inputFile = join(work, "input.json");
writeFileSync(inputFile, JSON.stringify(input));

// The Worker, in workerd.
// The Worker, in workerd. The result is kept in .bench/ so that CAIRN_BENCH_REUSE=1 can redo the rest alone.
const saved = resolve(".bench/worker-result.json");
let result: BenchResult;
if (process.env.CAIRN_BENCH_REUSE === "1" && existsSync(saved)) {
	const reused = JSON.parse(readFileSync(saved, "utf8")) as BenchResult;
	result = { ...reused, tenancy: reused.tenancy ?? null };
} else {
	console.log(
		`running the Worker benchmark in workerd (this seeds projects of ${input.sizes.join(" and ")} memories, then ${NEIGHBOURS.at(-1)} more of ${LARGE})…`,
	);
	const started = performance.now();
	const run = await runWorker();
	const line = run.stdout.split("\n").find((l) => l.includes("CAIRN_BENCH_RESULT "));
	if (!line) throw new Error(`the Worker benchmark did not report:\n${run.stdout.slice(-4000)}\n${run.stderr.slice(-4000)}`);
	result = JSON.parse(line.slice(line.indexOf("CAIRN_BENCH_RESULT ") + "CAIRN_BENCH_RESULT ".length)) as BenchResult;
	result.load = run.load;
	// What the service refused of a labelled set (names and codes) is said, not hidden in the Worker's output.
	for (const l of run.stdout.split("\n")) if (/prompts: .* the service refused /.test(l)) console.log(l.slice(l.indexOf("prompts: ")));
	console.log(`the Worker benchmark took ${((performance.now() - started) / 60_000).toFixed(1)} min`);
	mkdirSync(dirname(saved), { recursive: true });
	// A partial run (CAIRN_BENCH_ONLY) is kept beside the full one, never in its place.
	writeFileSync(ONLY ? saved.replace(/\.json$/, "-partial.json") : saved, JSON.stringify(result));
}

/**
 * Runs the Worker benchmark, sampling the machine's 1-minute load average every 2 s: over the whole
 * run, and over each measured tenancy step (between the marks the benchmark prints), so that a run
 * disturbed by other work on the machine shows as such.
 */
function runWorker(): Promise<{ stdout: string; stderr: string; load: NonNullable<BenchResult["load"]> }> {
	return new Promise((done, fail) => {
		const child = spawn("vitest", ["run", "--config", "vitest.bench.config.ts"], {
			env: { ...process.env, CAIRN_BENCH_INPUT: inputFile },
		});
		let stdout = "";
		let stderr = "";
		const all: number[] = [];
		const steps: Record<string, number[]> = {};
		let step: string | null = null;
		const sample = setInterval(() => {
			const l = loadavg()[0] ?? 0;
			all.push(l);
			if (step) steps[step]?.push(l);
		}, 2000);
		child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
			stdout += chunk;
			for (const m of chunk.matchAll(/CAIRN_BENCH_MARK (start|end) (\S+)/g)) {
				step = m[1] === "start" ? (m[2] ?? null) : null;
				if (step) steps[step] ??= [loadavg()[0] ?? 0];
			}
		});
		child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
			stderr += chunk;
		});
		child.on("error", fail);
		child.on("close", () => {
			clearInterval(sample);
			const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
			done({
				stdout,
				stderr,
				load: {
					mean: mean(all),
					max: Math.max(0, ...all),
					steps: Object.fromEntries(Object.entries(steps).map(([k, v]) => [k, { mean: mean(v), max: Math.max(...v) }])),
				},
			});
		});
	});
}

// Floors: plain BM25 for quality, Cairn's own statement on SQLite for latency.
const floorMatches = queries
	.map((q) => queryTerms(q))
	.filter((t) => t.length > 0)
	.map(matchExpression);
const perRound = Array.from({ length: SAMPLES }, (_, i) => floorMatches[i % floorMatches.length] ?? "");
console.log(`SQLite floors (one project's database; the old shared layout with ${NEIGHBOURS.join(" and ")} other projects)…`);
const sqlite = runSqlite({
	floor: {
		// The object's own schema for the per-project floor; D1's migrations (the old shared layout) for the shared one.
		projectSchema: PROJECT_MIGRATIONS.join("\n"),
		sharedSchema: readdirSync("migrations")
			.filter((f) => f.endsWith(".sql"))
			.sort()
			.map((f) => readFileSync(join("migrations", f), "utf8").replaceAll("--> statement-breakpoint", ""))
			.join("\n"),
		sql: candidateSql(["personal", "team"]),
		sentences,
		check: [0, 1, 7].map((variant) => ({ variant, rows: corpus(sentences, 20, variant) })),
		sizes: input.sizes,
		shared: ONLY && !ONLY.includes("tenancy") ? undefined : { size: LARGE, neighbours: NEIGHBOURS },
		matches: perRound,
	},
	baseline: locomo
		? {
				k: 10,
				conversations: locomo.data.map((c) => ({
					id: c.sample_id,
					docs: locomo.observations.filter((o) => o.conv === c.sample_id).map((o) => o.fact),
					questions: c.qa.map((q) => q.question),
				})),
			}
		: undefined,
});

const lines: string[] = [];
const out = (s = "") => {
	lines.push(s);
	console.log(s);
};
out("# Benchmarks");
out();
out(
	`Generated by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? "unknown"}), ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
);
out("Every number comes from one run; rerun the command to refresh this file. The Worker is measured inside workerd");
out("(the Workers Vitest integration, real local D1, R2 and Durable Objects) by calling its fetch entry point — routing,");
out("auth, D1, the project's object and R2 included, no dev-server proxy: `wrangler dev`'s proxy alone adds about 7 ms per");
out(
	`request on this machine. For scale, \`GET /health\` through the same path: p50 ${result.health.p50 < 1 ? "under 1 ms (the clock did not tick)" : ms(result.health.p50)} (before: ${ms(BEFORE.health)}). Timers inside`,
);
out("workerd tick in whole milliseconds, so Worker figures are whole milliseconds; the SQLite floor is timed in Node with");
out("sub-millisecond resolution. In this harness D1 and every project's object keep their SQLite in files on local disk.");
if (result.auth)
	out(
		`Authentication's price on a request that touches no project data (\`GET …/settings/effective\` beside \`GET /health\`, alternately, means of ${result.auth.samples.toLocaleString("en-US")} each): warm — key, project row and effective settings in the isolate cache (10 s, 1,000 entries per table), no D1 query — ${ms(result.auth.warm)} against ${ms(result.auth.health)}, **${ms(result.auth.warm - result.auth.health)} more** (goal ≤ 2 ms); cold — the first request of a newly issued key, which reads the key and project (one D1 batch) and the settings (one query) — ${ms(result.auth.cold)} (${result.auth.coldSamples} keys).`,
	);
if (result.load)
	out(
		`The machine's 1-minute load average during the Worker run: mean ${result.load.mean.toFixed(1)}, max ${result.load.max.toFixed(1)} (${cpus().length} cores; the benchmark itself keeps about one busy, so more means other work shared the machine).`,
	);
out();
out("Layout: each project's memories, versions, full-text index, sessions and pipeline state live in the project's own");
out("Durable Object SQLite; D1 keeps the registry and settings (docs/storage.md). Rows marked *before* are the last run on");
out(`the old layout — every project in one shared D1 database — on ${BEFORE.date}, same machine class (2 cores, AMD EPYC, 24 GiB,`);
out("Node v22.23.3), kept for comparison (`scripts/bench/before.ts`); ratios on those rows are recomputed from the rounded figures.");
out();
out("## Recall quality — LoCoMo");
out();
/** Per LoCoMo question: its category, and the evidence recall at 5 and 10 of `answers` (names per conversation) and of plain BM25. */
function locomoPerQuestion(answers: Record<string, string[][]>) {
	if (!locomo) return [];
	return locomo.data.flatMap((c) => {
		const obs = locomo.observations.filter((o) => o.conv === c.sample_id);
		const byName = new Map(obs.map((o) => [o.name, o.diaId]));
		return c.qa.map((qa, j) => {
			const mine = (answers[c.sample_id]?.[j] ?? []).map((n) => byName.get(n) ?? "");
			const base = (sqlite.baseline?.[c.sample_id]?.[j] ?? []).map((k) => obs[k]?.diaId ?? "");
			const ev = qa.evidence.map(String);
			return {
				category: qa.category,
				cairn: [evidenceRecall(ev, mine.slice(0, 5)), evidenceRecall(ev, mine.slice(0, 10))] as [number, number],
				bm25: [evidenceRecall(ev, base.slice(0, 5)), evidenceRecall(ev, base.slice(0, 10))] as [number, number],
			};
		});
	});
}
if (locomo) {
	const perQuestion = locomoPerQuestion(result.locomo);
	out("Each LoCoMo observation is one memory (linked to its dia_id), written on its session's date by that session; every QA");
	out("question goes through `POST /recall` (limit 10) asked the day after the last session (`at`). The write path stamps the");
	out("present and the API cannot backdate a memory, so after filling a project through the batch endpoint the benchmark");
	out("sets each memory's `created_at` and `session_id` inside the project's object, as a consolidation run after that session would.");
	out("Metric: LoCoMo's recall — the share of a question's evidence dia_ids among the top k. Plain BM25 is computed in the");
	out("same run (one FTS5 column, porter stemming, every question token, default `bm25()`). Published: LoCoMo paper Table 3,");
	out("DRAGON retriever over observations (on the paper's 50-conversation release). *Before*: Cairn on the shared layout,");
	out("where BM25's collection statistics (document count, lengths, document frequencies) came from the one index of every");
	out("project seeded so far; now they come from the project's own index.");
	out();
	out(
		"| category | questions | Cairn R@5 | Cairn R@10 | *before* R@5 | *before* R@10 | plain BM25 R@5 | plain BM25 R@10 | published R@5 | published R@10 |",
	);
	out("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
	const published: Record<string, [number, number]> = {
		"single-hop": [52.9, 57.4],
		"multi-hop": [40.1, 53.1],
		temporal: [81.1, 83.8],
		"open-domain": [38.5, 46.2],
		"overall (1-4)": [49.6, 57.1],
		"adversarial (5)": [29.8, 41.5],
	};
	for (const r of summarise(perQuestion)) {
		const p = published[r.category];
		const b = BEFORE.quality[r.category];
		out(
			`| ${r.category} | ${r.questions} | ${pct(r.cairnR5)} | ${pct(r.cairnR10)} | ${b ? `${b[0]} %` : ""} | ${b ? `${b[1]} %` : ""} | ${pct(r.bm25R5)} | ${pct(r.bm25R10)} | ${p ? `${p[0]} %` : ""} | ${p ? `${p[1]} %` : ""} |`,
		);
	}
	out();
	out(
		`Categories: ${Object.entries(CATEGORIES)
			.map(([k, v]) => `${k} ${v}`)
			.join(", ")}. Overall excludes adversarial questions, as the published row does.`,
	);
} else out(`LoCoMo data not found under ${BENCH_DATA}/locomo; set CAIRN_BENCH_DATA.`);
out();
// ---- LongMemEval (scripts/bench/longmemeval.ts) ----
out("## Recall quality — LongMemEval");
out();
if (longmemeval) {
	const baseline = result.longmemeval ? runSqlite({ baseline: longMemEvalBaseline(longmemeval, 10) }).baseline : undefined;
	for (const line of longMemEvalSection(longmemeval, result.longmemeval, baseline)) out(line);
} else out(`LongMemEval data not found under ${BENCH_DATA}/longmemeval; set CAIRN_BENCH_DATA.`);
out();
// Each ranking step's contribution: the same questions through recall with the steps switched on one by one.
if (result.contributions && (locomo || longmemeval)) {
	const c = result.contributions;
	out("### Each ranking step's contribution");
	out();
	out("The questions above through recall again (limit 10, lexical), inside the Worker, with the ranking's optional steps");
	out("(`Ranking` in `src/recall/recall.ts`) switched on one at a time; each row keeps the steps above it, the last is");
	out("recall as served. Overall figures: LoCoMo categories 1–4, every counted LongMemEval question.");
	out();
	// Each step summarised once: overall here, then per LoCoMo category and per LongMemEval type.
	const perStep = c.steps.map((label, k) => ({
		label,
		lo: locomo && Object.keys(c.locomo[k] ?? {}).length ? summarise(locomoPerQuestion(c.locomo[k] ?? {})) : [],
		lm:
			longmemeval && Object.keys(c.longmemeval[k] ?? {}).length ? summariseLongMemEval(longmemeval, c.longmemeval[k] ?? {}, undefined) : [],
	}));
	out("| ranking | LoCoMo R@5 | R@10 | LongMemEval any@5 | all@5 | any@10 | all@10 |");
	out("|---|---:|---:|---:|---:|---:|---:|");
	for (const { label, lo, lm } of perStep) {
		const overall = lo.find((r) => r.category === "overall (1-4)");
		const all = lm.find((r) => r.type === "overall");
		out(
			`| ${label} | ${overall ? pct(overall.cairnR5) : "–"} | ${overall ? pct(overall.cairnR10) : "–"} | ${all ? all.cairn.map((x) => x.toFixed(3)).join(" | ") : "– | – | – | –"} |`,
		);
	}
	out();
	/** One row per step, one column per group (the first step's groups). */
	const stepTable = <R>(
		title: string,
		rowsOf: (step: (typeof perStep)[number]) => R[],
		group: (r: R) => string,
		cell: (r: R) => string,
	) => {
		const groups = perStep[0] ? rowsOf(perStep[0]).map(group) : [];
		if (groups.length === 0) return;
		out(title);
		out();
		out(`| ranking | ${groups.join(" | ")} |`);
		out(`|---|${groups.map(() => "---:").join("|")}|`);
		for (const step of perStep) out(`| ${step.label} | ${rowsOf(step).map(cell).join(" | ")} |`);
		out();
	};
	stepTable(
		"Per LoCoMo category, R@5 / R@10:",
		(step) => step.lo,
		(r) => r.category,
		(r) => `${pct(r.cairnR5)} / ${pct(r.cairnR10)}`,
	);
	stepTable(
		"Per LongMemEval question type, all@5 / all@10:",
		(step) => step.lm,
		(r) => r.type,
		(r) => `${r.cairn[1].toFixed(3)} / ${r.cairn[3].toFixed(3)}`,
	);
}
// ---- end LongMemEval ----
out("## Per-prompt recall (bench/prompts)");
out();
if (result.prompts?.length) {
	out("Labelled software projects (`bench/prompts/<set>/`, README there), each in a project of its own; every prompt");
	out('through `POST /inject` as the Claude Code UserPromptSubmit hook calls it (`include: "memories"`, a fresh session');
	out("with `onlyNew`, `maxChars` 9,500), no model configured. *Hit rate*: prompts that need a memory whose block holds");
	out("one they need. *Noise rate*: prompts that need none whose block is not empty. *Precision*: served memories that");
	out("were needed. `dev` was used while building the method; `fresh` and `holdout` were written afterwards by writers");
	out("who never saw it, each measured once with the constants as they stand (`holdout`: three more projects, a second");
	out("honest figure). `holdout` was first measured at 18.3 % hit / 4.6 % noise (Korean 7.8 % / 3.1 %); the rows");
	out("here follow two later changes chosen on dev — Korean particles cut off words written in Latin letters, and the");
	out("words that carry a Korean request's grammar and mood (해줘, 어떻게, 지금, 누구야) dropped from queries as English");
	out("stopwords are — which moved dev from 21.2 % / 5.8 % to 22.6 % / 4.2 % (Korean 23.0 % / 7.9 % → 26.2 % / 2.6 %).");
	out();
	for (const line of promptTable(promptFigures(result.prompts.filter((r) => !r.set.startsWith("grown"))))) out(line);
	for (const [lang, b] of Object.entries(PROMPTS_BEFORE))
		out(
			`| dev, *before* | ${lang} | ${b.needing + b.none} | ${pct(b.hits / b.needing)} (${b.hits}/${b.needing}) | ${pct(b.noisy / b.none)} (${b.noisy}/${b.none}) | ${b.perBlock.toFixed(2)} | |`,
		);
	out();
	out("*Before*: the same dev set through the same calls before per-prompt relevance (a memory had to match half the");
	out("prompt's terms, at most three). The relevance decision's constants (`RELEVANCE` in `src/recall/relevance.ts`)");
	out("were chosen on dev by `npx tsx scripts/bench/prompts-calibrate.ts`, which replays the decision over a grid:");
	out("the best hit rate it finds at a noise rate of at most 5 % is about 21 %, at 10 % about 29 %, at 20 % about 38 %,");
	out("at 40 % about 56 % — no setting of these lexical signals reaches the 85 % / 5 % aimed for; the constants hold");
	out("noise at the 5 % asked for. A needed memory is among the 25 ranked candidates for 186 of the 212 dev prompts.");
	out("A logistic combination of every signal the decision reads (rank, score, evidence in name and description, in the");
	out("body and through concepts, coverage, type), fitted on two dev projects and tested on the third, does no better:");
	out("about 14 % hit at 4 % noise, 29 % at 13 %, 40 % at 19 %. The bound is what these signals carry, not the constants.");
	out();
	out("### In front of the model");
	out();
	out("Measured as the agent lives it: for every prompt a new session, first the session-start block exactly as the");
	out("SessionStart hooks ask for it (three parts, `part: {index, of: 3}`, `maxChars` 9,500 each, the default start budget of");
	out("25,000 characters; `context`: the folder name and the branch), then the prompt's block in the same session as the");
	out("UserPromptSubmit hook sends it. A need — a (prompt, needed memory) pair — is *in front* when the memory's file");
	out("(`### memory://…`) or its index line (its name and its whole description on one line) is in either block");
	out("(`bench/front.ts` reads the texts), *at the prompt* when it is in the prompt's block. *One read away*: not in front,");
	out("but in a topic a block names (`topics/<topic>.md`, read as `memory_read` would) whose line shares a word with the");
	out("prompt (Korean by its first two syllables, longer English words by their first five letters) — the agent has a");
	out("reason to open it; never counted as in front. *Noise*: prompts that need no memory whose block holds a memory's");
	out("file (a line offered is not a file). *Quiet prompts*: the characters the prompt block adds to prompts that need");
	out("nothing. Facts and references come first: most of what prompts need in real work.");
	out();
	out("Sets: `dev` (built on), `fresh` and `holdout` (written after the method was settled; their figures since are after");
	out("it was tuned on them, see bench/prompts/README.md), `facts` (two thirds of needs facts or references, English and");
	out("Korean, written blind for this measurement and measured once), and `grown`: nine projects — the three dev projects,");
	out("`haulpath`, `trailhead-shop`, `moapay` (fresh), `clinicq`, `fieldnotes`, `hanbit-edu` (holdout) — each with about");
	out("760 further memories (`bench/prompts/grown/`, a year of extraction no prompt was written for), asked the base");
	out("projects' prompts. Targets: at the sets' size facts ≥ 85 % in front, rules 100 %, bodies to prompts that need none");
	out("≤ 5 %; at ~1,000 memories rules ≥ 95 %, facts ≥ 60 % in front and ≥ 85 % in front or one read away; the start");
	out("block within its budget, the prompt block ≤ 2,500 characters on average and quiet prompts ≤ 800.");
	out("*Before*: rows marked so are the same sets on the code before the start block came in parts (one 9,500-character");
	out("block, no topics, six lines at the prompt), recorded in scripts/bench/before.ts.");
	out();
	// `grown-used` holds the second half of grown's prompts, asked after the first half was used: beside it the
	// same prompts from the run with no history.
	const used = new Set(result.prompts.filter((r) => r.set === "grown-used").flatMap((r) => r.prompts.map((p) => p.id)));
	const secondHalf = result.prompts
		.filter((r) => r.set === "grown")
		.map((r) => ({ ...r, set: "grown, no history (same prompts)", prompts: r.prompts.filter((p) => used.has(p.id)) }));
	const rows = [...frontFigures(result.prompts), ...(used.size > 0 ? frontFigures(secondHalf) : [])];
	for (const line of frontTable([...rows, ...FRONT_BEFORE.map((r) => ({ ...r, set: `${r.set}, *before*` }))])) out(line);
	out();
	out("`grown-used`: the second half of each grown project's prompts, asked after its first half was asked in the same");
	out("project with the agent reading (`memory_read`, as `GET …/resolve` with its session) every needed memory it was shown —");
	out("the labels stand in for the agent's judgement; the start block ranks by what memories were worth to the sessions they");
	out("reached (src/memory/use.ts). Beside it, the same prompts in the project with no history.");
	out();
	const ms = result.prompts.flatMap((r) => r.prompts.map((p) => p.ms));
	out(
		`Per-prompt \`/inject\` in these projects (~240 to ~1,000 memories): p50 ${ms.length ? percentile(ms, 50).toFixed(1) : "–"} ms, p95 ${ms.length ? percentile(ms, 95).toFixed(1) : "–"} ms.`,
	);
	out();
} else out("_Not run._\n");
out("## Recall quality — Korean, Japanese, Chinese");
out();
if (result.cjk) {
	const cjk = result.cjk;
	out(
		`${cjkSet.memories.length} memories in one project (${["ko", "ja", "zh"].map((l) => `${cjkSet.memories.filter((m) => m.lang === l).length} ${l}`).join(", ")}),`,
	);
	out(`${cjkSet.questions.length} questions that share words with the memory answering them but not their forms: other particles and`);
	out("endings (배포를 → 배포해도), compounds written with or without spaces (통합 테스트 → 통합테스트), other inflections");
	out("(交代は → 交代する). Written for Cairn: `bench/cjk-recall.json`. A question is answered at k when its memory is among");
	out("the top k. *Word index only*: the `memories_fts` candidates scored as recall scores them — recall before the CJK gram");
	out("index; *now*: `POST /recall` (words and CJK grams; no embedding model in the benchmark).");
	out();
	out("| language | questions | word index only @1 | @5 | now @1 | now @5 |");
	out("|---|---:|---:|---:|---:|---:|");
	const at = (lists: string[][], rows: number[], k: number) =>
		rows.filter((i) => (lists[i] ?? []).slice(0, k).includes(cjkSet.questions[i]?.expected ?? "")).length / Math.max(1, rows.length);
	for (const lang of ["ko", "ja", "zh", "all"]) {
		const rows = cjkSet.questions.flatMap((q, i) => (lang === "all" || q.lang === lang ? [i] : []));
		out(
			`| ${lang === "all" ? "all" : lang} | ${rows.length} | ${pct(at(cjk.words, rows, 1))} | ${pct(at(cjk.words, rows, 5))} | ${pct(at(cjk.now, rows, 1))} | ${pct(at(cjk.now, rows, 5))} |`,
		);
	}
} else out("Not measured in this run.");
out();
out("## Hybrid recall latency");
out();
if (result.vectors) {
	const v = result.vectors;
	out(
		`The ${v.size.toLocaleString("en")}-memory project with a ${v.dims.toLocaleString("en")}-dimension Float32 vector for every memory in its object's`,
	);
	out(
		`SQLite (written directly in ${v.seedSeconds.toFixed(1)} s) and a zero-latency scripted embedder in place of the model: \`POST /recall\` with`,
	);
	out('`retrieval: "hybrid"` (word and CJK candidates, one brute-force scan of every visible vector, reciprocal rank fusion)');
	out(`interleaved with \`retrieval: "lexical"\`, ${SAMPLES} LoCoMo questions each. A real model adds its own round trip.`);
	out();
	out("| retrieval | p50 | p95 | p99 |");
	out("|---|---:|---:|---:|");
	out(`| lexical | ${ms(v.lexical.p50)} | ${ms(v.lexical.p95)} | ${ms(v.lexical.p99)} |`);
	out(`| hybrid | ${ms(v.hybrid.p50)} | ${ms(v.hybrid.p95)} | ${ms(v.hybrid.p99)} |`);
} else out("Not measured in this run.");
out();
out("## Tenancy — one project among many");
out();
const tenancy = result.tenancy;
const largeFloor = sqlite.floor?.file[String(LARGE)];
if (tenancy && tenancy.steps.length > 0) {
	const size = tenancy.size.toLocaleString("en");
	const seeded = tenancy.steps.filter((s) => s.others > 0);
	out(`One project of ${size} memories, through the fetch entry point: \`POST /v1/projects/:id/recall\` (${SAMPLES} LoCoMo`);
	out("questions, after 20 unmeasured) interleaved with `PUT /v1/projects/:id/memories/:name` (a new memory each time) —");
	out("first alone (the deployment holds only the benchmark's small projects), then with other projects of the same size");
	out("present. The others are registered in D1 like any project (`projects` row, `storage_moved_at` set) and filled");
	out("directly, not through the API: inside each one's object (`runInDurableObject`), in transactions of 500, the rows the");
	out("write path inserts for a new memory — `memories`, `memory_versions`, `memory_visibility`, `memories_fts` — four in five");
	out("team memories and one personal, text from the same corpus paired differently per project. Each object is evicted");
	out("once filled, as an idle one would be. Floor: the same candidate statement on plain SQLite holding only this");
	out(`project's ${size} memories (one database per project now, the object's schema, a file with the default page cache).`);
	out("The last column runs that statement on one database holding this project and the others (D1's schema): what the");
	out("old shared layout would have had to search.");
	out();
	out(
		`| other projects of ${size} | memories in projects of this size | recall p50 | p50, interpolated | p95 | p99 | write p50 | p95 | p99 | seeding the added projects | old layout floor p50 | p95 | load average while measured |`,
	);
	out("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
	for (const s of tenancy.steps) {
		const shared = sqlite.shared?.find((x) => x.others === s.others);
		const load = result.load?.steps[`tenancy-${s.others}`];
		out(
			`| ${s.others === 0 ? "0 (alone)" : s.others.toLocaleString("en")} | ${s.memories.toLocaleString("en")} | ${ms(s.recall.p50)} | ${s.recall.p50i.toFixed(2)} ms | ${ms(s.recall.p95)} | ${ms(s.recall.p99)} | ${ms(s.write.p50)} | ${ms(s.write.p95)} | ${ms(s.write.p99)} | ${s.others === 0 ? "–" : `${s.seedSeconds.toFixed(0)} s`} | ${shared ? ms(shared.p50) : "–"} | ${shared ? ms(shared.p95) : "–"} | ${load ? `${load.mean.toFixed(1)} (max ${load.max.toFixed(1)})` : "–"} |`,
		);
	}
	out();
	if (largeFloor) {
		const memoryFloor = sqlite.floor?.memory[String(LARGE)];
		out(
			`SQLite floor, one project's database of ${size} memories: file p50 ${ms(largeFloor.p50)}, p95 ${ms(largeFloor.p95)}, p99 ${ms(largeFloor.p99)}${memoryFloor ? `; in memory p50 ${ms(memoryFloor.p50)}` : ""}.`,
		);
	}
	if (seeded.length > 0) {
		const last = seeded.at(-1) as (typeof seeded)[number];
		const total = seeded.reduce((n, s) => n + s.seedSeconds, 0);
		out(
			`Seeding the others directly took ${(total / 60).toFixed(1)} min for ${last.others} projects (${(total / last.others).toFixed(1)} s per project of ${size}, inside workerd; the same through the batch endpoint takes ${result.latency.find((l) => l.size === tenancy.size)?.fillSeconds.toFixed(0) ?? "–"} s per project, see below).`,
		);
		const shared = sqlite.shared?.filter((x) => x.others > 0) ?? [];
		if (shared.length > 0)
			out(`Loading the old-layout floor database took ${shared.reduce((n, x) => n + x.loadSeconds, 0).toFixed(0)} s in node:sqlite.`);
	}
	const alone = tenancy.steps.find((s) => s.others === 0);
	const most = tenancy.steps.at(-1);
	out();
	out(
		`**Acceptance:** recall p50 with ${NEIGHBOURS.at(-1)} other projects differs by less than 20 % from alone, and stays within 3 × floor p50 + 5 ms (floor: the file database above).`,
	);
	out("The clock ticks in whole milliseconds, so one tick moves a 5 ms p50 by 20 %: the check compares the interpolated");
	out("medians (grouped-data median within the median's millisecond, `interpolatedMedian` in `bench/corpus.ts`); the");
	out("whole-millisecond comparison is shown beside it.");
	if (alone && most && most !== alone && largeFloor) {
		const signed = (x: number) => `${x >= 0 ? "+" : ""}${(x * 100).toFixed(1)} %`;
		const change = (most.recall.p50i - alone.recall.p50i) / alone.recall.p50i;
		const wholeChange = (most.recall.p50 - alone.recall.p50) / alone.recall.p50;
		const bound = 3 * largeFloor.p50 + 5;
		const nearAlone = Math.abs(change) < 0.2;
		const withinFloor = most.recall.p50i <= bound && most.recall.p50 <= bound;
		const verdict = nearAlone && withinFloor ? "holds" : "does not hold";
		out(
			`This run: alone ${alone.recall.p50i.toFixed(2)} ms, with ${most.others} others ${most.recall.p50i.toFixed(2)} ms — ${signed(change)} (${nearAlone ? "< 20 %" : "≥ 20 %"}; whole ms: ${ms(alone.recall.p50)} → ${ms(most.recall.p50)}, ${signed(wholeChange)}); bound 3 × ${ms(largeFloor.p50)} + 5 ms = ${ms(bound)} (${withinFloor ? "within" : "exceeded"}). **The check ${verdict}.**`,
		);
		console.log(`\nacceptance check ${verdict}\n`);
	} else out(`This run did not measure it (run \`npm run bench\` with ${NEIGHBOURS.at(-1)} other projects).`);
} else out("Not measured in this run.");
out();
out("## Recall and inject latency");
out();
out(`${SAMPLES} LoCoMo questions per size, against memories built from LoCoMo observation sentences. The floor runs the same`);
out("FTS5 statement (`candidateSql` in `src/memory/lexical.ts`, same MATCH expressions) on the same rows in node:sqlite,");
out("in process, in a database holding only that project with the object's schema (`src/storage/schema.ts`): once in");
out("memory, once in a file with SQLite's default page cache. (Before, the floor database held both sizes' projects with");
out("D1's schema.) Target: recall p50 ≤ 3 × floor p50 + 5 ms, judged against the file floor (the in-memory ratio is shown too).");
out();
out(
	"| memories | run | recall p50 | p95 | p99 | inject p50 | p95 | p99 | floor (file) p50 | p95 | p99 | floor (memory) p50 | recall / file floor | recall / memory floor | 3 × file floor + 5 ms |",
);
out("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
const none = { p50: Number.NaN, p95: Number.NaN, p99: Number.NaN };
const latencyRow = (size: number, run: string, recall: FloorStats, inject: FloorStats, file: FloorStats, memoryP50: number) => {
	const bound = 3 * file.p50 + 5;
	out(
		`| ${size.toLocaleString("en")} | ${run} | ${ms(recall.p50)} | ${ms(recall.p95)} | ${ms(recall.p99)} | ${ms(inject.p50)} | ${ms(inject.p95)} | ${ms(inject.p99)} | ${ms(file.p50)} | ${ms(file.p95)} | ${ms(file.p99)} | ${ms(memoryP50)} | ${(recall.p50 / file.p50).toFixed(1)}× | ${(recall.p50 / memoryP50).toFixed(1)}× | ${ms(bound)} ${recall.p50 <= bound ? "met" : "missed"} |`,
	);
};
const triple = ([p50, p95, p99]: [number, number, number]): FloorStats => ({ p50, p95, p99 });
for (const l of result.latency) {
	latencyRow(
		l.size,
		"now",
		l.recall,
		l.inject,
		sqlite.floor?.file[String(l.size)] ?? none,
		sqlite.floor?.memory[String(l.size)]?.p50 ?? Number.NaN,
	);
	const b = BEFORE.latency[l.size];
	if (b) latencyRow(l.size, "*before*", triple(b.recall), triple(b.inject), triple(b.floorFile), b.floorMemory);
}
out();
out('Per-prompt inject (`include: "memories"` with a fresh session and `onlyNew`, as the prompt hook calls it; the relevance');
out("decision's document counts and the cue index included), beside recall. Target: p95 within 2× recall's p95 before");
out("per-prompt relevance (the *before* row).");
out();
out("| memories | per-prompt inject p50 | p95 | p99 | recall p95 (this run) | recall p95 before | p95 ratio to before |");
out("|---:|---:|---:|---:|---:|---:|---:|");
for (const l of result.latency) {
	if (!l.prompt) continue;
	const before = RECALL_P95_BEFORE_PROMPTS[l.size] ?? Number.NaN;
	out(
		`| ${l.size.toLocaleString("en")} | ${ms(l.prompt.p50)} | ${ms(l.prompt.p95)} | ${ms(l.prompt.p99)} | ${ms(l.recall.p95)} | ${ms(before)} | ${(l.prompt.p95 / before).toFixed(2)}× |`,
	);
}
out();
out("The two blocks an agent gets, as the hooks ask for them: the session-start block (`context` with a folder, a branch, a");
out("commit subject and a file from the question's words, a new session, its three parts at once, 9,500 characters each;");
out("its index read and ranked");
out("from every memory's header) and the per-prompt block (above). Target: p95 at 10,000 memories within 1.5× of the");
out("blocks before the start block came in parts (one 9,500-character block; the median of six runs of that tree on this");
out("machine, interleaved with runs of the parts: single runs vary by ±30 %).");
out();
out("| memories | start block p50 | p95 | p99 | p95 before | ratio | prompt block p95 | p95 before | ratio |");
out("|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const l of result.latency) {
	if (!l.start || !l.prompt) continue;
	const b = BLOCKS_P95_BEFORE[l.size];
	if (!b) continue;
	out(
		`| ${l.size.toLocaleString("en")} | ${ms(l.start.p50)} | ${ms(l.start.p95)} | ${ms(l.start.p99)} | ${ms(b.start)} | ${(l.start.p95 / b.start).toFixed(2)}× | ${ms(l.prompt.p95)} | ${ms(b.prompt)} | ${(l.prompt.p95 / b.prompt).toFixed(2)}× |`,
	);
}
out();
out("## Single-write latency");
out();
out(`\`PUT /v1/projects/:id/memories/:name\` (a new memory each time), ${SAMPLES} writes per project, interleaved between the projects.`);
out();
out("| memories in project | run | p50 | p95 | p99 | fill time (batch endpoint) |");
out("|---:|---|---:|---:|---:|---:|");
const fill = (size: number) => result.latency.find((l) => l.size === size)?.fillSeconds;
for (const w of result.writes) {
	out(
		`| ${w.size.toLocaleString("en")} | now | ${ms(w.write.p50)} | ${ms(w.write.p95)} | ${ms(w.write.p99)} | ${fill(w.size)?.toFixed(1) ?? "–"} s |`,
	);
	const b = BEFORE.writes[w.size];
	if (b)
		out(
			`| ${w.size.toLocaleString("en")} | *before* | ${ms(b[0])} | ${ms(b[1])} | ${ms(b[2])} | ${BEFORE.fillSeconds[w.size]?.toFixed(1) ?? "–"} s |`,
		);
}
const [small, large] = result.writes;
if (small && large) {
	const b = [BEFORE.writes[small.size], BEFORE.writes[large.size]];
	out(
		`\nRatio of p50 (largest / 10): **${(large.write.p50 / small.write.p50).toFixed(2)}×**${b[0] && b[1] ? ` (before: ${(b[1][0] / b[0][0]).toFixed(2)}×)` : ""} (target: within 2×).`,
	);
}
if (result.batch) {
	const b = result.batch;
	out();
	out(
		`Batch writes: ${b.memories.toLocaleString("en")} memories of about ${b.chars.toLocaleString("en")} characters into a new project through \`POST …/memories/batch\` (100 per request, one request after another) in ${b.seconds.toFixed(1)} s: **${Math.round(b.memories / b.seconds).toLocaleString("en")} memories/s**${BATCH_BEFORE ? ` (before: ${BATCH_BEFORE.perSecond.toLocaleString("en")}/s, ${BATCH_BEFORE.what})` : ""}.`,
	);
}
{
	const { before, after } = WRITES_LOCAL;
	out();
	out(
		"Where a batch's time went, before (each of its 100 items one call into the project's object): each item's R2 put (about 3 ms locally, whether one at a time or sixteen at once, so 100 puts were 300 ms or more), its own transaction and storage flush, and its own call. Now a batch is one call, its new contents one R2 object (a content pack: about 5 ms for 100 KB) and its rows one transaction; what remains is per-item work in the object, about 0.75 ms a memory of 1,000 characters measured inside workerd: the secret scan 0.4–0.55 ms (secretlint's preset about 0.45 ms of it, a fixed cost per scan), cue and concept derivation 0.25 ms, rendering the topic file 0.07 ms.",
	);
	out();
	out(
		`Through \`npm start\` (\`npm run bench:writes-local\`: HTTP through wrangler dev, memories of 1,000 characters, 100 per request, one request after another; not part of this run): ${after.memories.toLocaleString("en")} memories at **${after.perSecond}/s** (load average ${after.load}), before ${before.memories.toLocaleString("en")} at ${before.perSecond}/s (load average ${before.load}). Goal: ≥ 300/s.`,
	);
}
out();
out("## MEMORY.md");
out();
out("The first read after writes rebuilds it lazily (≤ 200 rows per type through an index); the next is served from the cached copy.");
out();
out("| memories in project | run | rebuild read | cached read |");
out("|---:|---|---:|---:|");
for (const i of result.index) {
	out(`| ${i.size.toLocaleString("en")} | now | ${ms(i.rebuildMs)} | ${ms(i.cachedMs)} |`);
	const b = BEFORE.index[i.size];
	if (b) out(`| ${i.size.toLocaleString("en")} | *before* | ${ms(b.rebuild)} | ${ms(b.cached)} |`);
}
out();
out("## Ingest and stage 1");
out();
if (result.ingest?.length) {
	out("Each real session file is posted whole to a new session through `POST …/sessions/:id/transcript` (read as it streams,");
	out("parsed, normalised, checked against the session's record keys, secret-redacted and staged as R2 chunks in the Worker;");
	out(
		"then one transaction in the project's object), then posted again (every turn a duplicate). Stage 1 runs each session as one range through the method",
	);
	out("the queue consumer calls on the project's object (`extractRange` → `processRange`: cursor read, settings, agent-write");
	out("check, R2 read, prompt with redaction, output validation and sanitising, commit, coordinator notice), alternating a");
	out("zero-latency scripted model and the offline extractor, so the numbers are Cairn's own overhead per range.");
	out();
	out("| file | run | size | turns | post p50 | turns / s | re-post p50 | stage 1, model p50 | stage 1, offline p50 |");
	out("|---|---|---:|---:|---:|---:|---:|---:|---:|");
	for (const i of result.ingest) {
		const s1 = result.stageOne.find((s) => s.name === i.name);
		const size = `${(i.bytes / 1024).toFixed(0)} KB`;
		out(
			`| ${i.name} | now | ${size} | ${i.turns} | ${ms(i.post.p50)} | ${Math.round(i.turns / (i.post.p50 / 1000)).toLocaleString("en")} | ${ms(i.repost.p50)} | ${s1 ? ms(s1.model.p50) : "–"} | ${s1 ? ms(s1.offline.p50) : "–"} |`,
		);
		const b = BEFORE.ingest[i.name];
		if (b)
			out(
				`| ${i.name} | *before* | ${size} | ${i.turns} | ${ms(b.post)} | ${Math.round(i.turns / (b.post / 1000)).toLocaleString("en")} | ${ms(b.repost)} | ${ms(b.model)} | ${ms(b.offline)} |`,
			);
	}
	const turns = result.ingest.reduce((n, i) => n + i.turns, 0);
	const seconds = result.ingest.reduce((n, i) => n + i.post.p50, 0) / 1000;
	out();
	out(
		`Overall ingest throughput (all files, p50 posts): **${Math.round(turns / seconds).toLocaleString("en")} turns/s** (before: ${BEFORE.ingestTurnsPerSecond.toLocaleString("en")} turns/s).`,
	);
} else out(`Transcripts not found under ${BENCH_DATA}/transcripts; set CAIRN_BENCH_DATA.`);
out();
out("## Consolidation cost as the project grows");
out();
if (result.consolidation?.length) {
	out("One new session (a stage-1 output with three candidates phrased like the corpus) folded into projects of growing");
	out("size through `consolidateProject`, run inside the project's object as its alarm runs it: pending outputs, the");
	out("memories the new material touches (found through the recall index, within a token budget), the plan, writes through");
	out("the ordinary write path, skills, the summary, the audit batch. Alternating a zero-latency scripted model (which");
	out("updates one memory per run) and the offline consolidator (which creates the candidates as memories).");
	out();
	out("| memories in project | run | touched memories read | run p50, model | p95 | run p50, offline | p95 |");
	out("|---:|---|---:|---:|---:|---:|---:|");
	for (const c of result.consolidation) {
		out(
			`| ${c.size.toLocaleString("en")} | now | ${c.touched} | ${ms(c.model.p50)} | ${ms(c.model.p95)} | ${ms(c.offline.p50)} | ${ms(c.offline.p95)} |`,
		);
		const b = BEFORE.consolidation[c.size];
		if (b)
			out(
				`| ${c.size.toLocaleString("en")} | *before* | ${b.touched} | ${ms(b.model[0])} | ${ms(b.model[1])} | ${ms(b.offline[0])} | ${ms(b.offline[1])} |`,
			);
	}
	const first = result.consolidation[0];
	const last = result.consolidation.at(-1);
	if (first && last && last !== first) {
		out();
		out(
			`From ${first.size.toLocaleString("en")} to ${last.size.toLocaleString("en")} memories (${(last.size / first.size).toFixed(0)}×), the model run's p50 grows ${(last.model.p50 / first.model.p50).toFixed(2)}× and the offline run's ${(last.offline.p50 / first.offline.p50).toFixed(2)}×.`,
		);
	}
}
out();
out("## Offline extractor");
out();
/** Free-text user turns of a transcript with the assistant turn before each, as labelled in bench/offline-labels.json. */
async function labelledTurns(name: string, text: string, labels: (string | null)[]): Promise<LabelledTurn[] | null> {
	const { turns } = normalise(await readRecords(text), "auto");
	const out: LabelledTurn[] = [];
	let after: string | undefined;
	for (const t of turns) {
		if (t.role === "assistant" && !t.sidechain) after = t.text;
		if (t.role !== "user" || t.kind || t.sidechain) continue;
		out.push({ text: t.text, label: (labels[out.length] ?? null) as LabelledTurn["label"], after });
	}
	if (out.length !== labels.length) {
		console.warn(`offline labels: ${name} has ${out.length} user turns, labels cover ${labels.length}`);
		return null;
	}
	return out;
}
const devLabels = JSON.parse(readFileSync("bench/offline-labels.json", "utf8")) as { files: Record<string, (string | null)[]> };
const devItems: LabelledTurn[] = [];
for (const t of input.transcripts) {
	const labels = devLabels.files[t.name];
	if (labels) devItems.push(...((await labelledTurns(t.name, t.text, labels)) ?? []));
}
const writtenItems = readFileSync("test/fixtures/offline-statements.jsonl", "utf8")
	.trim()
	.split("\n")
	.map((l) => JSON.parse(l) as LabelledTurn);
const scoreRow = (name: string, score: Score) =>
	out(
		`| ${name} | ${score.turns} | ${score.positives} | ${score.predicted} | ${score.truePositives} | ${Number.isNaN(score.precision) ? "– (no predictions)" : pct(score.precision)} | ${Number.isNaN(score.recall) ? "–" : pct(score.recall)} |`,
	);
out("Turn-level precision and recall of the rule-based extractor used when no model is configured: a turn is predicted");
out("when a candidate cites it. Two labelled sets: every free-text user turn of the dev transcripts (labels in");
out("`bench/offline-labels.json`; task requests and per-task instructions are not durable), and a set of statements written");
out("for this purpose (`test/fixtures/offline-statements.jsonl`) — written alongside the rules, so its figures are optimistic.");
out();
out("| set | user turns | durable | predicted | correct | precision | recall |");
out("|---|---:|---:|---:|---:|---:|---:|");
if (devItems.length) scoreRow("dev transcripts", scoreOffline(devItems));
scoreRow("written statements", scoreOffline(writtenItems));
out();
out("## What gets remembered");
out();
out("Labelled coding-agent sessions in English and Korean (`bench/extraction/`): durable statements (rules, bans,");
out("corrections, preferences, facts about the project and its people, pointers, explicit requests to remember) among task");
out("chatter, with traps (the passing moment, today's task, questions, code facts, musings, others' opinions, greetings,");
out("rules scoped to one PR). A statement counts as kept when what was kept holds all of its key terms; a trap leaks the same");
out("way. *Offline extractor*: the candidates citing the statement's turn. *End to end*: the project's memories after every");
out("session was posted as a Claude Code file, ended, extracted by the queue consumer and consolidated, with no model");
out("(statements a later correction supersedes are judged by the correction: new value present, old value gone).");
out("The first three sets were written one after another without looking at the rules; the first two were then used to");
out("shape them, and the third was measured once before any change made for it (offline extractor: English 75.9 % kept /");
out("6.5 % of traps, Korean 53.3 % / 3.1 %) and then used as well — their rows are marked *seen*: the rules were fitted to");
out("them. The fourth (`fresh2-*`) was written by a writer who saw only the format, after the rules were frozen, and is");
out("measured once: it is the honest row.");
out();
out("Precision: the share of candidates (offline) or memories (end to end) that carry a labelled durable statement of");
out("their own turn or project; the rest is noise — traps, fragments, statements nobody labelled.");
out();
out(
	"| set | rules fitted to it | durable | traps | offline: kept | traps leaked | precision | end to end: kept | traps leaked | precision | corrections in place |",
);
out("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
/** The sets in the order they were written; the rules were fitted to every one but the last. */
const extractionSets = ["en", "ko", "holdout-en", "holdout-ko", "fresh-en", "fresh-ko", "fresh2-en", "fresh2-ko"];
for (const set of extractionSets) {
	const file = `bench/extraction/${set}.jsonl`;
	if (!existsSync(file)) continue;
	const sessions = parseSessions(readFileSync(file, "utf8"));
	const candidates = new Map(sessions.map((s) => [s.id, extractOffline(s.id, toTurns(s)).candidates]));
	const offline = scoreExtraction(sessions, (s, i) =>
		(candidates.get(s.id) ?? []).filter((c) => c.evidence.includes(`t${i}`)).map((c) => `${c.description} ${c.body}`),
	);
	const offlinePrecision = precision(
		sessions.flatMap((s) =>
			(candidates.get(s.id) ?? []).map((c) => ({
				text: `${c.description} ${c.body}`,
				durableKeys: c.evidence.flatMap((e) => durableKeysOf(sessions, { session: s.id, turn: Number(e.slice(1)) })),
			})),
		),
	);
	const worker = result.extraction?.[set];
	const e2e = worker ? scoreEndToEnd(sessions, (project) => worker.texts[project] ?? []) : null;
	const e2ePrecision = worker
		? precision(
				Object.entries(worker.texts).flatMap(([project, texts]) =>
					texts.map((text) => ({ text, durableKeys: durableKeysOf(sessions, { project }) })),
				),
			)
		: null;
	out(
		`| ${set} | ${set.startsWith("fresh2-") ? "no (measured once)" : "seen"} | ${offline.durable} | ${offline.traps} | ${pct(offline.recall)} | ${pct(offline.trapRate)} | ${pct(offlinePrecision)} | ${e2e ? pct(e2e.recall) : "–"} | ${e2e ? pct(e2e.trapRate) : "–"} | ${e2ePrecision === null ? "–" : pct(e2ePrecision)} | ${e2e ? `${e2e.corrected} / ${e2e.corrections}` : "–"} |`,
	);
}
out();
out("## Memory that stays true over time");
out();
out("Labelled project timelines in English and Korean (`bench/updates/`): rules, preferences and facts stated and then");
out("changed two to four times across sessions (some back to an earlier value, some changed indirectly), among unrelated");
out("sessions. Each session is posted as its agent's transcript (Claude Code session file or Codex rollout), ended, extracted by");
out("the queue consumer and consolidated before the next; then each subject's probe is asked in a new session — what is in");
out("front of the model is the session-start block and the probe's own block, as the hooks ask for them — and through recall");
out(
	"(its first memory read back). A subject is right when the newest value is served and no older value is served as current (history lines,",
);
out('"was … until <date>", do not count as current). *No model*: the offline extractor and consolidator. *Scripted*: models that');
out("answer as the extraction and consolidation schemas expect (each stating turn's value as a candidate named by its subject,");
out("created and then updated) — the pipeline's handling of a model's updates, not a model's judgement.");
out("The `*-holdout` timelines were written separately, after the method was settled; their first measurement is kept in");
out("the doc beside this table, and later runs of them come after that measurement was seen. The `*-dev` ones were used");
out("while building it. Goal for no model: ≥ 95 % right in front of the model, no older value as current.");
out();
out(
	'| set | mode | subjects | in front of the model right | recall\'s first right | both | older value served as current | "it changed" memories |',
);
out("|---|---|---:|---:|---:|---:|---:|---:|");
for (const [key, run] of Object.entries(result.updates ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
	const set = key.split(":")[0] ?? key;
	const n = run.rows.length || 1;
	const right = (r: { newest: boolean; stale: boolean }) => r.newest && !r.stale;
	out(
		`| ${set} | ${run.mode === "offline" ? "no model" : "scripted"} | ${run.rows.length} | ${pct(run.rows.filter((r) => right(r.block)).length / n)} | ${pct(run.rows.filter((r) => right(r.recall)).length / n)} | ${pct(run.rows.filter((r) => right(r.block) && right(r.recall)).length / n)} | ${run.rows.filter((r) => r.block.stale).length} | ${run.changeOnly.length} |`,
	);
	if (ONLY)
		for (const r of run.rows.filter((x) => !right(x.block)))
			console.log(`  ${key} ${r.timeline}/${r.subject}: newest ${r.block.newest}, stale ${r.block.stale}`);
}
out();
/**
 * A section measured by its own script (the prompt hook's, the secret policy's, the adversarial inputs'): the
 * doc's current block between `<!-- name:start -->` and `<!-- name:end -->`, kept as it is by this run.
 */
const keptBlock = (name: string) =>
	existsSync("docs/benchmarks.md")
		? new RegExp(`<!-- ${name}:start -->[\\s\\S]*<!-- ${name}:end -->`).exec(readFileSync("docs/benchmarks.md", "utf8"))?.[0]
		: undefined;
out("## Secret detector");
out();
const policyBlock = keptBlock("secret-policy");
if (policyBlock) {
	out(policyBlock);
	out();
}
const secretFiles = ["gitleaks_tps_fps.jsonl", "secretlint_cases.jsonl"].map((f) => `${BENCH_DATA}/secrets/${f}`).filter(existsSync);
const secrets = secretFiles.length > 0 ? await benchSecrets(secretFiles) : null;
if (secrets) {
	out("### By the corpora's own labels");
	out();
	out("Recall on labelled secrets and false-positive rate on labelled non-secrets, Cairn's detector beside secretlint's");
	out('recommended preset alone, in the same run. "Consistent" drops samples whose exact text carries both labels in the file');
	out("(they come from rule options such as allow-lists); no detector can score on both. These labels call documented");
	out('examples in a real format, bare private-key headers, placeholder key blocks and off-format prefixed tokens "not');
	out('secret", and account ids, paths and placeholder tokens "secret" — the policy decides each of these the other way');
	out("on purpose, so the false-positive and recall figures here are not the policy's.");
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
const adversarialBlock = keptBlock("secret-adversarial");
if (adversarialBlock) {
	out();
	out(adversarialBlock);
}
// Memory poisoning: measured in its own phase; a run of that phase alone prints the section to paste in.
if (result.poisoning) {
	const section = ["<!-- poisoning:start -->", "## Memory poisoning", "", ...poisoningSection(result.poisoning), "<!-- poisoning:end -->"];
	if (ONLY) console.log(`\n${section.join("\n")}`);
	else {
		out();
		for (const l of section) out(l);
	}
} else {
	const kept = keptBlock("poisoning");
	if (kept) {
		out();
		out(kept);
	}
}
// The review load (bench/review-load.ts), and the console's timing of 20 reviews (browser/review.test.ts, kept as pasted).
if (result.reviewLoad) {
	const section = ["<!-- review-load:start -->", "## Review load", "", ...reviewLoadSection(result.reviewLoad), "<!-- review-load:end -->"];
	if (ONLY) console.log(`\n${section.join("\n")}`);
	else {
		out();
		for (const l of section) out(l);
	}
} else {
	const kept = keptBlock("review-load");
	if (kept) {
		out();
		out(kept);
	}
}
const reviewConsole = keptBlock("review-console");
if (reviewConsole && !ONLY) {
	out();
	out(reviewConsole);
}
if (ONLY) console.log("\nCAIRN_BENCH_ONLY is set: docs/benchmarks.md left as it was");
else {
	// The prompt hook's section is measured by `npm run bench:hooks` against a running service: kept as it is.
	const hooks = keptBlock("hooks");
	// So is the load benchmark's (`npm run bench:load`, against a running service, old and new tree back to back).
	const load = keptBlock("load");
	writeFileSync("docs/benchmarks.md", `${lines.join("\n")}\n${hooks ? `\n${hooks}\n` : ""}${load ? `\n${load}\n` : ""}`);
	console.log("\nwrote docs/benchmarks.md");
}
