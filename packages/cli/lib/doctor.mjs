// @ts-check
// `cairn doctor`: is everything in place for the hooks to work, and if not, what to do. Each check
// prints one line — ok, skipped (with why) or FAIL with the fix — and any failure makes the exit code 1.
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { ApiError, causeOf, client, isLocalUrl } from "./api.mjs";
import { codeReport, markLine } from "./code-check.mjs";
import { codexMcpEntry, codexOnPath, listCodexHooks } from "./codex.mjs";
import { keyLabel, keyNote, readConfig, urlNote } from "./config.mjs";
import { startContext, startRequest } from "./hook.mjs";
import { hookBudgetMs, START_PARTS } from "./hook-output.mjs";
import {
	CLAUDE_HOOKS,
	CODEX_HOOKS,
	cairnEvents,
	claudeSettingsPath,
	codexConfigPath,
	codexHooksPath,
	startCommands,
	startPartsProblem,
} from "./hooks.mjs";
import { repository } from "./project.mjs";
import { describeLogin, loginAgain, memoryCount, previousHolders, strandedProject } from "./stranded.mjs";
import { pendingJobs } from "./sync.mjs";

/** Kept from a hook's budget for Node's start-up and the agent's own work around the request. */
export const STARTUP_ALLOWANCE_MS = 400;

/** @typedef {{ name: string, state: "ok" | "skipped" | "fail", detail: string, fix?: string, notes?: string[] }} Check */

/**
 * The installed cairn plugin's hooks file, from Claude Code's installed_plugins.json (`{ plugins: { "cairn@…":
 * [{ installPath }] } }`): whether the plugin is installed, and where its hooks.json and .mcp.json are when
 * they can be read.
 * @param {string} claudeHome
 */
export function installedPlugin(claudeHome) {
	try {
		const installed = JSON.parse(readFileSync(join(claudeHome, "plugins", "installed_plugins.json"), "utf8"));
		const plugins = installed.plugins ?? installed;
		const entries = Object.entries(plugins && typeof plugins === "object" ? plugins : {})
			.filter(([id]) => id.startsWith("cairn@"))
			.flatMap(([, v]) => (Array.isArray(v) ? v : [v]));
		const folders = entries.map((e) => (typeof e?.installPath === "string" ? e.installPath : "")).filter(Boolean);
		const hooks = folders.map((f) => join(f, "hooks", "hooks.json")).filter((f) => existsSync(f));
		const mcp = folders.map((f) => join(f, ".mcp.json")).filter((f) => existsSync(f));
		return { installed: entries.length > 0 || JSON.stringify(plugins).includes('"cairn@'), hooks, mcp };
	} catch {
		return { installed: false, hooks: [], mcp: [] }; // no plugins installed
	}
}

/** @param {string} cmd */
const onPath = (cmd) => {
	const paths = (process.env.PATH ?? "").split(":").filter(Boolean);
	return paths.some((p) => existsSync(join(p, cmd)));
};

/**
 * An MCP entry as an agent will use it: the URL and key after the agent expands its variables, and which
 * variables they came from (null: written in the file).
 * @typedef {{ url: string, urlFrom: string, urlVariable: string | null, keyVariable: string | null, key: string }} McpSpec
 */

/** Claude Code's expansion in .mcp.json: `${VAR}` and `${VAR:-default}`. @param {string} text */
export const expandVariables = (text) =>
	text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name, fallback) => process.env[name] || (fallback ?? ""));

/** The first variable a template names. @param {string} text */
const variableOf = (text) => /\$\{([A-Za-z_][A-Za-z0-9_]*)/.exec(text)?.[1] ?? null;

/** An `mcpServers.cairn` entry (`{ url, headers: { Authorization: "Bearer …" } }`), expanded. @param {any} entry @param {string} where */
function mcpSpec(entry, where) {
	const url = typeof entry?.url === "string" ? entry.url : "";
	const auth = typeof entry?.headers?.Authorization === "string" ? entry.headers.Authorization : "";
	const urlVariable = variableOf(url);
	return {
		url: expandVariables(url),
		urlFrom: urlVariable
			? process.env[urlVariable]
				? `${urlVariable} in the environment (${where})`
				: `the default in ${where}, as ${urlVariable} is not set`
			: `the url in ${where}`,
		urlVariable,
		keyVariable: variableOf(auth),
		key: expandVariables(auth).replace(/^Bearer\s*/i, ""),
	};
}

/** The cairn plugin's MCP entry (its .mcp.json), or the one this CLI's plugin ships when the installed one cannot be read. @param {string[]} files */
function pluginMcp(files) {
	for (const file of files) {
		try {
			const entry = JSON.parse(readFileSync(file, "utf8"))?.mcpServers?.cairn;
			if (entry) return mcpSpec(entry, `the cairn plugin's ${file}`);
		} catch {
			// unreadable: the next, or the plugin's as shipped
		}
	}
	return mcpSpec(
		// Written as the plugin's file has them, for expandVariables (not JavaScript templates).
		{ url: "$" + "{CAIRN_URL:-http://127.0.0.1:8787}/mcp", headers: { Authorization: "Bearer $" + "{CAIRN_KEY}" } },
		"the cairn plugin's .mcp.json",
	);
}

/** A cairn MCP server added by hand (`claude mcp add`, user scope in ~/.claude.json), or null. */
function claudeUserMcp() {
	const file = join(homedir(), ".claude.json");
	try {
		const entry = JSON.parse(readFileSync(file, "utf8"))?.mcpServers?.cairn;
		return entry ? mcpSpec(entry, file) : null;
	} catch {
		return null;
	}
}

/**
 * Asks an MCP endpoint to initialize with a key, as an agent's MCP client does first.
 * @param {string} endpoint @param {string} key
 * @returns {Promise<{ state: "ok" | "refused" | "unreachable" | "error", detail: string }>}
 */
export async function mcpProbe(endpoint, key) {
	let res;
	try {
		res = await fetch(endpoint, {
			method: "POST",
			headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
			body: JSON.stringify({
				jsonrpc: "2.0",
				id: 1,
				method: "initialize",
				params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "cairn-doctor", version: "1" } },
			}),
			signal: AbortSignal.timeout(5000),
		});
	} catch (err) {
		return { state: "unreachable", detail: err instanceof Error && err.name === "TimeoutError" ? "no answer within 5 s" : causeOf(err) };
	}
	if (res.status === 401 || res.status === 403) return { state: "refused", detail: `HTTP ${res.status}` };
	const body = /** @type {any} */ (await res.json().catch(() => null));
	if (!res.ok || !body?.result)
		return { state: "error", detail: `HTTP ${res.status}${body?.error?.message ? `: ${body.error.message}` : ""}` };
	return { state: "ok", detail: String(body.result.serverInfo?.name ?? "an MCP server") };
}

/**
 * Whether an agent's MCP entry reaches a service that takes its key, and the same service the CLI and
 * hooks use; else what to set, exactly.
 * @param {string} agent @param {McpSpec} spec @param {{ url: string, key: string }} want the saved login (key empty when it is not known to work)
 */
async function mcpCheck(agent, spec, want) {
	const keyVar = spec.keyVariable ?? "the key";
	const exportLine = (/** @type {string[]} */ names) =>
		`export ${names.map((n) => `${n}=${n === "CAIRN_URL" ? want.url || "<the service's URL>" : want.key || "<your key>"}`).join(" ")}`;
	const restart = `, then start ${agent} again from that shell`;
	const vars = [spec.urlVariable, spec.keyVariable].filter((v) => typeof v === "string");
	if (!spec.url) return { ok: false, detail: `${agent}'s cairn MCP entry has no URL`, fix: "run `cairn setup` again: it writes the entry" };
	if (!spec.key)
		return {
			ok: false,
			detail: `${agent}'s cairn MCP server sends its key from ${keyVar}, which is not set in this environment: it cannot connect`,
			fix: `add to your shell profile: ${exportLine(vars.length ? vars : ["CAIRN_KEY"])}${restart}`,
		};
	const base = spec.url.replace(/\/mcp\/?$/, "");
	if (want.url && base !== want.url)
		return {
			ok: false,
			detail: `${agent}'s cairn MCP server goes to ${spec.url} (from ${spec.urlFrom}), while the CLI and hooks use ${want.url}`,
			fix: spec.urlVariable
				? `add to your shell profile: ${exportLine(vars)}${restart}`
				: "run `cairn setup` again: it rewrites the entry's URL to the saved login's",
		};
	const probe = await mcpProbe(spec.url, spec.key);
	if (probe.state === "unreachable")
		return {
			ok: false,
			detail: `${agent}'s cairn MCP server cannot reach ${spec.url} (${probe.detail}; the URL from ${spec.urlFrom})`,
			fix: isLocalUrl(base)
				? "start the service (`npm start` in the Cairn checkout), or point the entry at where it runs"
				: "check the deployment and this machine's network",
		};
	if (probe.state === "refused")
		return {
			ok: false,
			detail: `${agent}'s cairn MCP server is refused by ${spec.url} (${probe.detail}): the key in ${keyVar} is not valid there`,
			fix: `set ${keyVar} to a valid key in your shell profile: ${exportLine(spec.keyVariable ? [spec.keyVariable] : ["CAIRN_KEY"])}${restart}`,
		};
	if (probe.state === "error")
		return { ok: false, detail: `${agent}'s cairn MCP server at ${spec.url} answered ${probe.detail}`, fix: "check the service's log" };
	return { ok: true, detail: `${spec.url} (URL from ${spec.urlFrom}, key from ${keyVar}) answers MCP's initialize` };
}

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
				isLocalUrl(url)
					? `start the service (\`npm start\` in the Cairn checkout) or fix the URL: ${options.url ? "the one given with --url" : urlNote()}`
					: `check the deployment and this machine's network, or fix the URL: ${options.url ? "the one given with --url" : urlNote()}`,
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
			// Registered under a login replaced since? Then its memories are there, not in a new project.
			const [holder] = await previousHolders(config, url, { root: repo.root });
			if (holder)
				fail(
					"project",
					`${repo.root} is not registered under key ${keyLabel(key)}, but ${describeLogin(holder.login)} has it as project ${holder.projectId} with ${holder.memories} memor${holder.memories === 1 ? "y" : "ies"}`,
					`run \`${loginAgain(holder.login, url)}\` to use them again (\`cairn init\` would start an empty project instead)`,
				);
			else
				fail(
					"project",
					`${repo.root} is not registered under this login`,
					"run `cairn init` in this repository (it finds the project the key's tenant has for it, or registers one)",
				);
		} else {
			try {
				const settings = /** @type {any} */ (await api.get(`/v1/projects/${projectId}/settings/effective`)).settings;
				const enabled = settings["memories.enabled"];
				const count = await memoryCount(api, projectId);
				const [holder] = count === 0 ? await previousHolders(config, url, { root: repo.root }) : [];
				if (holder && holder.memories > 0 && holder.projectId !== projectId)
					fail(
						"project",
						`${projectId} holds no memories under key ${keyLabel(key)}${config.tenant ? ` (tenant ${config.tenant.name})` : ""}, while ${describeLogin(holder.login)} holds ${holder.memories} for this repository in project ${holder.projectId}`,
						`run \`${loginAgain(holder.login, url)}\` to use them again (if starting afresh under this key is what you meant, this passes once the project holds a memory)`,
					);
				else if (enabled.value === true)
					ok("project", `${projectId}, memory on${count === null ? "" : `, ${count} memor${count === 1 ? "y" : "ies"}`}`);
				else fail("project", `${projectId}: memory is off (set by ${enabled.source})`, "run `cairn init` in this repository to turn it on");
			} catch (err) {
				if (err instanceof ApiError && (err.status === 404 || err.status === 403)) {
					const { detail, fix } = await strandedProject(config, url, key, projectId);
					fail("project", detail, fix);
				} else {
					const code = err instanceof ApiError ? err.code : "unreachable";
					fail("project", `${projectId} cannot be read (${code})`, "run `cairn doctor` again once the service answers");
				}
				projectId = null;
			}
		}
	} else skip("project", "the key could not be used");

	// 5. Hooks installed: Claude Code (plugin or settings hooks), Codex (hooks.json).
	const claudeHome = join(homedir(), ".claude");
	const plugin = installedPlugin(claudeHome);
	if (!existsSync(claudeHome) && !onPath("claude")) skip("claude hooks", "Claude Code not found (~/.claude, claude on PATH)");
	else {
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

	// 6b. What the agents' MCP entries use: their URL and key come from environment variables (the plugin's
	// .mcp.json: CAIRN_URL and CAIRN_KEY; Codex's config.toml: bearer_token_env_var), which doctor sees as
	// the agents started from this shell will.
	const want = { url, key: keyOk ? key : "" };
	if (!plugin.installed && !claudeUserMcp()) skip("claude mcp", "no cairn MCP server in Claude Code (the cairn plugin is not installed)");
	else {
		const spec = claudeUserMcp() ?? pluginMcp(plugin.mcp);
		const r = await mcpCheck("Claude Code", spec, want);
		if (r.ok) ok("claude mcp", r.detail);
		else fail("claude mcp", r.detail, r.fix);
	}
	const codexEntry = codexMcpEntry(existsSync(codexConfigPath()) ? readFileSync(codexConfigPath(), "utf8") : "");
	if (!codexEntry) skip("codex mcp", "no [mcp_servers.cairn] in Codex's config.toml");
	else if (!codex)
		skip(
			"codex mcp",
			`codex is not on PATH; once it is, its MCP server (${codexEntry.url ?? "no url"}) needs ${codexEntry.keyVariable ?? "CAIRN_KEY"} set to your key`,
		);
	else {
		const r = await mcpCheck(
			"Codex",
			{
				url: codexEntry.url ?? "",
				urlFrom: `url in ${codexConfigPath()}`,
				urlVariable: null,
				keyVariable: codexEntry.keyVariable,
				key: codexEntry.keyVariable ? (process.env[codexEntry.keyVariable] ?? "") : "",
			},
			want,
		);
		if (r.ok) ok("codex mcp", r.detail);
		else fail("codex mcp", r.detail, r.fix);
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
