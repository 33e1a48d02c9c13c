import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { MEMORY_SOURCES } from "../memory/topic-file";

/*
 * D1's schema, in two parts:
 *
 * 1. THE REGISTRY — what every request authenticates and authorises against: tenants, users, keys,
 *    console sessions, projects, settings, and the cron's and the storage mover's bookkeeping. It grows
 *    with tenants, users and projects, never with memories or turns (docs/storage.md).
 * 2. LEGACY PER-PROJECT TABLES — the old shared layout of memories, sessions and consolidation. Each
 *    project's data now lives in its own Durable Object (src/storage/schema.ts); nothing but the storage
 *    mover (src/worker/mover.ts) reads these, and nothing writes them. They stay until an operator has
 *    moved every project; a later migration drops them (never before the mover has run).
 *
 * `REGISTRY_TABLE_NAMES` and `LEGACY_TABLE_NAMES` list both parts (test/storage-map-unit.test.ts checks
 * them against the migrations and docs/storage.md).
 */

/** Timestamps are ISO-8601 strings in UTC; they sort and compare lexically. */
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

// 1. The registry ----------------------------------------------------------------------------------

export const tenants = sqliteTable("tenants", {
	id: text("id").primaryKey(),
	name: text("name").notNull(),
	createdAt: createdAt(),
});

export const users = sqliteTable(
	"users",
	{
		id: text("id").primaryKey(),
		tenantId: text("tenant_id")
			.notNull()
			.references(() => tenants.id),
		name: text("name").notNull(),
		createdAt: createdAt(),
	},
	(t) => [uniqueIndex("users_tenant_name").on(t.tenantId, t.name)],
);

export const apiKeys = sqliteTable(
	"api_keys",
	{
		id: text("id").primaryKey(),
		tenantId: text("tenant_id")
			.notNull()
			.references(() => tenants.id),
		userId: text("user_id")
			.notNull()
			.references(() => users.id),
		name: text("name").notNull(),
		/** SHA-256 of the whole token, hex. The token itself is never stored. */
		digest: text("digest").notNull(),
		/** JSON array of scopes: read, write, admin. */
		scopes: text("scopes").notNull(),
		/** When set, the key can only reach this project. */
		projectId: text("project_id"),
		createdAt: createdAt(),
		lastUsedAt: text("last_used_at"),
	},
	(t) => [index("api_keys_tenant").on(t.tenantId)],
);

/**
 * Signed-in console sessions (src/console/session.ts). The cookie holds the row id and the key that
 * opens `sealed_key` (the API key, AES-GCM under that key and CAIRN_CONSOLE_SECRET): neither the row
 * nor the cookie alone yields the API key. Deleted on sign-out and when the key is revoked.
 */
export const consoleSessions = sqliteTable(
	"console_sessions",
	{
		id: text("id").primaryKey(),
		tenantId: text("tenant_id").notNull(),
		keyId: text("key_id").notNull(),
		sealedKey: text("sealed_key").notNull(),
		csrf: text("csrf").notNull(),
		/** Milliseconds since the epoch. */
		expiresAt: integer("expires_at").notNull(),
		createdAt: createdAt(),
	},
	(t) => [index("console_sessions_key").on(t.keyId)],
);

export const projects = sqliteTable(
	"projects",
	{
		id: text("id").primaryKey(),
		tenantId: text("tenant_id")
			.notNull()
			.references(() => tenants.id),
		name: text("name").notNull(),
		/** Normalised git remote (`git:host/path`) or root path (`path:/abs`). */
		canonicalKey: text("canonical_key").notNull(),
		gitRemote: text("git_remote"),
		rootPath: text("root_path"),
		/** Old layout only: the generation now lives in the project's object (read by the storage mover). */
		indexGeneration: integer("index_generation").notNull().default(0),
		/** 1 while the project's sessions hold unprocessed turns: the cron's idle scan visits only these. */
		pendingWork: integer("pending_work").notNull().default(0),
		/** When the storage mover finished this project (set at creation for new projects). */
		storageMovedAt: text("storage_moved_at"),
		createdAt: createdAt(),
	},
	(t) => [uniqueIndex("projects_tenant_canonical").on(t.tenantId, t.canonicalKey)],
);

/** One row per (level, subject): a JSON object of dotted setting keys. */
export const settings = sqliteTable(
	"settings",
	{
		tenantId: text("tenant_id").notNull(),
		level: text("level", { enum: ["user", "project", "policy"] }).notNull(),
		subjectId: text("subject_id").notNull(),
		values: text("values_json").notNull(),
		updatedAt: text("updated_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.tenantId, t.level, t.subjectId] })],
);

/** Where the storage mover stopped within a project: the table (phase) and the last rowid copied. */
export const storageMoves = sqliteTable("storage_moves", {
	projectId: text("project_id").primaryKey(),
	phase: text("phase").notNull(),
	cursor: text("cursor").notNull(),
	updatedAt: text("updated_at").notNull(),
});

/** The cron's position per task: the last project id of the previous slice. */
export const maintenanceCursors = sqliteTable("maintenance_cursors", {
	task: text("task").primaryKey(),
	lastProjectId: text("last_project_id").notNull(),
});

// 2. Legacy per-project tables: the storage mover's source only ------------------------------------

/**
 * One row per live topic file. The integer id is also the rowid of its `memories_fts` row.
 * `owner_id` is the user id for personal memories and '' for team memories, so that one
 * unique index covers both scopes.
 */
export const legacyMemories = sqliteTable(
	"memories",
	{
		id: integer("id").primaryKey({ autoIncrement: true }),
		projectId: text("project_id")
			.notNull()
			.references(() => projects.id),
		scope: text("scope", { enum: ["personal", "team"] }).notNull(),
		ownerId: text("owner_id").notNull(),
		name: text("name").notNull(),
		type: text("type", { enum: ["user", "feedback", "project", "reference"] }).notNull(),
		description: text("description").notNull(),
		version: integer("version").notNull(),
		/** SHA-256 of the current file; the R2 object key ends with it. */
		contentHash: text("content_hash").notNull(),
		bytes: integer("bytes").notNull(),
		source: text("source", { enum: MEMORY_SOURCES }).notNull(),
		sessionId: text("session_id"),
		authorId: text("author_id").notNull(),
		createdAt: text("created_at").notNull(),
		updatedAt: text("updated_at").notNull(),
		verifiedAt: text("verified_at").notNull(),
		timesServed: integer("times_served").notNull().default(0),
		lastServedAt: text("last_served_at"),
	},
	(t) => [
		uniqueIndex("memories_identity").on(t.projectId, t.scope, t.ownerId, t.name),
		index("memories_listing").on(t.projectId, t.type, t.name),
		// The summary reads the most used, most recent memories of each type without scanning the project.
		index("memories_summary").on(t.projectId, t.type, t.timesServed, t.updatedAt),
	],
);

export const legacyMemoryVersions = sqliteTable(
	"memory_versions",
	{
		memoryId: integer("memory_id").notNull(),
		projectId: text("project_id").notNull(),
		version: integer("version").notNull(),
		contentHash: text("content_hash").notNull(),
		type: text("type").notNull(),
		description: text("description").notNull(),
		source: text("source").notNull(),
		sessionId: text("session_id"),
		authorId: text("author_id").notNull(),
		createdAt: text("created_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.memoryId, t.version] }), index("memory_versions_hash").on(t.projectId, t.contentHash)],
);

/**
 * Who may see each memory, in a table narrow enough that recall can check it for every full-text
 * match cheaply (the wide `memories` rows cost a page read each). Written in the same batch as the
 * memory; a memory's project, scope and owner never change.
 */
export const legacyMemoryVisibility = sqliteTable("memory_visibility", {
	memoryId: integer("memory_id").primaryKey(),
	projectId: text("project_id").notNull(),
	scope: text("scope", { enum: ["personal", "team"] }).notNull(),
	ownerId: text("owner_id").notNull(),
});

/**
 * The thread registry: one row per agent session. Turns are numbered 0..turns-1 in arrival order;
 * `cursor` is the first turn stage 1 has not processed yet.
 */
export const legacySessions = sqliteTable(
	"sessions",
	{
		projectId: text("project_id").notNull(),
		id: text("id").notNull(),
		/** The user whose key posted the session; only that user sees it. */
		userId: text("user_id").notNull(),
		agent: text("agent", { enum: ["claude", "codex", "generic"] }).notNull(),
		cwd: text("cwd"),
		branch: text("branch"),
		startedAt: text("started_at").notNull(),
		lastActivityAt: text("last_activity_at").notNull(),
		turns: integer("turns").notNull().default(0),
		cursor: integer("cursor").notNull().default(0),
		status: text("status", { enum: ["active", "ended"] })
			.notNull()
			.default("active"),
		/** idle | queued | failed | dead_letter */
		extractionState: text("extraction_state").notNull().default("idle"),
		/** When a range was last enqueued; the idle scan leaves recently queued sessions alone. */
		queuedAt: text("queued_at"),
		lastError: text("last_error"),
		updatedAt: text("updated_at").notNull(),
		/** Session memory: the turn count it covers, its size, when it was last rebuilt. */
		memoryTurns: integer("memory_turns").notNull().default(0),
		memoryTokens: integer("memory_tokens").notNull().default(0),
		memoryUpdatedAt: text("memory_updated_at"),
	},
	(t) => [
		primaryKey({ columns: [t.projectId, t.id] }),
		index("sessions_activity").on(t.projectId, t.lastActivityAt),
		// The idle scan looks across projects for sessions with unprocessed turns, newest first.
		index("sessions_pending").on(t.lastActivityAt).where(sql`${t.cursor} < ${t.turns}`),
	],
);

/** The columns that place a legacy row in its project's session (each table's builder gets its own column objects). */
const sessionKey = () => ({
	projectId: text("project_id").notNull(),
	sessionId: text("session_id").notNull(),
});

/** Native record ids already ingested per session: re-posting a file adds nothing. */
export const legacySessionRecords = sqliteTable(
	"session_records",
	{
		...sessionKey(),
		recordKey: text("record_key").notNull(),
	},
	(t) => [primaryKey({ columns: [t.projectId, t.sessionId, t.recordKey] })],
);

/** Normalised turns live in R2 as NDJSON chunks; each row maps a seq range to its object. */
export const legacySessionChunks = sqliteTable(
	"session_chunks",
	{
		...sessionKey(),
		firstSeq: integer("first_seq").notNull(),
		lastSeq: integer("last_seq").notNull(),
		objectKey: text("object_key").notNull(),
		bytes: integer("bytes").notNull(),
		createdAt: text("created_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.projectId, t.sessionId, t.firstSeq] })],
);

/**
 * Explicit memory writes made by an agent inside a session, placed at the session's turn count at
 * the time of the write. Stage 1 skips a range that contains one.
 */
export const legacySessionWrites = sqliteTable(
	"session_writes",
	{
		...sessionKey(),
		seq: integer("seq").notNull(),
		memoryName: text("memory_name").notNull(),
		createdAt: text("created_at").notNull(),
	},
	(t) => [index("session_writes_seq").on(t.projectId, t.sessionId, t.seq)],
);

/** Stage-1 output for one session range; consolidation marks it consumed. */
export const legacyStageOneOutputs = sqliteTable(
	"stage1_outputs",
	{
		...sessionKey(),
		fromSeq: integer("from_seq").notNull(),
		toSeq: integer("to_seq").notNull(),
		userId: text("user_id").notNull(),
		extractor: text("extractor").notNull(),
		rawMemory: text("raw_memory").notNull(),
		summary: text("summary").notNull(),
		candidates: text("candidates_json").notNull(),
		createdAt: text("created_at").notNull(),
		consolidatedAt: text("consolidated_at"),
	},
	(t) => [primaryKey({ columns: [t.projectId, t.sessionId, t.fromSeq] }), index("stage1_pending").on(t.projectId, t.consolidatedAt)],
);

/**
 * Skills written by consolidation for one user of a project: `skills/<name>/SKILL.md`. The content is
 * a content-addressed R2 object like a topic file's; the row is the pointer.
 */
export const legacySkills = sqliteTable(
	"skills",
	{
		projectId: text("project_id").notNull(),
		ownerId: text("owner_id").notNull(),
		name: text("name").notNull(),
		description: text("description").notNull(),
		contentHash: text("content_hash").notNull(),
		updatedAt: text("updated_at").notNull(),
	},
	(t) => [primaryKey({ columns: [t.projectId, t.ownerId, t.name] })],
);

/** One row per change a consolidation run made (or refused), with its reason and evidence sessions. */
export const legacyConsolidationEvents = sqliteTable(
	"consolidation_events",
	{
		id: integer("id").primaryKey({ autoIncrement: true }),
		projectId: text("project_id").notNull(),
		ownerId: text("owner_id").notNull(),
		runId: text("run_id").notNull(),
		op: text("op").notNull(),
		target: text("target").notNull(),
		outcome: text("outcome").notNull(),
		reason: text("reason").notNull(),
		evidence: text("evidence_json").notNull(),
		createdAt: text("created_at").notNull(),
	},
	(t) => [index("consolidation_events_project").on(t.projectId, t.createdAt)],
);

/** The registry's tables (part 1), by their SQL names. */
export const REGISTRY_TABLE_NAMES = [
	"tenants",
	"users",
	"api_keys",
	"console_sessions",
	"projects",
	"settings",
	"storage_moves",
	"maintenance_cursors",
] as const;

/** The legacy per-project tables (part 2) and the old shared full-text index (`memories_fts`, a migration's virtual table). */
export const LEGACY_TABLE_NAMES = [
	"memories",
	"memory_versions",
	"memory_visibility",
	"memories_fts",
	"sessions",
	"session_records",
	"session_chunks",
	"session_writes",
	"stage1_outputs",
	"skills",
	"consolidation_events",
] as const;
