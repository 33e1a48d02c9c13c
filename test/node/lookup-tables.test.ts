// Keeps every constant table that is looked up with a computed key on a prototype-free footing: a
// table indexed as `TABLE[key]` or tested with `key in TABLE` must be built by `lookupTable` (null
// prototype), be a Map or Set, or be a string or array; the few keyed only by closed internal unions
// are listed below with the reason. A new table looked up the old way fails this test by name.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PROTOTYPE_NAMES } from "../../src/lib/lookup";
import { parseSettingsPatch, SETTING_DEFINITIONS } from "../../src/settings/settings";

const ROOT = join(__dirname, "../..");

/** Tables whose keys never come from a caller, with the reason. */
const INTERNAL_KEYS: Record<string, string> = {
	HTTP_STATUS: "indexed by ErrorCode, a closed union the code itself raises",
	TYPE_PRIORS: "indexed by a stored memory's type, validated against MEMORY_TYPES on every write",
	HEADINGS: "indexed by MemoryType from the project's own rows",
	CJK_NUMBERS: "indexed by one character the date pattern matched from its own list of numerals",
	LEGACY_TABLES: "indexed by the mover's own table names",
	TABLE_ORDER: "an array indexed by the mover's phase number",
	PROJECT_MIGRATIONS: "an array indexed by schema version",
	PROJECT_MIGRATION_STEPS: "indexed by schema version",
	CONCEPTS: "an array (the concept map's JSON), indexed by a concept's number",
};

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((entry) => {
		const path = join(dir, entry);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith(".ts") && !path.endsWith(".d.ts") ? [path] : [];
	});
}

const files = sourceFiles(join(ROOT, "src")).map((path) => ({ path, text: readFileSync(path, "utf8") }));
/** `const NAME … = <initialiser>` of every upper-case constant in one file. */
const declarationsIn = (text: string) =>
	new Map(
		[...text.matchAll(/^(?:export )?const ([A-Z][A-Z0-9_]{2,})\b[^\n]*?\s=\s(.{0,40})/gm)].map((m) => [m[1] as string, m[2] as string]),
	);
const perFile = new Map(files.map(({ path, text }) => [path, declarationsIn(text)]));
/** The initialisers a name may refer to: its own file's declaration, else (imported) every file's. */
const initialisersOf = (path: string, name: string): string[] => {
	const local = perFile.get(path)?.get(name);
	if (local !== undefined) return [local];
	return [...perFile.values()].flatMap((d) => (d.has(name) ? [d.get(name) as string] : []));
};

const SAFE_INITIALISER = /^(?:lookupTable\(|new (?:Map|Set)\b|["'`[]|Object\.freeze\(\[)/;

/** `TABLE[expr]` with a computed (non-literal) key, and `key in TABLE`, outside comments. */
function lookups(text: string): string[] {
	const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
	const names = new Set<string>();
	for (const m of code.matchAll(/\b([A-Z][A-Z0-9_]{2,})\[(?![0-9"'`\]])/g)) names.add(m[1] as string);
	for (const m of code.matchAll(/\bin\s+([A-Z][A-Z0-9_]{2,})\b/g)) names.add(m[1] as string);
	return [...names];
}

describe("tables looked up with caller-controlled keys", () => {
	it("are null-prototype tables, Maps, Sets, strings or arrays (or listed as internal with a reason)", () => {
		const unsafe: string[] = [];
		for (const { path, text } of files)
			for (const name of lookups(text)) {
				if (Object.hasOwn(INTERNAL_KEYS, name)) continue;
				// A name declared nowhere in src as a constant (e.g. KEY_BEGIN inside a regex template) is no table.
				for (const init of initialisersOf(path, name))
					if (!SAFE_INITIALISER.test(init)) unsafe.push(`${relative(ROOT, path)}: ${name} = ${init}`);
			}
		expect(unsafe).toEqual([]);
	});

	it("catches both lookup shapes and skips literal indexes and comments (the walk itself works)", () => {
		expect(lookups("const r = ROLES[String(x)]; if (key in SETTING_DEFINITIONS) go(); const y = SIZES[0];")).toEqual([
			"ROLES",
			"SETTING_DEFINITIONS",
		]);
		expect(lookups("// ROLES[x]\n/* AGES[age] */ const z = KINDS['a'];")).toEqual([]);
		const guarded: [string, string][] = [
			["settings/settings.ts", "SETTING_DEFINITIONS"],
			["ingest/generic.ts", "ROLES"],
			["console/pages/memories.ts", "AGES"],
			["console/pages/inject.ts", "AGENTS"],
			["console/view.ts", "MESSAGES"],
		];
		for (const [file, name] of guarded)
			expect(initialisersOf(join(ROOT, "src", file), name), name).toEqual([expect.stringMatching(/^lookupTable\(/)]);
	});

	it("settings: the definitions have no prototype and every prototype member name is refused as a key", () => {
		expect(Object.getPrototypeOf(SETTING_DEFINITIONS)).toBeNull();
		for (const name of PROTOTYPE_NAMES) {
			const body = JSON.parse(`{${JSON.stringify(name)}: true}`);
			expect(() => parseSettingsPatch(body), name).toThrow(/unknown setting/);
		}
	});
});
