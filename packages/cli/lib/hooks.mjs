// @ts-check
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The command line a hook runs: this CLI under the Node that runs it now, so PATH does not matter. */
export function hookCommand(/** @type {string} */ sub) {
	const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "cairn.mjs");
	return `"${process.execPath}" "${cli}" hook ${sub}`;
}

/** What `cairn hooks install claude` adds: event → hook subcommand. */
export const CLAUDE_HOOKS = /** @type {const} */ ({
	SessionStart: "session-start",
	Stop: "ingest",
	SessionEnd: "ingest",
	PreCompact: "pre-compact",
});
const MARK = /\bhook (session-start|ingest|pre-compact)$/;
const isOurs = (/** @type {any} */ h) =>
	h && h.type === "command" && typeof h.command === "string" && h.command.includes("cairn") && MARK.test(h.command);

/** @param {"project" | "user"} where @param {string} root */
export const claudeSettingsPath = (where, root) =>
	where === "user" ? join(homedir(), ".claude", "settings.json") : join(root, ".claude", "settings.json");

function readJson(/** @type {string} */ file) {
	if (!existsSync(file)) return {};
	const text = readFileSync(file, "utf8");
	if (!text.trim()) return {};
	try {
		return JSON.parse(text);
	} catch {
		throw new Error(`${file} is not valid JSON; fix it first, nothing was changed`);
	}
}

/**
 * Adds Cairn's hooks to a Claude Code settings.json, keeping everything already there. Running it
 * twice adds nothing the second time.
 * @param {string} file
 */
export function installClaude(file) {
	const settings = readJson(file);
	settings.hooks = settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {};
	const added = [];
	for (const [event, sub] of Object.entries(CLAUDE_HOOKS)) {
		const groups = Array.isArray(settings.hooks[event]) ? settings.hooks[event] : [];
		const present = groups.some((g) => Array.isArray(g?.hooks) && g.hooks.some(isOurs));
		if (!present) {
			groups.push({ matcher: "", hooks: [{ type: "command", command: hookCommand(sub), timeout: 10 }] });
			added.push(event);
		}
		settings.hooks[event] = groups;
	}
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
	return added;
}

/** Removes exactly the entries `installClaude` added; other hooks and settings stay. @param {string} file */
export function uninstallClaude(file) {
	if (!existsSync(file)) return [];
	const settings = readJson(file);
	const removed = [];
	if (!settings.hooks || typeof settings.hooks !== "object") return removed;
	for (const event of Object.keys(CLAUDE_HOOKS)) {
		const groups = settings.hooks[event];
		if (!Array.isArray(groups)) continue;
		const kept = [];
		for (const group of groups) {
			if (!Array.isArray(group?.hooks)) {
				kept.push(group);
				continue;
			}
			const hooks = group.hooks.filter((h) => !isOurs(h));
			if (hooks.length !== group.hooks.length) removed.push(event);
			if (hooks.length > 0) kept.push({ ...group, hooks });
		}
		if (kept.length > 0) settings.hooks[event] = kept;
		else delete settings.hooks[event];
	}
	if (Object.keys(settings.hooks).length === 0) delete settings.hooks;
	writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
	return removed;
}

export const codexConfigPath = () => join(process.env.CODEX_HOME || join(homedir(), ".codex"), "config.toml");

/**
 * Codex runs one `notify` program after each agent turn. Cairn sets it when none is set; an existing
 * notify program is never replaced (the user is told how to chain it instead).
 * @param {string} file
 */
export function installCodex(file) {
	const text = existsSync(file) ? readFileSync(file, "utf8") : "";
	const command = hookCommand("codex-notify");
	const parts = command.match(/"[^"]*"|\S+/g)?.map((p) => p.replace(/^"|"$/g, "")) ?? [];
	const line = `notify = [${parts.map((p) => JSON.stringify(p)).join(", ")}]`;
	const existing = /^notify\s*=.*$/m.exec(text);
	if (existing) {
		if (existing[0].includes("codex-notify")) return { changed: false, line };
		return { changed: false, conflict: existing[0], line };
	}
	// Top-level keys must come before the first table header.
	const table = text.search(/^\[/m);
	const next =
		table < 0 ? `${text}${text && !text.endsWith("\n") ? "\n" : ""}${line}\n` : `${text.slice(0, table)}${line}\n\n${text.slice(table)}`;
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, next);
	return { changed: true, line };
}

/** Removes the notify line `installCodex` wrote, and only that. @param {string} file */
export function uninstallCodex(file) {
	if (!existsSync(file)) return false;
	const text = readFileSync(file, "utf8");
	const next = text.replace(/^notify\s*=.*codex-notify.*\n(\n)?/m, "");
	if (next === text) return false;
	writeFileSync(file, next);
	return true;
}
