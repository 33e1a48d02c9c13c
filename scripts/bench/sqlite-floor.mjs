// Runs FTS5 queries directly on SQLite — the floor Cairn's recall is compared with. Node's built-in
// `node:sqlite` (SQLite with FTS5, no native module to download or build, so `npm install` never
// depends on it); it needs Node 22.13 or newer, which npm scripts get from the pinned `node` package.
// Plain JavaScript. Input: a JSON task file; output: JSON on stdout.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const sqlite = await import("node:sqlite").catch(() => null);
if (!sqlite) {
	process.stderr.write(
		`the SQLite floor needs node:sqlite (Node 22.13 or newer; this is ${process.version}): run it through \`npm run bench\`, whose scripts use the toolchain's Node 22\n`,
	);
	process.exit(1);
}
const { DatabaseSync } = sqlite;

const task = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = {};
const dirs = [];
const scratch = () => {
	const dir = mkdtempSync(join(tmpdir(), "cairn-floor-"));
	dirs.push(dir);
	return join(dir, "floor.sqlite");
};

function percentile(values, p) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** `corpus()` of bench/corpus.ts, repeated here (this file runs without TypeScript); checked against it below. */
function corpus(sentences, size, variant = 0) {
	const types = ["user", "feedback", "project", "reference"];
	const n = Math.max(1, sentences.length);
	return Array.from({ length: size }, (_, i) => {
		const a = sentences[(i + variant * 37) % n] ?? "";
		const b = sentences[(i * 7 + 3 + variant * 101) % n] ?? "";
		return { name: `m-${i}`, type: types[(i + variant) % 4] ?? "user", description: a.slice(0, 500), body: `${a}\n\n${b}` };
	});
}

/** Loads memories the way the write path stores them: the row, its visibility row and its FTS row. */
function loader(db) {
	// Only memory rows are loaded; their tenants and projects are not part of the query.
	db.exec("PRAGMA foreign_keys = OFF");
	const insert = db.prepare(
		`INSERT INTO memories (id, project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, author_id, created_at, updated_at, verified_at)
		 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, 1, 'h', 1, 'user', 'u', ?8, ?8, ?8)`,
	);
	const insertFts = db.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)");
	const insertVisibility = db.prepare("INSERT INTO memory_visibility (memory_id, project_id, scope, owner_id) VALUES (?, ?, ?, ?)");
	let id = Number(db.prepare("SELECT coalesce(max(id), 0) AS id FROM memories").get().id);
	const now = new Date().toISOString();
	/** `owner(k)`: the k-th memory's [scope, owner]. One transaction per load, as the write path batches. */
	return (project, memories, owner) => {
		db.exec("BEGIN");
		try {
			for (const [k, m] of memories.entries()) {
				const [scope, ownerId] = owner(k);
				// ?1…?8 bind by position; ?8 is used three times.
				insert.run(++id, project, scope, ownerId, m.name, m.type, m.description, now);
				insertFts.run(id, m.name, m.description, m.body);
				insertVisibility.run(id, project, scope, ownerId);
			}
			db.exec("COMMIT");
		} catch (err) {
			db.exec("ROLLBACK");
			throw err;
		}
	};
}

/** A database with the object's bookkeeping table, which its migrations alter (src/storage/schema.ts creates it before them). */
function open(path, schema) {
	const db = new DatabaseSync(path);
	db.exec("CREATE TABLE IF NOT EXISTS _cairn_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
	db.exec(schema);
	return db;
}

/** The candidate statement over `matches`, twice; the first round warms the cache and is not counted. */
function measure(db, project, matches) {
	const query = db.prepare(task.floor.sql);
	const times = [];
	for (let round = 0; round < 2; round++) {
		for (const match of matches) {
			const t0 = performance.now();
			query.all(match, project, "u", 50);
			if (round === 1) times.push(performance.now() - t0);
		}
	}
	return { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), samples: times.length };
}

/** Reopens a file database read-only, so nothing is left in the page cache from loading. */
function reopen(db, path) {
	db.close();
	return new DatabaseSync(path, { readOnly: true });
}

const personal = () => ["personal", "u"];

if (task.floor) {
	const { sentences, check } = task.floor;
	for (const c of check) {
		if (JSON.stringify(corpus(sentences, c.rows.length, c.variant)) !== JSON.stringify(c.rows))
			throw new Error("sqlite-floor.mjs: corpus() differs from bench/corpus.ts");
	}

	// 1. Latency floor of the current layout: one database per project (the object's SQLite, with the
	// object's schema), holding that project's memories only — in memory, and in a file with SQLite's
	// default page cache.
	out.floor = {};
	for (const mode of ["memory", "file"]) {
		out.floor[mode] = {};
		for (const size of task.floor.sizes) {
			const path = mode === "memory" ? ":memory:" : scratch();
			let db = open(path, task.floor.projectSchema);
			loader(db)("p", corpus(sentences, size), personal);
			if (mode === "file") db = reopen(db, path);
			out.floor[mode][size] = measure(db, "p", task.floor.matches);
			db.close();
		}
	}

	// 2. The old layout for comparison: every project in one database (D1's schema), the measured
	// project beside 0, then more and more others of its size (team memories, every fifth personal to
	// another user, as the Worker benchmark seeds them). File only, as D1 keeps it.
	if (task.floor.shared) {
		const { size, neighbours } = task.floor.shared;
		const path = scratch();
		let db = open(path, task.floor.sharedSchema);
		loader(db)("p", corpus(sentences, size), personal);
		out.shared = [];
		let present = 0;
		for (const others of [0, ...neighbours]) {
			const t0 = performance.now();
			if (others > present) {
				db.close();
				db = new DatabaseSync(path);
				const more = loader(db);
				for (; present < others; present++)
					more(`n${present + 1}`, corpus(sentences, size, present + 1), (k) => (k % 5 === 0 ? ["personal", "n"] : ["team", ""]));
			}
			const loadSeconds = (performance.now() - t0) / 1000;
			db = reopen(db, path);
			out.shared.push({ others, loadSeconds, ...measure(db, "p", task.floor.matches) });
		}
		db.close();
	}
}

// 3. Plain BM25 baseline for recall quality: one text column, every question token, default bm25().
if (task.baseline) {
	out.baseline = {};
	for (const conv of task.baseline.conversations) {
		const db = new DatabaseSync(":memory:");
		db.exec("CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = 'porter unicode61')");
		const insert = db.prepare("INSERT INTO docs (rowid, text) VALUES (?, ?)");
		for (const [i, text] of conv.docs.entries()) insert.run(i + 1, text);
		const search = db.prepare("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?");
		out.baseline[conv.id] = conv.questions.map((q) => {
			const tokens = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
			if (tokens.length === 0) return [];
			return search.all(tokens.map((t) => `"${t}"`).join(" OR "), task.baseline.k).map((r) => Number(r.rowid) - 1);
		});
	}
}

for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
process.stdout.write(JSON.stringify(out));
