// The layer order of docs/architecture.md, checked against the imports under src/: no module imports
// from a layer above its own (type-only imports included), no import cycle exists, and every folder
// and root file is in the table. The historical upward imports are put back one at a time to show
// the check catches each.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "../..");
const SRC = join(ROOT, "src");

/** Layer number of each folder (or root file) under src/, from the table in docs/architecture.md. */
function documentedLayers(): Map<string, number> {
	const doc = readFileSync(join(ROOT, "docs/architecture.md"), "utf8");
	const layers = new Map<string, number>();
	for (const row of doc.matchAll(/^\|\s*(\d+)\s*\|[^|]*\|([^|]*)\|/gm)) {
		for (const name of (row[2] as string).matchAll(/`([^`]+)`/g)) layers.set(name[1] as string, Number(row[1]));
	}
	return layers;
}

function sourceFiles(dir: string): string[] {
	return readdirSync(dir).flatMap((name) => {
		const path = join(dir, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return /\.ts$/.test(name) ? [path] : [];
	});
}

type Graph = Map<string, Set<string>>;

/** Every relative import and re-export (static, `import type` included, dynamic `import()`) between files under src/. */
function importGraph(): Graph {
	const graph: Graph = new Map();
	for (const file of sourceFiles(SRC)) {
		const text = readFileSync(file, "utf8");
		const targets = new Set<string>();
		for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)) {
			const base = normalize(join(dirname(file), (m[1] as string).replace(/\.js$/, "")));
			const resolved = [`${base}.ts`, join(base, "index.ts"), base].find((p) => existsSync(p) && statSync(p).isFile());
			if (resolved?.startsWith(SRC)) targets.add(relative(ROOT, resolved));
		}
		graph.set(relative(ROOT, file), targets);
	}
	return graph;
}

/** The table's key for a file: its folder under src/, or the file's own name at src/'s root. */
const unitOf = (file: string) => relative("src", file).split("/")[0] as string;

function upwardImports(graph: Graph, layers: Map<string, number>): string[] {
	const found: string[] = [];
	for (const [from, targets] of graph) {
		for (const to of targets) {
			const a = layers.get(unitOf(from));
			const b = layers.get(unitOf(to));
			if (a !== undefined && b !== undefined && b > a) found.push(`${from} (layer ${a}) -> ${to} (layer ${b})`);
		}
	}
	return found;
}

/** Import cycles between files (strongly connected components of more than one file, or a file importing itself). */
function cycles(graph: Graph): string[][] {
	const index = new Map<string, number>();
	const low = new Map<string, number>();
	const stack: string[] = [];
	const onStack = new Set<string>();
	const found: string[][] = [];
	let next = 0;
	const visit = (v: string) => {
		index.set(v, next);
		low.set(v, next++);
		stack.push(v);
		onStack.add(v);
		for (const w of graph.get(v) ?? []) {
			if (!index.has(w)) {
				visit(w);
				low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
			} else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
		}
		if (low.get(v) === index.get(v)) {
			const component: string[] = [];
			let w: string;
			do {
				w = stack.pop() as string;
				onStack.delete(w);
				component.push(w);
			} while (w !== v);
			if (component.length > 1 || graph.get(v)?.has(v)) found.push(component);
		}
	};
	for (const v of graph.keys()) if (!index.has(v)) visit(v);
	return found;
}

const withEdge = (graph: Graph, from: string, to: string): Graph => {
	const copy: Graph = new Map([...graph].map(([k, v]) => [k, new Set(v)]));
	copy.get(from)?.add(to);
	return copy;
};

describe("the layers of docs/architecture.md", () => {
	const layers = documentedLayers();
	const graph = importGraph();

	it("places every folder and root file under src/", () => {
		const units = new Set([...graph.keys()].map(unitOf));
		expect([...units].filter((u) => !layers.has(u))).toEqual([]);
		expect(layers.size).toBeGreaterThan(20);
	});

	it("has no import from a lower layer to a higher one", () => {
		expect(upwardImports(graph, layers)).toEqual([]);
	});

	it("has no import cycle", () => {
		expect(cycles(graph)).toEqual([]);
	});

	// Imports that once ran upward, put back where their code now lives: each must be caught.
	const putBack: [string, string, string][] = [
		["the object's environment reaching into recall", "src/storage/env.ts", "src/recall/recall.ts"],
		["the memory store reaching into the sweep", "src/memory/store.ts", "src/maintenance/sweep.ts"],
		["memory resolution reaching into consolidation's artifacts", "src/memory/store.ts", "src/consolidate/artifacts.ts"],
		["the auth cache reaching into the API's context", "src/registry/cache.ts", "src/api/context.ts"],
		["the object reaching into Worker-side usage (the old circle)", "src/project/object.ts", "src/recall/usage.ts"],
		["the object reaching into the storage mover", "src/project/object.ts", "src/worker/mover.ts"],
	];
	for (const [what, from, to] of putBack) {
		it(`catches ${what}`, () => {
			expect(graph.has(from) && graph.has(to)).toBe(true);
			expect(upwardImports(withEdge(graph, from, to), layers)).toEqual([expect.stringContaining(`${from} (layer`)]);
		});
	}

	it("catches a cycle inside one layer", () => {
		// recall.ts already imports relevance.ts; the reverse import would close a circle.
		expect(graph.get("src/recall/recall.ts")?.has("src/recall/relevance.ts")).toBe(true);
		expect(cycles(withEdge(graph, "src/recall/relevance.ts", "src/recall/recall.ts")).length).toBeGreaterThan(0);
	});
});
