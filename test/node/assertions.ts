// Which tests have no way to fail: read with the TypeScript parser, every `it`/`test` (plain, `.each`,
// `.skip`, `.concurrent`, …) must reach an assertion — `expect`, `assert`, `fc.assert`, a `throw` in its
// own body — directly or through a helper that does (helpers found by name in the test file and in the
// non-test modules of the test folders, to a fixed point; a helper that fails by throwing is tagged
// `@asserts`). A file with no tests fails too, and so does an `each` over a literal empty table.
import { readFileSync } from "node:fs";
import ts from "typescript";

const TEST_FNS = new Set(["it", "test"]);
/** Calls that are assertions in themselves. */
const ASSERTING = /^(expect|assert|expectTypeOf|assertType)$/;

export interface Finding {
	file: string;
	line: number;
	problem: string;
}

const parse = (file: string, text = readFileSync(file, "utf8")) => ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);

/** The base name of a call's callee: `it` for `it.skip.each(t)`, `expect` for `expect(x).toBe`, `assert` for `fc.assert`. */
function calleeRoot(expr: ts.Expression): string | null {
	let e: ts.Expression = expr;
	for (;;) {
		if (ts.isIdentifier(e)) return e.text;
		if (ts.isPropertyAccessExpression(e)) {
			// `fc.assert(...)`, `expect.soft(...)`, `t.expect(...)`: the member name decides for assertions.
			if (ASSERTING.test(e.name.text)) return e.name.text;
			e = e.expression;
		} else if (ts.isCallExpression(e)) e = e.expression;
		else if (ts.isElementAccessExpression(e)) e = e.expression;
		else return null;
	}
}

/**
 * Whether `node` contains an assertion, directly or by calling one of `helpers`; a `throw` counts only
 * in a test's own body (`throws`) — in a helper it is as likely a parse error as a check, so a helper
 * that fails by throwing says so with an `@asserts` tag.
 */
function asserts(node: ts.Node, helpers: Set<string>, throws = true): boolean {
	let found = false;
	const visit = (n: ts.Node): void => {
		if (found) return;
		if (ts.isCallExpression(n)) {
			const root = calleeRoot(n.expression);
			if (root && (ASSERTING.test(root) || helpers.has(root))) {
				found = true;
				return;
			}
		}
		// `throw new Error(…)` inside a test is a failure path too (e.g. "the file is missing").
		if (throws && ts.isThrowStatement(n)) {
			found = true;
			return;
		}
		ts.forEachChild(n, visit);
	};
	visit(node);
	return found;
}

/** Named functions of a module (declarations, and consts or methods holding a function), and whether each is tagged `@asserts`. */
function namedFunctions(source: ts.SourceFile): [string, { body: ts.Node; tagged: boolean }][] {
	const out: [string, { body: ts.Node; tagged: boolean }][] = [];
	const tagged = (n: ts.Node) => ts.getJSDocTags(n).some((t) => t.tagName.text === "asserts");
	const visit = (n: ts.Node): void => {
		if (ts.isFunctionDeclaration(n) && n.name && n.body) out.push([n.name.text, { body: n.body, tagged: tagged(n) }]);
		else if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) {
			const init = n.initializer;
			if (ts.isArrowFunction(init) || ts.isFunctionExpression(init)) out.push([n.name.text, { body: init.body, tagged: tagged(n) }]);
		} else if (ts.isMethodDeclaration(n) && n.body && ts.isIdentifier(n.name)) out.push([n.name.text, { body: n.body, tagged: tagged(n) }]);
		ts.forEachChild(n, visit);
	};
	visit(source);
	return out;
}

/** The names of functions, across `sources`, that assert (directly, through each other, or by their `@asserts` tag). */
export function assertingHelpers(sources: ts.SourceFile[]): Set<string> {
	const functions = sources.flatMap((s) => namedFunctions(s));
	const helpers = new Set<string>(functions.filter(([, f]) => f.tagged).map(([name]) => name));
	for (let grew = true; grew; ) {
		grew = false;
		for (const [name, { body }] of functions)
			if (!helpers.has(name) && asserts(body, helpers, false)) {
				helpers.add(name);
				grew = true;
			}
	}
	return helpers;
}

/** The test calls of a file: `[call, its callback, whether it is an each over a literal empty table]`. */
function testCalls(source: ts.SourceFile): { call: ts.CallExpression; body: ts.Node | null; emptyTable: boolean }[] {
	const out: { call: ts.CallExpression; body: ts.Node | null; emptyTable: boolean }[] = [];
	const visit = (n: ts.Node): void => {
		// A registration inside `expect(() => …)` is the thing under test, not a test.
		if (ts.isCallExpression(n) && calleeRoot(n.expression) === "expect") return;
		if (ts.isCallExpression(n) && calleeRoot(n.expression) !== null && TEST_FNS.has(calleeRoot(n.expression) as string)) {
			// `it.each(table)(name, fn)`: the outer call is the test; the inner one carries the table.
			const inner = ts.isCallExpression(n.expression) ? n.expression : null;
			const isRegistration = n.arguments.length >= 1 && !(ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "each");
			if (isRegistration) {
				const fn = n.arguments.find((a) => ts.isArrowFunction(a) || ts.isFunctionExpression(a)) as
					| ts.ArrowFunction
					| ts.FunctionExpression
					| undefined;
				const table = inner?.arguments[0];
				const emptyTable = !!table && ts.isArrayLiteralExpression(table) && table.elements.length === 0;
				// `it.todo("…")` has no body by design and registers no test.
				const todo = ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === "todo";
				if (!todo) out.push({ call: n, body: fn?.body ?? null, emptyTable });
			}
		}
		ts.forEachChild(n, visit);
	};
	visit(source);
	return out;
}

/**
 * Every test in `testFiles` that cannot fail, with `helperFiles` (the test folders' other modules) as
 * the helpers a test may assert through. `texts` can stand in for files' contents.
 */
export function unassertedTests(testFiles: string[], helperFiles: string[], texts: Record<string, string> = {}): Finding[] {
	const read = (f: string) => parse(f, texts[f]);
	const tests = testFiles.map(read);
	const helpers = assertingHelpers([...tests, ...helperFiles.map(read)]);
	const findings: Finding[] = [];
	for (const source of tests) {
		const calls = testCalls(source);
		if (calls.length === 0) findings.push({ file: source.fileName, line: 1, problem: "defines no test" });
		for (const { call, body, emptyTable } of calls) {
			const line = source.getLineAndCharacterOfPosition(call.getStart()).line + 1;
			if (emptyTable) findings.push({ file: source.fileName, line, problem: "each over an empty table" });
			else if (body === null) findings.push({ file: source.fileName, line, problem: "test with no body" });
			else if (!asserts(body, helpers)) findings.push({ file: source.fileName, line, problem: "no assertion path" });
		}
	}
	return findings;
}
