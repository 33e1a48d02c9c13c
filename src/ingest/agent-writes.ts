import { NAME_PATTERN } from "../memory/topic-file";
import { isObject, str } from "../sessions/turns";

/**
 * Memory the agent wrote itself, recognised from its tool calls as the agents record them, whether
 * or not the write carried `X-Cairn-Session`:
 * - Cairn's MCP tool `memory_write`, under whatever name the client gave the server: Claude Code
 *   `mcp__<server>__memory_write`, Codex `mcp__<server>__memory_write` / `<server>__memory_write`
 *   or a namespaced call (`namespace: "mcp__<server>"`, `name: "memory_write"`);
 * - a shell command running `cairn remember …` (Claude Code `Bash` input.command, Codex `shell`
 *   command arrays, `shell_command` / `exec_command` strings, `local_shell_call` actions, a `!`
 *   command the user typed);
 * - a file tool writing into a memory folder: Claude Code's `Write` / `Edit` / `MultiEdit` with a
 *   `file_path` under `~/.claude/projects/<project>/memory/` (its `team/` folder included — what
 *   `cairn team push` uploads), and Codex's `apply_patch` (a `custom_tool_call` whose input is the
 *   patch, or a `shell` call carrying it) adding or updating a file there or under `~/.codex/memories/`.
 */

/** The tool's own name after any server prefix or namespace separator. */
const MEMORY_WRITE_TOOL = /(?:^|__|[./:])memory_write$/;

/** A call to Cairn's `memory_write` tool under any MCP server name. */
export const isMemoryWriteTool = (name: string) => MEMORY_WRITE_TOOL.test(name);

/** Tool arguments as an object: Codex stores them as a JSON string, Claude Code as an object. */
export function toolInput(input: unknown): unknown {
	if (typeof input !== "string") return input;
	const trimmed = input.trim();
	if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return input;
	try {
		return JSON.parse(trimmed);
	} catch {
		return input;
	}
}

/** Tools whose whole input may be a command line (a generic transcript's `bash` call, a free-form shell tool). */
const SHELL_TOOL = /bash|shell|terminal|exec|command|^sh$|^zsh$/i;

/**
 * The shell commands a tool call runs: `command` / `cmd` / `script` fields, as strings or argv
 * arrays; a bare string input only for a shell tool (a patch or a file body is not a command).
 */
export function shellCommands(input: unknown, shellTool = false): string[] {
	const value = toolInput(input);
	const out: string[] = [];
	const take = (v: unknown) => {
		if (typeof v === "string") out.push(v);
		else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
			// argv: the joined line, and each element (`["bash", "-lc", "cairn remember …"]`).
			out.push(v.join(" "), ...v);
		}
	};
	if (isObject(value)) {
		for (const field of ["command", "cmd", "script"]) take(value[field]);
		if (isObject(value.action)) take(value.action.command);
	} else if (shellTool) take(value);
	return out;
}

/** Words a command may start with before the program itself: env assignments, wrappers, runners. */
const PREFIX =
	/^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+|(?:sudo|env|exec|time|nohup|command)\s+|(?:npx|bunx|pnpx)\s+(?:-y\s+|--yes\s+)?|(?:pnpm|yarn|npm)\s+(?:exec|dlx|run)\s+(?:--\s+)?|node\s+|(?:ba|z)?sh\s+-[a-z]*c\s+)/;
const CAIRN_REMEMBER = /^(?:\S*\/)?(?:@[\w.-]+\/)?cairn(?:-cli)?(?:\.m?js)?\s+remember(?:\s|$)/;

/**
 * Whether a shell command line runs `cairn remember`: the program of any command in it (split at
 * `;`, `&&`, `||`, `|`, newlines, backticks and `$(`), after env assignments, `npx`-style runners and
 * `bash -c` wrappers. A mention inside an argument (`grep "cairn remember"`) is not a run.
 */
export function runsCairnRemember(command: string): boolean {
	for (const segment of command.split(/\|\||&&|[;|&\n`]|\$\(/)) {
		let s = segment.trim();
		for (let i = 0; i < 8; i++) {
			const next = s.replace(/^[('"{\s]+/, "").replace(PREFIX, "");
			if (next === s) break;
			s = next;
		}
		if (CAIRN_REMEMBER.test(s)) return true;
	}
	return false;
}

/** Flags of `cairn remember` that take a value; others (`--team`, `-y`) stand alone. */
const VALUE_FLAGS = new Set(["--type", "--description", "--name", "--session", "--agent", "--dir", "--url", "--key"]);
const SLUG = NAME_PATTERN;

/** Words of a shell command line, quotes removed (enough to find a name; not a full shell parser). */
const words = (line: string) => [...line.matchAll(/"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3] ?? "");

/**
 * The memory a `cairn remember` command writes: its first positional argument
 * (`cairn remember <name> --type … --description … [text…]`), or `--name <name>`.
 */
function rememberedName(command: string): string | undefined {
	const at = /cairn(?:-cli)?(?:\.m?js)?\s+remember\b/.exec(command);
	if (!at) return undefined;
	const args = words(command.slice(at.index + at[0].length));
	for (let i = 0; i < args.length; i++) {
		const arg = args[i] ?? "";
		if (arg.startsWith("--name=")) return SLUG.test(arg.slice(7)) ? arg.slice(7) : undefined;
		if (arg === "--name") return SLUG.test(args[i + 1] ?? "") ? args[i + 1] : undefined;
		if (arg.startsWith("-")) {
			if (VALUE_FLAGS.has(arg)) i++;
			continue;
		}
		return SLUG.test(arg) ? arg : undefined;
	}
	return undefined;
}

/** The memory name a write names, when it does (`memory_write` input.name, `cairn remember <name>`). */
function writtenName(input: unknown, commands: string[]): string | undefined {
	const value = toolInput(input);
	if (isObject(value) && typeof value.name === "string") return value.name;
	for (const c of commands) {
		if (!runsCairnRemember(c)) continue;
		const name = rememberedName(c);
		if (name) return name;
	}
	return undefined;
}

/** A file in an agent's memory folder; the name is its file name as `cairn import` names it. */
const MEMORY_FILE = /[\\/]\.(?:claude[\\/]projects[\\/][^\\/]+[\\/]memory|codex[\\/]memories)[\\/](?:team[\\/])?([^\\/]+)\.md$/;
/** Tools that write files (a `Read` or `Grep` names a path too, and writes nothing). */
const FILE_WRITE_TOOL = /write|edit|patch|create|replace/i;
/** Files a patch adds, updates or moves to (`*** Add File: <path>`, `*** Update File:`, `*** Move to:`). */
const PATCH_FILE = /^\*\*\* (?:Add File|Update File|Move to): (.+)$/gm;

/** The paths a file-writing tool call writes: `file_path` / `path` / `notebook_path`, or the files of a patch. */
function writtenPaths(name: string, input: unknown, commands: string[]): string[] {
	const value = toolInput(input);
	const paths: string[] = [];
	const patches: string[] = commands.filter((c) => c.includes("*** Begin Patch"));
	if (typeof value === "string" && value.includes("*** Begin Patch")) patches.push(value);
	if (isObject(value)) {
		if (FILE_WRITE_TOOL.test(name))
			for (const field of ["file_path", "path", "notebook_path"]) if (typeof value[field] === "string") paths.push(value[field]);
		if (typeof value.input === "string" && value.input.includes("*** Begin Patch")) patches.push(value.input);
		if (typeof value.patch === "string" && value.patch.includes("*** Begin Patch")) patches.push(value.patch);
	}
	for (const patch of patches) for (const m of patch.matchAll(PATCH_FILE)) paths.push((m[1] ?? "").trim());
	return paths;
}

/** The memory a memory-folder file holds, named as an import names it (`feedback_testing.md` → `feedback-testing`). */
function fileMemoryName(file: string): string | undefined {
	const name = file
		.toLowerCase()
		.replace(/[^a-z0-9-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64);
	return name && name !== "memory" && SLUG.test(name) ? name : undefined;
}

export interface AgentWrite {
	agentWrite: true;
	memoryName?: string;
}

/**
 * Whether a tool call (its name, optional namespace, and input as recorded) wrote Cairn memory:
 * returns the fields to put on the turn, or null.
 */
export function detectAgentWrite(name: string, input: unknown): AgentWrite | null {
	if (isMemoryWriteTool(name)) {
		const memoryName = writtenName(input, []);
		return { agentWrite: true, ...(memoryName ? { memoryName } : {}) };
	}
	const commands = shellCommands(input, SHELL_TOOL.test(name));
	if (commands.some(runsCairnRemember)) {
		const memoryName = writtenName(undefined, commands);
		return { agentWrite: true, ...(memoryName ? { memoryName } : {}) };
	}
	for (const path of writtenPaths(name, input, commands)) {
		const file = MEMORY_FILE.exec(path);
		if (!file) continue;
		const memoryName = fileMemoryName(file[1] ?? "");
		return { agentWrite: true, ...(memoryName ? { memoryName } : {}) };
	}
	return null;
}

/** A tool name with its namespace folded in the way MCP names read elsewhere (`mcp__server__tool`). */
export function qualifiedToolName(name: string, namespace: unknown): string {
	const ns = str(namespace)?.replace(/_+$/, "");
	return ns && !name.startsWith(`${ns}__`) ? `${ns}__${name}` : name;
}
