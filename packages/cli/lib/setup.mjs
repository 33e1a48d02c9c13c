// @ts-check
// `cairn setup`: the whole set-up in one command. Against a local `npm start` it creates a tenant and
// key with the checkout's operator token (local only); against a deployment it takes a URL and key.
// Then: login, this repository registered with memory on, the Claude Code plugin (or hooks), the
// Codex hooks and MCP entry — and it tells the user to trust the hooks in Codex, which only they can do.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError, client } from "./api.mjs";
import { codexOnPath } from "./codex.mjs";
import { readConfig, writeConfig } from "./config.mjs";
import { START_PARTS } from "./hook-output.mjs";
import {
	CLAUDE_HOOKS,
	CODEX_HOOKS,
	claudeSettingsPath,
	codexConfigPath,
	codexHooksPath,
	hookCommand,
	installHooks,
	uninstallHooks,
} from "./hooks.mjs";
import { projectFor, repository } from "./project.mjs";

const LOCAL_HOSTS = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The Cairn checkout this CLI runs from (it holds the marketplace and `.dev.vars`), if any. */
export function checkoutOf(start = dirname(fileURLToPath(import.meta.url))) {
	for (let dir = resolve(start), i = 0; i < 6; i++, dir = dirname(dir)) {
		if (existsSync(join(dir, ".claude-plugin", "marketplace.json"))) return dir;
	}
	return null;
}

const DEFAULT_URL = "http://127.0.0.1:8787";

/** How many hooks an install writes: one per event, the session start one per part of its block. @param {Record<string, object>} events */
export const hookCount = (events) =>
	Object.values(events).reduce((n, e) => n + ("parts" in e && typeof e.parts === "number" ? e.parts : 1), 0);

/** What an install changed in a hooks file, for one line of setup's output. @param {{ added: string[], updated: string[] }} result */
const changed = ({ added, updated }) =>
	updated.length
		? ` (brought ${updated.join(", ")} up to date${updated.includes("SessionStart") ? `: the session-start block comes in ${START_PARTS} parts, one hook each` : ""})`
		: added.length
			? ""
			: " (already there)";

/**
 * The URL a checkout's running `npm start` serves at (scripts/start.mjs keeps it in .wrangler/cairn-dev.json
 * while it runs), or null when none runs. @param {string} checkout
 */
export function devUrl(checkout) {
	try {
		const { url, pid } = JSON.parse(readFileSync(join(checkout, ".wrangler", "cairn-dev.json"), "utf8"));
		process.kill(pid, 0); // throws when that launcher is gone (a file left by a killed one)
		return typeof url === "string" && /^https?:\/\//.test(url) ? url : null;
	} catch {
		return null;
	}
}

/** The local operator token from a checkout's `.dev.vars` (written by `npm start`). @param {string} checkout */
export function devAdminToken(checkout) {
	const file = join(checkout, ".dev.vars");
	if (!existsSync(file)) return null;
	return /^CAIRN_ADMIN_TOKEN=(.+)$/m.exec(readFileSync(file, "utf8"))?.[1]?.trim() || null;
}

/**
 * @param {string} dir the repository to set up
 * @param {{ url?: string, key?: string, adminToken?: string, checkout?: string, name?: string }} options
 * @param {(s: string) => void} out
 */
export async function setup(dir, options, out) {
	const checkout = options.checkout ? resolve(options.checkout) : checkoutOf();
	const url = String(options.url || process.env.CAIRN_URL || (checkout ? devUrl(checkout) : null) || DEFAULT_URL).replace(/\/+$/, "");
	let key = options.key || "";
	if (!key) {
		// A tenant and key of one's own on a local service, with the operator token: never against a deployment.
		let host;
		try {
			host = new URL(url).hostname;
		} catch {
			throw new Error(`--url ${JSON.stringify(url.slice(0, 100))} is not a URL`);
		}
		if (!LOCAL_HOSTS.has(host))
			throw new Error(
				`${url} is not a local service: pass the key your admin gave you with --key (the operator token is used only against 127.0.0.1)`,
			);
		const adminToken = options.adminToken || (checkout ? devAdminToken(checkout) : null);
		if (!adminToken)
			throw new Error("no operator token: run `npm start` once in the Cairn checkout (it writes .dev.vars), or pass --admin-token");
		const user = userInfo().username || "me";
		const name = options.name || `${user}@${hostname()}`;
		const res = await fetch(`${url}/v1/admin/tenants`, {
			method: "POST",
			headers: { Authorization: `Bearer ${adminToken}`, "Content-Type": "application/json" },
			body: JSON.stringify({ name, user }),
		}).catch(() => null);
		if (!res)
			throw new Error(
				`the service at ${url} does not answer: start it with \`npm start\` in the Cairn checkout, or pass the URL it runs at (--url http://127.0.0.1:8795)`,
			);
		if (res.status === 401 || res.status === 403)
			throw new Error("the operator token was refused: check CAIRN_ADMIN_TOKEN in the checkout's .dev.vars");
		if (!res.ok) throw new Error(`creating a tenant failed (HTTP ${res.status})`);
		key = /** @type {any} */ (await res.json()).key.token;
		out(`created tenant ${name} with an admin key for ${user}`);
	}

	// Login: the key is checked before it is saved.
	const api = client({ url, key });
	try {
		await api.get("/v1/projects");
	} catch (err) {
		throw new Error(
			err instanceof ApiError && err.status
				? `the key ${options.key ? "given with --key" : "just created"} was refused by ${url} (${err.code}): check it with whoever runs that service`
				: `the service at ${url} does not answer: check the URL (--url) and that the service runs`,
		);
	}
	const saved = writeConfig({ ...readConfig(), url, key });
	out(`logged in to ${url}; saved to ${saved}`);

	// This repository, memory on.
	const repo = repository(dir);
	const project = await projectFor(api, dir);
	await api.put(`/v1/projects/${project.id}/settings`, { "memories.enabled": true });
	out(`project ${project.id} (${repo.remote ?? repo.root}); memories are on`);

	// Claude Code: the plugin from the checkout's marketplace when `claude` is here, else the hooks in the user's settings.
	const claude = spawnSync(process.platform === "win32" ? "where" : "which", ["claude"], { encoding: "utf8" }).status === 0;
	if (claude && checkout) {
		const add = spawnSync("claude", ["plugin", "marketplace", "add", checkout], { encoding: "utf8" });
		const install = add.status === 0 ? spawnSync("claude", ["plugin", "install", "cairn@cairn"], { encoding: "utf8" }) : add;
		if (install.status === 0) out("Claude Code: installed the cairn plugin (hooks, commands, MCP server)");
		else
			out(
				`Claude Code: the plugin did not install (${(install.stderr || install.stdout).trim().split("\n").at(-1)}); run \`cairn hooks install claude --user\` instead`,
			);
	} else {
		const file = claudeSettingsPath("user", repo.root);
		const result = installHooks(file, CLAUDE_HOOKS, (sub) => hookCommand(sub, "claude", false));
		out(
			`Claude Code: ${hookCount(CLAUDE_HOOKS)} hooks in ${file}${changed(result)}${claude ? "" : " (claude is not on PATH; the plugin can be installed later)"}`,
		);
	}

	// Codex: hooks and the MCP entry (the key comes from CAIRN_KEY in the environment, never from the file).
	const hooksFile = codexHooksPath("user", repo.root);
	const codexHooks = installHooks(hooksFile, CODEX_HOOKS, (sub) => hookCommand(sub, "codex", false));
	const configFile = codexConfigPath();
	const toml = existsSync(configFile) ? readFileSync(configFile, "utf8") : "";
	if (!/^\[mcp_servers\.cairn\]/m.test(toml)) {
		mkdirSync(dirname(configFile), { recursive: true });
		appendFileSync(
			configFile,
			`${toml && !toml.endsWith("\n") ? "\n" : ""}\n[mcp_servers.cairn]\nurl = "${url}/mcp"\nbearer_token_env_var = "CAIRN_KEY"\n`,
		);
	}
	out(`Codex: ${hookCount(CODEX_HOOKS)} hooks in ${hooksFile}${changed(codexHooks)}, MCP server cairn in ${configFile}`);
	out("");
	out("Two things only you can do:");
	out(
		codexOnPath()
			? `  1. Codex runs a new or changed hook only once you trust it: open Codex, run /hooks and trust Cairn's hooks (${hookCount(CODEX_HOOKS)}, the session start's ${START_PARTS} among them).`
			: `  1. Codex runs a new or changed hook only once you trust it: once Codex is installed, open it, run /hooks and trust Cairn's hooks (${hookCount(CODEX_HOOKS)}, the session start's ${START_PARTS} among them).`,
	);
	out("  2. The MCP servers read the key from the environment: add to your shell profile");
	out(`       export CAIRN_URL=${url} CAIRN_KEY=${key}`);
	out("");
	out("Next:");
	out(`  - The console: ${url}/console — sign in with the key above (CAIRN_KEY).`);
	out("  - Try a prompt as the agent sends it; --explain says why each memory was served or held back:");
	out(`       ${tryPrompt(repo.root)}`);
	out("  - `cairn doctor` checks everything.");
	out("  - To undo: `cairn setup --undo` removes the hooks, the plugin, the MCP entry and the saved login (memories stay on the service).");
}

/** A shell command that feeds the prompt hook what Claude Code sends on UserPromptSubmit. @param {string} root */
export function tryPrompt(root) {
	const payload = JSON.stringify({
		session_id: "try-cairn",
		transcript_path: "",
		cwd: root,
		permission_mode: "default",
		hook_event_name: "UserPromptSubmit",
		prompt: "How do we run the tests here?",
	});
	return `echo '${payload.replaceAll("'", "'\\''")}' | ${hookCommand("user-prompt-submit", "claude", false)} --explain`;
}

/**
 * `cairn setup --undo`: removes what setup installed for this user — the Claude Code plugin or hooks in
 * ~/.claude/settings.json, the Codex hooks and MCP entry — and the saved login. Memories stay on the service.
 * @param {string} dir @param {(s: string) => void} out
 */
export function undoSetup(dir, out) {
	const repo = repository(dir);
	const claude = spawnSync(process.platform === "win32" ? "where" : "which", ["claude"], { encoding: "utf8" }).status === 0;
	if (claude) {
		const r = spawnSync("claude", ["plugin", "uninstall", "cairn@cairn"], { encoding: "utf8" });
		out(r.status === 0 ? "Claude Code: uninstalled the cairn plugin" : "Claude Code: no cairn plugin installed");
	}
	const claudeFile = claudeSettingsPath("user", repo.root);
	out(
		uninstallHooks(claudeFile).length
			? `Claude Code: removed Cairn's hooks from ${claudeFile}`
			: `Claude Code: no Cairn hooks in ${claudeFile}`,
	);
	const hooksFile = codexHooksPath("user", repo.root);
	out(uninstallHooks(hooksFile).length ? `Codex: removed Cairn's hooks from ${hooksFile}` : `Codex: no Cairn hooks in ${hooksFile}`);
	const configFile = codexConfigPath();
	const toml = existsSync(configFile) ? readFileSync(configFile, "utf8") : "";
	// The table setup appended: its header up to the next table (or the end).
	const without = toml.replace(/\n?^\[mcp_servers\.cairn\]\n(?:(?!\[)[^\n]*\n?)*/m, "\n");
	if (without !== toml) {
		writeFileSync(configFile, `${without.replace(/\n{3,}/g, "\n\n").replace(/^\n+/, "")}`);
		out(`Codex: removed the cairn MCP server from ${configFile}`);
	}
	const { url: _url, key: _key, ...rest } = readConfig();
	out(`forgot the saved login in ${writeConfig(rest)}`);
	out(
		"Memories stay on the service (`cairn clear` deletes a project's before undoing); remove CAIRN_URL and CAIRN_KEY from your shell profile.",
	);
}
