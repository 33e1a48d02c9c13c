// The secret detector measured by the written policy rather than by the corpora's labels: each bench
// corpus re-judged by scripts/bench/secret-policy-judge.ts (a rule of its own, importing nothing from
// the detector), per-family samples from the providers' formats, and ordinary transcript turns.
//
//   npx tsx scripts/bench/secret-policy.ts [-v]
//
// CAIRN_BENCH_DATA points at the bench data (default ../shared/bench).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { normalise, readRecords } from "../../src/ingest/parse";
import { findSecrets } from "../../src/security/secrets";
import { familySamples } from "./secret-family-samples";
import { judge } from "./secret-policy-judge";

interface Row {
	secrets: number;
	found: number;
	nonSecrets: number;
	flagged: number;
}
const pct = (n: number, d: number) => (d === 0 ? "—" : `${((100 * n) / d).toFixed(1)} %`);
const verbose = process.argv.includes("-v");

// The judge must stay independent of what it measures.
const judgeSource = readFileSync(new URL("./secret-policy-judge.ts", import.meta.url), "utf8");
if (/^\s*import\b/m.test(judgeSource)) throw new Error("the policy judge must import nothing");

async function measure(samples: { text: string; label: "secret" | "non-secret"; family: string }[], misses: string[]) {
	const total: Row = { secrets: 0, found: 0, nonSecrets: 0, flagged: 0 };
	const byFamily = new Map<string, Row>();
	for (const s of samples) {
		const hit = (await findSecrets(s.text)).length > 0;
		const row = byFamily.get(s.family) ?? { secrets: 0, found: 0, nonSecrets: 0, flagged: 0 };
		byFamily.set(s.family, row);
		for (const r of [row, total]) {
			if (s.label === "secret") {
				r.secrets++;
				if (hit) r.found++;
			} else {
				r.nonSecrets++;
				if (hit) r.flagged++;
			}
		}
		if (hit !== (s.label === "secret")) misses.push(`${hit ? "FP" : "FN"} [${s.family}] ${JSON.stringify(s.text).slice(0, 160)}`);
	}
	return { total, byFamily };
}

function print(title: string, total: Row, byFamily: Map<string, Row>, misses: string[]) {
	console.log(
		`\n## ${title}: recall ${pct(total.found, total.secrets)} (${total.found}/${total.secrets}), false positives ${pct(total.flagged, total.nonSecrets)} (${total.flagged}/${total.nonSecrets})`,
	);
	console.log("| family | secrets | recall | not secret | false positives |\n|---|---:|---:|---:|---:|");
	for (const [family, r] of [...byFamily].sort((a, b) => a[0].localeCompare(b[0])))
		console.log(`| ${family} | ${r.secrets} | ${pct(r.found, r.secrets)} | ${r.nonSecrets} | ${pct(r.flagged, r.nonSecrets)} |`);
	if (verbose) for (const m of misses) console.log(`    ${m}`);
}

async function main() {
	const data = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench");
	for (const file of ["gitleaks_tps_fps.jsonl", "secretlint_cases.jsonl"]) {
		const path = join(data, "secrets", file);
		if (!existsSync(path)) continue;
		const raw = readFileSync(path, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l) as { text: string; label: "secret" | "non-secret" });
		let toSecret = 0;
		let toNot = 0;
		let silent = 0;
		const samples = raw.map((s) => {
			const v = judge(s.text);
			if (v.verdict === "silent") {
				silent++;
				return { text: s.text, label: s.label, family: `policy silent (corpus label: ${s.label})` };
			}
			const label = v.verdict === "secret" ? ("secret" as const) : ("non-secret" as const);
			if (label !== s.label) label === "secret" ? toSecret++ : toNot++;
			if (verbose && label !== s.label) console.log(`    relabelled ${s.label} → ${label}: ${JSON.stringify(s.text).slice(0, 140)}`);
			return { text: s.text, label, family: v.verdict === "secret" ? v.family : `not: ${v.why}` };
		});
		const misses: string[] = [];
		const { total, byFamily } = await measure(samples, misses);
		print(
			`${file} (${raw.length} samples; by the policy ${toSecret} corpus "non-secret" are secrets, ${toNot} corpus "secret" are not, ${silent} left to the corpus label)`,
			total,
			byFamily,
			misses,
		);
	}
	// Per-family samples: labelled by the judge, which must agree with what each sample was written to be.
	const fam = familySamples();
	const disagreements = fam.filter((s) => (judge(s.text).verdict === "secret") !== (s.intended === "secret"));
	for (const d of disagreements)
		console.log(`    judge disagrees with the sample's intent [${d.family}]: ${JSON.stringify(d.text).slice(0, 140)}`);
	const famMisses: string[] = [];
	const famResult = await measure(
		fam.map((s) => ({ text: s.text, label: judge(s.text).verdict === "secret" ? "secret" : "non-secret", family: s.family })),
		famMisses,
	);
	print(
		`per-family samples (${fam.length}; judge disagrees with intent on ${disagreements.length})`,
		famResult.total,
		famResult.byFamily,
		famMisses,
	);

	// Ordinary transcript turns.
	const root = join(data, "transcripts");
	let turns = 0;
	let flagged = 0;
	if (existsSync(root))
		for (const kind of readdirSync(root))
			for (const file of readdirSync(join(root, kind))) {
				const result = normalise(await readRecords(readFileSync(join(root, kind, file), "utf8")), "auto");
				for (const turn of result.turns) {
					turns++;
					if ((await findSecrets(turn.text)).length > 0) flagged++;
				}
			}
	console.log(`\nordinary transcript turns flagged: ${flagged}/${turns} (${pct(flagged, turns)})`);
}

await main();
