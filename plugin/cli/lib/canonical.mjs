// @ts-check
// Topic files in the service's canonical form: the same parse and the same rendering the service
// applies before it hashes a file (frontmatter `name`, `description`, `type` in that order, each
// scalar written as the `yaml` package writes it with no line folding, a blank line, the body ending
// in a newline). A file pulled from the service, or rewritten here, hashes to the service's sha256.
import { createHash } from "node:crypto";
import { parseYamlSubset } from "./frontmatter.mjs";

export const TYPES = ["user", "feedback", "project", "reference"];
export const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
const MAX_DESCRIPTION = 500;

/** The service's frontmatter block (stricter than frontmatter.mjs: the closing line must follow a line break). */
const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** YAML 1.2 core-schema plain scalars that are not strings (null, booleans, numbers). */
const CORE_TAGS = [
	/^(?:~|[Nn]ull|NULL)?$/,
	/^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/,
	/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
	/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/,
	/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/,
	/^0o[0-7]+$/,
	/^[-+]?[0-9]+$/,
	/^0x[0-9a-fA-F]+$/,
];

/** @param {string} text */
export const sha256 = (text) => createHash("sha256").update(text, "utf8").digest("hex");

const NOT_STRING = Symbol("not a string");

/** YAML double-quoted escapes. @param {string} inner */
function unescapeDouble(inner) {
	/** @type {Record<string, string>} */
	const simple = {
		0: "\0",
		a: "\x07",
		b: "\b",
		t: "\t",
		"\t": "\t",
		n: "\n",
		v: "\v",
		f: "\f",
		r: "\r",
		e: "\x1b",
		" ": " ",
		'"': '"',
		"/": "/",
		"\\": "\\",
		N: "\u0085",
		_: "\u00a0",
		L: "\u2028",
		P: "\u2029",
	};
	return inner.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[\s\S])/g, (_, e) => {
		if (e.length > 1) return String.fromCodePoint(Number.parseInt(e.slice(1), 16));
		const ch = simple[e];
		if (ch === undefined) throw new Error(`unknown escape \\${e}`);
		return ch;
	});
}

/**
 * One `key: value` value as YAML reads it: a quoted string, or a plain scalar (a string unless the
 * core schema makes it null, a boolean or a number). Returns undefined for what needs the general parser.
 * @param {string} raw
 * @returns {string | typeof NOT_STRING | undefined}
 */
function readScalar(raw) {
	const v = raw.trim();
	if (v.startsWith('"')) {
		const m = /^"((?:[^"\\]|\\[\s\S])*)"[ \t]*(?:#[\s\S]*)?$/.exec(v);
		if (!m) return undefined;
		return unescapeDouble(m[1] ?? "");
	}
	if (v.startsWith("'")) {
		const m = /^'((?:[^']|'')*)'[ \t]*(?:#[\s\S]*)?$/.exec(v);
		if (!m) return undefined;
		return (m[1] ?? "").replace(/''/g, "'");
	}
	if (/^[[{&*!|>%@`]/.test(v) || /^[?:-](?:[ \t]|$)/.test(v)) return undefined;
	const plain = v.replace(/[ \t]+#[\s\S]*$/, "").trim();
	if (CORE_TAGS.some((t) => t.test(plain))) return NOT_STRING;
	return plain;
}

/**
 * The frontmatter fields of a topic file: one `key: value` per line is read here exactly as YAML reads
 * it; anything else (block scalars, nested keys) goes to the general subset parser.
 * @param {string} yaml
 * @returns {Record<string, unknown>}
 */
function readFields(yaml) {
	/** @type {Record<string, unknown>} */
	const fields = {};
	for (const line of yaml.split(/\r?\n/)) {
		if (!line.trim() || /^\s*#/.test(line)) continue;
		const m = /^([A-Za-z0-9_.-]+)[ \t]*:(?:[ \t]+([\s\S]*))?$/.exec(line);
		const value = m && m[2] !== undefined ? readScalar(m[2]) : undefined;
		if (!m || value === undefined) return parseYamlSubset(yaml);
		const key = /** @type {string} */ (m[1]);
		if (Object.hasOwn(fields, key)) throw new Error(`"${key}" appears twice`);
		fields[key] = value === NOT_STRING ? null : value;
	}
	return fields;
}

/**
 * @typedef {{ name: string, type: string, description: string, body: string }} TopicFile
 */

/**
 * Parses a topic file as the service does for team sync; throws with the reason it would refuse it.
 * @param {string} text
 * @returns {TopicFile}
 */
export function parseTopicFile(text) {
	const m = FRONTMATTER.exec(text);
	if (!m) throw new Error("no frontmatter block (---) with name, description and type");
	let fields;
	try {
		fields = readFields(m[1] ?? "");
	} catch (err) {
		throw new Error(`frontmatter is not readable YAML (${err instanceof Error ? err.message : String(err)})`);
	}
	const unknown = Object.keys(fields).filter((k) => !["name", "description", "type"].includes(k));
	if (unknown.length > 0) throw new Error(`frontmatter may only hold name, description and type (not ${unknown.slice(0, 5).join(", ")})`);
	if (typeof fields.name !== "string") throw new Error("name is required in frontmatter");
	if (typeof fields.type !== "string" || !TYPES.includes(fields.type)) throw new Error(`type must be one of ${TYPES.join(", ")}`);
	if (typeof fields.description !== "string") throw new Error("description is required (a string)");
	const description = fields.description.trim();
	if (!description) throw new Error("description must not be empty");
	if (description.length > MAX_DESCRIPTION) throw new Error(`description must be at most ${MAX_DESCRIPTION} characters`);
	if (/[\r\n]/.test(description)) throw new Error("description must be a single line");
	return { name: fields.name, type: fields.type, description, body: text.slice(m[0].length).replace(/^\r?\n/, "") };
}

/** Control characters (tab and line feed aside) and unpaired surrogates: YAML writes these double-quoted. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point.
const NEEDS_DOUBLE_QUOTES = /[\x00-\x08\x0b-\x1f\x7f-\x9f]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A JSON string as YAML writes it double-quoted (its own short escapes). @param {string} value */
function doubleQuoted(value) {
	/** @type {Record<string, string>} */
	const short = { "0000": "\\0", "0007": "\\a", "000b": "\\v", "001b": "\\e", "0085": "\\N", "00a0": "\\_", 2028: "\\L", 2029: "\\P" };
	return JSON.stringify(value).replace(
		/\\u([0-9a-f]{4})/g,
		(all, code) => short[code] ?? (code.startsWith("00") ? `\\x${code.slice(2)}` : all),
	);
}

/**
 * One single-line string as the `yaml` package writes a mapping value (`lineWidth: 0`): plain when
 * that reads back as the same string, else quoted — single quotes when the text has double quotes
 * and no single ones, double quotes otherwise (always for control characters).
 * @param {string} value
 */
export function yamlString(value) {
	if (NEEDS_DOUBLE_QUOTES.test(value)) return doubleQuoted(value);
	const plainOk =
		!/^[\n\t ,[\]{}#&*!|>'"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$/.test(value) &&
		!CORE_TAGS.some((t) => t.test(value));
	if (plainOk) return value;
	if (value.includes('"') && !value.includes("'")) return `'${value}'`;
	return doubleQuoted(value);
}

/** The canonical text of a topic file: what the service stores, returns and hashes. @param {TopicFile} file */
export function renderTopicFile(file) {
	const body = file.body.endsWith("\n") || file.body === "" ? file.body : `${file.body}\n`;
	return `---\nname: ${yamlString(file.name)}\ndescription: ${yamlString(file.description)}\ntype: ${yamlString(file.type)}\n---\n\n${body}`;
}

/**
 * A local file as team sync sees it: its canonical text and hash when it is a valid topic file named
 * like its path, else the hash of its bytes and the reason it cannot be pushed.
 * @param {string} path `<name>.md` @param {string} text
 * @returns {{ text: string, canonical: string | null, hash: string, file: TopicFile | null, problem: string | null }}
 */
export function readTeamFile(path, text) {
	const name = path.replace(/\.md$/, "");
	try {
		const file = parseTopicFile(text);
		if (file.name !== name) throw new Error(`frontmatter name must be "${name}", the file's name`);
		const canonical = renderTopicFile(file);
		return { text, canonical, hash: sha256(canonical), file, problem: null };
	} catch (err) {
		return { text, canonical: null, hash: sha256(text), file: null, problem: err instanceof Error ? err.message : String(err) };
	}
}
