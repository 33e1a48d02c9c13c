// Runs FTS5 queries directly on SQLite (better-sqlite3) — the floor Cairn's recall is compared with.
// Plain JavaScript, started with the Node.js that installed the packages, so the native module's ABI
// matches whatever Node runs npm scripts. Input: a JSON task file; output: JSON on stdout.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";

const task = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = {};

function percentile(values, p) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// 1. Latency floor: Cairn's own schema and candidate query, on the same rows — in memory, and in a
// file with SQLite's default page cache, as D1 keeps its database.
for (const mode of task.floor ? ["memory", "file"] : []) {
	const path = mode === "memory" ? ":memory:" : join(mkdtempSync(join(tmpdir(), "cairn-floor-")), "floor.sqlite");
	const db = new Database(path);
	// Cairn's own migrations: the same tables and indexes as D1.
	db.exec(task.floor.schema);
	// Only memory rows are loaded; their tenants and projects are not part of the query.
	db.pragma("foreign_keys = OFF");
	const insert = db.prepare(
		`INSERT INTO memories (id, project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, author_id, created_at, updated_at, verified_at)
		 VALUES (?1, ?2, 'personal', 'u', ?3, ?4, ?5, 1, 'h', 1, 'user', 'u', ?6, ?6, ?6)`,
	);
	const insertFts = db.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)");
	const insertVisibility = db.prepare(
		"INSERT INTO memory_visibility (memory_id, project_id, scope, owner_id) VALUES (?, ?, 'personal', 'u')",
	);
	db.transaction(() => {
		for (const r of task.floor.rows) {
			insert.run({ 1: r.id, 2: r.project, 3: r.name, 4: r.type, 5: r.description, 6: r.updatedAt });
			insertFts.run(r.id, r.name, r.description, r.body);
			insertVisibility.run(r.id, r.project);
		}
	})();
	if (mode === "file") {
		db.close();
		// Reopen so nothing is left in the page cache from loading.
	}
	const reader = mode === "file" ? new Database(path, { readonly: true }) : db;
	const query = reader.prepare(task.floor.sql);
	out.floor ??= {};
	out.floor[mode] = {};
	for (const [project, matches] of Object.entries(task.floor.queries)) {
		const times = [];
		for (let round = 0; round < 2; round++) {
			for (const match of matches) {
				const t0 = performance.now();
				// Numbered parameters (?1…?4) bind by key in better-sqlite3.
				query.all({ 1: match, 2: project, 3: "u", 4: 50 });
				if (round === 1) times.push(performance.now() - t0);
			}
		}
		out.floor[mode][project] = {
			p50: percentile(times, 50),
			p95: percentile(times, 95),
			p99: percentile(times, 99),
			samples: times.length,
		};
	}
}

// 2. Plain BM25 baseline for recall quality: one text column, every question token, default bm25().
if (task.baseline) {
	out.baseline = {};
	for (const conv of task.baseline.conversations) {
		const db = new Database(":memory:");
		db.exec("CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = 'porter unicode61')");
		const insert = db.prepare("INSERT INTO docs (rowid, text) VALUES (?, ?)");
		for (const [i, text] of conv.docs.entries()) insert.run(i + 1, text);
		const search = db.prepare("SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?");
		out.baseline[conv.id] = conv.questions.map((q) => {
			const tokens = [...new Set(q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
			if (tokens.length === 0) return [];
			return search.all(tokens.map((t) => `"${t}"`).join(" OR "), task.baseline.k).map((r) => r.rowid - 1);
		});
	}
}

process.stdout.write(JSON.stringify(out));
