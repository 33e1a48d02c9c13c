import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";

const CLI = resolve("cli/cairn.mjs");
const url = inject("cairnUrl");
const home = mkdtempSync(join(tmpdir(), "cairn-cli-home-"));
const repo = mkdtempSync(join(tmpdir(), "cairn-cli-repo-"));
const benchDir = resolve("../shared/bench/transcripts");
let key = "";
let projectId = "";

/** Runs the CLI as a user would: its own HOME and config dir, no inherited CAIRN_* variables. */
function cairn(args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) {
	const env: Record<string, string> = { PATH: process.env.PATH ?? "", HOME: home, XDG_CONFIG_HOME: join(home, ".config"), ...options.env };
	const started = Date.now();
	const run = spawnSync(process.execPath, [CLI, ...args], {
		cwd: options.cwd ?? repo,
		env,
		input: options.input ?? "",
		encoding: "utf8",
		timeout: 60_000,
	});
	return { status: run.status, stdout: run.stdout, stderr: run.stderr, ms: Date.now() - started };
}

async function api(method: string, path: string, body?: unknown, token = key) {
	const res = await fetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const type = res.headers.get("Content-Type") ?? "";
	return { status: res.status, body: type.includes("json") ? await res.json() : await res.text() };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely.
type Loose = Record<string, any>;

const listFiles = (dir: string, base = ""): string[] =>
	readdirSync(join(dir, base), { withFileTypes: true }).flatMap((e) =>
		e.isDirectory() ? listFiles(dir, join(base, e.name)) : [join(base, e.name)],
	);

beforeAll(async () => {
	const tenant = await api("POST", "/v1/admin/tenants", { name: "cli", user: "ada" }, inject("adminToken"));
	key = (tenant.body as { key: { token: string } }).key.token;
	spawnSync("git", ["init", "-q"], { cwd: repo });
	spawnSync("git", ["remote", "add", "origin", `git@github.com:acme/cli-${Date.now()}.git`], { cwd: repo });
});

describe("cairn CLI against a running Worker", () => {
	it("login → init → write → recall → view → export → clear → import round-trips the same memories", async () => {
		const login = cairn(["login", "--url", url, "--key", key]);
		expect(login.status, login.stderr).toBe(0);
		const configFile = join(home, ".config", "cairn", "config.json");
		expect(statSync(configFile).mode & 0o777).toBe(0o600);
		expect(cairn(["login", "--url", url, "--key", "cairn_bad_key"]).status).toBe(1);

		const init = cairn(["init"]);
		expect(init.status, init.stderr).toBe(0);
		projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
		expect(projectId).toMatch(/^prj_/);
		const effective = await api("GET", `/v1/projects/${projectId}/settings/effective`);
		expect((effective.body as Loose).settings["memories.enabled"]).toEqual({ value: true, source: "project" });

		// Memories written by an agent or a person through the API.
		expect(
			(
				await api("PUT", `/v1/projects/${projectId}/memories/testing`, {
					type: "feedback",
					description: "Integration tests use the real database",
					body: "Real DB; the in-memory fake hid a migration bug.",
				})
			).status,
		).toBe(201);
		expect(
			(
				await api("PUT", `/v1/projects/${projectId}/memories/deploys?scope=team`, {
					type: "project",
					description: "No deploys on Fridays: freeze from 12:00 UTC",
					body: "Deploy freeze from Friday 12:00 UTC.",
				})
			).status,
		).toBe(201);

		const recall = cairn(["recall", "should", "integration", "tests", "use", "the", "database"]);
		expect(recall.status, recall.stderr).toBe(0);
		expect(recall.stdout).toContain("testing (feedback, personal)");
		const view = cairn(["view"]);
		expect(view.stdout).toContain("memory://root/MEMORY.md");
		expect(view.stdout).toContain("testing");
		const status = cairn(["status"]);
		expect(status.stdout).toContain("memories: on (project)");

		const first = mkdtempSync(join(tmpdir(), "cairn-export-"));
		const exported = cairn(["export", first]);
		expect(exported.status, exported.stderr).toBe(0);
		expect(listFiles(first).sort()).toEqual(["MEMORY.md", "team/deploys.md", "testing.md"]);

		const clear = cairn(["clear", "--yes"]);
		expect(clear.status, clear.stderr).toBe(0);
		expect((await api("GET", `/v1/projects/${projectId}/memories`)).body).toMatchObject({ memories: [] });
		expect(cairn(["clear"]).status).toBe(1); // no terminal, no --yes: refused

		const imported = cairn(["import", first]);
		expect(imported.status, imported.stderr).toBe(0);
		expect(imported.stdout).toContain("imported 2 memories");
		const second = mkdtempSync(join(tmpdir(), "cairn-export-"));
		cairn(["export", second]);
		for (const file of ["testing.md", "team/deploys.md", "MEMORY.md"]) {
			expect(readFileSync(join(second, file), "utf8"), file).toBe(readFileSync(join(first, file), "utf8"));
		}
		const listed = (await api("GET", `/v1/projects/${projectId}/memories?scope=team`)).body as Loose;
		expect(listed.memories[0]).toMatchObject({ name: "deploys", source: "import" });
	});

	it("import reports files with bad frontmatter or a secret and imports the rest", () => {
		const dir = mkdtempSync(join(tmpdir(), "cairn-import-"));
		writeFileSync(join(dir, "good.md"), "---\nname: good\ndescription: Use pnpm\ntype: feedback\n---\n\nAlways pnpm.\n");
		writeFileSync(join(dir, "broken.md"), "no frontmatter here\n");
		writeFileSync(
			join(dir, "leak.md"),
			`---\nname: leak\ndescription: CI token\ntype: reference\n---\n\nghp_${"R8xk2LmQ9v".repeat(3)}Wz4Tb7\n`,
		);
		writeFileSync(join(dir, "MEMORY.md"), "# index, rebuilt by the service\n");
		const run = cairn(["import", dir]);
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).toContain("imported 1 memories");
		expect(run.stderr).toContain("skipped broken.md: no frontmatter");
		expect(run.stderr).toMatch(/skipped leak\.md: .*secret.*github/);
		expect(run.stderr).not.toContain("R8xk2LmQ9v");
	});
});

describe("hooks", () => {
	const payload = (event: string, transcript: string, session = "hook-session") =>
		JSON.stringify({
			session_id: session,
			transcript_path: transcript,
			cwd: repo,
			hook_event_name: event,
			source: "startup",
			permission_mode: "default",
		});

	it("session-start prints hook JSON whose additionalContext is the inject text", async () => {
		const run = cairn(["hook", "session-start"], { input: payload("SessionStart", join(repo, "none.jsonl")) });
		expect(run.status, run.stderr).toBe(0);
		const output = JSON.parse(run.stdout);
		const inject = (await api("POST", `/v1/projects/${projectId}/inject`, {})).body as { text: string };
		expect(output).toEqual({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: inject.text } });
	});

	it("with the service stopped, hooks exit 0 within 3 s with one line on stderr", () => {
		const run = cairn(["hook", "session-start"], {
			input: payload("SessionStart", ""),
			env: { CAIRN_URL: "http://127.0.0.1:9", CAIRN_KEY: key },
		});
		expect(run.status).toBe(0);
		expect(run.ms).toBeLessThan(3_000);
		expect(run.stdout).toBe("");
		expect(run.stderr.trim().split("\n").length).toBe(1);
		const bad = cairn(["hook", "ingest"], { input: "not json" });
		expect(bad.status).toBe(0);
	});

	it("ingest run twice on a growing copy of a transcript uploads only the new lines", async () => {
		const source = existsSync(join(benchDir, "claude"))
			? join(benchDir, "claude", readdirSync(join(benchDir, "claude")).sort()[0] as string)
			: resolve("test/fixtures/transcripts/claude-sidechain.jsonl");
		const lines = readFileSync(source, "utf8").split("\n").filter(Boolean);
		const half = Math.floor(lines.length / 2);
		const copy = join(repo, "growing.jsonl");
		const head = `${lines.slice(0, half).join("\n")}\n`;
		const tail = `${lines.slice(half).join("\n")}\n`;
		writeFileSync(copy, head);
		const env = { CAIRN_VERBOSE: "1" };
		const one = cairn(["hook", "ingest"], { input: payload("Stop", copy), env });
		expect(one.stderr).toContain(`uploaded ${Buffer.byteLength(head)} bytes`);
		appendFileSync(copy, tail);
		const two = cairn(["hook", "ingest"], { input: payload("Stop", copy), env });
		expect(two.stderr).toContain(`uploaded ${Buffer.byteLength(tail)} bytes`);
		const three = cairn(["hook", "ingest"], { input: payload("SessionEnd", copy), env });
		expect(three.stderr).toContain("uploaded 0 bytes, 0 new turns");
		// The session holds exactly the turns of the whole file, and SessionEnd ended it.
		const whole = await fetch(`${url}/v1/projects/${projectId}/sessions/reference/transcript`, {
			method: "POST",
			headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/x-ndjson" },
			body: readFileSync(source, "utf8"),
		});
		const reference = (await whole.json()) as { turns: number };
		const session = ((await api("GET", `/v1/projects/${projectId}/sessions/hook-session`)).body as Loose).session;
		expect(session.turns).toBe(reference.turns);
		expect(session.status).toBe("ended");
		const compact = cairn(["hook", "pre-compact"], { input: payload("PreCompact", copy) });
		expect(compact.status).toBe(0);
		expect((await api("GET", `/v1/projects/${projectId}/sessions/hook-session/memory`)).body).toContain("## Current state");
	});

	it("hooks install claude merges into settings.json; uninstall removes exactly what it added", () => {
		const settingsFile = join(repo, ".claude", "settings.json");
		mkdirSync(join(repo, ".claude"), { recursive: true });
		const original = {
			model: "opus",
			hooks: {
				Stop: [{ matcher: "", hooks: [{ type: "command", command: "say done" }] }],
				PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "lint" }] }],
			},
		};
		writeFileSync(settingsFile, JSON.stringify(original, null, 2));
		expect(cairn(["hooks", "install", "claude", "--project"]).status).toBe(0);
		const installed = JSON.parse(readFileSync(settingsFile, "utf8"));
		expect(Object.keys(installed.hooks).sort()).toEqual(["PreCompact", "PreToolUse", "SessionEnd", "SessionStart", "Stop"]);
		expect(installed.hooks.Stop).toHaveLength(2);
		expect(installed.hooks.Stop[0]).toEqual(original.hooks.Stop[0]);
		expect(installed.hooks.SessionStart[0].hooks[0].command).toMatch(/cairn\.mjs" hook session-start$/);
		expect(installed.model).toBe("opus");
		expect(cairn(["hooks", "install", "claude", "--project"]).stdout).toContain("already");
		expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual(installed);
		expect(cairn(["hooks", "uninstall", "claude", "--project"]).status).toBe(0);
		expect(JSON.parse(readFileSync(settingsFile, "utf8"))).toEqual(original);
	});

	it("codex: hooks install sets notify once and never clobbers; ingest uploads rollouts incrementally", async () => {
		const codexHome = join(home, ".codex");
		mkdirSync(codexHome, { recursive: true });
		writeFileSync(join(codexHome, "config.toml"), 'model = "gpt-5"\n\n[tui]\nnotifications = true\n');
		const env = { CODEX_HOME: codexHome };
		expect(cairn(["hooks", "install", "codex"], { env }).status).toBe(0);
		const toml = readFileSync(join(codexHome, "config.toml"), "utf8");
		expect(toml).toMatch(/^model = "gpt-5"\n\nnotify = \[".*", ".*cairn\.mjs", "hook", "codex-notify"\]\n\n\[tui\]/);
		expect(cairn(["hooks", "install", "codex"], { env }).stdout).toContain("already");
		expect(cairn(["hooks", "uninstall", "codex"], { env }).status).toBe(0);
		expect(readFileSync(join(codexHome, "config.toml"), "utf8")).toBe('model = "gpt-5"\n\n[tui]\nnotifications = true\n');
		writeFileSync(join(codexHome, "config.toml"), 'notify = ["my-notifier"]\n');
		const refused = cairn(["hooks", "install", "codex"], { env });
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain("already has notify");

		const sessions = join(codexHome, "sessions", "2026", "05", "11");
		mkdirSync(sessions, { recursive: true });
		const rollout = existsSync(join(benchDir, "codex"))
			? join(benchDir, "codex", readdirSync(join(benchDir, "codex")).sort()[0] as string)
			: resolve("test/fixtures/transcripts/codex-legacy.jsonl");
		writeFileSync(join(sessions, "rollout-test.jsonl"), readFileSync(rollout));
		const first = cairn(["ingest", join(codexHome, "sessions")], { env });
		expect(first.status, first.stderr).toBe(0);
		expect(Number(/uploaded (\d+) new turns/.exec(first.stdout)?.[1])).toBeGreaterThan(0);
		expect(cairn(["ingest", join(codexHome, "sessions")], { env }).stdout).toContain("uploaded 0 new turns");
	});
});
