import { sql } from "drizzle-orm";
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/** Timestamps are ISO-8601 strings in UTC; they sort and compare lexically. */
const createdAt = () => text("created_at").notNull().default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

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
		/** Bumped by every memory change; MEMORY.md caches are valid for one generation. */
		indexGeneration: integer("index_generation").notNull().default(0),
		createdAt: createdAt(),
	},
	(t) => [uniqueIndex("projects_tenant_canonical").on(t.tenantId, t.canonicalKey)],
);

/**
 * One row per live topic file. The integer id is also the rowid of its `memories_fts` row.
 * `owner_id` is the user id for personal memories and '' for team memories, so that one
 * unique index covers both scopes.
 */
export const memories = sqliteTable(
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
		source: text("source", { enum: ["user", "agent", "extraction", "consolidation", "import"] }).notNull(),
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
	],
);

export const memoryVersions = sqliteTable(
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
export const memoryVisibility = sqliteTable("memory_visibility", {
	memoryId: integer("memory_id").primaryKey(),
	projectId: text("project_id").notNull(),
	scope: text("scope", { enum: ["personal", "team"] }).notNull(),
	ownerId: text("owner_id").notNull(),
});

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
