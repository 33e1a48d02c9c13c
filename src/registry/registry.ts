/**
 * The registry in D1: tenants, users, API keys and projects. Routes parse and authorise, then call
 * these; the caller is always described by the verified key (`Caller`), never by the request.
 */

import { issueKey, SCOPES, type Scope } from "../auth/keys";
import { badRequest, CairnError } from "../errors";
import { newId, nowIso } from "../lib/ids";
import { forgetKey } from "./cache";
import { projectIdentity } from "./identity";
import type { ProjectRow } from "./rows";

export interface Caller {
	tenantId: string;
	userId: string;
	/** Set when the key is limited to one project. */
	projectId: string | null;
}

const SELECT_PROJECT = "SELECT id, tenant_id, name, canonical_key, git_remote, root_path, created_at FROM projects";

/** A tenant, its first user and an all-scopes key (the token is returned once, never stored). */
export async function createTenant(db: D1Database, name: string, user: string) {
	const tenantId = newId("ten");
	const userId = newId("usr");
	const key = await issueKey();
	const scopes = [...SCOPES];
	await db.batch([
		db.prepare("INSERT INTO tenants (id, name) VALUES (?, ?)").bind(tenantId, name),
		db.prepare("INSERT INTO users (id, tenant_id, name) VALUES (?, ?, ?)").bind(userId, tenantId, user),
		db
			.prepare("INSERT INTO api_keys (id, tenant_id, user_id, name, digest, scopes) VALUES (?, ?, ?, ?, ?, ?)")
			.bind(key.id, tenantId, userId, "initial admin key", key.digest, JSON.stringify(scopes)),
	]);
	return { tenant: { id: tenantId, name }, user: { id: userId, name: user }, key: { id: key.id, token: key.token, scopes } };
}

/** Issues a key in the caller's tenant, for the caller or a named user (created on first use). */
export async function issueApiKey(
	db: D1Database,
	caller: Caller,
	request: { scopes: Scope[]; projectId?: string; user?: string; name?: string },
) {
	const scopes = [...new Set(request.scopes)];
	const projectId = request.projectId ?? caller.projectId;
	if (caller.projectId && projectId !== caller.projectId) {
		throw new CairnError("forbidden", "a project-limited key can only issue keys for its own project");
	}
	if (caller.projectId && request.user !== undefined) {
		throw new CairnError("forbidden", "a project-limited key can only issue keys for its own user");
	}
	if (projectId) {
		const project = await db.prepare("SELECT id FROM projects WHERE id = ? AND tenant_id = ?").bind(projectId, caller.tenantId).first();
		if (!project) throw new CairnError("not_found", "project not found");
	}
	let userId = caller.userId;
	if (request.user) {
		await db
			.prepare("INSERT INTO users (id, tenant_id, name) VALUES (?, ?, ?) ON CONFLICT (tenant_id, name) DO NOTHING")
			.bind(newId("usr"), caller.tenantId, request.user)
			.run();
		const user = await db
			.prepare("SELECT id FROM users WHERE tenant_id = ? AND name = ?")
			.bind(caller.tenantId, request.user)
			.first<{ id: string }>();
		if (!user) throw badRequest("user could not be created", { field: "user" });
		userId = user.id;
	}
	const key = await issueKey();
	await db
		.prepare("INSERT INTO api_keys (id, tenant_id, user_id, name, digest, scopes, project_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
		.bind(key.id, caller.tenantId, userId, request.name ?? "api key", key.digest, JSON.stringify(scopes), projectId ?? null)
		.run();
	return { id: key.id, token: key.token, scopes, projectId: projectId ?? null, userId };
}

/**
 * The tenant's keys, never their tokens. A project-limited key sees only its own user's keys of its
 * project, as it can issue keys only for its own user and project.
 */
export async function listApiKeys(db: D1Database, caller: Caller) {
	const { results } = await db
		.prepare(
			`SELECT id, name, scopes, project_id, user_id, created_at FROM api_keys
			 WHERE tenant_id = ?1 AND (?2 IS NULL OR (project_id = ?2 AND user_id = ?3)) ORDER BY created_at`,
		)
		.bind(caller.tenantId, caller.projectId, caller.userId)
		.all<{ id: string; name: string; scopes: string; project_id: string | null; user_id: string; created_at: string }>();
	return results.map((k) => ({
		id: k.id,
		name: k.name,
		scopes: JSON.parse(k.scopes) as Scope[],
		projectId: k.project_id,
		userId: k.user_id,
		createdAt: k.created_at,
	}));
}

/** Revokes a key of the tenant; a project-limited key only its own user's keys of its project (others are not found). */
export async function revokeApiKey(db: D1Database, caller: Caller, id: string): Promise<void> {
	const [result] = await db.batch([
		db
			.prepare("DELETE FROM api_keys WHERE id = ?1 AND tenant_id = ?2 AND (?3 IS NULL OR (project_id = ?3 AND user_id = ?4))")
			.bind(id, caller.tenantId, caller.projectId, caller.userId),
		// The key's console sessions end with it (only once the key is really gone).
		db
			.prepare("DELETE FROM console_sessions WHERE key_id = ?1 AND tenant_id = ?2 AND NOT EXISTS (SELECT 1 FROM api_keys WHERE id = ?1)")
			.bind(id, caller.tenantId),
	]);
	if (!result || result.meta.changes === 0) throw new CairnError("not_found", "key not found");
	// This isolate refuses the key from the next request; other isolates within the isolate cache's bound.
	forgetKey(id);
}

/**
 * Registers a project by its git remote (or root path): every clone and worktree maps to one project.
 * The identity rules (remote URLs, local-path remotes, relative remotes) are in projects/identity.ts.
 * Returns the project and whether this call created it.
 */
export async function registerProject(
	db: D1Database,
	caller: Caller,
	request: { name: string; gitRemote?: string; rootPath?: string },
): Promise<{ project: ProjectRow; created: boolean }> {
	const { canonicalKey, rootPath } = projectIdentity(request);
	const existing = await db
		.prepare(`${SELECT_PROJECT} WHERE tenant_id = ? AND canonical_key = ?`)
		.bind(caller.tenantId, canonicalKey)
		.first<ProjectRow>();
	if (caller.projectId && existing?.id !== caller.projectId) {
		throw new CairnError("forbidden", "this API key is limited to another project");
	}
	if (existing) return { project: existing, created: false };
	// Only the canonical key is stored from the remote: a remote URL may carry credentials. A new
	// project starts in the per-project layout, so the storage mover has nothing to move for it.
	const inserted = await db
		.prepare(
			`INSERT INTO projects (id, tenant_id, name, canonical_key, root_path, storage_moved_at) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT (tenant_id, canonical_key) DO NOTHING`,
		)
		.bind(newId("prj"), caller.tenantId, request.name, canonicalKey, rootPath, nowIso())
		.run();
	const project = await db
		.prepare(`${SELECT_PROJECT} WHERE tenant_id = ? AND canonical_key = ?`)
		.bind(caller.tenantId, canonicalKey)
		.first<ProjectRow>();
	if (!project) throw new CairnError("internal_error", "project could not be registered");
	return { project, created: inserted.meta.changes > 0 };
}

/** The tenant's projects (only its own for a project-limited key). */
export async function listProjects(db: D1Database, caller: Caller): Promise<ProjectRow[]> {
	const { results } = await db
		.prepare(`${SELECT_PROJECT} WHERE tenant_id = ? AND (?2 IS NULL OR id = ?2) ORDER BY created_at, id LIMIT 1000`)
		.bind(caller.tenantId, caller.projectId)
		.all<ProjectRow>();
	return results;
}
