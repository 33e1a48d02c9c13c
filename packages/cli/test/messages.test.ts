// Every refusal and every silence names its cause and the fix, and "why" is there on demand: recall's
// scores and matches, the prompt hook's --explain, and what setup says to do next.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { api, CLI, gitRepo, machine, NODE, tenant, url } from "./helpers.ts";

const user = machine();
const repo = gitRepo(`git@github.com:acme/messages-${Date.now()}.git`);
const cairn = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) =>
	user.run(args, { cwd: repo, ...options });
let key = "";
let projectId = "";
/** What Claude Code sends on UserPromptSubmit (ANCHORS.md). */
const promptPayload = (prompt: string, cwd = repo, session = `s-${Date.now()}`) =>
	JSON.stringify({
		session_id: session,
		transcript_path: join(cwd, "none.jsonl"),
		cwd,
		permission_mode: "default",
		hook_event_name: "UserPromptSubmit",
		prompt,
	});

beforeAll(async () => {
	key = await tenant("messages");
	expect(cairn(["login", "--url", url, "--key", key]).status).toBe(0);
	const init = cairn(["init"]);
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
	const write = (name: string, body: Record<string, unknown>) => api(key, "PUT", `/v1/projects/${projectId}/memories/${name}`, body);
	expect(
		(
			await write("package-manager", {
				type: "feedback",
				description: "We use pnpm, never npm install",
				body: "Always `pnpm add`; npm install rewrites the lockfile.",
				cues: ["adding, removing or upgrading a dependency"],
			})
		).status,
	).toBe(201);
	expect(
		(await write("deploy-freeze", { type: "project", description: "No deploys on Fridays", body: "Deploy freeze from Friday 12:00 UTC." }))
			.status,
	).toBe(201);
	expect(
		(await write("log-format", { type: "reference", description: "Logs are JSON lines", body: "Each log line is one JSON object." }))
			.status,
	).toBe(201);
});

describe("refusals name the cause and the fix", () => {
	it("a secret: the rule that found it, and what to do instead", () => {
		const r = cairn([
			"remember",
			"db-url",
			"--type",
			"reference",
			"--description",
			"The database",
			"postgres://admin:hunter2secret@db.example.com:5432/app",
		]);
		expect(r.status).toBe(1);
		expect(r.stderr).toContain("secret_detected: rule credentials-in-url");
		expect(r.stderr).toContain("remove it and retry");
		expect(r.stderr).not.toContain("hunter2secret");
	});

	it("an unknown flag: named, with the nearest known one", () => {
		const r = cairn(["remember", "x", "--typ", "feedback", "--description", "d", "text"]);
		expect(r.status).toBe(1);
		expect(r.stderr.trim()).toBe("cairn: unknown option --typ; did you mean --type? (`cairn help` lists every command and its options)");
	});

	it("a mistyped command: the nearest command", () => {
		const r = cairn(["remeber", "x"]);
		expect(r.status).toBe(1);
		expect(r.stderr).toContain('unknown command "remeber"; did you mean `cairn remember`?');
		expect(cairn(["stauts"]).stderr).toContain("did you mean `cairn status`?");
		expect(cairn(["frobnicate"]).stderr).toContain('unknown command "frobnicate" (`cairn help` lists every command)');
	});

	it("a hook payload that is not JSON: one line saying so, no parser fragment, and Codex still gets a valid object", () => {
		for (const event of ["user-prompt-submit", "session-start"]) {
			const r = cairn(["hook", event, "--agent", "codex"], { input: "prompt=hello {not json" });
			expect(r.status).toBe(0);
			expect(JSON.parse(r.stdout)).toEqual({});
			const lines = r.stderr.trim().split("\n");
			expect(lines).toHaveLength(1);
			expect(lines[0]).toContain("the hook payload on stdin is not JSON");
			expect(lines[0]).toContain("Try the hooks by hand");
			expect(lines[0]).not.toContain("hello");
		}
	});

	it("a refused key: which credential source was used, and how to fix that one", () => {
		const fromEnv = cairn(["recall", "anything"], { env: { CAIRN_KEY: "cairn_abcdefghijklmnop_notAValidSecretAtAll0000000000" } });
		expect(fromEnv.status).toBe(1);
		expect(fromEnv.stderr).toContain("(unauthorized)");
		expect(fromEnv.stderr).toContain("the key came from CAIRN_KEY in the environment, which overrides the saved login");
		expect(fromEnv.stderr).toContain("unset CAIRN_KEY to use the saved login");

		const other = machine();
		mkdirSync(join(other.home, ".config", "cairn"), { recursive: true });
		writeFileSync(
			join(other.home, ".config", "cairn", "config.json"),
			JSON.stringify({ url, key: "cairn_abcdefghijklmnop_revokedOrWrong000000000000000" }),
		);
		const saved = other.run(["recall", "anything"], { cwd: repo });
		expect(saved.status).toBe(1);
		expect(saved.stderr).toContain("the key came from the saved login in");
		expect(saved.stderr).toContain("run `cairn login --url <url> --key <key>` with a valid key");

		const hook = other.run(["hook", "user-prompt-submit", "--agent", "codex"], { input: promptPayload("deploy on friday"), cwd: repo });
		expect(hook.status).toBe(0);
		expect(hook.stderr).toContain("the key came from the saved login");

		const login = other.run(["login", "--url", url, "--key", "cairn_abcdefghijklmnop_notAValidSecretAtAll0000000000"], { cwd: repo });
		expect(login.status).toBe(1);
		expect(login.stderr).toContain("refused the key given with --key (unauthorized); nothing was saved");
	});

	it("memory off explains every empty answer: recall, view, remember, the hooks and status all say to run cairn init", () => {
		const off = gitRepo(`git@github.com:acme/messages-off-${Date.now()}.git`);
		const run = (args: string[], input = "") => cairn(args, { cwd: off, input });
		const fix = "memory is off for this repository — run `cairn init` to turn it on (memories.enabled, set by default)";
		const remember = run(["remember", "note", "--type", "feedback", "--description", "Use pnpm", "pnpm only"]);
		expect(remember.status).toBe(0);
		expect(remember.stderr).toContain("stored, but memory is off for this repository, so no agent is served it — run `cairn init`");
		const recall = run(["recall", "pnpm"]);
		expect(recall.status).toBe(1);
		expect(recall.stderr).toContain(`no memories recalled: ${fix}`);
		expect(recall.stdout).not.toContain("no memories match");
		const view = run(["view"]);
		expect(view.status).toBe(1);
		expect(view.stderr).toContain(`nothing to inject: ${fix}`);
		expect(run(["status"]).stdout).toContain("memories: off — run `cairn init` to turn it on (default)");
		for (const [event, payload] of [
			["user-prompt-submit", promptPayload("use pnpm", off)],
			["session-start", JSON.stringify({ session_id: "s-off", cwd: off, hook_event_name: "SessionStart", source: "startup" })],
		] as const) {
			const hook = run(["hook", event, "--agent", "codex"], payload);
			expect(hook.status).toBe(0);
			expect(JSON.parse(hook.stdout)).toEqual({});
			expect(hook.stderr.trim()).toBe(`cairn: ${fix}`);
		}
		const explained = run(["hook", "user-prompt-submit", "--agent", "claude", "--explain"], promptPayload("use pnpm", off));
		expect(explained.stderr).toContain(fix);
		expect(run(["init"]).status).toBe(0);
		expect(run(["recall", "pnpm"]).stdout).toContain("note (feedback, personal)");
	});

	it("an export before any summary exists says so, and how to build it", () => {
		const target = mkdtempSync(join(tmpdir(), "cairn-export-"));
		const r = cairn(["export", target]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain("no memory_summary.md yet: consolidation writes it — run `cairn rebuild`");
	});
});

describe("why, on demand", () => {
	it("cairn recall shows each result's score and what matched: words, concepts, cues, dates", () => {
		const words = cairn(["recall", "can", "we", "deploy", "on", "friday"]);
		expect(words.status, words.stderr).toBe(0);
		expect(words.stdout).toMatch(
			/deploy-freeze \(project, personal\) — No deploys on Fridays\n {2}memory:\/\/root\/deploy-freeze\.md {2}score \d+\.\d{2}\n/,
		);
		expect(words.stdout).toMatch(/matched: words deploy, friday/);

		const concept = cairn(["recall", "bump", "axios"]);
		expect(concept.status, concept.stderr).toBe(0);
		const block = concept.stdout.slice(concept.stdout.indexOf("package-manager"));
		// The score as the service gives it, to two decimals: not rescaled, not rounded away.
		const served = JSON.parse(cairn(["recall", "bump", "axios", "--json"]).stdout).memories.find(
			(m: Record<string, unknown>) => m.name === "package-manager",
		);
		expect(typeof served.score).toBe("number");
		expect(block).toMatch(new RegExp(`memory://root/package-manager\\.md {2}score ${served.score.toFixed(2).replace(".", "\\.")}\n`));
		expect(block).toContain("matched: concepts deps");
		expect(block).not.toContain("words");

		const cue = cairn(["recall", "upgrading", "a", "dependency"]);
		expect(cue.stdout).toContain('cues "adding, removing or upgrading a dependency"');

		const dated = cairn(["recall", "what", "did", "we", "write", "today", "about", "logs"]);
		expect(dated.stdout.slice(dated.stdout.indexOf("log-format"))).toContain("written when the query says");
	});

	it("the prompt hook's --explain says why each candidate was served or held back, on stderr, leaving stdout to the agent", () => {
		const session = `explain-${Date.now()}`;
		const prompt = "Should I use npm install to add lodash?";
		const served = cairn(["hook", "user-prompt-submit", "--agent", "codex", "--explain"], { input: promptPayload(prompt, repo, session) });
		expect(served.status).toBe(0);
		expect(JSON.parse(served.stdout).hookSpecificOutput.additionalContext).toContain("memory://root/package-manager.md");
		expect(served.stderr).toMatch(/cairn: prompt: words .*lodash [\d.]+; concepts deps/);
		// Its file when the decision is sure, else its line offered beside the files: either way said.
		expect(served.stderr).toMatch(
			/cairn: (served {2}|line {4})package-manager: (offered as an index line \(not sure enough for its file\); )?evidence [\d.]+, coverage [\d.]+; matched words npm, install.*; concepts deps/,
		);

		const again = cairn(["hook", "user-prompt-submit", "--agent", "codex", "--explain"], { input: promptPayload(prompt, repo, session) });
		expect(JSON.parse(again.stdout)).toEqual({});
		expect(again.stderr).toMatch(
			/cairn: held {4}package-manager: (already handed to this session|its line was already shown to this session)/,
		);

		const weak = cairn(["hook", "user-prompt-submit", "--agent", "codex", "--explain"], {
			input: promptPayload("Can we ship to production on Friday afternoon?"),
		});
		expect(weak.stderr).toMatch(
			/cairn: (held {4}deploy-freeze: what it matched weighs too little for this prompt|line {4}deploy-freeze: offered as an index line \(not sure enough for its file\)); evidence [\d.]+, coverage [\d.]+; matched words friday/,
		);

		const nothing = cairn(["hook", "user-prompt-submit", "--agent", "claude", "--explain"], { input: promptPayload("zxqv wibble") });
		expect(nothing.stdout).toBe("");
		expect(nothing.stderr).toContain("no memory matched any word, concept or cue of this prompt: nothing to serve");

		const plain = cairn(["hook", "user-prompt-submit", "--agent", "codex"], { input: promptPayload("zxqv wibble") });
		expect(plain.stderr).toBe("");
	});
});

describe("the README's hook examples", () => {
	it("run as printed, for both agents, with payloads shaped as each agent sends them", () => {
		const readme = readFileSync("README.md", "utf8");
		const section = readme.slice(readme.indexOf("#### Try the hooks by hand"), readme.indexOf("### Claude Code: the plugin"));
		const examples = [...section.matchAll(/^cat <<EOF \| cairn (hook [a-z-]+ --agent (claude|codex)(?: --explain)?)\n(.+)\nEOF$/gm)];
		expect(examples.map((m) => m[1])).toEqual([
			"hook session-start --agent claude",
			"hook user-prompt-submit --agent claude --explain",
			"hook session-start --agent codex",
			"hook user-prompt-submit --agent codex --explain",
		]);
		// What each agent sends (ANCHORS: Claude Code's and Codex's hook documentation).
		const shape = {
			claude: {
				SessionStart: ["cwd", "hook_event_name", "permission_mode", "session_id", "source", "transcript_path"],
				UserPromptSubmit: ["cwd", "hook_event_name", "permission_mode", "prompt", "session_id", "transcript_path"],
			},
			codex: {
				SessionStart: ["cwd", "hook_event_name", "model", "session_id", "source", "transcript_path"],
				UserPromptSubmit: ["cwd", "hook_event_name", "model", "prompt", "session_id", "transcript_path", "turn_id"],
			},
		} as const;
		for (const [, command, agent, json] of examples) {
			const input = (json ?? "").replaceAll("$HOME", user.home).replaceAll("$PWD", repo);
			const payload = JSON.parse(input);
			expect(Object.keys(payload).sort()).toEqual(shape[agent as "claude" | "codex"][payload.hook_event_name as "SessionStart"]);
			const r = cairn((command ?? "").split(" "), { input });
			expect(r.status, command).toBe(0);
			if (agent === "codex") expect(JSON.parse(r.stdout)).toBeTypeOf("object");
			if (payload.hook_event_name === "SessionStart") {
				expect(JSON.parse(r.stdout).hookSpecificOutput.hookEventName).toBe("SessionStart");
				expect(r.stderr).toBe("");
			} else expect(r.stderr).toMatch(/^cairn: prompt: words /);
		}
	});
});

describe("cairn setup", () => {
	it("finds a checkout's running npm start, ends with what to do next, and --undo takes it all back", () => {
		const someone = machine();
		const checkout = mkdtempSync(join(tmpdir(), "cairn-checkout-"));
		mkdirSync(join(checkout, ".wrangler"));
		// What scripts/start.mjs records while it runs (its pid is alive: this test's).
		writeFileSync(join(checkout, ".wrangler", "cairn-dev.json"), JSON.stringify({ url, pid: process.pid }));
		writeFileSync(join(checkout, ".dev.vars"), `CAIRN_ADMIN_TOKEN=${inject("adminToken")}\n`);
		const mine = gitRepo(`git@github.com:acme/setup-next-${Date.now()}.git`);
		const setup = someone.run(["setup", "--checkout", checkout, "--name", `next-${Date.now()}`], { cwd: mine });
		expect(setup.status, setup.stderr).toBe(0);
		expect(setup.stdout).toContain(`logged in to ${url}`);
		expect(setup.stdout).not.toContain("trust Cairn's (once");
		expect(setup.stdout).toMatch(/run \/hooks and trust Cairn's hooks \(9, the session start's 3 among them\)\./);
		expect(setup.stdout).toContain(`The console: ${url}/console — sign in with the key above (CAIRN_KEY).`);
		expect(setup.stdout).toContain("`cairn doctor` checks everything.");
		expect(setup.stdout).toContain("To undo: `cairn setup --undo`");

		// The printed command to try a prompt runs as printed.
		const tryLine = setup.stdout.split("\n").find((l) => l.includes("hook user-prompt-submit")) ?? "";
		const payload = /^\s*echo '(.*)' \| /.exec(tryLine)?.[1] ?? "";
		expect(JSON.parse(payload)).toMatchObject({ hook_event_name: "UserPromptSubmit", cwd: mine });
		const tried = someone.run(["hook", "user-prompt-submit", "--agent", "claude", "--explain"], { cwd: mine, input: payload });
		expect(tried.status).toBe(0);
		expect(tried.stderr).toContain("cairn: ");

		// What `claude plugin marketplace add` and `claude plugin install` leave in the user's settings, beside
		// the user's own; and a setting of the user's own in Codex's config.toml.
		const claudeSettings = join(someone.home, ".claude", "settings.json");
		const settings = JSON.parse(readFileSync(claudeSettings, "utf8"));
		writeFileSync(
			claudeSettings,
			JSON.stringify({
				...settings,
				theme: "dark",
				extraKnownMarketplaces: {
					cairn: { source: { source: "directory", path: checkout } },
					other: { source: { source: "github", repo: "a/b" } },
				},
				enabledPlugins: { "cairn@cairn": true },
			}),
		);
		const key = JSON.parse(readFileSync(join(someone.home, ".config", "cairn", "config.json"), "utf8")).key;

		const undo = someone.run(["setup", "--undo"], { cwd: mine });
		expect(undo.status, undo.stderr).toBe(0);
		expect(undo.stdout).toContain("Claude Code: removed Cairn's hooks");
		expect(undo.stdout).toContain(
			`Claude Code: removed extraKnownMarketplaces.cairn and enabledPlugins.cairn@cairn from ${claudeSettings}`,
		);
		expect(JSON.parse(readFileSync(claudeSettings, "utf8"))).toEqual({
			theme: "dark",
			extraKnownMarketplaces: { other: { source: { source: "github", repo: "a/b" } } },
		});
		expect(undo.stdout).toContain("Codex: removed Cairn's hooks");
		expect(undo.stdout).toContain(`Codex: removed ${join(someone.home, ".codex", "hooks.json")}, which held nothing else`);
		expect(existsSync(join(someone.home, ".codex", "hooks.json"))).toBe(false);
		expect(undo.stdout).toContain("Codex: removed the cairn MCP server");
		expect(existsSync(join(someone.home, ".codex"))).toBe(false);
		expect(undo.stdout).toContain(`removed ${join(someone.home, ".config", "cairn")} (the saved login`);
		expect(existsSync(join(someone.home, ".config", "cairn"))).toBe(false);
		// The key is saved nowhere now: printed once more, to reach the memories again.
		expect(undo.stdout).toContain(`cairn setup --url ${url} --key ${key}`);
		expect(someone.run(["doctor"], { cwd: mine }).stdout).toContain("FAIL  login");
		// Run again, it finds nothing to take out and fails on nothing.
		const again = someone.run(["setup", "--undo"], { cwd: mine });
		expect(again.status, again.stderr).toBe(0);
		expect(again.stdout).toContain("Codex: no Cairn hooks in");
	});
});

/** A port on this machine that nothing listens on. */
const closedPort = () =>
	new Promise<number>((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
		});
	});

describe("an unreachable service: the cause, and the fix", () => {
	it("recall, remember, status, list and the hooks name the URL, why, how to start the service and where the URL came from", async () => {
		const down = `http://127.0.0.1:${await closedPort()}`;
		const other = machine();
		const configFile = join(other.home, ".config", "cairn", "config.json");
		mkdirSync(join(other.home, ".config", "cairn"), { recursive: true });
		writeFileSync(configFile, JSON.stringify({ url: down, key }));
		const cause = `cannot reach ${down} (ECONNREFUSED) — is the service running? Start it with \`npm start\` in the Cairn checkout (it prints the URL it serves at), or set the URL: `;
		const saved = `\`cairn login --url <url> --key <key>\` (the URL came from the saved login in ${configFile})`;
		for (const args of [["recall", "pnpm"], ["remember", "we use pnpm, never npm"], ["status"], ["list"], ["show", "deploy-freeze"]]) {
			const r = other.run(args, { cwd: repo });
			expect(r.status, args.join(" ")).toBe(1);
			expect(r.stderr.trim(), args.join(" ")).toBe(`cairn: ${cause}${saved}`);
		}
		const fromEnv = cairn(["recall", "pnpm"], { env: { CAIRN_URL: down } });
		expect(fromEnv.stderr.trim()).toBe(
			`cairn: ${cause}the URL came from CAIRN_URL in the environment, which overrides the saved login in ${join(user.home, ".config", "cairn", "config.json")}; unset CAIRN_URL or set it to the service's URL`,
		);
		for (const event of ["user-prompt-submit", "session-start"]) {
			const hook = other.run(["hook", event, "--agent", "codex"], { cwd: repo, input: promptPayload("use pnpm") });
			expect(hook.status).toBe(0);
			expect(JSON.parse(hook.stdout)).toEqual({});
			expect(hook.stderr.trim(), event).toBe(`cairn: ${cause}${saved}`);
		}
		const login = machine().run(["login", "--url", down, "--key", key], { cwd: repo });
		expect(login.status).toBe(1);
		expect(login.stderr.trim()).toBe(
			`cairn: cannot reach ${down} (ECONNREFUSED); nothing was saved — is the service running? Start it with \`npm start\` in the Cairn checkout (it prints the URL it serves at), or check the URL given with --url`,
		);
		const remote = cairn(["status"], { env: { CAIRN_URL: "https://cairn.invalid" } });
		expect(remote.stderr).toContain(
			"cannot reach https://cairn.invalid (ENOTFOUND) — is the service up and this machine online? Else set the URL: ",
		);
	});

	it("setup: nothing changed, the URL and where it came from, and how to start the service", async () => {
		const down = `http://127.0.0.1:${await closedPort()}`;
		const someone = machine();
		const r = someone.run(["setup", "--url", down, "--admin-token", "x"], { cwd: repo });
		expect(r.status).toBe(1);
		expect(r.stderr.trim()).toBe(
			`cairn: cannot reach ${down}, the URL from --url (ECONNREFUSED); nothing was changed — is the service running? Start it with \`npm start\` in the Cairn checkout; or pass the URL it serves at with --url`,
		);
		expect(existsSync(join(someone.home, ".config", "cairn"))).toBe(false);
		// A checkout's npm start serving elsewhere is named, with the command that uses it.
		const checkout = mkdtempSync(join(tmpdir(), "cairn-checkout-"));
		mkdirSync(join(checkout, ".wrangler"));
		writeFileSync(join(checkout, ".wrangler", "cairn-dev.json"), JSON.stringify({ url, pid: process.pid }));
		const elsewhere = someone.run(["setup", "--url", down, "--checkout", checkout], { cwd: repo });
		expect(elsewhere.stderr).toContain(`; or this checkout's \`npm start\` serves at ${url}: \`cairn setup --url ${url}\``);
	});
});

describe("a typo gets the nearest known word, and an unknown value is refused", () => {
	it.each([
		[["hooks", "instal", "claude"], 'unknown hooks action "instal"; did you mean `cairn hooks install`? (one of install, uninstall)'],
		[["hooks", "install", "claud"], 'unknown agent "claud"; did you mean `cairn hooks install claude`? (one of claude, codex)'],
		[["hooks", "uninstall", "kodex"], 'unknown agent "kodex"; did you mean `cairn hooks uninstall codex`? (one of claude, codex)'],
		[
			["remember", "always squash", "--type", "feedbak"],
			'unknown --type "feedbak"; did you mean `--type feedback`? (one of user, feedback, project, reference)',
		],
		[
			["list", "--type", "refrence"],
			'unknown --type "refrence"; did you mean `--type reference`? (one of user, feedback, project, reference)',
		],
		[["list", "--scope", "tem"], 'unknown --scope "tem"; did you mean `--scope team`? (one of personal, team)'],
		[["team", "pul"], 'unknown team action "pul"; did you mean `cairn team pull`? (one of pull, push, status)'],
		[["review", "lst"], 'unknown review action "lst"; did you mean `cairn review list`? (one of list, show, approve, reject)'],
		[["review", "--status", "pendng"], 'unknown --status "pendng"; did you mean `--status pending`? (one of pending, approved, rejected)'],
		[["lsit"], 'unknown command "lsit"; did you mean `cairn list`? (`cairn help` lists every command)'],
		[["froget", "x"], 'unknown command "froget"; did you mean `cairn forget`? (`cairn help` lists every command)'],
	])("cairn %j", (args, message) => {
		const r = cairn(args);
		expect(r.status).toBe(1);
		expect(r.stderr.trim()).toBe(`cairn: ${message}`);
	});

	it("a hook's mistyped --agent: said with the nearest, the hook still exits 0 in its agent's format, and nothing is looked up", () => {
		for (const event of ["user-prompt-submit", "session-start"]) {
			const claude = cairn(["hook", event, "--agent", "claud"], { input: promptPayload("deploy on friday") });
			expect(claude.status).toBe(0);
			expect(claude.stdout).toBe("");
			expect(claude.stderr.trim(), event).toBe('cairn: unknown --agent "claud"; did you mean `--agent claude`? (one of claude, codex)');
			// Codex's payload carries a turn id: its format ({}) even with the agent mistyped.
			const codex = cairn(["hook", event, "--agent", "codx"], {
				input: JSON.stringify({ ...JSON.parse(promptPayload("deploy on friday")), turn_id: "t1" }),
			});
			expect(codex.status).toBe(0);
			expect(JSON.parse(codex.stdout)).toEqual({});
			expect(codex.stderr.trim()).toBe('cairn: unknown --agent "codx"; did you mean `--agent codex`? (one of claude, codex)');
		}
	});
});

describe("a closed pipe ends quietly", () => {
	/** A command line run by a real shell, and the CLI's own exit status (not the pipe's last command's). */
	const shell = (line: string) =>
		spawnSync("bash", ["-c", `${line}; echo "cairn exited \${PIPESTATUS[0]}" >&2`], {
			cwd: repo,
			env: user.env,
			encoding: "utf8",
			timeout: 60_000,
		});
	const cli = `"${NODE}" "${CLI}"`;

	it("`cairn recall … | head -1` exits 0 with the first line and no stack trace", () => {
		const r = shell(`${cli} recall can we deploy on friday | head -1`);
		expect(r.stdout).toBe("deploy-freeze (project, personal) — No deploys on Fridays\n");
		expect(r.stderr).toBe("cairn exited 0\n");
	});

	it.each([["recall can we deploy on friday"], ["list"], ["show deploy-freeze"], ["help"], ["doctor"]])(
		"`cairn %s` into a reader that closed at once: exits with its own status, no EPIPE",
		(args) => {
			// `head -n 0` exits before the CLI writes: its first write meets a closed pipe.
			const r = shell(`${cli} ${args} | head -n 0`);
			expect(r.stdout).toBe("");
			expect(r.stderr).not.toContain("EPIPE");
			expect(r.stderr).not.toMatch(/\n\s+at /);
			expect(r.stderr).toMatch(args === "doctor" ? /cairn exited [01]\n$/ : /^cairn exited 0\n$/);
		},
	);
});
