import { randomId } from "../lib/ids";
import { backfillCitations } from "../text/citations";
import { CONCEPT_MAP_VERSION, conceptColumn, deriveCues } from "../text/concepts";
import { gramText } from "../text/grams";

/**
 * The schema of a project's own SQLite, versioned inside the object. `migrateProjectSchema` runs on
 * the object's first access (in its constructor, under `blockConcurrencyWhile`): every migration
 * after the recorded version is applied in one transaction with the new version number, so an object
 * is always at a version that exists here. Migrations are append-only; never edit a shipped one.
 *
 * The tables keep the `project_id` column they had when they were shared: every query still names
 * the project, so a call that reached the wrong object would find nothing, and the storage mover
 * copies rows unchanged.
 */
export const PROJECT_MIGRATIONS: readonly string[] = [
	// 1: memories with versions, visibility and full-text index; sessions and their transcripts'
	// bookkeeping; stage-1 outputs; skills; consolidation events; the MEMORY.md generation counter.
	`CREATE TABLE memories (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		project_id TEXT NOT NULL,
		scope TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		name TEXT NOT NULL,
		type TEXT NOT NULL,
		description TEXT NOT NULL,
		version INTEGER NOT NULL,
		content_hash TEXT NOT NULL,
		bytes INTEGER NOT NULL,
		source TEXT NOT NULL,
		session_id TEXT,
		author_id TEXT NOT NULL,
		created_at TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		verified_at TEXT NOT NULL,
		times_served INTEGER NOT NULL DEFAULT 0,
		last_served_at TEXT
	);
	CREATE UNIQUE INDEX memories_identity ON memories (project_id, scope, owner_id, name);
	CREATE INDEX memories_listing ON memories (project_id, type, name);
	CREATE INDEX memories_summary ON memories (project_id, type, times_served, updated_at);
	CREATE TABLE memory_versions (
		memory_id INTEGER NOT NULL,
		project_id TEXT NOT NULL,
		version INTEGER NOT NULL,
		content_hash TEXT NOT NULL,
		type TEXT NOT NULL,
		description TEXT NOT NULL,
		source TEXT NOT NULL,
		session_id TEXT,
		author_id TEXT NOT NULL,
		created_at TEXT NOT NULL,
		PRIMARY KEY (memory_id, version)
	);
	CREATE INDEX memory_versions_hash ON memory_versions (project_id, content_hash);
	CREATE TABLE memory_visibility (
		memory_id INTEGER PRIMARY KEY,
		project_id TEXT NOT NULL,
		scope TEXT NOT NULL,
		owner_id TEXT NOT NULL
	);
	CREATE VIRTUAL TABLE memories_fts USING fts5(name, description, body, tokenize = 'porter unicode61');
	CREATE TABLE sessions (
		project_id TEXT NOT NULL,
		id TEXT NOT NULL,
		user_id TEXT NOT NULL,
		agent TEXT NOT NULL,
		cwd TEXT,
		branch TEXT,
		started_at TEXT NOT NULL,
		last_activity_at TEXT NOT NULL,
		turns INTEGER NOT NULL DEFAULT 0,
		cursor INTEGER NOT NULL DEFAULT 0,
		status TEXT NOT NULL DEFAULT 'active',
		extraction_state TEXT NOT NULL DEFAULT 'idle',
		queued_at TEXT,
		last_error TEXT,
		updated_at TEXT NOT NULL,
		memory_turns INTEGER NOT NULL DEFAULT 0,
		memory_tokens INTEGER NOT NULL DEFAULT 0,
		memory_updated_at TEXT,
		PRIMARY KEY (project_id, id)
	);
	CREATE INDEX sessions_activity ON sessions (project_id, last_activity_at);
	CREATE INDEX sessions_pending ON sessions (last_activity_at) WHERE cursor < turns;
	CREATE TABLE session_records (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		record_key TEXT NOT NULL,
		PRIMARY KEY (project_id, session_id, record_key)
	);
	CREATE TABLE session_chunks (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		first_seq INTEGER NOT NULL,
		last_seq INTEGER NOT NULL,
		object_key TEXT NOT NULL,
		bytes INTEGER NOT NULL,
		created_at TEXT NOT NULL,
		PRIMARY KEY (project_id, session_id, first_seq)
	);
	CREATE TABLE session_writes (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		seq INTEGER NOT NULL,
		memory_name TEXT NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE UNIQUE INDEX session_writes_seq ON session_writes (project_id, session_id, seq, memory_name);
	CREATE TABLE stage1_outputs (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		from_seq INTEGER NOT NULL,
		to_seq INTEGER NOT NULL,
		user_id TEXT NOT NULL,
		extractor TEXT NOT NULL,
		raw_memory TEXT NOT NULL,
		summary TEXT NOT NULL,
		candidates_json TEXT NOT NULL,
		created_at TEXT NOT NULL,
		consolidated_at TEXT,
		PRIMARY KEY (project_id, session_id, from_seq)
	);
	CREATE INDEX stage1_pending ON stage1_outputs (project_id, consolidated_at);
	CREATE TABLE skills (
		project_id TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		name TEXT NOT NULL,
		description TEXT NOT NULL,
		content_hash TEXT NOT NULL,
		updated_at TEXT NOT NULL,
		PRIMARY KEY (project_id, owner_id, name)
	);
	CREATE TABLE consolidation_events (
		id INTEGER PRIMARY KEY AUTOINCREMENT,
		project_id TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		run_id TEXT NOT NULL,
		op TEXT NOT NULL,
		target TEXT NOT NULL,
		outcome TEXT NOT NULL,
		reason TEXT NOT NULL,
		evidence_json TEXT NOT NULL,
		created_at TEXT NOT NULL
	);
	CREATE INDEX consolidation_events_project ON consolidation_events (project_id, created_at);
	CREATE TABLE projects (
		id TEXT PRIMARY KEY,
		index_generation INTEGER NOT NULL DEFAULT 0
	);`,
	// 2: which memories each session was handed (recall and inject with a session id), so a session
	// can be told only what it has not seen yet.
	`CREATE TABLE session_served (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		memory_id INTEGER NOT NULL,
		served_at TEXT NOT NULL,
		PRIMARY KEY (project_id, session_id, memory_id)
	);`,
	// 3: the turns of a range stage 1 left out because the agent wrote memory there itself (a JSON
	// array of turn numbers): the rest of the range is extracted.
	`ALTER TABLE stage1_outputs ADD COLUMN agent_write_turns TEXT NOT NULL DEFAULT '[]';`,
	// 4: a scope proposed for a memory and not yet decided ('team' for a rule its author called a team
	// rule): metadata beside the topic file, never in its frontmatter.
	`ALTER TABLE memories ADD COLUMN proposed_scope TEXT;`,
	// 5: the CJK index beside the word index: the same three fields as character grams of their
	// Hangul, Kana and Han runs (src/text/grams.ts), a row only for memories with such text. Built
	// for the memories already stored by the step below (PROJECT_MIGRATION_STEPS[5]).
	`CREATE VIRTUAL TABLE memories_grams USING fts5(name, description, body, tokenize = 'unicode61 remove_diacritics 0');`,
	// 6: one embedding per memory for semantic recall (src/llm/embedding.ts): a unit-length Float32
	// vector as a blob, the model that made it and the content it was made from. Filled on write and
	// by the backfill; none while no embedding model is configured.
	`CREATE TABLE memory_vectors (
		memory_id INTEGER PRIMARY KEY,
		project_id TEXT NOT NULL,
		model TEXT NOT NULL,
		content_hash TEXT NOT NULL,
		dims INTEGER NOT NULL,
		vector BLOB NOT NULL
	);
	CREATE INDEX memory_vectors_model ON memory_vectors (project_id, model);`,
	// 7: the memories a skill was made from (a JSON array of names; empty when unknown), so a skill
	// whose sources are all gone can be retired.
	`ALTER TABLE skills ADD COLUMN sources TEXT NOT NULL DEFAULT '[]';`,
	// 8: the review queue (src/memory/reviews.ts): changes consolidation proposes to memories written on
	// purpose ('change': op update | merge | delete with the proposed type, description, body as JSON, and
	// the memory version it was based on) and memories proposed for team scope ('promote'). At most one
	// pending item per owner, kind and memory; a decision is recorded on the item (when, by whom). Items
	// for the memories already proposed for team scope are made by the step below.
	`CREATE TABLE review_items (
		id TEXT PRIMARY KEY,
		project_id TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		kind TEXT NOT NULL,
		memory_name TEXT NOT NULL,
		memory_scope TEXT NOT NULL,
		base_version INTEGER,
		op TEXT NOT NULL,
		proposal_json TEXT NOT NULL,
		reason TEXT NOT NULL,
		evidence_json TEXT NOT NULL,
		run_id TEXT,
		status TEXT NOT NULL DEFAULT 'pending',
		created_at TEXT NOT NULL,
		decided_at TEXT,
		decided_by TEXT
	);
	CREATE UNIQUE INDEX review_items_pending ON review_items (project_id, owner_id, kind, memory_scope, memory_name) WHERE status = 'pending';
	CREATE INDEX review_items_listing ON review_items (project_id, owner_id, status, created_at);`,
	// 9: what each version rests on: the consolidation run that wrote it and the sessions and turns of
	// the candidates behind it (a JSON array of {session, turns}).
	`ALTER TABLE memory_versions ADD COLUMN run_id TEXT;
	ALTER TABLE memory_versions ADD COLUMN evidence_json TEXT NOT NULL DEFAULT '[]';`,
	// 10: cues — the situations in which a memory applies ("adding or upgrading a dependency"), a JSON
	// array of strings: written by a model or a person ('written') or derived from the concept map
	// ('derived', src/text/concepts.ts). Metadata, never in the topic file. Indexed beside the memory's
	// concepts in `memories_cues` for recall; filled in for stored memories by the step below.
	`ALTER TABLE memories ADD COLUMN cues TEXT NOT NULL DEFAULT '[]';
	ALTER TABLE memories ADD COLUMN cues_source TEXT NOT NULL DEFAULT 'derived';
	CREATE VIRTUAL TABLE memories_cues USING fts5(cues, concepts, tokenize = 'porter unicode61');`,
	// 11: the scope of the memory an event belongs to ('personal' of its owner_id, or 'team'), so a
	// memory's events are those of that memory only: a team memory named like a colleague's personal
	// one does not show the colleague's events. Rows from before stay NULL and count as personal.
	`ALTER TABLE consolidation_events ADD COLUMN memory_scope TEXT;`,
	// 12: where a version's bytes are when a batch wrote them: `<pack id>:<offset>:<length>` in the
	// batch's content pack (src/memory/packs.ts); NULL for the content-addressed object of its hash.
	`ALTER TABLE memories ADD COLUMN content_ref TEXT;
	ALTER TABLE memory_versions ADD COLUMN content_ref TEXT;`,
	// 13: the pack sweep finds the versions in a page of packs by the pack id that starts their
	// `content_ref` (src/memory/packs.ts, the same expression): an index, not a scan of every version.
	`CREATE INDEX memory_versions_pack ON memory_versions (project_id, substr(content_ref, 1, 20)) WHERE content_ref IS NOT NULL;`,
	// 14: when each memory was written and last changed, indexed: recall's best matches written inside a
	// window of time the query names (src/memory/lexical.ts) read the memories of that window, not every one.
	// One column each, so no query by project alone switches to them; built over the rows already stored.
	`CREATE INDEX memories_created ON memories (created_at);
	CREATE INDEX memories_updated ON memories (updated_at);`,
	// 15: the version of the concept map (src/text/concepts.ts) the stored concepts and derived cues were
	// made with; everything stored so far was made with version 1. See `refreshConcepts`.
	`ALTER TABLE _cairn_schema ADD COLUMN concept_map INTEGER NOT NULL DEFAULT 1;`,
	// 16: what each memory was worth to the sessions it reached (src/memory/use.ts). Per memory, the
	// sessions it was served in, the sessions whose agent cited its memory:// path in its own words, the
	// sessions that read it (memory_read, an MCP resource read, a resolved URL), with the last of each;
	// `session_used` makes a memory count once per session and kind, however often a transcript is posted.
	// `archived_at`: a person approved archiving it (served often, never used): it is no longer served,
	// and stays readable, listed and in history. The served-session count of the memories already stored
	// is taken from `session_served` by the step below.
	`ALTER TABLE memories ADD COLUMN served_sessions INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE memories ADD COLUMN cited_sessions INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE memories ADD COLUMN last_cited_at TEXT;
	ALTER TABLE memories ADD COLUMN read_sessions INTEGER NOT NULL DEFAULT 0;
	ALTER TABLE memories ADD COLUMN last_read_at TEXT;
	ALTER TABLE memories ADD COLUMN archived_at TEXT;
	CREATE TABLE session_used (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		memory_id INTEGER NOT NULL,
		kind TEXT NOT NULL,
		used_at TEXT NOT NULL,
		PRIMARY KEY (project_id, session_id, memory_id, kind)
	);
	CREATE INDEX session_used_memory ON session_used (memory_id);
	CREATE INDEX session_served_memory ON session_served (memory_id);`,
	// 17: a session can be handed a memory's index line only (the session-start block's ranked index):
	// 1 while only its line was shown, 0 once its body was. The prompt block offers no line twice and
	// still serves a body whose line alone was shown.
	`ALTER TABLE session_served ADD COLUMN listed INTEGER NOT NULL DEFAULT 0;`,
	// 18: the session-start block's rules by use (cited or read, then served; src/search/start-view.ts), read
	// through an index in that order rather than by sorting every rule of the project.
	`CREATE INDEX memories_use ON memories (project_id, type, cited_sessions + read_sessions, times_served, updated_at);`,
	// Code citations (src/text/citations.ts, src/memory/code-check.ts): the repository paths a memory is
	// about as written (a JSON array of {path, symbol?, lines?, blob?, source}) on the memory and on each
	// version; per cited path, the blob id it is compared with (the writer's, or the one the file had when
	// the memory was written, set by the first check from the repository), the last check's state and a
	// rename's new path; `code_state` on the memory sums them up for blocks, `cairn doctor` and the console.
	// The citations of memories already stored are read from their text by the step below.
	`ALTER TABLE memories ADD COLUMN citations TEXT NOT NULL DEFAULT '[]';
	ALTER TABLE memories ADD COLUMN code_state TEXT;
	ALTER TABLE memory_versions ADD COLUMN citations TEXT NOT NULL DEFAULT '[]';
	CREATE TABLE code_citations (
		memory_id INTEGER NOT NULL,
		project_id TEXT NOT NULL,
		path TEXT NOT NULL,
		base_blob TEXT,
		written_at TEXT NOT NULL,
		state TEXT NOT NULL DEFAULT 'unchecked',
		current_blob TEXT,
		moved_to TEXT,
		checked_at TEXT,
		PRIMARY KEY (memory_id, path)
	);
	CREATE INDEX code_citations_path ON code_citations (project_id, path);
	CREATE INDEX memories_code_state ON memories (project_id, code_state) WHERE code_state IS NOT NULL;`,
	// Trust (docs/memory-trust.md): how each memory and version came — 'person', 'agent', 'extracted' or
	// 'imported' (NULL on rows from before: read from `source`) — and the admin who reviewed it, if any.
	`ALTER TABLE memories ADD COLUMN trust TEXT;
	ALTER TABLE memories ADD COLUMN reviewed_by TEXT;
	ALTER TABLE memory_versions ADD COLUMN trust TEXT;
	ALTER TABLE memory_versions ADD COLUMN reviewed_by TEXT;`,
	// Team memory a person vouched for (docs/memory-trust.md, src/trust/vouch.ts): who let each team
	// memory's current text reach teammates — a person's user id (an approval, or a write with an admin
	// key outside an agent session), 'cairn:setting' (the project publishes team writes at once) or
	// 'cairn:upgrade' (served before this rule existed). NULL: a proposal, served to its writer only; its
	// visibility row then carries the writer as owner. The team memories stored before are vouched for at
	// upgrade, every version of them, with an audit event each. `session_keys`: the API keys an agent
	// session used in this project (its hooks, MCP client, writes naming a session): such a key neither
	// vouches nor approves. `session_writes.origin_checked_at`: when the check of where an agent's write
	// came from (src/pipeline/tool-origin.ts) ran over the session's transcript.
	`ALTER TABLE memories ADD COLUMN vouched_by TEXT;
	ALTER TABLE memory_versions ADD COLUMN vouched_by TEXT;
	UPDATE memories SET vouched_by = 'cairn:upgrade' WHERE scope = 'team';
	UPDATE memory_versions SET vouched_by = 'cairn:upgrade' WHERE memory_id IN (SELECT id FROM memories WHERE scope = 'team');
	INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
	  SELECT project_id, author_id, 'team', 'upgrade', 'vouch', name, 'vouched', 'served to teammates before team memory needed a person to vouch for it: kept served (vouched for at upgrade)', '[]', strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
	  FROM memories WHERE scope = 'team';
	CREATE INDEX memories_awaiting ON memories (project_id) WHERE scope = 'team' AND vouched_by IS NULL;
	CREATE TABLE session_keys (
		project_id TEXT NOT NULL,
		key_id TEXT NOT NULL,
		first_seen_at TEXT NOT NULL,
		PRIMARY KEY (project_id, key_id)
	);
	ALTER TABLE session_writes ADD COLUMN origin_checked_at TEXT;`,
	// Topics named by a model (src/search/topic-labels.ts): per user, a title and words for a topic key, or the
	// key of the topic it was merged into; `topic_labelling` keeps which topics (keys and sizes) were named, so
	// they are named again only when they change.
	`CREATE TABLE topic_labels (
		project_id TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		key TEXT NOT NULL,
		title TEXT NOT NULL,
		words_json TEXT NOT NULL,
		merge_into TEXT,
		labelled_at TEXT NOT NULL,
		PRIMARY KEY (project_id, owner_id, key)
	);
	CREATE TABLE topic_labelling (
		project_id TEXT NOT NULL,
		owner_id TEXT NOT NULL,
		topics_hash TEXT NOT NULL,
		labelled_at TEXT NOT NULL,
		PRIMARY KEY (project_id, owner_id)
	);`,
	// The topic lines a session's prompt blocks named (src/search/served.ts), so that a session is not shown the
	// same topic line twice (`onlyNew`); the session key as in `session_served`.
	`CREATE TABLE session_topics (
		project_id TEXT NOT NULL,
		session_id TEXT NOT NULL,
		topic_key TEXT NOT NULL,
		shown_at TEXT NOT NULL,
		PRIMARY KEY (project_id, session_id, topic_key)
	);`,
];

/** The version that adds code citations, found by its table rather than by a number other migrations would shift. */
const citationsVersion = PROJECT_MIGRATIONS.findIndex((m) => m.includes("CREATE TABLE code_citations")) + 1;

/**
 * Data steps that run right after a version's SQL, in the same transaction: work SQL alone cannot do
 * (the grams of text already stored). Keyed by the version they complete; append-only like the SQL.
 */
export const PROJECT_MIGRATION_STEPS: Readonly<Record<number, (sql: SqlStorage) => void>> = {
	5: (sql) => {
		const rows = sql
			.exec<{ rowid: number; name: string; description: string; body: string }>("SELECT rowid, name, description, body FROM memories_fts")
			.toArray();
		for (const r of rows) {
			const fields = [gramText(r.name), gramText(r.description), gramText(r.body)];
			if (fields.some((f) => f !== ""))
				sql.exec("INSERT INTO memories_grams (rowid, name, description, body) VALUES (?, ?, ?, ?)", r.rowid, ...fields);
		}
	},
	10: (sql) => {
		const rows = sql
			.exec<{ rowid: number; name: string; description: string; body: string }>("SELECT rowid, name, description, body FROM memories_fts")
			.toArray();
		for (const r of rows) {
			const cues = deriveCues(r);
			const concepts = conceptColumn({ ...r, cues });
			sql.exec("UPDATE memories SET cues = ?, cues_source = 'derived' WHERE id = ?", JSON.stringify(cues), r.rowid);
			if (cues.length > 0 || concepts !== "")
				sql.exec("INSERT INTO memories_cues (rowid, cues, concepts) VALUES (?, ?, ?)", r.rowid, cues.join("\n"), concepts);
		}
	},
	8: (sql) => {
		const rows = sql
			.exec<{ project_id: string; owner_id: string; name: string; version: number; updated_at: string }>(
				"SELECT project_id, owner_id, name, version, updated_at FROM memories WHERE scope = 'personal' AND proposed_scope = 'team'",
			)
			.toArray();
		for (const r of rows) {
			sql.exec(
				`INSERT OR IGNORE INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, created_at)
				 VALUES (?, ?, ?, 'promote', ?, 'personal', ?, 'promote', '{"scope":"team"}', 'proposed for team scope before the review queue existed', '[]', ?)`,
				`rev_${randomId(16)}`,
				r.project_id,
				r.owner_id,
				r.name,
				r.version,
				r.updated_at,
			);
		}
	},
	16: (sql) => {
		sql.exec(
			"UPDATE memories SET served_sessions = (SELECT count(*) FROM session_served s WHERE s.memory_id = memories.id) WHERE id IN (SELECT memory_id FROM session_served)",
		);
	},
	// Code citations: the version that adds them (the last entry of PROJECT_MIGRATIONS when it was written).
	[citationsVersion]: backfillCitations,
};

export const PROJECT_SCHEMA_VERSION = PROJECT_MIGRATIONS.length;

/**
 * Brings the object's database to `target` (the latest by default). Returns the version it was at.
 * Each step and its version record commit together, so a failure leaves the previous version intact.
 */
export function migrateProjectSchema(storage: DurableObjectStorage, target = PROJECT_SCHEMA_VERSION): number {
	const sql = storage.sql;
	sql.exec("CREATE TABLE IF NOT EXISTS _cairn_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
	const row = sql.exec<{ version: number }>("SELECT version FROM _cairn_schema WHERE id = 1").toArray()[0];
	const from = row?.version ?? 0;
	for (let v = from; v < target; v++) {
		storage.transactionSync(() => {
			sql.exec(PROJECT_MIGRATIONS[v] as string);
			PROJECT_MIGRATION_STEPS[v + 1]?.(sql);
			sql.exec("INSERT INTO _cairn_schema (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version", v + 1);
		});
	}
	return from;
}

/** The project this object's database belongs to, or null before its first call. */
export const storedProject = (sql: SqlStorage): string | null =>
	sql.exec<{ id: string }>("SELECT id FROM projects LIMIT 1").toArray()[0]?.id ?? null;

/** Records the project this object's database belongs to (its first call). */
export function recordProject(sql: SqlStorage, projectId: string): void {
	sql.exec("INSERT INTO projects (id, index_generation) VALUES (?, 0) ON CONFLICT (id) DO NOTHING", projectId);
}

/**
 * When the concept map's version differs from the one this database's concepts were made with, makes
 * them again: each memory's derived cues (written cues stay as written) and its row in the cue index,
 * which recall searches and the per-prompt relevance decision reads as the memory's concepts. One
 * transaction with the new version, so an interrupted rebuild runs again whole. Returns how many
 * memories were rebuilt (0 when the version already matches).
 */
export function refreshConcepts(storage: DurableObjectStorage, version = CONCEPT_MAP_VERSION): number {
	const sql = storage.sql;
	const stored = sql.exec<{ concept_map: number }>("SELECT concept_map FROM _cairn_schema WHERE id = 1").toArray()[0]?.concept_map;
	if (stored === undefined || stored === version) return 0;
	return storage.transactionSync(() => {
		const rows = sql
			.exec<{ id: number; name: string; description: string; body: string; cues: string; cues_source: string }>(
				`SELECT m.id, f.name, f.description, f.body, m.cues, m.cues_source FROM memories m JOIN memories_fts f ON f.rowid = m.id`,
			)
			.toArray();
		for (const r of rows) {
			let cues: string[];
			if (r.cues_source === "derived") {
				cues = deriveCues({ name: r.name, description: r.description, body: r.body });
				sql.exec("UPDATE memories SET cues = ? WHERE id = ?", JSON.stringify(cues), r.id);
			} else {
				try {
					const parsed: unknown = JSON.parse(r.cues);
					cues = Array.isArray(parsed) ? parsed.filter((c): c is string => typeof c === "string") : [];
				} catch {
					cues = [];
				}
			}
			const concepts = conceptColumn({ name: r.name, description: r.description, body: r.body, cues });
			sql.exec("DELETE FROM memories_cues WHERE rowid = ?", r.id);
			if (cues.length > 0 || concepts !== "")
				sql.exec("INSERT INTO memories_cues (rowid, cues, concepts) VALUES (?, ?, ?)", r.id, cues.join("\n"), concepts);
		}
		sql.exec("UPDATE _cairn_schema SET concept_map = ? WHERE id = 1", version);
		return rows.length;
	});
}
