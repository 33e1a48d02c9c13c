// `cairn setup` then `cairn doctor` on a fresh home against the running Worker: everything in place and
// every check passing; then each check made to fail, with its fix printed and exit code 1. (Codex's
// trust check runs against the real Codex in agents/agents.test.ts.)
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { gitRepo, type Loose, machine, slowService, url } from "./helpers.ts";

const adminToken = inject("adminToken");
const user = machine();
const repo = gitRepo(`git@github.com:acme/doctor-${Date.now()}.git`);
const cairn = (args: string[], env: Record<string, string> = {}, cwd = repo) => user.run(args, { cwd, env });
/** The doctor's line for one check, and the fix printed under it. */
const line = (stdout: string, name: string) => {
	const lines = stdout.split("\n");
	const at = lines.findIndex((l) => new RegExp(`^(ok  |skip|FAIL)  ${name} `).test(l));
	return { line: lines[at] ?? "", fix: /^\s+fix: /.test(lines[at + 1] ?? "") ? (lines[at + 1] ?? "").trim() : "" };
};

beforeAll(() => {
	const setup = cairn(["setup", "--url", url, "--admin-token", adminToken, "--name", "doctor-tenant"]);
	expect(setup.status, setup.stderr).toBe(0);
	expect(setup.stdout).toContain("created tenant doctor-tenant");
	expect(setup.stdout).toContain("memories are on");
	expect(setup.stdout).toMatch(/open (Codex|it), run \/hooks and trust Cairn's hooks \(9, the session start's 3 among them\)\./);
	expect(setup.stdout).toContain("Codex: 9 hooks in");
});

describe("cairn setup", () => {
	it("logs in, registers the repository with memory on, installs Claude Code and Codex hooks and Codex's MCP entry; records no trust", () => {
		const config = JSON.parse(readFileSync(join(user.home, ".config", "cairn", "config.json"), "utf8"));
		expect(config.url).toBe(url);
		expect(config.key).toMatch(/^cairn_/);
		expect(Object.keys(config.projects)).toHaveLength(1);
		const claude = JSON.parse(readFileSync(join(user.home, ".claude", "settings.json"), "utf8"));
		expect(Object.keys(claude.hooks).sort()).toEqual([
			"PostToolUse",
			"PreCompact",
			"SessionEnd",
			"SessionStart",
			"Stop",
			"SubagentStop",
			"UserPromptSubmit",
		]);
		// The session-start block in three parts, one hook each, for both agents.
		const parts = (file: string) => (JSON.parse(readFileSync(file, "utf8")).hooks.SessionStart as Loose[]).flatMap((g) => g.hooks);
		for (const [file, agent] of [
			[join(user.home, ".claude", "settings.json"), "claude"],
			[join(user.home, ".codex", "hooks.json"), "codex"],
		])
			expect(parts(file).map((h: Loose) => h.command.replace(/^.* hook /, "hook "))).toEqual(
				[1, 2, 3].map((i) => `hook session-start --agent ${agent} --part ${i}/3`),
			);
		const toml = readFileSync(join(user.home, ".codex", "config.toml"), "utf8");
		expect(toml).toContain(`[mcp_servers.cairn]\nurl = "${url}/mcp"\nbearer_token_env_var = "CAIRN_KEY"`);
		expect(toml).not.toContain("trusted_hash");
		expect(toml).not.toContain(config.key);
	});

	it("uses the operator token against a local service only, and says what is missing", () => {
		const remote = machine().run(["setup", "--url", "https://cairn.example.com", "--admin-token", "x"], { cwd: repo });
		expect(remote.status).toBe(1);
		expect(remote.stderr).toContain("is not a local service: pass the key your admin gave you with --key");
		const wrong = machine().run(["setup", "--url", url, "--admin-token", "not-the-token"], { cwd: repo });
		expect(wrong.status).toBe(1);
		expect(wrong.stderr).toContain(
			`the operator token given with --admin-token was refused by ${url}: it is the CAIRN_ADMIN_TOKEN of the running service (restart \`npm start\` after changing .dev.vars), or pass the key you have with --key`,
		);
	});
});

describe("cairn doctor", () => {
	it("passes after setup", () => {
		const doctor = cairn(["doctor"]);
		expect(doctor.status, doctor.stdout).toBe(0);
		for (const name of ["login", "service", "key", "project", "claude hooks", "codex hooks", "uploads", "injection"])
			expect(line(doctor.stdout, name).line, name).toMatch(/^ok /);
		expect(line(doctor.stdout, "service").line).toContain(`console ${url}/console`);
		expect(doctor.stdout).toContain("all checks passed");
	});

	it("not logged in: fails with the setup command as the fix", () => {
		const fresh = machine().run(["doctor"], { cwd: repo });
		expect(fresh.status).toBe(1);
		expect(line(fresh.stdout, "login").fix).toBe("fix: run `cairn setup` (a local `npm start`) or `cairn login --url <url> --key <key>`");
	});

	it("checks the URL and key it is given instead of the saved login", () => {
		const config = JSON.parse(readFileSync(join(user.home, ".config", "cairn", "config.json"), "utf8"));
		const given = machine().run(["doctor", "--url", url, "--key", config.key], { cwd: repo });
		expect(line(given.stdout, "login").line).toBe(`ok    login         ${url} (as given on the command line)`);
		expect(line(given.stdout, "service").line).toContain(`${url} answers; console ${url}/console`);
		expect(line(given.stdout, "key").line).toMatch(/^ok /);
		const elsewhere = cairn(["doctor", "--url", "http://127.0.0.1:9"]);
		expect(elsewhere.status).toBe(1);
		expect(line(elsewhere.stdout, "service").line).toContain("http://127.0.0.1:9 does not answer");
	});

	it("service down: says to start it or fix the URL", () => {
		const down = cairn(["doctor"], { CAIRN_URL: "http://127.0.0.1:9" });
		expect(down.status).toBe(1);
		expect(line(down.stdout, "service").line).toContain("FAIL  service");
		expect(line(down.stdout, "service").fix).toContain("start the service (`npm start` in the Cairn checkout)");
	});

	it("key refused: says where the key came from and how to replace it", () => {
		const bad = cairn(["doctor"], { CAIRN_KEY: "cairn_not_a_real_key" });
		expect(bad.status).toBe(1);
		expect(line(bad.stdout, "key").line).toContain("refused (unauthorized)");
		expect(line(bad.stdout, "key").fix).toContain("the key came from CAIRN_KEY in the environment, which overrides the saved login");
	});

	it("a repository not set up, then one with memory off: says to run cairn init", async () => {
		const other = gitRepo(`git@github.com:acme/doctor-other-${Date.now()}.git`);
		const unregistered = cairn(["doctor"], {}, other);
		expect(unregistered.status).toBe(1);
		expect(line(unregistered.stdout, "project").line).toContain(`${other} is not registered under this login`);
		expect(line(unregistered.stdout, "project").fix).toBe(
			"fix: run `cairn init` in this repository (it finds the project the key's tenant has for it, or registers one)",
		);
		const config = JSON.parse(readFileSync(join(user.home, ".config", "cairn", "config.json"), "utf8"));
		const id = Object.values(config.projects)[0] as string;
		const res = await fetch(`${url}/v1/projects/${id}/settings`, {
			method: "PUT",
			headers: { Authorization: `Bearer ${config.key}`, "Content-Type": "application/json" },
			body: JSON.stringify({ "memories.enabled": false }),
		});
		expect(res.status).toBe(200);
		const disabled = cairn(["doctor"]);
		expect(disabled.status).toBe(1);
		expect(line(disabled.stdout, "project").line).toContain("memory is off");
		expect(line(disabled.stdout, "project").fix).toBe("fix: run `cairn init` in this repository to turn it on");
		expect(cairn(["init"]).status).toBe(0);
		expect(cairn(["doctor"]).status).toBe(0);
	});

	it("hooks missing for Claude Code or Codex: says how to install them", () => {
		expect(cairn(["hooks", "uninstall", "claude", "--user"]).status).toBe(0);
		expect(cairn(["hooks", "uninstall", "codex"]).status).toBe(0);
		const missing = cairn(["doctor"]);
		expect(missing.status).toBe(1);
		expect(line(missing.stdout, "claude hooks").fix).toContain("claude plugin install cairn@cairn");
		expect(line(missing.stdout, "claude hooks").fix).toContain("cairn hooks install claude --user");
		expect(line(missing.stdout, "codex hooks").fix).toBe("fix: run `cairn hooks install codex`");
		expect(cairn(["hooks", "install", "claude", "--user"]).status).toBe(0);
		expect(cairn(["hooks", "install", "codex"]).status).toBe(0);
		expect(cairn(["doctor"]).status).toBe(0);
	});

	it("the session start's parts: one missing, or the single hook of an older install, is named with its fix", () => {
		const codexFile = join(user.home, ".codex", "hooks.json");
		const claudeFile = join(user.home, ".claude", "settings.json");
		const installed = { codex: readFileSync(codexFile, "utf8"), claude: readFileSync(claudeFile, "utf8") };
		const edit = (file: string, change: (starts: Loose[]) => Loose[]) => {
			const settings = JSON.parse(readFileSync(file, "utf8"));
			settings.hooks.SessionStart[0].hooks = change(settings.hooks.SessionStart[0].hooks);
			writeFileSync(file, JSON.stringify(settings));
		};
		try {
			// Part 2 of Codex's taken out by hand.
			edit(codexFile, (starts) => starts.filter((h) => !h.command.endsWith("--part 2/3")));
			const missing = cairn(["doctor"]);
			expect(missing.status).toBe(1);
			expect(line(missing.stdout, "codex hooks").line).toBe("FAIL  codex hooks   SessionStart lacks part 2/3 of the session-start block");
			expect(line(missing.stdout, "codex hooks").fix).toBe(
				"fix: run `cairn hooks install codex` (it replaces the old session-start hooks), then trust the new hooks in Codex's /hooks",
			);
			// Codex's and Claude Code's hooks from before the parts: one session-start hook each.
			for (const file of [codexFile, claudeFile])
				edit(file, (starts) => [{ ...starts[0], command: String(starts[0]?.command).replace(/ --part \d\/3$/, "") }]);
			const old = cairn(["doctor"]);
			expect(old.status).toBe(1);
			const single = "SessionStart runs the single session-start hook of older installs, not the block's 3 parts (--part 1/3 … 3/3)";
			expect(line(old.stdout, "codex hooks").line).toContain(single);
			expect(line(old.stdout, "claude hooks").line).toContain(single);
			expect(line(old.stdout, "claude hooks").fix).toBe(
				"fix: run `cairn hooks install claude --user`: it replaces the old session-start hooks",
			);
			// The fixes it names put it right.
			expect(cairn(["hooks", "install", "codex"]).stdout).toContain("updated SessionStart");
			expect(cairn(["hooks", "install", "claude", "--user"]).stdout).toContain("updated SessionStart");
			expect(readFileSync(codexFile, "utf8")).toBe(installed.codex);
			expect(cairn(["doctor"]).status).toBe(0);
		} finally {
			writeFileSync(codexFile, installed.codex);
			writeFileSync(claudeFile, installed.claude);
		}
	});

	it("the cairn plugin installed from before the parts: says to update it", () => {
		// Claude Code's record of an installed plugin, and the plugin where it put it, its hooks.json from before the parts.
		const cache = mkdtempSync(join(tmpdir(), "cairn-plugin-installed-"));
		cpSync(resolve("plugin", "hooks"), join(cache, "hooks"), { recursive: true });
		const hooksFile = join(cache, "hooks", "hooks.json");
		const hooks = JSON.parse(readFileSync(hooksFile, "utf8"));
		hooks.hooks.SessionStart[0].hooks = [
			{ ...hooks.hooks.SessionStart[0].hooks[0], command: hooks.hooks.SessionStart[0].hooks[0].command.replace(/ --part 1\/3$/, "") },
		];
		writeFileSync(hooksFile, JSON.stringify(hooks));
		const record = join(user.home, ".claude", "plugins", "installed_plugins.json");
		mkdirSync(join(user.home, ".claude", "plugins"), { recursive: true });
		writeFileSync(
			record,
			JSON.stringify({ version: 2, plugins: { "cairn@cairn": [{ scope: "user", installPath: cache, version: "0.2.0" }] } }),
		);
		try {
			const old = cairn(["doctor"]);
			expect(old.status).toBe(1);
			expect(line(old.stdout, "claude hooks").line).toContain(
				"the cairn plugin installed is older than this CLI: SessionStart runs the single session-start hook of older installs",
			);
			expect(line(old.stdout, "claude hooks").fix).toBe(
				"fix: update the plugin (`claude plugin marketplace update cairn`, then `claude plugin update cairn@cairn`) and restart Claude Code",
			);
			// The plugin as this checkout has it: nothing to say.
			cpSync(resolve("plugin", "hooks", "hooks.json"), hooksFile);
			expect(line(cairn(["doctor"]).stdout, "claude hooks").line).toBe("ok    claude hooks  the cairn plugin is installed");
		} finally {
			rmSync(record);
		}
	});

	it("an upload a hook could not finish: says cairn status retries it", () => {
		const transcript = join(repo, "unsent.jsonl");
		writeFileSync(
			transcript,
			`${JSON.stringify({ type: "user", message: { role: "user", content: "hi" }, uuid: "u1", sessionId: "unsent", timestamp: "2026-12-01T10:00:00.000Z" })}\n`,
		);
		const end = user.run(["hook", "session-end", "--agent", "claude"], {
			cwd: repo,
			env: { CAIRN_URL: "http://127.0.0.1:9" },
			input: JSON.stringify({
				session_id: "unsent",
				transcript_path: transcript,
				cwd: repo,
				hook_event_name: "SessionEnd",
				reason: "other",
			}),
		});
		expect(end.status).toBe(0);
		const waiting = cairn(["doctor"]);
		expect(waiting.status).toBe(1);
		expect(line(waiting.stdout, "uploads").fix).toBe("fix: run `cairn status`: it retries them in the background");
	});

	it("a service too slow for the hooks' budgets: says so", async () => {
		const slow = await slowService({ delayMs: 1500, match: /\/inject$/ });
		try {
			const doctor = await user.runAsync(["doctor"], { cwd: repo, env: { CAIRN_URL: slow.url } });
			expect(doctor.status).toBe(1);
			expect(line(doctor.stdout, "injection").line).toMatch(
				/FAIL {2}injection +session start \d+ ms \(of 2400\), prompt \d+ ms \(of 1000\); part 1 of the session-start block's 3 is \d+ characters$/,
			);
			expect(line(doctor.stdout, "injection").fix).toContain("too slowly for the hooks' budgets");
			// The session start is timed on part 1's request, as Claude Code's hook sends it.
			const [start] = slow.events.filter((e) => e.path.endsWith("/inject")).map((e) => JSON.parse(e.body));
			expect(Object.keys(start).sort()).toEqual(["context", "maxChars", "part", "waitMs"]);
			expect(start.part).toEqual({ index: 1, of: 3 });
			expect(start.maxChars).toBe(9500);
			expect(start.context.folder).toBe(repo.split("/").at(-1));
			expect(start.waitMs).toBeGreaterThan(0);
			expect(start.waitMs).toBeLessThanOrEqual(2_400 - 150 - 150);
		} finally {
			await slow.close();
		}
	});
});
