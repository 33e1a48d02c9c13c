// `npm run test:mutations`: breaks, one at a time, each claim the tests once could not fail on, runs the
// tests that guard it, and expects them to fail. A mutation the tests do not catch (they still pass) is a
// test that cannot fail. Every file is put back whatever happens. Writes a vitest-style JSON summary
// (CAIRN_MUTATIONS_JSON) so CI counts each mutation caught as a test passed and each survivor as one failed.
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

/**
 * Each mutation: what it breaks, the file and the one place changed (`from` must occur exactly once),
 * and the tests (vitest project, files, optional name filter) that must fail on it.
 */
const MUTATIONS = [
	{
		claim: "a wait that is never met fails",
		file: "bench/extraction-eval.ts",
		from: "if (Date.now() >= end) throw new Error(",
		to: "if (Date.now() >= end) return value; if (Math.random() > 2) throw new Error(",
		project: "worker",
		tests: ["test/harness-unit.test.ts"],
	},
	{
		claim: "a session is not handed the same memory twice, as a file or as a line (onlyNew)",
		file: "src/recall/recall.ts",
		from: "if (request.session?.onlyNew) for (const name of shown) exclude.add(name);",
		to: "if (request.session?.onlyNew) for (const name of shown) void name;",
		also: [
			{ from: "leaveOut: request.session.onlyNew,", to: "leaveOut: false," },
			{ from: "const listed = new Set(candidates.listed ?? []);", to: "const listed = new Set<string>();" },
		],
		project: "worker",
		tests: ["test/user-isolation-integration.test.ts"],
	},
	{
		claim: "the transcript tests fail when the bench transcripts are missing",
		file: "test/bench-transcripts.ts",
		from: '"../../shared/bench/transcripts/*/*.jsonl"',
		to: '"../../shared/bench/transcripts-moved-away/*/*.jsonl"',
		project: "worker",
		tests: ["test/ingest-unit.test.ts"],
	},
	{
		claim: "a data-driven test over an empty table fails",
		file: "test/ingest-unit.test.ts",
		from: "it.each(files)(",
		to: "it.each(files.slice(0, 0))(",
		project: "worker",
		tests: ["test/ingest-unit.test.ts"],
	},
	{
		claim: "a secret family's test names the rule that must fire",
		file: "src/security/secret-rules.ts",
		from: 'token("github-token", ',
		to: 'token("gitlab-token", ',
		project: "worker",
		tests: ["test/secrets-families-unit.test.ts"],
	},
	{
		claim: "a project's object is bound to its project and refuses any other",
		file: "src/project/object.ts",
		from: "if (this.boundProject === projectId) return;",
		to: "return;",
		project: "worker",
		tests: ["test/isolation-integration.test.ts"],
		filter: "one object per project",
	},
	{
		claim: "citations are read back from memories stored before citations existed",
		file: "src/text/citations.ts",
		from: "export function backfillCitations(sql: SqlStorage): void {",
		to: "export function backfillCitations(sql: SqlStorage): void {\n\treturn;",
		project: "worker",
		tests: ["test/code-citations-integration.test.ts"],
		filter: "before citations existed",
	},
	{
		claim: "a prompt hook returns within its 1.4 s budget",
		file: "packages/cli/lib/hook-output.mjs",
		from: 'event === "UserPromptSubmit" ? 1400 : 2800',
		to: 'event === "UserPromptSubmit" ? 3000 : 2800',
		project: "cli",
		tests: ["packages/cli/test/cli.test.ts"],
		filter: "budget",
	},
	{
		claim: "a test with no assertion fails CI",
		file: "test/harness-unit.test.ts",
		from: 'describe("data-driven tests", () => {',
		to: 'describe("data-driven tests", () => {\n\tit("checks nothing", async () => {\n\t\tawait Promise.resolve();\n\t});',

		project: "node",
		tests: ["test/node/assertions.test.ts"],
	},
	{
		claim: "a prompt that asks about a kind of fact gets that kind's topic line",
		file: "src/inject/inject.ts",
		from: "const kinds = kindsNamedBy(query).slice(0, PROMPT_KIND_TOPICS);",
		to: "const kinds = kindsNamedBy(query).slice(0, 0);",
		project: "worker",
		tests: ["test/fact-kinds.test.ts"],
	},
	{
		claim: "recall's first guesses are offered as lines on fainter evidence",
		file: "src/recall/recall.ts",
		from: "(offerableSet.has(m) || (top.has(m) && faint.has(m)))",
		to: "(offerableSet.has(m) || false)",
		project: "worker",
		tests: ["test/prompt-recall-integration.test.ts"],
	},
	{
		claim: "a start-block line opening a section is charged exactly what it adds to its part",
		file: "src/inject/start-parts.ts",
		from: "trialChars = open.chars + item.text.length;",
		to: "trialChars = open.chars + item.text.length - 1;",
		project: "worker",
		tests: ["test/start-parts.test.ts"],
	},
	{
		claim: "a clear forgets the summary the object kept",
		file: "src/memory/clear.ts",
		from: "\tforgetStoredSummaries(projectPrefix(ctx.tenantId, ctx.projectId));\n\tconst objects = await deletePrefix(env.FILES, projectPrefix(ctx.tenantId, ctx.projectId));\n\tforgetStoredSummaries(projectPrefix(ctx.tenantId, ctx.projectId));",
		to: "\tconst objects = await deletePrefix(env.FILES, projectPrefix(ctx.tenantId, ctx.projectId));",
		project: "worker",
		tests: ["test/memory-commands-integration.test.ts"],
	},
	{
		claim: "a start part waiting in the object is answered the moment the layout is kept",
		file: "src/project/object.ts",
		from: "for (const wake of waiting ?? []) wake();",
		to: "void waiting;",
		project: "worker",
		tests: ["test/start-parts.test.ts"],
	},
];

/** Replaces `from` with `to` in `text`, insisting it occurs exactly once. */
function replaceOnce(text, from, to, file) {
	const at = text.indexOf(from);
	if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`${file}: the mutation's text must occur exactly once: ${from}`);
	return text.slice(0, at) + to + text.slice(at + from.length);
}

const only = process.argv.slice(2);
const results = [];
for (const m of MUTATIONS) {
	if (only.length && !only.some((o) => m.claim.includes(o))) continue;
	const original = readFileSync(m.file, "utf8");
	let mutated = replaceOnce(original, m.from, m.to, m.file);
	for (const extra of m.also ?? []) mutated = replaceOnce(mutated, extra.from, extra.to, m.file);
	const started = Date.now();
	let run;
	try {
		writeFileSync(m.file, mutated);
		const args = ["vitest", "run", "--project", m.project, ...m.tests, ...(m.filter ? ["-t", m.filter] : [])];
		run = spawnSync("npx", args, { encoding: "utf8", env: { ...process.env, CI: "1" } });
	} finally {
		writeFileSync(m.file, original);
	}
	const caught = run.status !== 0 && /\b\d+ failed\b|FAIL/.test(`${run.stdout}${run.stderr}`);
	const seconds = ((Date.now() - started) / 1000).toFixed(0);
	console.log(`${caught ? "caught  " : "SURVIVED"} ${m.claim} (${m.file}; ${m.tests.join(", ")}; ${seconds} s)`);
	if (!caught) console.log(`${run.stdout}\n${run.stderr}`.split("\n").slice(-30).join("\n"));
	results.push({ title: m.claim, status: caught ? "passed" : "failed" });
}

const failed = results.filter((r) => r.status === "failed").length;
console.log(`${results.length - failed} of ${results.length} mutations caught`);
if (process.env.CAIRN_MUTATIONS_JSON) {
	writeFileSync(
		process.env.CAIRN_MUTATIONS_JSON,
		JSON.stringify({
			success: failed === 0,
			numTotalTests: results.length,
			numPassedTests: results.length - failed,
			numFailedTests: failed,
			testResults: [{ name: "scripts/mutations.mjs", status: failed ? "failed" : "passed", assertionResults: results }],
		}),
	);
}
process.exit(failed ? 1 : 0);
