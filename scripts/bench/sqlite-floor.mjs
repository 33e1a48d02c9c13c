// Runs FTS5 queries directly on SQLite (better-sqlite3) — the floor Cairn's recall is compared with.
// Plain JavaScript, started with the Node.js that installed the packages, so the native module's ABI
// matches whatever Node runs npm scripts. Input: a JSON task file; output: JSON on stdout.
import { readFileSync } from "node:fs";
import Database from "better-sqlite3";

const task = JSON.parse(readFileSync(process.argv[2], "utf8"));
const out = {};

function percentile(values, p) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

// 1. Latency floor: Cairn's own schema and candidate query, on the same rows.
if (task.floor) {
	const db = new Database(":memory:");
	db.exec(`CREATE TABLE memories (id INTEGER PRIMARY KEY, project_id TEXT, scope TEXT, owner_id TEXT, name TEXT, type TEXT,
		description TEXT, updated_at TEXT);
		CREATE INDEX memories_listing ON memories (project_id, type, name);
		CREATE VIRTUAL TABLE memories_fts USING fts5(name, description, body, tokenize = 'porter unicode61');`);
	const insert = db.prepare("INSERT INTO memories VALUES (?, ?, 'personal', 'u', ?, ?, ?, ?)");
	const insertFts = db.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)");
	db.transaction(() => {
		for (const r of task.floor.rows) {
			insert.run(r.id, r.project, r.name, r.type, r.description, r.updatedAt);
			insertFts.run(r.id, r.name, r.description, r.body);
		}
	})();
	const query = db.prepare(task.floor.sql);
	out.floor = {};
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
		out.floor[project] = { p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99), samples: times.length };
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
