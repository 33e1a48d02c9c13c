// `CAIRN_BENCH_HOOKS=cited npm run bench:hooks`: the session-start and prompt hooks' wall time for a
// project whose memories cite code — 1,000 memories citing 2,000 paths of a real git repository (2,000
// files, then a commit that changes 40, deletes 10 and renames 10) — beside a bare `node -e 0`, and
// beside the same hooks of the CLI as it was before the check (CAIRN_BENCH_BEFORE_CLI: a `cairn.mjs` of
// an earlier checkout, e.g. extracted with `git archive <commit> packages/cli | tar -x -C /tmp/before`).
// Each run is a new process on the machine's own Node with a new session, against a running service
// (`npm start`, or CAIRN_URL). Prints the numbers and writes them into docs/benchmarks.md between the
// cited-hooks markers.
//
// Knobs: CAIRN_URL, CAIRN_ADMIN_TOKEN (as bench-hooks.mjs), CAIRN_BENCH_RUNS (20), CAIRN_BENCH_NODE,
// CAIRN_BENCH_BEFORE_CLI.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { operatorToken, serviceUrl } from "./bench/local-service.mjs";

const MEMORIES = 1000;
const FILES = 2000;
const url = serviceUrl;
const runs = Number(process.env.CAIRN_BENCH_RUNS ?? 20);
const adminToken = operatorToken();
const node =
	process.env.CAIRN_BENCH_NODE ??
	(spawnSync("which", ["-a", "node"], { encoding: "utf8" })
		.stdout.split("\n")
		.map((p) => p.trim())
		.find((p) => p && !p.includes("node_modules")) ||
		process.execPath);
const nodeVersion = spawnSync(node, ["--version"], { encoding: "utf8" }).stdout.trim();
const CLI = resolve("packages/cli/cairn.mjs");
const BEFORE = process.env.CAIRN_BENCH_BEFORE_CLI ? resolve(process.env.CAIRN_BENCH_BEFORE_CLI) : null;

const request = async (method, path, body, token) => {
	const res = await fetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
		body: JSON.stringify(body),
	});
	if (!res.ok) throw new Error(`${path}: HTTP ${res.status} ${await res.text()}`);
	return res.json();
};

// The repository: 2,000 files in 100 modules, one commit.
const home = mkdtempSync(join(tmpdir(), "cairn-bench-cited-"));
const repo = mkdtempSync(join(tmpdir(), "cairn-bench-cited-repo-"));
const git = (args, env = {}) => {
	const r = spawnSync("git", ["-c", "user.name=b", "-c", "user.email=b@example.com", ...args], {
		cwd: repo,
		encoding: "utf8",
		env: { ...process.env, ...env },
	});
	if (r.status !== 0) throw new Error(`git ${args[0]}: ${r.stderr}`);
	return r.stdout;
};
const pathOf = (i) => `src/module${String(Math.floor(i / 20)).padStart(3, "0")}/part${String(i % 20).padStart(2, "0")}.ts`;
git(["init", "-q", "-b", "main"]);
git(["remote", "add", "origin", `git@github.com:bench/cited-${Date.now()}.git`]);
for (let i = 0; i < FILES; i++) {
	mkdirSync(join(repo, pathOf(i), ".."), { recursive: true });
	writeFileSync(join(repo, pathOf(i)), `export const VALUE_${i} = ${i};\n`);
}
git(["add", "."]);
git(["commit", "-q", "-m", "Two thousand files"]);

const env = { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config") };
const key = (await request("POST", "/v1/admin/tenants", { name: `bench-cited-${Date.now()}`, user: "ada" }, adminToken)).key.token;
const cli = (args, input = "") => spawnSync(node, [CLI, ...args], { cwd: repo, env, input, encoding: "utf8" });
for (const step of [["login", "--url", url, "--key", key], ["init"]]) {
	const r = cli(step);
	if (r.status !== 0) throw new Error(`cairn ${step[0]}: ${r.stderr}`);
}
const projectId = /project (\S+)/.exec(cli(["status"]).stdout)?.[1];

// 1,000 memories, each naming two of the files in its text (the citations are read from it), in batches.
for (let start = 0; start < MEMORIES; start += 100) {
	const memories = [];
	for (let i = start; i < Math.min(MEMORIES, start + 100); i++) {
		const [a, b] = [pathOf(2 * i), pathOf(2 * i + 1)];
		memories.push({
			name: `module-fact-${i}`,
			type: i % 4 === 0 ? "feedback" : "project",
			description: `How VALUE_${2 * i} and VALUE_${2 * i + 1} are set in module ${Math.floor((2 * i) / 20)}`,
			body: `VALUE_${2 * i} in ${a} is ${2 * i}; VALUE_${2 * i + 1} in ${b} follows it.`,
		});
	}
	const res = await request("POST", `/v1/projects/${projectId}/memories/batch`, { memories }, key);
	const failed = (res.results ?? []).filter((r) => r.status === "error");
	if (failed.length) throw new Error(`batch: ${failed.length} failed`);
}
const cited = await request("GET", `/v1/projects/${projectId}/citations`, undefined, key);
if (cited.paths?.length !== FILES) throw new Error(`expected ${FILES} cited paths, the service lists ${cited.paths?.length}`);

// Then the code moves on, in a commit dated after every memory: 40 files changed, 10 deleted, 10 renamed.
for (let i = 0; i < 40; i++) writeFileSync(join(repo, pathOf(i * 37)), `export const VALUE_${i * 37} = -1;\n`);
for (let i = 0; i < 10; i++) git(["rm", "-q", pathOf(1001 + i * 41)]);
for (let i = 0; i < 10; i++) {
	const from = pathOf(1500 + i * 43);
	renameSync(join(repo, from), join(repo, from.replace(".ts", "-renamed.ts")));
}
git(["add", "-A"]);
const later = new Date(Date.now() + 60_000).toISOString();
git(["commit", "-q", "-m", "Change, delete and rename some files"], { GIT_COMMITTER_DATE: later, GIT_AUTHOR_DATE: later });

const time = (args, input) => {
	const started = process.hrtime.bigint();
	const r = spawnSync(node, args, { cwd: repo, env, input, encoding: "utf8" });
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	if (r.status !== 0) throw new Error(`${args.join(" ")}: exit ${r.status}: ${r.stderr}`);
	return { ms, stdout: r.stdout, stderr: r.stderr };
};
const startPayload = (i) =>
	JSON.stringify({
		session_id: `bench-start-${Date.now()}-${i}`,
		transcript_path: join(home, "none.jsonl"),
		cwd: repo,
		permission_mode: "default",
		hook_event_name: "SessionStart",
		source: "startup",
	});
const prompts = ["what is VALUE_74 in module 3?", "where is VALUE_1501 set?", "rename the module 80 values", "what does module 40 hold?"];
const promptPayload = (i) =>
	JSON.stringify({
		session_id: `bench-prompt-${Date.now()}-${i}`,
		transcript_path: join(home, "none.jsonl"),
		cwd: repo,
		permission_mode: "default",
		hook_event_name: "UserPromptSubmit",
		prompt: prompts[i % prompts.length],
	});
const hookArgs = (cli, sub) => [cli, "hook", sub, "--agent", "claude"];

// The first session start sets the blobs at write time (history read once); the runs after are steady state.
const first = time(hookArgs(CLI, "session-start"), startPayload(-1));
const marked = (first.stdout.match(/since this was written/g) ?? []).length;
for (let i = 0; i < 3; i++) {
	time(["-e", "0"], "");
	for (const c of [CLI, ...(BEFORE ? [BEFORE] : [])]) {
		time(hookArgs(c, "session-start"), startPayload(i));
		time(hookArgs(c, "user-prompt-submit"), promptPayload(i));
	}
}
const samples = { bare: [], start: [], prompt: [], startBefore: [], promptBefore: [] };
let problems = 0;
for (let i = 0; i < runs; i++) {
	// Side by side, alternating, so load on the machine weighs on all alike.
	samples.bare.push(time(["-e", "0"], "").ms);
	const s = time(hookArgs(CLI, "session-start"), startPayload(i));
	const p = time(hookArgs(CLI, "user-prompt-submit"), promptPayload(i));
	samples.start.push(s.ms);
	samples.prompt.push(p.ms);
	if (s.stderr || p.stderr) problems++;
	if (BEFORE) {
		samples.startBefore.push(time(hookArgs(BEFORE, "session-start"), startPayload(i)).ms);
		samples.promptBefore.push(time(hookArgs(BEFORE, "user-prompt-submit"), promptPayload(i)).ms);
	}
}
const pct = (xs, p) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const f = (ms) => `${ms.toFixed(0)} ms`;
const row = (label, xs) => `| ${label} | ${f(pct(xs, 50))} | ${f(pct(xs, 95))} | ${f(Math.min(...xs))} |`;
const lines = [
	"<!-- hooks-cited:start -->",
	"## Hooks with cited code: 1,000 memories citing 2,000 paths",
	"",
	`\`CAIRN_BENCH_HOOKS=cited npm run bench:hooks\`: a git repository of ${FILES} files, ${MEMORIES} memories each naming two of them ` +
		`(citations read from their text), then a commit that changes 40 files, deletes 10 and renames 10. \`cairn hook session-start\` ` +
		`and \`cairn hook user-prompt-submit\` started as Claude Code starts them (a new process on ${nodeVersion}, a new session each run) ` +
		`against ${url}; ${runs} runs, each beside a bare \`node -e 0\`${BEFORE ? " and the same hooks of the CLI before the check" : ""} in the same loop. ` +
		`${cpus().length} cores, load ${loadavg()[0].toFixed(2)}.`,
	"",
	"| | p50 | p95 | min |",
	"|---|---|---|---|",
	row("`node -e 0`", samples.bare),
	...(BEFORE ? [row("session start, before", samples.startBefore)] : []),
	row("session start, with the check", samples.start),
	...(BEFORE ? [row("prompt hook, before", samples.promptBefore)] : []),
	row("prompt hook, with the check", samples.prompt),
	...(BEFORE
		? [
				`| session start: with − before (p50) | ${f(pct(samples.start, 50) - pct(samples.startBefore, 50))} | | |`,
				`| prompt hook: with − before (p50) | ${f(pct(samples.prompt, 50) - pct(samples.promptBefore, 50))} | | |`,
			]
		: []),
	"",
	`Targets: session start within +20 ms of before at p50, the prompt hook within +10 ms. The first session start (history read ` +
		`for the blobs at write time) took ${f(first.ms)} and its block marked ${marked} memories; ${problems} runs wrote a problem to stderr.`,
	"<!-- hooks-cited:end -->",
];
console.log(lines.slice(1, -1).join("\n"));
const doc = "docs/benchmarks.md";
const text = readFileSync(doc, "utf8");
const block = lines.join("\n");
const markers = /<!-- hooks-cited:start -->[\s\S]*<!-- hooks-cited:end -->/;
writeFileSync(doc, markers.test(text) ? text.replace(markers, block) : `${text.trimEnd()}\n\n${block}\n`);
console.log(`\nwrote the cited-code hooks section of ${doc}`);
