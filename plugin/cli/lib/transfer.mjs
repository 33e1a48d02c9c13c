// @ts-check
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { splitFrontmatter } from "./frontmatter.mjs";

const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TYPES = ["user", "feedback", "project", "reference"];
const MAX_DESCRIPTION = 500;

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

/** A memory name from a file name: `feedback_Testing Notes.md` → `feedback-testing-notes`. @param {string} base */
export function slugify(base) {
	return base
		.normalize("NFKD")
		.replace(/[\u0300-\u036f]/g, "")
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 64)
		.replace(/-+$/, "");
}

/** One line, at most 500 characters, from a heading or the first sentence of the body. @param {string} body */
export function describe(body) {
	const lines = body.split(/\r?\n/).map((l) => l.trim());
	const heading = lines.find((l) => /^#{1,6}\s+\S/.test(l));
	const prose = lines.filter((l) => l && !/^(#|```|---|\|)/.test(l)).join(" ");
	const sentence = /^(.+?[.!?])(\s|$)/.exec(prose)?.[1] ?? prose;
	const text = (heading ? heading.replace(/^#+\s+/, "") : sentence)
		.replace(/[*_`[\]]/g, "")
		.replace(/\s+/g, " ")
		.trim();
	return text.length > MAX_DESCRIPTION ? `${text.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : text;
}

const oneLine = (/** @type {unknown} */ v) => (typeof v === "string" ? v.replace(/\s+/g, " ").trim() : "");

/**
 * @typedef {{ name: string, type: string, description: string, body: string }} MemoryItem
 * @typedef {{ file: string, scope: "personal" | "team", item?: MemoryItem, changes: string[], problem?: string }} ImportEntry
 */

/**
 * Reads one memory file as Claude Code writes them today: the name comes from the file name
 * (`feedback_testing.md` → `feedback-testing`) whatever the frontmatter `name` says (often a title);
 * `type` at the top level or under `metadata:`, else from a user_/feedback_/project_/reference_ file
 * name prefix, else `project`; `description` from the frontmatter, else the first heading or
 * sentence. Every such repair is listed in `changes`.
 * @param {string} path shown in reports @param {string} text @param {"personal" | "team"} scope
 * @returns {ImportEntry}
 */
export function readMemoryFile(path, text, scope) {
	const base = /** @type {string} */ (path.split(/[\\/]/).at(-1)).replace(/\.md$/i, "");
	/** @type {string[]} */
	const changes = [];
	const name = slugify(base);
	if (!NAME.test(name)) return { file: path, scope, changes, problem: "no usable memory name in the file name" };
	if (name !== base) changes.push(`name "${name}" from the file name`);
	const { fields, body, error } = splitFrontmatter(text);
	if (error) return { file: path, scope, changes, problem: error };
	const meta =
		fields && typeof fields.metadata === "object" && fields.metadata ? /** @type {Record<string, unknown>} */ (fields.metadata) : {};
	if (!fields) changes.push("no frontmatter");
	const given = oneLine(fields?.name ?? meta.name);
	if (given && given !== name && given !== base) changes.push(`frontmatter name "${given.slice(0, 80)}" left for the file name`);

	let type = oneLine(fields?.type ?? meta.type).toLowerCase();
	if (!TYPES.includes(type)) {
		const prefix = /^(user|feedback|project|reference)[_-]/.exec(base.toLowerCase())?.[1];
		const fallback = prefix ?? "project";
		changes.push(
			type
				? `type "${type.slice(0, 40)}" is not a memory type; ${fallback}`
				: `type ${fallback} ${prefix ? "from the file-name prefix" : "by default"}`,
		);
		type = fallback;
	}

	let description = oneLine(fields?.description ?? meta.description);
	if (!description) {
		description = describe(body);
		if (!description) return { file: path, scope, changes, problem: "empty: no description and no text to take one from" };
		changes.push("description from the first heading or sentence");
	} else if (description.length > MAX_DESCRIPTION) {
		description = `${description.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…`;
		changes.push(`description cut to ${MAX_DESCRIPTION} characters`);
	}
	return { file: path, scope, changes, item: { name, type, description, body } };
}

/**
 * Reads a memory directory (`~/.claude/projects/<p>/memory/`): every topic file except the index
 * (MEMORY.md, rebuilt by the service) and `memory_summary.md`; `team/<name>.md` files go to team scope.
 * Two files that come to the same name: the second is skipped.
 * @param {string} dir
 * @returns {ImportEntry[]}
 */
export function readMemoryDir(dir) {
	if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`${dir} is not a directory`);
	/** @type {ImportEntry[]} */
	const entries = [];
	const scan = (/** @type {string} */ sub, /** @type {"personal" | "team"} */ scope) => {
		const base = join(dir, sub);
		if (!existsSync(base)) return;
		const seen = new Map();
		for (const file of readdirSync(base).sort()) {
			if (!/\.md$/i.test(file) || /^(MEMORY|memory_summary)\.md$/i.test(file) || !statSync(join(base, file)).isFile()) continue;
			const path = sub ? `${sub}/${file}` : file;
			const entry = readMemoryFile(path, readFileSync(join(base, file), "utf8"), scope);
			if (entry.item && seen.has(entry.item.name)) {
				entries.push({ file: path, scope, changes: [], problem: `same name "${entry.item.name}" as ${seen.get(entry.item.name)}` });
				continue;
			}
			if (entry.item) seen.set(entry.item.name, path);
			entries.push(entry);
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
