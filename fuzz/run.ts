// `npm run fuzz`: runs the OpenAPI-driven fuzzer inside workerd (fuzz/worker.fuzz.ts through
// vitest.fuzz.config.ts), prints the result and rewrites the figures section of docs/reliability.md.
// Knobs: CAIRN_FUZZ_SEED (1), CAIRN_FUZZ_COUNT (10,000 requests), CAIRN_FUZZ_NO_DOC=1 (print only).
// Exits 1 when a 5xx or an invariant violation was seen (after writing the doc).
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { dirname, resolve } from "node:path";
import type { FuzzResult } from "./core";

const SEED = Number(process.env.CAIRN_FUZZ_SEED ?? 1);
const COUNT = Number(process.env.CAIRN_FUZZ_COUNT ?? 10_000);
if (!Number.isInteger(SEED) || !Number.isInteger(COUNT) || COUNT < 200)
	throw new Error("CAIRN_FUZZ_SEED: integer; CAIRN_FUZZ_COUNT: integer ≥ 200");
const DOC = resolve("docs/reliability.md");
const START = "<!-- fuzz:figures:start -->";
const END = "<!-- fuzz:figures:end -->";

console.log(`fuzzing the Worker in workerd: seed ${SEED}, ${COUNT} requests…`);
const started = performance.now();
const { stdout, stderr, code } = await new Promise<{ stdout: string; stderr: string; code: number | null }>((done, fail) => {
	const child = spawn("npx", ["vitest", "run", "--config", "vitest.fuzz.config.ts"], {
		env: { ...process.env, CAIRN_FUZZ_SEED: String(SEED), CAIRN_FUZZ_COUNT: String(COUNT), VITE_CONFIG_NATIVE_IGNORE_WARNING: "true" },
	});
	let out = "";
	let err = "";
	child.stdout.on("data", (d: Buffer) => {
		out += d;
		for (const line of String(d).split("\n")) if (line.includes("[fuzz]")) console.log(line.slice(line.indexOf("[fuzz]")));
	});
	child.stderr.on("data", (d: Buffer) => {
		err += d;
	});
	child.on("error", fail);
	child.on("close", (c) => done({ stdout: out, stderr: err, code: c }));
});
const marker = "CAIRN_FUZZ_RESULT ";
const line = stdout.split("\n").find((l) => l.includes(marker));
if (!line) {
	console.error(`the fuzzer did not report (exit ${code}):\n${stdout.slice(-4000)}\n${stderr.slice(-4000)}`);
	process.exit(1);
}
const result = JSON.parse(line.slice(line.indexOf(marker) + marker.length)) as FuzzResult;
const minutes = (performance.now() - started) / 60_000;

const n = (x: number) => x.toLocaleString("en-US");
const statuses = Object.entries(result.histogram).sort(([a], [b]) => Number(a) - Number(b));
const violationsOf = (inv: string) => result.violations.filter((v) => v.invariant === inv);
const finding = (inv: string, clean: string) => {
	const t = result.checks[inv] ?? { checked: 0, violations: 0 };
	if (t.violations === 0) return `${n(t.checked)} checks, 0 violations — ${clean}`;
	const first = violationsOf(inv)
		.slice(0, 3)
		.map((v) => `\`${v.method} ${v.route}\` → ${v.status} (${v.detail.replace(/\|/g, "\\|").replace(/\n/g, " ").slice(0, 160)})`)
		.join("; ");
	return `${n(t.checked)} checks, **${n(t.violations)} violations** — e.g. ${first}`;
};
const slow = result.slowest[0];
const figures = [
	START,
	"",
	`Last run: seed ${result.seed}, ${n(result.requested)} requests asked for, **${n(result.sent)} sent** across ${result.operations} operations of the OpenAPI document, in ${(result.durationMs / 1000).toFixed(1)} s inside workerd (${minutes.toFixed(1)} min with start-up; ${cpus().length} CPUs). Reproduce: \`CAIRN_FUZZ_SEED=${result.seed} CAIRN_FUZZ_COUNT=${result.requested} npm run fuzz\`.`,
	"",
	"| Status | Responses |",
	"| --- | ---: |",
	...statuses.map(([s, c]) => `| ${s} | ${n(c)} |`),
	"",
	`**5xx seen: ${result.fiveXX.length}** (goal 0).${
		result.fiveXX.length
			? ` First: ${result.fiveXX
					.slice(0, 3)
					.map((v) => `\`${v.method} ${v.path.slice(0, 120)}\` → ${v.status}`)
					.join("; ")}`
			: ""
	}`,
	"",
	`Slowest request: \`${slow?.method} ${slow?.route}\` — ${slow?.ms} ms (status ${slow?.status}). Slowest of the next routes: ${result.slowest
		.slice(1)
		.map((s) => `\`${s.method} ${s.route}\` ${s.ms} ms`)
		.join(", ")}.`,
	"",
	"| Invariant | Result |",
	"| --- | --- |",
	`| No 5xx | ${finding("no-5xx", "every response below 500")} |`,
	`| Stable error body | ${finding("error-shape", 'every 4xx is exactly {"error":{"code","message","details"?}}')} |`,
	`| No echo of input | ${finding("no-echo", "no 4xx body (nor batch item error) carried the marker planted in paths, queries, headers and bodies")} |`,
	`| Tenant isolation | ${finding("tenant-isolation", "no response carried another tenant's canary")} |`,
	`| User isolation | ${finding("user-isolation", "no response carried another user's personal canary")} |`,
	`| Foreign project is 404 | ${finding("cross-tenant-404", "every request on another tenant's project looked like a missing one")} |`,
	`| MEMORY.md well-formed | ${finding("index-well-formed", "every index read was one line per entry, within 200 lines and 25,000 bytes")} |`,
	`| No secret stored | ${finding("no-secret-stored", "no planted secret came back in any later response")} |`,
	`| History consistent | ${finding("history-consistent", "after every concurrent storm, versions contiguous and current = latest entry")} |`,
	`| Canaries intact | ${finding("canaries-intact", "the owners could still read their own canaries at the end, so the isolation checks were live")} |`,
	`| Prototype inert | ${finding("prototype-inert", "Object.prototype unchanged after every request carrying a prototype member's name, every settings patch keyed by one refused, only known keys stored")} |`,
	"",
	...result.notes.map((x) => `- ${x}`),
	"",
	END,
].join("\n");

if (process.env.CAIRN_FUZZ_NO_DOC === "1") console.log(figures);
else {
	const current = existsSync(DOC) ? readFileSync(DOC, "utf8") : `# Reliability\n\n${START}\n${END}\n`;
	const a = current.indexOf(START);
	const b = current.indexOf(END);
	const next =
		a >= 0 && b > a ? `${current.slice(0, a)}${figures}${current.slice(b + END.length)}` : `${current.trimEnd()}\n\n${figures}\n`;
	mkdirSync(dirname(DOC), { recursive: true });
	writeFileSync(DOC, next);
	console.log(figures);
	console.log("\nwrote docs/reliability.md");
}
if (result.violations.length > 0 || result.fiveXX.length > 0) {
	console.error(`\n${result.violations.length} violation(s):`);
	for (const v of result.violations.slice(0, 30))
		console.error(
			`  [${v.invariant}] step ${v.step} ${v.method} ${v.path.slice(0, 160)} → ${v.status}: ${v.detail.slice(0, 200)}\n      ${v.request ?? ""}`,
		);
	process.exit(1);
}
