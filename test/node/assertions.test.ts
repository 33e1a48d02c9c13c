// CI's check that every test can fail (see assertions.ts): no test without an assertion path, no file
// without tests, no each over an empty table — over every test folder of the repository. The checker
// itself is shown each kind of test that cannot fail.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { unassertedTests } from "./assertions";

const ROOT = join(__dirname, "../..");

function files(dir: string, keep: (name: string) => boolean): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (name === "node_modules" || name === "screenshots" || name === "fixtures") return [];
		if (statSync(path).isDirectory()) return files(path, keep);
		return keep(name) ? [path] : [];
	});
}

const FOLDERS = ["test", "packages/cli/test", "browser", "agents", "fuzz"].map((f) => join(ROOT, f));
const isTest = (name: string) => /\.test\.ts$/.test(name);
const isHelper = (name: string) => /\.(ts|mts|mjs)$/.test(name) && !isTest(name) && !name.endsWith(".d.ts");

describe("every test can fail", () => {
	it("every test in the repository reaches an assertion; every test file has tests; no each table is empty", () => {
		const tests = FOLDERS.flatMap((d) => files(d, isTest));
		const helpers = [...FOLDERS, join(ROOT, "bench")].flatMap((d) => files(d, isHelper));
		expect(tests.length).toBeGreaterThan(90);
		const findings = unassertedTests(tests, helpers).map((f) => `${relative(ROOT, f.file)}:${f.line} ${f.problem}`);
		expect(findings).toEqual([]);
	});

	it("the check finds each kind of test that cannot fail", () => {
		const text = `
			import { expect, it } from "vitest";
			const check = (x: number) => expect(x).toBe(1);
			const quiet = (x: number) => x + 1;
			it("asserts", () => expect(1).toBe(1));
			it("asserts through a helper", () => check(1));
			it("asserts with fast-check", async () => { await fc.assert(fc.property(fc.nat(), (n) => n >= 0)); });
			it("never asserts", () => { quiet(1); });
			/** @asserts */
			const fails = (x: number) => { if (x !== 1) throw new Error("not one"); };
			const parses = (x: string) => { if (!x) throw new Error("empty"); return JSON.parse(x); };
			it("asserts through a helper tagged as failing by throwing", () => fails(1));
			it("a helper that only throws on bad input is no assertion", () => { parses("{}"); });
			it.each([[1], [2]])("each %s asserts", (n) => check(n));
			it.each([])("each over nothing", (n) => check(n));
			it.todo("later");
		`;
		const findings = unassertedTests(["a.test.ts", "b.test.ts"], [], { "a.test.ts": text, "b.test.ts": "const x = 1;" });
		expect(findings.map((f) => `${f.file}:${f.line} ${f.problem}`)).toEqual([
			"a.test.ts:8 no assertion path",
			"a.test.ts:13 no assertion path",
			"a.test.ts:15 each over an empty table",
			"b.test.ts:1 defines no test",
		]);
	});
});
