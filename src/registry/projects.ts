/**
 * Registry queries about projects that the rest of the service needs (D1 `projects` and the tables
 * that hang off it): whose a project is, whether it has work pending, which projects the cron visits
 * next, which the storage mover moves next, and the rows a deletion removes.
 */

import type { ProjectRow } from "./rows";

/** The tenant a project belongs to, or null when it does not exist (any more). */
export async function projectTenant(db: D1Database, projectId: string): Promise<string | null> {
	const row = await db.prepare("SELECT tenant_id FROM projects WHERE id = ?").bind(projectId).first<{ tenant_id: string }>();
	return row?.tenant_id ?? null;
}

/** A transcript arrived: the idle scan visits this project until its sessions are all extracted. */
export async function markPendingWork(db: D1Database, projectId: string): Promise<void> {
	await db.prepare("UPDATE projects SET pending_work = 1 WHERE id = ? AND pending_work = 0").bind(projectId).run();
}

export async function clearPendingWork(db: D1Database, projectId: string): Promise<void> {
	await db.prepare("UPDATE projects SET pending_work = 0 WHERE id = ?").bind(projectId).run();
}

export type MaintenanceTask = "sweep" | "idle-scan" | "secret-rescan";

/**
 * The next `limit` projects for a cron task after the last one it visited, wrapping around to the
 * start; remembers where the slice ended (`maintenance_cursors`), or starts over when it reached the end.
 * `pendingOnly`: only projects with work pending.
 */
export async function nextProjectSlice(
	db: D1Database,
	task: MaintenanceTask,
	limit: number,
	pendingOnly = false,
): Promise<{ id: string; tenant_id: string }[]> {
	const where = pendingOnly ? "pending_work = 1" : "1 = 1";
	const cursor = await db
		.prepare("SELECT last_project_id FROM maintenance_cursors WHERE task = ?")
		.bind(task)
		.first<{ last_project_id: string }>();
	const after = cursor?.last_project_id ?? "";
	let { results } = await db
		.prepare(`SELECT id, tenant_id FROM projects WHERE id > ? AND ${where} ORDER BY id LIMIT ?`)
		.bind(after, limit)
		.all<{ id: string; tenant_id: string }>();
	if (results.length < limit && after !== "") {
		// Wrap around to the start for the rest of the slice.
		const more = await db
			.prepare(`SELECT id, tenant_id FROM projects WHERE id <= ? AND ${where} ORDER BY id LIMIT ?`)
			.bind(after, limit - results.length)
			.all<{ id: string; tenant_id: string }>();
		results = [...results, ...more.results];
	}
	const last = results.at(-1)?.id;
	await db
		.prepare(
			"INSERT INTO maintenance_cursors (task, last_project_id) VALUES (?, ?) ON CONFLICT (task) DO UPDATE SET last_project_id = excluded.last_project_id",
		)
		.bind(task, last && results.length === limit ? last : "")
		.run();
	return results;
}

/** The next project still in the old shared layout (lowest id first), or null when all are moved. */
export const nextUnmovedProject = (db: D1Database) =>
	db.prepare("SELECT id, index_generation FROM projects WHERE storage_moved_at IS NULL ORDER BY id LIMIT 1").first<{
		id: string;
		index_generation: number;
	}>();

export const markMoved = (db: D1Database, projectId: string, at: string) =>
	db.prepare("UPDATE projects SET storage_moved_at = ? WHERE id = ?").bind(at, projectId);

export async function tenantExists(db: D1Database, tenantId: string): Promise<boolean> {
	return (await db.prepare("SELECT id FROM tenants WHERE id = ?").bind(tenantId).first()) !== null;
}

/** Up to `limit` of a tenant's projects, by id. */
export async function tenantProjects(db: D1Database, tenantId: string, limit: number): Promise<string[]> {
	const { results } = await db
		.prepare("SELECT id FROM projects WHERE tenant_id = ? ORDER BY id LIMIT ?")
		.bind(tenantId, limit)
		.all<{ id: string }>();
	return results.map((r) => r.id);
}

/** The registry rows a project's deletion removes: its keys (and their console sessions), settings, mover position and the project. */
export const projectRowDeletes = (db: D1Database, tenantId: string, projectId: string) => [
	db.prepare("DELETE FROM console_sessions WHERE key_id IN (SELECT id FROM api_keys WHERE project_id = ?)").bind(projectId),
	db.prepare("DELETE FROM api_keys WHERE project_id = ?").bind(projectId),
	db.prepare("DELETE FROM settings WHERE tenant_id = ? AND level = 'project' AND subject_id = ?").bind(tenantId, projectId),
	db.prepare("DELETE FROM storage_moves WHERE project_id = ?").bind(projectId),
	db.prepare("DELETE FROM projects WHERE id = ?").bind(projectId),
];

/** The registry rows a tenant's deletion removes once its projects are gone. */
export const tenantRowDeletes = (db: D1Database, tenantId: string) => [
	db.prepare("DELETE FROM console_sessions WHERE tenant_id = ?").bind(tenantId),
	db.prepare("DELETE FROM api_keys WHERE tenant_id = ?").bind(tenantId),
	db.prepare("DELETE FROM settings WHERE tenant_id = ?").bind(tenantId),
	db.prepare("DELETE FROM users WHERE tenant_id = ?").bind(tenantId),
	db.prepare("DELETE FROM tenants WHERE id = ?").bind(tenantId),
];

const PROJECT_COLUMNS = "p.id, p.tenant_id, p.name, p.canonical_key, p.git_remote, p.root_path, p.created_at";

/** A stored API key as verification reads it (the token's secret only as its digest). */
export interface KeyRow {
	id: string;
	tenant_id: string;
	user_id: string;
	digest: string;
	scopes: string;
	project_id: string | null;
}

/**
 * An API key by id and, when the request names a project, that project within the key's tenant — in
 * one round trip. The project is not yet authorised: the caller uses it only once the key is verified.
 */
export async function keyWithProject(
	db: D1Database,
	keyId: string,
	projectId: string | null,
): Promise<{ key: KeyRow | null; project: ProjectRow | null }> {
	const keyStatement = db.prepare("SELECT id, tenant_id, user_id, digest, scopes, project_id FROM api_keys WHERE id = ?").bind(keyId);
	const [keyResult, projectResult] = await db.batch<KeyRow | ProjectRow>(
		projectId
			? [
					keyStatement,
					db
						.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects p JOIN api_keys k ON k.tenant_id = p.tenant_id WHERE k.id = ? AND p.id = ?`)
						.bind(keyId, projectId),
				]
			: [keyStatement],
	);
	return {
		key: (keyResult?.results[0] as KeyRow | undefined) ?? null,
		project: (projectResult?.results[0] as ProjectRow | undefined) ?? null,
	};
}

/** A project of this tenant, or null. */
export const tenantProject = (db: D1Database, tenantId: string, projectId: string) =>
	db.prepare(`SELECT ${PROJECT_COLUMNS} FROM projects p WHERE p.id = ? AND p.tenant_id = ?`).bind(projectId, tenantId).first<ProjectRow>();

/** The id of this tenant's project `projectId`, or of the one registered under `canonicalKey`; null when none. */
export async function findTenantProject(
	db: D1Database,
	tenantId: string,
	by: { projectId: string } | { canonicalKey: string },
): Promise<string | null> {
	const row =
		"projectId" in by
			? await db.prepare("SELECT id FROM projects WHERE id = ? AND tenant_id = ?").bind(by.projectId, tenantId).first<{ id: string }>()
			: await db
					.prepare("SELECT id FROM projects WHERE tenant_id = ? AND canonical_key = ?")
					.bind(tenantId, by.canonicalKey)
					.first<{ id: string }>();
	return row?.id ?? null;
}

/** The tenant an API key belongs to (by the key's id), or null. */
export const keyTenant = (db: D1Database, keyId: string) =>
	db.prepare("SELECT tenant_id FROM api_keys WHERE id = ?").bind(keyId).first<string>("tenant_id");
