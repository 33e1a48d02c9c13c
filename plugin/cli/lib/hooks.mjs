// @ts-check
// `cairn hooks install|uninstall claude|codex`: merge Cairn's hooks into the agents' settings files,
// keeping everything already there, and take out exactly what was added.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { START_PARTS } from "./hook-output.mjs";

const CLI = fileURLToPath(new URL("../cairn.mjs", import.meta.url));

/**
 * Agent event → `cairn hook <sub>`, with the agent's timeout in seconds (ours is shorter: 1.5 s / 3 s).
 * `parts`: the event gets that many hooks, `--part 1/n` … `--part n/n`, one part of the block each (an
 * agent caps each hook's text, not the event's).
 */
export const CLAUDE_HOOKS = /** @type {const} */ ({
	SessionStart: { sub: "session-start", timeout: 10, parts: START_PARTS },
	UserPromptSubmit: { sub: "user-prompt-submit", timeout: 5 },
	// Pushes team memory files the agent wrote; returns at once for any other file.
	PostToolUse: { sub: "post-tool-use", timeout: 10, matcher: "Write|Edit|MultiEdit" },
	Stop: { sub: "stop", timeout: 10 },
	SubagentStop: { sub: "subagent-stop", timeout: 10 },
	PreCompact: { sub: "pre-compact", timeout: 10 },
	// Claude Code gives SessionEnd about 1.5 s unless a timeout is set.
	SessionEnd: { sub: "session-end", timeout: 10 },
});
/** Codex ignores events it does not know (older versions have no SubagentStop or SessionEnd); it caps SessionEnd at 3 s. */
export const CODEX_HOOKS = /** @type {const} */ ({
	SessionStart: { sub: "session-start", timeout: 10, parts: START_PARTS },
	UserPromptSubmit: { sub: "user-prompt-submit", timeout: 5 },
	// Codex edits files with apply_patch; the hook reads the patch's file names.
	PostToolUse: { sub: "post-tool-use", timeout: 10, matcher: "apply_patch|Write|Edit" },
	Stop: { sub: "stop", timeout: 10 },
	SubagentStop: { sub: "subagent-stop", timeout: 10 },
	PreCompact: { sub: "pre-compact", timeout: 10 },
	SessionEnd: { sub: "session-end", timeout: 3 },
});

const MARK = /\bhook (session-start|user-prompt-submit|post-tool-use|stop|subagent-stop|pre-compact|session-end|ingest)\b/;
const isOurs = (/** @type {any} */ h) =>
	h && h.type === "command" && typeof h.command === "string" && h.command.includes("cairn") && MARK.test(h.command);

/** Whether `cairn` on PATH is this very CLI (a global install or `npm link`). */
function cairnOnPath() {
	try {
		const found = execFileSync(process.platform === "win32" ? "where" : "which", ["cairn"], {
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
		})
			.split("\n")[0]
			?.trim();
		return Boolean(found) && realpathSync(/** @type {string} */ (found)) === realpathSync(CLI);
	} catch {
		return false;
	}
}

/**
 * The command a hook runs. Files a team commits get `cairn …` (on each person's PATH: no machine's
 * paths in the repository); personal files get `cairn …` when that resolves to this CLI, else this
 * CLI under this Node by absolute path, so PATH does not matter.
 * @param {string} sub @param {"claude" | "codex"} agent @param {boolean} shared
 */
export function hookCommand(sub, agent, shared) {
	if (shared || cairnOnPath()) return `cairn hook ${sub} --agent ${agent}`;
	return `"${process.execPath}" "${CLI}" hook ${sub} --agent ${agent}`;
}

/** @param {"local" | "project" | "user"} where @param {string} root */
export const claudeSettingsPath = (where, root) =>
	where === "user"
		? join(homedir(), ".claude", "settings.json")
		: join(root, ".claude", where === "project" ? "settings.json" : "settings.local.json");

const codexHome = () => process.env.CODEX_HOME || join(homedir(), ".codex");
/** @param {"user" | "project"} where @param {string} root */
export const codexHooksPath = (where, root) => (where === "project" ? join(root, ".codex", "hooks.json") : join(codexHome(), "hooks.json"));
export const codexConfigPath = () => join(codexHome(), "config.toml");

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

/** The commands an event runs: one, or one per part of the block (`… --part 1/n` … `--part n/n`). @param {string} command @param {number} [parts] */
export const partCommands = (command, parts) =>
	parts ? Array.from({ length: parts }, (_, i) => `${command} --part ${i + 1}/${parts}`) : [command];

/**
 * Adds Cairn's hooks to a Claude-style hooks file (Claude Code settings.json, Codex hooks.json): one
 * matcher group per event, keeping every other group and setting. An event with `parts` gets its hooks
 * side by side in that group. Running it again changes nothing, or brings an older Cairn install up to
 * date (an older command, a single session-start hook where there are parts now, duplicates): every hook
 * of ours in the event is replaced by what is wanted, where the first of them was.
 * A tool event's group carries the tools it is for (`matcher`).
 * @param {string} file @param {Record<string, { sub: string, timeout: number, matcher?: string, parts?: number }>} events
 * @param {(sub: string) => string} command
 * @returns {{ added: string[], updated: string[] }}
 */
export function installHooks(file, events, command) {
	const settings = readJson(file);
	settings.hooks = settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {};
	const added = [];
	const updated = [];
	for (const [event, { sub, timeout, matcher, parts }] of Object.entries(events)) {
		const groups = Array.isArray(settings.hooks[event]) ? settings.hooks[event] : [];
		const before = JSON.stringify(groups);
		const wanted = partCommands(command(sub), parts).map((c) => ({ type: "command", command: c, timeout }));
		let had = false;
		/** @type {{ group: any, at: number } | null} where the first hook of ours was, in a group with the right matcher */
		let home = null;
		for (const group of groups) {
			if (!Array.isArray(group?.hooks)) continue;
			const at = group.hooks.findIndex(isOurs);
			if (at < 0) continue;
			had = true;
			// Ours under another matcher (an older install) moves to a group of its own below.
			if (!home && (!matcher || group.matcher === matcher)) home = { group, at };
			group.hooks = group.hooks.filter((/** @type {any} */ h) => !isOurs(h));
		}
		if (home) home.group.hooks.splice(home.at, 0, ...wanted);
		else groups.push(matcher ? { matcher, hooks: wanted } : { hooks: wanted });
		settings.hooks[event] = groups.filter((/** @type {any} */ g) => !Array.isArray(g?.hooks) || g.hooks.length > 0);
		if (JSON.stringify(settings.hooks[event]) !== before) (had ? updated : added).push(event);
	}
	mkdirSync(dirname(file), { recursive: true });
	writeFileSync(file, `${JSON.stringify(settings, null, 2)}\n`);
	return { added, updated };
}

/** Removes exactly the entries `installHooks` added; other hooks and settings stay. @param {string} file */
export function uninstallHooks(file) {
	if (!existsSync(file)) return [];
	const settings = readJson(file);
	/** @type {string[]} */
	const removed = [];
	if (!settings.hooks || typeof settings.hooks !== "object") return removed;
	for (const event of Object.keys(settings.hooks)) {
		const groups = settings.hooks[event];
		if (!Array.isArray(groups)) continue;
		const kept = [];
		for (const group of groups) {
			if (!Array.isArray(group?.hooks)) {
				kept.push(group);
				continue;
			}
			const hooks = group.hooks.filter((/** @type {any} */ h) => !isOurs(h));
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

/**
 * Codex versions without hooks run one `notify` program after each turn. Cairn sets it when none is
 * set; an existing notify program is never replaced (the user is told how to chain it instead).
 * @param {string} file
 */
export function installCodexNotify(file) {
	const text = existsSync(file) ? readFileSync(file, "utf8") : "";
	const parts = [process.execPath, CLI, "hook", "codex-notify"];
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

/** Removes the notify line `installCodexNotify` wrote, and only that. @param {string} file */
export function uninstallCodexNotify(file) {
	if (!existsSync(file)) return false;
	const text = readFileSync(file, "utf8");
	const next = text.replace(/^notify\s*=.*codex-notify.*\n(\n)?/m, "");
	if (next === text) return false;
	writeFileSync(file, next);
	return true;
}

/** The events a hooks file (Claude Code settings, Codex hooks.json) runs Cairn on; none when the file is missing or unreadable. @param {string} file */
export function cairnEvents(file) {
	try {
		const settings = readJson(file);
		const hooks = settings.hooks && typeof settings.hooks === "object" ? settings.hooks : {};
		return Object.keys(hooks).filter(
			(event) => Array.isArray(hooks[event]) && hooks[event].some((g) => Array.isArray(g?.hooks) && g.hooks.some(isOurs)),
		);
	} catch {
		return [];
	}
}

/** The session-start commands of Cairn's in a hooks file (Claude Code settings, Codex hooks.json, the plugin's hooks.json). @param {string} file */
export function startCommands(file) {
	try {
		const settings = readJson(file);
		const groups = settings.hooks && typeof settings.hooks === "object" ? settings.hooks.SessionStart : null;
		if (!Array.isArray(groups)) return [];
		return groups
			.flatMap((g) => (Array.isArray(g?.hooks) ? g.hooks : []))
			.filter((h) => isOurs(h) && /\bhook session-start\b/.test(h.command))
			.map((h) => /** @type {string} */ (h.command));
	} catch {
		return [];
	}
}

/**
 * What is wrong with the session-start hooks a set of files runs, for `cairn doctor`: null when each part
 * `--part 1/n` … `n/n` is there (or there is none: a missing event is reported as such), else what is
 * missing or left over — the single session-start hook installs before the block came in parts have.
 * @param {string[]} commands what `startCommands` read @param {number} [parts]
 */
export function startPartsProblem(commands, parts = START_PARTS) {
	if (commands.length === 0) return null;
	const found = commands.map((c) => /--part[ =](\S+)/.exec(c)?.[1] ?? "whole");
	const wanted = partCommands("", parts).map((c) => c.replace(/^ --part /, ""));
	const missing = wanted.filter((p) => !found.includes(p));
	const others = [...new Set(found.filter((p) => p !== "whole" && !wanted.includes(p)))];
	const whole = found.includes("whole");
	if (!missing.length && !others.length && !whole) return null;
	if (found.every((p) => p === "whole"))
		return `SessionStart runs the single session-start hook of older installs, not the block's ${parts} parts (--part 1/${parts} … ${parts}/${parts}): the model sees at most one hook's worth`;
	const said = [];
	if (missing.length)
		said.push(`SessionStart lacks part${missing.length === 1 ? "" : "s"} ${missing.join(", ")} of the session-start block`);
	if (others.length) said.push(`SessionStart runs part${others.length === 1 ? "" : "s"} ${others.join(", ")}, not parts of ${parts}`);
	if (whole) said.push("SessionStart also runs the single session-start hook of older installs (the block would come twice)");
	return said.join("; ");
}
