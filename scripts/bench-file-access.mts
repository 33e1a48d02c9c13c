// `npx tsx scripts/bench-file-access.mts`: what reading the files tool calls touched adds to ingest, per
// pass over the reference transcripts (CAIRN_BENCH_DATA, ../shared/bench): the whole parse (which
// includes it), the detection alone over every tool call's input, the secret scan of the paths found,
// and, for scale, the redaction of the turns' texts that ingest already runs. N passes (100), after one warm-up.
import { readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { detectFileAccess, dropSecretPaths } from "../src/ingest/file-access";
import { redactTurns } from "../src/ingest/ingest";
import { normalise, readRecords } from "../src/ingest/parse";

const dir = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench", "transcripts");
const N = Number(process.env.N ?? 100);
const files = readdirSync(dir).flatMap((d) => readdirSync(`${dir}/${d}`).map((f) => `${dir}/${d}/${f}`));
const ms = { parse: 0, detect: 0, secretScanOfPaths: 0, redactTexts: 0 };
let turns = 0;
let calls = 0;
let withFiles = 0;

async function time(key: keyof typeof ms, fn: () => unknown) {
	await fn();
	const t = performance.now();
	for (let i = 0; i < N; i++) await fn();
	ms[key] += (performance.now() - t) / N;
}

for (const f of files) {
	const records = await readRecords(readFileSync(f, "utf8"));
	const inputs: [string, unknown][] = [];
	for (const { value } of records) {
		const p = (typeof value.payload === "object" && value.payload ? value.payload : value) as Record<string, unknown>;
		if (p.type === "function_call") inputs.push([String(p.name), p.arguments]);
		if (p.type === "custom_tool_call") inputs.push([String(p.name), p.input]);
		const content = (value.message as { content?: unknown } | undefined)?.content;
		if (Array.isArray(content)) for (const b of content) if (b?.type === "tool_use") inputs.push([String(b.name), b.input]);
	}
	const parsed = normalise(records, "auto");
	turns += parsed.turns.length;
	calls += inputs.length;
	withFiles += parsed.turns.filter((t) => t.files).length;
	await time("parse", () => normalise(records, "auto"));
	await time("detect", () => {
		for (const [name, input] of inputs) detectFileAccess(name, input);
	});
	await time("secretScanOfPaths", () => dropSecretPaths(parsed.turns.map((t) => ({ ...(t.files ? { files: [...t.files] } : {}) }))));
	await time("redactTexts", () => redactTurns(parsed.turns.map((t) => ({ text: t.text }))));
}
const round = (x: number) => Math.round(x * 100) / 100;
console.log(
	JSON.stringify({
		transcripts: files.length,
		turns,
		toolCalls: calls,
		turnsWithFiles: withFiles,
		msPerPass: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, round(v)])),
	}),
);
