// @ts-check
// What Codex itself says about its hooks: `codex app-server`'s `hooks/list` (what its /hooks screen
// shows), with each hook's key, current hash and trust status. Cairn reads it; it never records trust.
import { spawn, spawnSync } from "node:child_process";

/** The `codex` program on PATH, or null. */
export function codexOnPath() {
	const r = spawnSync(process.platform === "win32" ? "where" : "which", ["codex"], { encoding: "utf8" });
	const found = r.status === 0 ? r.stdout.split("\n")[0]?.trim() : "";
	return found || null;
}

/**
 * Codex's hooks for a working directory, as `hooks/list` reports them.
 * @param {string} codex the program @param {string} cwd @param {number} [timeoutMs]
 * @returns {Promise<{ key: string, command: string, eventName: string, currentHash: string, trustStatus: string }[]>}
 */
export function listCodexHooks(codex, cwd, timeoutMs = 15_000) {
	return new Promise((resolve, reject) => {
		const child = spawn(codex, ["app-server"], { cwd, env: process.env, stdio: ["pipe", "pipe", "ignore"] });
		const timer = setTimeout(() => {
			child.kill();
			reject(new Error("codex app-server did not answer"));
		}, timeoutMs);
		let buffer = "";
		child.stdout.on("data", (d) => {
			buffer += d;
			for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
				const line = buffer.slice(0, i);
				buffer = buffer.slice(i + 1);
				let message;
				try {
					message = JSON.parse(line);
				} catch {
					continue;
				}
				if (message.id === 1) {
					child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
					child.stdin.write(`${JSON.stringify({ id: 2, method: "hooks/list", params: { cwds: [cwd] } })}\n`);
				} else if (message.id === 2) {
					clearTimeout(timer);
					child.kill();
					if (message.error) reject(new Error(`codex hooks/list: ${message.error.message ?? "failed"}`));
					else resolve((message.result?.data ?? []).flatMap((/** @type {any} */ d) => d.hooks ?? []));
				}
			}
		});
		child.on("error", (err) => {
			clearTimeout(timer);
			reject(err);
		});
		child.stdin.write(`${JSON.stringify({ id: 1, method: "initialize", params: { clientInfo: { name: "cairn", version: "1" } } })}\n`);
	});
}

/** The `[mcp_servers.cairn]` table `cairn setup` adds to Codex's config.toml: up to the next table or the end. */
const MCP_TABLE = /\n?^\[mcp_servers\.cairn\][ \t]*\r?\n(?:(?!\[)[^\n]*(?:\n|$))*/m;

/**
 * Codex's entry for Cairn's MCP server in config.toml, as Codex reads it: the URL, and the environment
 * variable its Bearer key comes from (`bearer_token_env_var`); null when there is none.
 * @param {string} toml
 */
export function codexMcpEntry(toml) {
	const table = MCP_TABLE.exec(toml)?.[0];
	if (!table) return null;
	const value = (/** @type {string} */ key) => new RegExp(`^\\s*${key}\\s*=\\s*"([^"]*)"`, "m").exec(table)?.[1] ?? null;
	return { url: value("url"), keyVariable: value("bearer_token_env_var") };
}

/** config.toml without Cairn's MCP table (and without the blank lines it leaves). @param {string} toml */
export const withoutCodexMcp = (toml) =>
	toml
		.replace(MCP_TABLE, "\n")
		.replace(/\n{3,}/g, "\n\n")
		.replace(/^\n+/, "");
