// Set up before every test file: a data-driven test (`it.each`, `test.each`, `describe.each`) over an
// empty table makes no tests at all, and a run that silently tests nothing passes. Here an empty table
// fails its file instead, naming the table's title — the data it expected is missing.
import { describe, it, test } from "vitest";

type Each = (table: unknown, ...rest: unknown[]) => (name: string, ...args: unknown[]) => unknown;

const guarded = new Set<unknown>();
for (const [label, fn] of [
	["it", it],
	["test", test],
	["describe", describe],
] as const) {
	if (guarded.has(fn)) continue; // `it` and `test` are one function
	guarded.add(fn);
	const target = fn as unknown as { each: Each };
	const each = target.each;
	target.each = function (this: unknown, table: unknown, ...rest: unknown[]) {
		const register = each.call(this, table, ...rest);
		if (!Array.isArray(table) || table.length > 0) return register;
		return (name: string) => {
			throw new Error(`${label}.each("${name}") was given an empty table: the data it runs over is missing`);
		};
	} as Each;
}
