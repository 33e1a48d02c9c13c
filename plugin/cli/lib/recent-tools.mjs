// @ts-check
// The tools and shell commands a session just used, read from the tail of its transcript, for the
// prompt hook's `recentTools`: the service skips reference memories that only document a tool
// already in use, and its model selector reads them. Only the last TAIL_BYTES are read — this runs
// on every prompt.
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** How much of the transcript's end is read: enough for the last few turns, cheap on a long session. */
export const TAIL_BYTES = 64 * 1024;
/** At most this many entries go to the service (it takes 100 of at most 200 characters each). */
export const MAX_RECENT_TOOLS = 20;
const MAX_ENTRY = 200;

/** The last `bytes` of a file, from its first whole line. @param {string} file @param {number} bytes */
function tail(file, bytes) {
	const fd = openSync(file, "r");
	try {
		const size = fstatSync(fd).size;
		const start = Math.max(0, size - bytes);
		const buffer = Buffer.alloc(size - start);
		const n = readSync(fd, buffer, 0, buffer.length, start);
		const text = buffer.subarray(0, n).toString("utf8");
		// Past the start of the file the first line is cut: drop it.
		return start > 0 ? text.slice(text.indexOf("\n") + 1) : text;
	} finally {
		closeSync(fd);
	}
}

/** A command as one short line. @param {unknown} command */
function commandText(command) {
	let parts = Array.isArray(command) ? command.filter((p) => typeof p === "string") : typeof command === "string" ? [command] : [];
	// Codex wraps commands as ["bash", "-lc", "<script>"]: the script is the command.
	if (parts.length === 3 && /^(?:.*\/)?(?:ba|z)?sh$/.test(parts[0]) && /^-l?c$/.test(parts[1])) parts = [parts[2]];
	const text = parts.join(" ").replace(/\s+/g, " ").trim();
	return text;
}

/** `name(command)` within the service's per-entry limit. @param {string} name @param {string} command */
function entry(name, command) {
	if (!command) return name.slice(0, MAX_ENTRY);
	const room = MAX_ENTRY - name.length - 2;
	const cut = command.length > room ? `${command.slice(0, room - 1)}…` : command;
	return `${name}(${cut})`;
}

/** @param {string} json @returns {Record<string, unknown>} */
function parseArguments(json) {
	try {
		const value = JSON.parse(json);
		return value && typeof value === "object" ? value : {};
	} catch {
		return {};
	}
}

/**
 * The tool calls one transcript record carries, in order: Claude Code's assistant `tool_use` blocks
 * (`Bash` with its command), Codex's `function_call` (`shell`, `exec_command` with their command; an
 * MCP tool under its namespace), `custom_tool_call` (`apply_patch`) and `local_shell_call`, in the
 * rollout's envelope (`response_item`) or legacy (bare item) form.
 * @param {any} record @returns {string[]}
 */
export function toolCalls(record) {
	if (!record || typeof record !== "object") return [];
	// Claude Code
	if (record.type === "assistant" && Array.isArray(record.message?.content)) {
		return record.message.content
			.filter((/** @type {any} */ b) => b?.type === "tool_use" && typeof b.name === "string")
			.map((/** @type {any} */ b) => entry(b.name, b.name === "Bash" ? commandText(b.input?.command) : ""));
	}
	// Codex: the envelope's payload, or the item itself in legacy rollouts
	const item = record.type === "response_item" ? record.payload : record;
	if (!item || typeof item !== "object") return [];
	if (item.type === "function_call" && typeof item.name === "string") {
		const name =
			typeof item.namespace === "string" && item.namespace && !item.name.startsWith("mcp__")
				? `${item.namespace}__${item.name}`
				: item.name;
		const args = typeof item.arguments === "string" ? parseArguments(item.arguments) : {};
		const command = name === "shell" || name === "container.exec" ? args.command : name === "exec_command" ? args.cmd : undefined;
		return [entry(name, commandText(command))];
	}
	if (item.type === "local_shell_call") return [entry("local_shell", commandText(item.action?.command))];
	if (item.type === "custom_tool_call" && typeof item.name === "string") return [entry(item.name, "")];
	return [];
}

/**
 * The tools a transcript's last turns used, most recent first, without repeats, at most
 * MAX_RECENT_TOOLS. A missing or unreadable transcript has none.
 * @param {string | null} file
 * @returns {string[]}
 */
export function recentTools(file) {
	if (!file) return [];
	let text;
	try {
		text = tail(file, TAIL_BYTES);
	} catch {
		return [];
	}
	/** @type {string[]} */
	const found = [];
	const lines = text.split("\n");
	for (let i = lines.length - 1; i >= 0 && found.length < MAX_RECENT_TOOLS; i--) {
		const line = lines[i];
		// Cheap test first: most records (messages, tool results, reasoning) call nothing.
		if (!line || !/tool_use|_call"/.test(line)) continue;
		let record;
		try {
			record = JSON.parse(line);
		} catch {
			continue; // a line being written this instant
		}
		const calls = toolCalls(record);
		for (let j = calls.length - 1; j >= 0 && found.length < MAX_RECENT_TOOLS; j--) if (!found.includes(calls[j])) found.push(calls[j]);
	}
	return found;
}
