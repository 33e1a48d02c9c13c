// @ts-check
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** A progress bar on stderr for long runs (only when stderr is a terminal). */
export function progress(/** @type {string} */ label, /** @type {number} */ total) {
	const tty = process.stderr.isTTY && total >= 20;
	let done = 0;
	return {
		tick() {
			done++;
			if (!tty) return;
			const width = 30;
			const filled = Math.round((done / total) * width);
			process.stderr.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total}`);
			if (done === total) process.stderr.write("\n");
		},
	};
}

/** Splits a topic file into frontmatter fields and body (the service validates the fields). @param {string} text */
function splitFrontmatter(text) {
	const m = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
	if (!m) return null;
	let fields;
	try {
		fields = parseYaml(m[1] ?? "", { maxAliasCount: 0 });
	} catch {
		return null;
	}
	if (!fields || typeof fields !== "object" || Array.isArray(fields)) return null;
	return { fields: /** @type {Record<string, unknown>} */ (fields), body: text.slice(m[0].length).replace(/^\r?\n/, "") };
}

/**
 * Reads a Claude Code memory directory (`~/.claude/projects/<p>/memory/`): every `<name>.md` topic file
 * except MEMORY.md (the index is rebuilt by the service); `team/<name>.md` files go to team scope.
 * @param {string} dir
 */
export function readMemoryDir(dir) {
	if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
	/** @type {{ file: string, scope: "personal" | "team", item?: { name: string, type: string, description: string, body: string }, problem?: string }[]} */
	const entries = [];
	const scan = (/** @type {string} */ sub, /** @type {"personal" | "team"} */ scope) => {
		const base = join(dir, sub);
		if (!existsSync(base)) return;
		for (const file of readdirSync(base).sort()) {
			if (!file.endsWith(".md") || file === "MEMORY.md" || file === "memory_summary.md") continue;
			const path = join(sub, file);
			const name = file.slice(0, -3);
			if (!NAME.test(name)) {
				entries.push({ file: path, scope, problem: "file name is not a valid memory name (a-z, 0-9, '-')" });
				continue;
			}
			const parsed = splitFrontmatter(readFileSync(join(base, file), "utf8"));
			if (!parsed) {
				entries.push({ file: path, scope, problem: "no frontmatter block (---) with name, description and type" });
				continue;
			}
			const { fields, body } = parsed;
			if (fields.name !== undefined && fields.name !== name) {
				entries.push({ file: path, scope, problem: "frontmatter name differs from the file name" });
				continue;
			}
			entries.push({
				file: path,
				scope,
				item: { name, type: String(fields.type ?? ""), description: String(fields.description ?? ""), body },
			});
		}
	};
	scan("", "personal");
	scan("team", "team");
	return entries;
}

/** @param {string} dir @param {string} path @param {string} content */
export function writeUnder(dir, path, content) {
	const file = join(dir, path);
	mkdirSync(join(file, ".."), { recursive: true });
	writeFileSync(file, content);
}
