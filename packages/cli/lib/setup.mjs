// @ts-check
// `cairn setup`: the whole set-up in one command. Against a local `npm start` it creates a tenant and
// key with the checkout's operator token (local only); against a deployment it takes a URL and key.
// Then: login, this repository registered with memory on, the Claude Code plugin (or hooks), the
// Codex hooks and MCP entry — and it tells the user to trust the hooks in Codex, which only they can do.
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, writeFileSync } from "node:fs";
import { hostname, userInfo } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError, causeOf, client, sameService } from "./api.mjs";
import { codexMcpEntry, codexOnPath, withoutCodexMcp } from "./codex.mjs";
import { keyLabel, readConfig, removeConfig, replaceLogin, writeConfig } from "./config.mjs";
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
import { memoryCount, ownProject } from "./stranded.mjs";

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

/** @param {string} url */
async function answers(url) {
	try {
		const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5000) });
		return res.ok ? null : `HTTP ${res.status} from ${url}/health`;
	} catch (err) {
		return err instanceof Error && err.name === "TimeoutError" ? "no answer within 5 s" : causeOf(err);
	}
}

/**
 * Whether the service takes a key: "ok", "refused" (401/403), or it throws (the service answered
 * something else, or stopped answering). @param {string} url @param {string} key
 */
async function keyState(url, key) {
	try {
		await client({ url, key, timeoutMs: 10_000 }).get("/v1/projects");
		return "ok";
	} catch (err) {
		if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return "refused";
		throw err;
	}
}

/**
 * `cairn setup`. Idempotent: run again, it reuses the saved login (its URL, and its key while the service
 * takes it), the repository's project and every hook and entry already in place, and says so; it makes a
 * tenant only when there is no working key (or with `--new-tenant`), and a key it replaces is kept in the
 * config's `previous` logins, so nothing written under it is out of reach.
 * @param {string} dir the repository to set up
 * @param {{ url?: string, key?: string, adminToken?: string, checkout?: string, name?: string, newTenant?: boolean }} options
 * @param {(s: string) => void} out
 */
export async function setup(dir, options, out) {
	const checkout = options.checkout ? resolve(options.checkout) : checkoutOf();
	const config = readConfig();
	const running = checkout ? devUrl(checkout) : null;
	const [given, from] = options.url
		? [options.url, "--url"]
		: process.env.CAIRN_URL
			? [process.env.CAIRN_URL, "CAIRN_URL"]
			: config.url
				? [config.url, "the saved login"]
				: running
					? [running, "the checkout's running `npm start`"]
					: [DEFAULT_URL, "the default"];
	const url = String(given).replace(/\/+$/, "");
	let host;
	try {
		host = new URL(url).hostname;
	} catch {
		throw new Error(`${from} ${JSON.stringify(url.slice(0, 100))} is not a URL: pass the service's, e.g. --url ${DEFAULT_URL}`);
	}
	// A key goes only to the service it was saved for (or another port of this machine's).
	const savedKey = config.key && config.url && sameService(config.url, url) ? config.key : "";
	const envUrl = process.env.CAIRN_URL;
	const env =
		process.env.CAIRN_KEY && process.env.CAIRN_KEY !== savedKey && (!envUrl || sameService(envUrl, url)) ? process.env.CAIRN_KEY : "";
	const local = LOCAL_HOSTS.has(host);
	if (!options.key && (options.newTenant || (!savedKey && !env)) && !local)
		throw new Error(
			`${url} is not a local service: pass the key your admin gave you with --key (the operator token is used only against 127.0.0.1)`,
		);
	const down = await answers(url);
	if (down) {
		const elsewhere =
			running && running !== url
				? `this checkout's \`npm start\` serves at ${running}: \`cairn setup --url ${running}\``
				: "pass the URL it serves at with --url";
		throw new Error(
			`cannot reach ${url}, the URL from ${from} (${down}); nothing was changed — ${local ? `is the service running? Start it with \`npm start\` in the Cairn checkout; or ${elsewhere}` : `is the service up and this machine online? Or ${elsewhere}`}`,
		);
	}

	// The key: the one given; else the saved login's (or CAIRN_KEY's) while the service takes it; else a new tenant's.
	let key = options.key || "";
	/** @type {import("./config.mjs").Tenant | undefined} */
	let tenant;
	let reused = false;
	if (key) {
		if ((await keyState(url, key)) === "refused")
			throw new Error(
				`the key given with --key was refused by ${url} (unauthorized); nothing was changed: check it with whoever runs that service`,
			);
	} else if (!options.newTenant) {
		for (const [candidate, where] of /** @type {const} */ ([
			[savedKey, "the saved login's key"],
			[env, "the key in CAIRN_KEY"],
		])) {
			if (!candidate) continue;
			if ((await keyState(url, candidate)) === "ok") {
				key = candidate;
				reused = true;
				tenant = candidate === config.key ? config.tenant : undefined;
				out(
					`reusing ${where} ${keyLabel(key)}${tenant ? ` (tenant ${tenant.name})` : ""} at ${url}: it works, so no new tenant (\`cairn setup --new-tenant\` makes one)`,
				);
				break;
			}
			out(`${where} ${keyLabel(candidate)} was refused by ${url} (unauthorized), so it cannot be reused`);
		}
	}
	if (!key) {
		// A tenant and key of one's own on a local service, with the operator token: never against a deployment.
		if (!local)
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
				`cannot reach ${url} (it stopped answering) — is the service running? Start it with \`npm start\` in the Cairn checkout, or pass the URL it serves at with --url`,
			);
		if (res.status === 401 || res.status === 403)
			throw new Error(
				`the operator token ${options.adminToken ? "given with --admin-token" : `in ${checkout ? join(checkout, ".dev.vars") : ".dev.vars"}`} was refused by ${url}: it is the CAIRN_ADMIN_TOKEN of the running service (restart \`npm start\` after changing .dev.vars), or pass the key you have with --key`,
			);
		if (!res.ok) throw new Error(`creating a tenant at ${url} failed (HTTP ${res.status}): see the service's log`);
		const created = /** @type {any} */ (await res.json());
		key = created.key.token;
		tenant = { id: created.tenant.id, name: created.tenant.name };
		out(`created tenant ${name} with an admin key for ${user}`);
	}

	// Login. A replaced key (--key, --new-tenant, or a saved one refused) is kept under `previous` with its projects.
	const replaced = config.key && config.key !== key ? config.key : null;
	const saved = writeConfig(replaceLogin(config, { url, key, ...(tenant ? { tenant } : {}) }));
	out(reused ? `login unchanged in ${saved}` : `logged in to ${url}; saved to ${saved}`);
	if (replaced)
		out(
			`the key saved before (${keyLabel(replaced)}) is kept in ${saved} under "previous": \`cairn doctor\` says how to return to it if your memories are there`,
		);

	// This repository, memory on.
	const api = client({ url, key });
	const repo = repository(dir);
	const now = readConfig();
	const known = now.projects?.[repo.root];
	if (known) await ownProject(api, now, url, key, known);
	const project = await projectFor(api, dir);
	await api.put(`/v1/projects/${project.id}/settings`, { "memories.enabled": true });
	const count = await memoryCount(api, project.id);
	out(
		`project ${project.id} (${repo.remote ?? repo.root})${known ? ", already registered" : ""}${count === null ? "" : `, ${count} memor${count === 1 ? "y" : "ies"}`}; memories are on`,
	);

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
	const entry = codexMcpEntry(toml);
	const table = `[mcp_servers.cairn]\nurl = "${url}/mcp"\nbearer_token_env_var = "CAIRN_KEY"\n`;
	let mcp = " (already there)";
	if (!entry) {
		mkdirSync(dirname(configFile), { recursive: true });
		appendFileSync(configFile, `${toml && !toml.endsWith("\n") ? "\n" : ""}${toml ? "\n" : ""}${table}`);
		mcp = "";
	} else if (entry.url !== `${url}/mcp` || entry.keyVariable !== "CAIRN_KEY") {
		const rest = withoutCodexMcp(toml);
		writeFileSync(configFile, `${rest}${rest && !rest.endsWith("\n") ? "\n" : ""}${rest ? "\n" : ""}${table}`);
		mcp = ` (its URL was ${entry.url ?? "not set"}; now ${url}/mcp)`;
	}
	out(`Codex: ${hookCount(CODEX_HOOKS)} hooks in ${hooksFile}${changed(codexHooks)}; MCP server cairn in ${configFile}${mcp}`);
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
	out(
		"  - To undo: `cairn setup --undo` removes the hooks, the plugin, the MCP entry and the config file with the saved login (memories stay on the service).",
	);
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

/** A JSON settings file, or null when it is missing or not JSON (then it is left alone). @param {string} file */
function readJsonFile(file) {
	try {
		return existsSync(file) ? JSON.parse(readFileSync(file, "utf8") || "{}") : null;
	} catch {
		return null;
	}
}

/**
 * Takes what `claude plugin marketplace add` and `claude plugin install` left in Claude Code's user
 * settings for the cairn marketplace and plugin (`extraKnownMarketplaces.cairn`, `enabledPlugins["cairn@cairn"]`);
 * returns what it took out. @param {string} file
 */
function forgetMarketplace(file) {
	const settings = readJsonFile(file);
	if (!settings || typeof settings !== "object") return [];
	const taken = [];
	for (const [field, key] of /** @type {const} */ ([
		["extraKnownMarketplaces", "cairn"],
		["enabledPlugins", "cairn@cairn"],
	])) {
		const table = settings[field];
		if (!table || typeof table !== "object" || !Object.hasOwn(table, key)) continue;
		delete table[key];
		if (Object.keys(table).length === 0) delete settings[field];
		taken.push(`${field}.${key}`);
	}
	if (taken.length) writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
	return taken;
}

/** Deletes a JSON file that holds nothing any more (`{}`); returns whether it did. @param {string} file */
function removeIfEmpty(file) {
	const settings = readJsonFile(file);
	if (!settings || typeof settings !== "object" || Array.isArray(settings) || Object.keys(settings).length > 0) return false;
	rmSync(file);
	return true;
}

/**
 * `cairn setup --undo`: removes what setup added for this user — the Claude Code plugin and its
 * marketplace, or the hooks in ~/.claude/settings.json; the Codex hooks (and hooks.json when nothing else
 * is in it) and MCP entry; the CLI's config file with the saved login. Memories stay on the service, and
 * the key that reaches them is printed once more.
 * @param {string} dir @param {(s: string) => void} out
 */
export function undoSetup(dir, out) {
	const repo = repository(dir);
	const claude = spawnSync(process.platform === "win32" ? "where" : "which", ["claude"], { encoding: "utf8" }).status === 0;
	if (claude) {
		const r = spawnSync("claude", ["plugin", "uninstall", "cairn@cairn"], { encoding: "utf8" });
		out(r.status === 0 ? "Claude Code: uninstalled the cairn plugin" : "Claude Code: no cairn plugin installed");
		const m = spawnSync("claude", ["plugin", "marketplace", "remove", "cairn"], { encoding: "utf8" });
		if (m.status === 0) out("Claude Code: removed the cairn marketplace");
	}
	const claudeFile = claudeSettingsPath("user", repo.root);
	out(
		uninstallHooks(claudeFile).length
			? `Claude Code: removed Cairn's hooks from ${claudeFile}`
			: `Claude Code: no Cairn hooks in ${claudeFile}`,
	);
	const taken = forgetMarketplace(claudeFile);
	if (taken.length) out(`Claude Code: removed ${taken.join(" and ")} from ${claudeFile}`);
	const hooksFile = codexHooksPath("user", repo.root);
	out(uninstallHooks(hooksFile).length ? `Codex: removed Cairn's hooks from ${hooksFile}` : `Codex: no Cairn hooks in ${hooksFile}`);
	if (removeIfEmpty(hooksFile)) out(`Codex: removed ${hooksFile}, which held nothing else`);
	const configFile = codexConfigPath();
	const toml = existsSync(configFile) ? readFileSync(configFile, "utf8") : "";
	if (codexMcpEntry(toml)) {
		const rest = withoutCodexMcp(toml);
		if (rest.trim()) writeFileSync(configFile, rest);
		else rmSync(configFile);
		out(`Codex: removed the cairn MCP server from ${configFile}${rest.trim() ? "" : " (and the file, which held nothing else)"}`);
	}
	try {
		// The Codex home setup made, when nothing else is in it now.
		if (readdirSync(dirname(hooksFile)).length === 0 && dirname(hooksFile) === dirname(configFile)) rmdirSync(dirname(hooksFile));
	} catch {
		// gone already, or Codex's own files are there
	}
	const config = readConfig();
	out(`removed ${removeConfig()} (the saved login, this machine's repository → project ids, the hooks' upload state)`);
	out(
		"Memories stay on the service (`cairn clear` deletes a project's before undoing); remove CAIRN_URL and CAIRN_KEY from your shell profile.",
	);
	// The keys are saved nowhere now: without one, its tenant's memories are out of reach.
	const logins = [
		...(config.key ? [{ url: config.url ?? "", key: config.key, tenant: config.tenant, when: "" }] : []),
		...(config.previous ?? []).map((p) => ({ ...p, when: ` (replaced ${p.replacedAt.slice(0, 10)})` })),
	];
	if (logins.length) out("To reach them again later, keep the key (it was saved only in that file):");
	for (const l of logins)
		out(
			`  cairn setup --url ${l.url} --key ${l.key}${l.tenant ? `   # tenant ${l.tenant.name}` : ""}${l.when ? `${l.tenant ? "," : "   #"}${l.when}` : ""}`,
		);
}
