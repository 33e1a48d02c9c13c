// @ts-check
// The frontmatter of memory files, without a YAML dependency (the CLI ships with none). Memory files
// use a small part of YAML: `key: value` scalars (plain or quoted), one level of nested mapping
// (`metadata:` then indented keys), folded/literal block scalars and simple lists. Anything else
// makes the block unreadable, and the caller says so.

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/;

/** @param {string} raw */
function scalar(raw) {
	const v = raw.trim();
	if (v === "" || v === "~" || v === "null") return null;
	if (v.startsWith('"')) {
		if (!/^"(?:[^"\\]|\\.)*"$/.test(v)) throw new Error("unterminated string");
		return JSON.parse(v.replace(/\\'/g, "'"));
	}
	if (v.startsWith("'")) {
		if (!/^'(?:[^']|'')*'$/.test(v)) throw new Error("unterminated string");
		return v.slice(1, -1).replace(/''/g, "'");
	}
	if (v.startsWith("[") && v.endsWith("]"))
		return v
			.slice(1, -1)
			.split(",")
			.map((s) => scalar(s))
			.filter((s) => s !== null);
	if (v === "true" || v === "false") return v === "true";
	if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
	return v.replace(/\s+#.*$/, "");
}

/**
 * Parses the YAML subset memory frontmatter uses into an object; throws on anything it cannot read.
 * @param {string} text
 * @returns {Record<string, unknown>}
 */
export function parseYamlSubset(text) {
	const lines = text.split(/\r?\n/);
	/** @type {Record<string, unknown>} */
	const root = {};
	/** @type {{ indent: number, target: Record<string, unknown> }[]} */
	const stack = [{ indent: -1, target: root }];
	for (let i = 0; i < lines.length; i++) {
		const line = /** @type {string} */ (lines[i]);
		if (!line.trim() || line.trim().startsWith("#")) continue;
		const indent = line.length - line.trimStart().length;
		while (stack.length > 1 && indent <= /** @type {{ indent: number }} */ (stack.at(-1)).indent) stack.pop();
		const target = /** @type {{ target: Record<string, unknown> }} */ (stack.at(-1)).target;
		const m = /^\s*([A-Za-z0-9_.-]+)\s*:(?:\s+(.*)|\s*)$/.exec(line);
		if (!m) throw new Error(`line ${i + 1} is not "key: value"`);
		const key = /** @type {string} */ (m[1]);
		const rest = (m[2] ?? "").trim();
		if (rest === "|" || rest === ">" || /^[|>][-+]?$/.test(rest)) {
			// A block scalar: the following lines indented deeper than the key.
			const body = [];
			while (i + 1 < lines.length) {
				const next = /** @type {string} */ (lines[i + 1]);
				if (next.trim() && next.length - next.trimStart().length <= indent) break;
				body.push(next.trim());
				i++;
			}
			target[key] = rest.startsWith("|") ? body.join("\n").trim() : body.join(" ").replace(/\s+/g, " ").trim();
		} else if (rest === "") {
			// A nested mapping or a list on the next lines.
			const next = lines.slice(i + 1).find((l) => l.trim());
			if (next && /^\s*- /.test(next)) {
				const items = [];
				while (i + 1 < lines.length && (/^\s*- /.test(/** @type {string} */ (lines[i + 1])) || !lines[i + 1]?.trim())) {
					const item = /** @type {string} */ (lines[++i]);
					if (item.trim()) items.push(scalar(item.replace(/^\s*- /, "")));
				}
				target[key] = items;
			} else {
				/** @type {Record<string, unknown>} */
				const child = {};
				target[key] = child;
				stack.push({ indent, target: child });
			}
		} else {
			target[key] = scalar(rest);
		}
	}
	return root;
}

/**
 * Splits a markdown file into its frontmatter fields and body. `fields` is null when the file has no
 * frontmatter block; `error` says why a block that is there could not be read.
 * @param {string} text
 * @returns {{ fields: Record<string, unknown> | null, body: string, error?: string }}
 */
export function splitFrontmatter(text) {
	const m = FRONTMATTER.exec(text);
	if (!m) return { fields: null, body: text.replace(/^\uFEFF/, "") };
	const body = text.slice(m[0].length).replace(/^\r?\n/, "");
	try {
		return { fields: parseYamlSubset(m[1] ?? ""), body };
	} catch (err) {
		return { fields: null, body, error: `frontmatter is not readable YAML (${err instanceof Error ? err.message : String(err)})` };
	}
}
