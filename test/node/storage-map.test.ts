// docs/storage.md is the map of where Cairn keeps what. This keeps it true where it names things the
// code defines: every table it names exists (in the project object's schema or in D1's migrations),
// every RPC method it names exists on the project's object, and src/db/schema.ts's two parts (the
// registry and the legacy per-project tables) together cover every table D1's migrations create.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LEGACY_TABLE_NAMES, REGISTRY_TABLE_NAMES } from "../../src/db/schema";

const ROOT = join(__dirname, "../..");
const read = (path: string) => readFileSync(join(ROOT, path), "utf8");
const doc = read("docs/storage.md");

const createdTables = (sql: string) =>
	new Set([...sql.matchAll(/CREATE (?:VIRTUAL )?TABLE (?:IF NOT EXISTS )?[`"]?([a-z0-9_]+)/g)].map((m) => m[1] as string));
const objectTables = createdTables(read("src/storage/schema.ts"));
const d1Tables = createdTables(
	readdirSync(join(ROOT, "migrations"))
		.filter((f) => f.endsWith(".sql"))
		.map((f) => read(`migrations/${f}`))
		.join("\n"),
);
const ticked = (text: string) => [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1] as string);
const section = (heading: string) => {
	const start = doc.indexOf(heading);
	if (start < 0) throw new Error(`docs/storage.md has no "${heading}"`);
	const next = doc.indexOf("\n#", start + heading.length);
	return doc.slice(start, next < 0 ? undefined : next);
};

/** The tables docs/storage.md names: the object's table, the D1 row of the overview and the legacy list. */
function documentedTables(): { object: string[]; d1: string[] } {
	const object = doc
		.split("\n")
		.filter((line) => /^\| `[a-z0-9_]+`/.test(line))
		.flatMap((line) => ticked(line.split("|")[1] ?? ""));
	const d1Row = doc.split("\n").find((line) => line.startsWith("| **D1**")) ?? "";
	const legacy = /legacy per-project tables\s*\(([^)]*)\)/.exec(doc)?.[1] ?? "";
	const d1 = [...ticked(d1Row.split("|")[2] ?? ""), ...ticked(legacy)].filter((name) => /^[a-z0-9_]+$/.test(name));
	return { object, d1 };
}

/** The methods of the project's Durable Object class, read from its source. */
function objectMethods(): Set<string> {
	const source = read("src/project/object.ts");
	const body = source.slice(source.indexOf("export class ProjectCoordinator"));
	return new Set([...body.matchAll(/^\t(?:async )?([a-zA-Z]+)\(/gm)].map((m) => m[1] as string));
}

/** The RPC methods docs/storage.md names: the list under "The project's object" and the coordinator's calls. */
function documentedMethods(): string[] {
	const object = section("## The project's object");
	const list = /typed RPC methods[\s\S]*?…/.exec(object)?.[0] ?? "";
	const messages = section("## Queue and Durable Object messages");
	return [...ticked(list), ...ticked(messages)]
		.map((name) => name.replace(/\(\)$/, ""))
		.filter((name) => /^[a-z][a-zA-Z]+$/.test(name) && !name.startsWith("src"));
}

describe("docs/storage.md matches the code", () => {
	it("names only tables that exist, each where it says", () => {
		const { object, d1 } = documentedTables();
		expect(object.length).toBeGreaterThan(10);
		expect(d1.length).toBeGreaterThan(10);
		expect(object.filter((t) => !objectTables.has(t))).toEqual([]);
		expect(d1.filter((t) => !d1Tables.has(t))).toEqual([]);
	});

	it("names only RPC methods the project's object has", () => {
		const named = documentedMethods();
		expect(named).toEqual(expect.arrayContaining(["writeMemory", "writeMemories", "commitIngest", "markDirty", "extractRange"]));
		const methods = objectMethods();
		expect(named.filter((m) => !methods.has(m))).toEqual([]);
	});

	it("src/db/schema.ts's registry and legacy parts cover D1's tables, each once", () => {
		const parts = [...REGISTRY_TABLE_NAMES, ...LEGACY_TABLE_NAMES];
		expect(new Set(parts).size).toBe(parts.length);
		expect([...parts].sort()).toEqual([...d1Tables].sort());
		// Every registry table the overview names is in the registry part.
		const d1Row = doc.split("\n").find((line) => line.startsWith("| **D1**")) ?? "";
		const registryNamed = ticked(d1Row.split("|")[2] ?? "").filter((n) => /^[a-z0-9_]+$/.test(n));
		expect(registryNamed.filter((t) => !(REGISTRY_TABLE_NAMES as readonly string[]).includes(t))).toEqual([]);
	});
});
