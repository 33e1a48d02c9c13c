// @ts-check
// `cairn doctor`: is everything in place for the hooks to work, and if not, what to do. Each check
// prints one line — ok, skipped (with why) or FAIL with the fix — and any failure makes the exit code 1.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ApiError, client } from "./api.mjs";
import { codeReport, markLine } from "./code-check.mjs";
import { codexOnPath, listCodexHooks } from "./codex.mjs";
import { keyNote, readConfig } from "./config.mjs";
import { startContext, startRequest } from "./hook.mjs";
import { hookBudgetMs, START_PARTS } from "./hook-output.mjs";
import { CLAUDE_HOOKS, CODEX_HOOKS, cairnEvents, claudeSettingsPath, codexHooksPath, startCommands, startPartsProblem } from "./hooks.mjs";
import { repository } from "./project.mjs";
import { pendingJobs } from "./sync.mjs";

/** Kept from a hook's budget for Node's start-up and the agent's own work around the request. */
export const STARTUP_ALLOWANCE_MS = 400;

/** @typedef {{ name: string, state: "ok" | "skipped" | "fail", detail: string, fix?: string, notes?: string[] }} Check */

/**
 * The installed cairn plugin's hooks file, from Claude Code's installed_plugins.json (`{ plugins: { "cairn@…":
 * [{ installPath }] } }`): whether the plugin is installed, and where its hooks.json is when that can be read.
 * @param {string} claudeHome
 */
export function installedPlugin(claudeHome) {
	try {
		const installed = JSON.parse(readFileSync(join(claudeHome, "plugins", "installed_plugins.json"), "utf8"));
		const plugins = installed.plugins ?? installed;
		const entries = Object.entries(plugins && typeof plugins === "object" ? plugins : {})
			.filter(([id]) => id.startsWith("cairn@"))
			.flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
		const hooks = entries
			.map((e) => (typeof e?.installPath === "string" ? join(e.installPath, "hooks", "hooks.json") : ""))
			.filter((f) => f && existsSync(f));
		return { installed: entries.length > 0 || JSON.stringify(plugins).includes('"cairn@'), hooks };
	} catch {
		return { installed: false, hooks: [] }; // no plugins installed
	}
}

/** @param {string} cmd */
const onPath = (cmd) => {
	const paths = (process.env.PATH ?? "").split(":").filter(Boolean);
	return paths.some((p) => existsSync(join(p, cmd)));
};

/**
 * Runs every check for the repository at `dir`.
 * @param {string} dir
 * @param {{ codex?: string | null, url?: string, key?: string }} [options] the `codex` program to ask about trust
 * (default: the one on PATH); a service URL and key to check instead of the saved login (`cairn doctor --url … --key …`)
 * @returns {Promise<Check[]>}
 */
export async function runChecks(dir, options = {}) {
	/** @type {Check[]} */
	const checks = [];
	const ok = (/** @type {string} */ name, /** @type {string} */ detail) => checks.push({ name, state: "ok", detail });
	const skip = (/** @type {string} */ name, /** @type {string} */ detail) => checks.push({ name, state: "skipped", detail });
	const fail = (/** @type {string} */ name, /** @type {string} */ detail, /** @type {string} */ fix) =>
		checks.push({ name, state: "fail", detail, fix });

	const config = readConfig();
	const url = (options.url || process.env.CAIRN_URL || config.url || "").replace(/\/+$/, "");
	const key = options.key || process.env.CAIRN_KEY || config.key || "";
	const repo = repository(dir);

	// 1. Logged in.
	if (!url || !key) {
		fail("login", "no service URL or key saved", "run `cairn setup` (a local `npm start`) or `cairn login --url <url> --key <key>`");
	} else
		ok(
			"login",
			`${url}${options.url || options.key ? " (as given on the command line)" : process.env.CAIRN_URL || process.env.CAIRN_KEY ? " (from CAIRN_URL / CAIRN_KEY)" : ""}`,
		);

	// 2. The service answers; 3. the key is accepted; 4. the project is registered and memory is on.
	let serviceUp = false;
	let keyOk = false;
	let projectId = process.env.CAIRN_PROJECT || config.projects?.[repo.root] || null;
	const api = url && key ? client({ url, key, timeoutMs: 5000 }) : null;
	if (!api) skip("service", "not logged in");
	else {
		try {
			const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
			serviceUp = res.ok;
			if (res.ok) ok("service", `${url} answers; console ${url}/console (sign in with your key)`);
			else fail("service", `${url}/health answered HTTP ${res.status}`, "check the URL (`cairn login --url …`) and the deployment");
		} catch {
			fail(
				"service",
				`${url} does not answer`,
				"start the service (`npm start` in the Cairn checkout) or fix the URL with `cairn login --url <url> --key <key>`",
			);
		}
	}
	if (api && serviceUp) {
		try {
			await api.get("/v1/projects");
			keyOk = true;
			ok("key", "accepted");
		} catch (err) {
			if (err instanceof ApiError && (err.status === 401 || err.status === 403))
				fail("key", `refused (${err.code}) by ${url}`, options.key ? "check the key given with --key" : keyNote());
			else fail("key", "could not be checked", "run `cairn doctor` again once the service answers");
		}
	} else skip("key", "the service is not reachable");
	if (api && keyOk) {
		if (!projectId) {
			fail("project", `${repo.root} is not registered`, "run `cairn init` in this repository");
		} else {
			try {
				const settings = /** @type {any} */ (await api.get(`/v1/projects/${projectId}/settings/effective`)).settings;
				const enabled = settings["memories.enabled"];
				if (enabled.value === true) ok("project", `${projectId}, memory on`);
				else fail("project", `${projectId}: memory is off (set by ${enabled.source})`, "run `cairn init` in this repository to turn it on");
			} catch (err) {
				const code = err instanceof ApiError ? err.code : "unreachable";
				fail("project", `${projectId} cannot be read (${code})`, "run `cairn init` in this repository");
				projectId = null;
			}
		}
	} else skip("project", "the key could not be used");

	// 5. Hooks installed: Claude Code (plugin or settings hooks), Codex (hooks.json).
	const claudeHome = join(homedir(), ".claude");
	if (!existsSync(claudeHome) && !onPath("claude")) skip("claude hooks", "Claude Code not found (~/.claude, claude on PATH)");
	else {
		const plugin = installedPlugin(claudeHome);
		const wanted = Object.keys(CLAUDE_HOOKS);
		const where = /** @type {const} */ (["user", "project", "local"]);
		const files = where.map((w) => claudeSettingsPath(w, repo.root));
		const events = new Set(files.flatMap((f) => cairnEvents(f)));
		const missing = wanted.filter((e) => !events.has(e));
		// The session-start block comes in parts, one hook each: an install from before has one hook, or some.
		const pluginParts = startPartsProblem(plugin.hooks.flatMap(startCommands));
		const settingsParts = startPartsProblem(files.flatMap(startCommands));
		if (plugin.installed && pluginParts)
			fail(
				"claude hooks",
				`the cairn plugin installed is older than this CLI: ${pluginParts}`,
				"update the plugin (`claude plugin marketplace update cairn`, then `claude plugin update cairn@cairn`) and restart Claude Code",
			);
		else if (plugin.installed) ok("claude hooks", "the cairn plugin is installed");
		else if (missing.length === 0 && settingsParts)
			fail(
				"claude hooks",
				settingsParts,
				`run ${where
					.filter((_, i) => startCommands(files[i] ?? "").length)
					.map((w) => `\`cairn hooks install claude${w === "local" ? "" : ` --${w}`}\``)
					.join(" and ")}: it replaces the old session-start hooks`,
			);
		else if (missing.length === 0) ok("claude hooks", "in Claude Code's settings");
		else
			fail(
				"claude hooks",
				events.size ? `missing ${missing.join(", ")}` : "neither the plugin nor hooks in the settings",
				"install the plugin (`claude plugin marketplace add <Cairn checkout>`, then `claude plugin install cairn@cairn`) or run `cairn hooks install claude --user`",
			);
	}
	const codexHome = process.env.CODEX_HOME || join(homedir(), ".codex");
	const codex = options.codex === undefined ? codexOnPath() : options.codex;
	if (!existsSync(codexHome) && !codex) {
		skip("codex hooks", "Codex not found (~/.codex, codex on PATH)");
		skip("codex trust", "Codex not found");
	} else {
		const where = /** @type {const} */ (["user", "project"]);
		const files = where.map((w) => codexHooksPath(w, repo.root));
		const events = new Set(files.flatMap((f) => cairnEvents(f)));
		const missing = Object.keys(CODEX_HOOKS).filter((e) => !events.has(e));
		const parts = startPartsProblem(files.flatMap(startCommands));
		if (missing.length === 0 && parts)
			fail(
				"codex hooks",
				parts,
				`run ${where
					.filter((_, i) => startCommands(files[i] ?? "").length)
					.map((w) => `\`cairn hooks install codex${w === "project" ? " --project" : ""}\``)
					.join(" and ")} (it replaces the old session-start hooks), then trust the new hooks in Codex's /hooks`,
			);
		else if (missing.length === 0) ok("codex hooks", "in hooks.json");
		else fail("codex hooks", events.size ? `missing ${missing.join(", ")}` : "none installed", "run `cairn hooks install codex`");
		// 6. Codex runs a hook only once trusted for its current hash, and skips an untrusted one without a word.
		if (!codex) skip("codex trust", "codex is not on PATH to ask");
		else if (missing.length === Object.keys(CODEX_HOOKS).length) skip("codex trust", "no Cairn hooks to trust");
		else {
			try {
				const ours = (await listCodexHooks(codex, repo.root)).filter(
					(h) => /\bcairn\b|cairn\.mjs/.test(h.command) && / hook /.test(h.command),
				);
				const untrusted = ours.filter((h) => h.trustStatus !== "trusted");
				if (ours.length && untrusted.length === 0) ok("codex trust", `${ours.length} hooks trusted for their current hashes`);
				else
					fail(
						"codex trust",
						`${untrusted.length} of ${ours.length} Cairn hooks are not trusted (${[...new Set(untrusted.map((h) => h.trustStatus))].join(", ")}); Codex skips them silently`,
						"open Codex, run /hooks and trust Cairn's hooks (needed again whenever a hook changes)",
					);
			} catch (err) {
				fail(
					"codex trust",
					`could not ask Codex (${err instanceof Error ? err.message : String(err)})`,
					"run /hooks in Codex and check Cairn's hooks are trusted",
				);
			}
		}
	}

	// 7. The last upload, and uploads a hook could not finish.
	const backlog = pendingJobs();
	if (backlog.length)
		fail(
			"uploads",
			`${backlog.length} session${backlog.length === 1 ? "" : "s"} not fully uploaded or ended${backlog[0]?.error ? ` (last error: ${backlog[0].error})` : ""}`,
			"run `cairn status`: it retries them in the background",
		);
	else if (api && keyOk && projectId) {
		try {
			const { sessions } = /** @type {any} */ (await api.get(`/v1/projects/${projectId}/sessions?limit=1`));
			const last = sessions[0];
			ok(
				"uploads",
				last
					? `nothing waiting; last session ${last.id} (${last.agent}, ${last.turns} turns, ${last.status}) at ${last.lastActivityAt}`
					: "nothing waiting; no session uploaded yet",
			);
		} catch {
			ok("uploads", "nothing waiting");
		}
	} else ok("uploads", "nothing waiting");

	// 8. Injection, and its round trip against the hooks' budgets.
	if (api && keyOk && projectId) {
		const time = async (/** @type {Record<string, unknown>} */ body) => {
			const started = Date.now();
			const res = /** @type {any} */ (await api.post(`/v1/projects/${projectId}/inject`, body, { timeoutMs: 10_000 }));
			return { ms: Date.now() - started, res };
		};
		try {
			// Part 1 of the session-start block as Claude Code's hook asks for it, started when Node and git are done.
			const startLimit = hookBudgetMs("SessionStart") - STARTUP_ALLOWANCE_MS;
			const first = { index: 1, of: START_PARTS };
			const context = startContext(dir, repo.root);
			const start = await time(
				startRequest({ agent: "claude", context, sessionId: null, part: first, deadline: Date.now() + startLimit - 150 }),
			);
			const prompt = await time({ query: "cairn doctor round trip", include: "memories", maxChars: 9500 });
			const promptLimit = hookBudgetMs("UserPromptSubmit") - STARTUP_ALLOWANCE_MS;
			const detail = `session start ${start.ms} ms (of ${startLimit}), prompt ${prompt.ms} ms (of ${promptLimit}); part 1 of the session-start block's ${START_PARTS} is ${start.res.text.length} characters`;
			if (prompt.ms > promptLimit || start.ms > startLimit)
				fail(
					"injection",
					detail,
					"the service answers too slowly for the hooks' budgets (1.4 s per prompt, 2.8 s otherwise, Node's start included): use a nearer or warmer deployment",
				);
			else ok("injection", detail);
		} catch (err) {
			fail(
				"injection",
				`inject failed (${err instanceof ApiError ? err.code : String(err)})`,
				"check `cairn status` and the service's logs",
			);
		}
	} else skip("injection", "the project could not be used");

	// 9. Memories whose cited code changed since they were written (not a fault of the set-up: listed, never failed).
	if (api && keyOk && projectId) {
		try {
			const marks = await codeReport(api, projectId, repo.root);
			if (marks === null) skip("cited code", "git cannot read this repository");
			else if (marks.length === 0) ok("cited code", "every memory that cites code matches it as it is now");
			else
				checks.push({
					name: "cited code",
					state: "ok",
					detail: `${marks.length} memor${marks.length === 1 ? "y cites" : "ies cite"} code that changed since written — check or update them`,
					notes: marks.map(markLine),
				});
		} catch (err) {
			skip("cited code", `not checked (${err instanceof ApiError ? err.code : String(err)})`);
		}
	} else skip("cited code", "the project could not be used");
	return checks;
}

/** Prints the checks; returns whether all passed. @param {Check[]} checks @param {(s: string) => void} out */
export function report(checks, out) {
	const width = Math.max(...checks.map((c) => c.name.length));
	for (const c of checks) {
		const state = c.state === "ok" ? "ok  " : c.state === "skipped" ? "skip" : "FAIL";
		out(`${state}  ${c.name.padEnd(width)}  ${c.detail}`);
		if (c.fix) out(`      ${" ".repeat(width)}  fix: ${c.fix}`);
		for (const note of c.notes ?? []) out(`      ${" ".repeat(width)}  ${note}`);
	}
	const failed = checks.filter((c) => c.state === "fail").length;
	out(failed ? `${failed} problem${failed === 1 ? "" : "s"} found` : "all checks passed");
	return failed === 0;
}
