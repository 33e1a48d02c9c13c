import { findSecrets } from "../security/secrets";
import { isObject } from "../sessions/turns";
import { toolInput } from "./agent-writes";

/**
 * The files a tool call read or edited, as the agents record them in their transcripts:
 * - Claude Code: `Read`, `Edit`, `MultiEdit`, `Write` (`file_path`), `NotebookEdit` / `NotebookRead`
 *   (`notebook_path`) — absolute paths;
 * - Codex: `apply_patch` (a `custom_tool_call` whose input is the patch, or a `function_call` whose
 *   arguments hold it as `input`), with `*** Update File:` / `*** Add File:` / `*** Delete File:` /
 *   `*** Move to:` lines — paths relative to the working directory; and shell calls (`exec_command`
 *   `{cmd, workdir}`, `shell` `{command: argv, workdir}`, `local_shell_call` `{command, working_directory}`)
 *   that print a file (`cat`, `sed -n`, `head`, `tail`, `nl`, …) or carry a patch in a heredoc;
 * - Claude Code's `Bash` (`{command}`) the same way.
 * Paths are kept as written, joined to the call's working directory when it names one; they are made
 * repository-relative (and those outside the repository dropped) when a memory cites them
 * (src/consolidate/transcript-citations.ts). Searches (`rg`, `grep`, `Glob`) are not reads of a file.
 */

/** Files kept per tool call, at most; a path longer than this many characters is not kept. */
export const MAX_FILES_PER_CALL = 20;
const MAX_PATH_CHARS = 1_000;

const FILE_TOOLS = /^(?:Read|Edit|MultiEdit|Write|NotebookEdit|NotebookRead)$/;
const PATCH_TOOL = /(?:^|__|[./:])apply_patch$/;
const SHELL_TOOL = /(?:^|__|[./:])(?:exec_command|shell|shell_command|local_shell|container\.exec|Bash)$/;
const PATCH_LINE = /^\*\*\* (?:Update File|Add File|Delete File|Move to): (.+)$/gm;
/** Commands whose file arguments they print. */
const READERS = new Set(["cat", "sed", "head", "tail", "nl", "less", "more", "bat", "batcat", "view", "tac"]);
/** Options of the readers that take a value (`head -n 40`, `sed -e script`, `tail -c 100`); `sed -n` does not. */
const VALUE_OPTIONS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
	["sed", new Set(["-e", "-f", "-l", "--expression", "--file", "--line-length"])],
	["head", new Set(["-n", "-c", "--lines", "--bytes"])],
	["tail", new Set(["-n", "-c", "--lines", "--bytes", "-s", "--sleep-interval", "--pid"])],
	["nl", new Set(["-b", "-d", "-f", "-h", "-i", "-l", "-n", "-s", "-v", "-w"])],
	["bat", new Set(["-r", "--line-range", "-l", "--language", "-H", "--highlight-line"])],
	["batcat", new Set(["-r", "--line-range", "-l", "--language", "-H", "--highlight-line"])],
]);

/** The files a tool call named `name` with this input read or edited: the fields to put on its turn, or null. */
export function detectFileAccess(name: string, input: unknown): { files: string[] } | null {
	if (!FILE_TOOLS.test(name) && !PATCH_TOOL.test(name) && !SHELL_TOOL.test(name)) return null;
	const value = toolInput(input);
	const found: string[] = [];
	if (FILE_TOOLS.test(name) && isObject(value)) {
		for (const field of ["file_path", "notebook_path"]) if (typeof value[field] === "string") found.push(value[field]);
	} else if (PATCH_TOOL.test(name)) {
		const patch = typeof value === "string" ? value : isObject(value) ? (value.input ?? value.patch) : undefined;
		const dir = isObject(value) ? workdirOf(value) : undefined;
		if (typeof patch === "string") found.push(...patchFiles(patch).map((p) => joinDir(dir, p)));
	} else if (SHELL_TOOL.test(name) && isObject(value)) {
		const dir = workdirOf(value);
		for (const command of commandLines(value)) found.push(...shellFiles(command).map((p) => joinDir(dir, p)));
	}
	const files = [...new Set(found.map((f) => f.trim()).filter((f) => f && f.length <= MAX_PATH_CHARS))].slice(0, MAX_FILES_PER_CALL);
	return files.length > 0 ? { files } : null;
}

function workdirOf(value: Record<string, unknown>): string | undefined {
	const action = isObject(value.action) ? value.action : {};
	for (const v of [value.workdir, value.cwd, value.working_directory, action.working_directory, action.workdir])
		if (typeof v === "string" && v.trim()) return v.trim();
	return undefined;
}

/** The command lines a shell call runs: `cmd` / `command` as a string, or an argv (`["bash", "-lc", "…"]`: the script). */
function commandLines(value: Record<string, unknown>): string[] {
	const out: string[] = [];
	const action = isObject(value.action) ? value.action : {};
	for (const v of [value.cmd, value.command, value.script, action.command]) {
		if (typeof v === "string") out.push(v);
		else if (Array.isArray(v) && v.every((x) => typeof x === "string")) {
			const argv = v as string[];
			const shell = argv.length >= 3 && /(?:^|\/)(?:ba|z|da)?sh$/.test(argv[0] ?? "") && /^-\w*c\w*$/.test(argv[1] ?? "");
			out.push(shell ? argv.slice(2).join(" ") : argv.map(quote).join(" "));
		}
	}
	return out;
}

const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/** The paths an apply_patch envelope touches (the new path of a move as well). */
export function patchFiles(patch: string): string[] {
	return [...patch.matchAll(PATCH_LINE)].map((m) => (m[1] ?? "").trim()).filter(Boolean);
}

/** The files a command line prints with a reader, and those a heredoc'd patch touches. */
export function shellFiles(command: string): string[] {
	const out = command.includes("*** Begin Patch") ? patchFiles(command) : [];
	const body = command.replace(/<<-?\s*['"]?(\w+)['"]?[\s\S]*?\n\1\b/g, "");
	for (const simple of body.split(/&&|\|\||[;|\n]/)) {
		const words = tokens(simple);
		let i = 0;
		while (i < words.length && /^\w+=/.test(words[i] ?? "")) i++;
		if (words[i] === "sudo" || words[i] === "command") i++;
		const reader = (words[i] ?? "").replace(/^.*\//, "");
		if (!READERS.has(reader)) continue;
		const args: string[] = [];
		let script = reader === "sed";
		for (let j = i + 1; j < words.length; j++) {
			const w = words[j] ?? "";
			if (w.startsWith("-") && w.length > 1) {
				if (reader === "sed" && (w === "-e" || w === "-f" || w === "--expression")) script = false;
				if (VALUE_OPTIONS.get(reader)?.has(w)) j++;
				continue;
			}
			if (/^\d*[<>]/.test(w) || w === "-") break;
			args.push(w);
		}
		// sed's first operand is its script unless -e gave it.
		out.push(...(script ? args.slice(1) : args).filter((a) => a !== "" && !/^[+-]?\d+$/.test(a)));
	}
	return out;
}

/** Shell words of one simple command, quotes removed; a word with `$(…)`, a glob or a variable is unusable (empty). */
function tokens(command: string): string[] {
	const words: string[] = [];
	for (const m of command.matchAll(/'([^']*)'|"((?:[^"\\]|\\.)*)"|(\S+)/g)) {
		const word = m[1] ?? m[2]?.replace(/\\(.)/g, "$1") ?? m[3] ?? "";
		// Kept as an empty word, so a script in a variable still takes sed's script place.
		const expands = m[1] === undefined && (m[3] !== undefined ? /[$*?`{}[\]~]/ : /[$`]/).test(word);
		words.push(expands ? "" : word);
	}
	return words;
}

/** A path joined to the call's working directory (when it names one and the path is relative). */
function joinDir(dir: string | undefined, path: string): string {
	if (!dir || isAbsolute(path)) return path;
	return `${dir.replace(/[\\/]+$/, "")}/${path.replace(/^\.\//, "")}`;
}

export const isAbsolute = (path: string) =>
	path.startsWith("/") || path.startsWith("~") || /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");

/**
 * Drops from the turns' `files` every path that carries what looks like a secret (the turn's text is
 * redacted; a path cannot be, so it is not kept). One scan over all the paths; each path only when it found one.
 */
export async function dropSecretPaths(turns: { files?: string[] }[]): Promise<void> {
	const paths = turns.flatMap((t) => t.files ?? []);
	if (paths.length === 0 || (await findSecrets(paths.join("\n"))).length === 0) return;
	for (const t of turns) {
		if (!t.files) continue;
		const kept: string[] = [];
		for (const f of t.files) if ((await findSecrets(f)).length === 0) kept.push(f);
		if (kept.length > 0) t.files = kept;
		else delete t.files;
	}
}
