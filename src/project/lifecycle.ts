/**
 * Operator deletions: a project, or a whole tenant, with everything it holds — the project's object
 * (all of its SQLite and alarms), its R2 prefix, and its registry rows in D1. Order: the object and
 * R2 first, the registry row last, so an interrupted deletion can simply be run again (the project
 * is still listed until its data is gone).
 */
import { forgetProject, forgetTenant } from "../auth/cache";
import { LEGACY_TABLE_NAMES } from "../db/schema";
import { notFound } from "../errors";
import { deletePrefix } from "../memory/clear";
import { projectPrefix } from "../memory/paths";

/**
 * Tables of the old shared layout that may still hold a project's rows until the mover's cleanup, keyed
 * by project id (`memories` and its search index go first, by hand: the index is keyed by row id).
 */
const LEGACY_PROJECT_TABLES = LEGACY_TABLE_NAMES.filter((t) => t !== "memories" && t !== "memories_fts");

export interface DeletedProject {
	projectId: string;
	objects: number;
}

async function purgeProject(env: Env, projectId: string, tenantId: string): Promise<DeletedProject> {
	await env.PROJECT_COORDINATOR.getByName(projectId).wipe();
	const objects = await deletePrefix(env.FILES, projectPrefix(tenantId, projectId));
	await env.DB.batch([
		env.DB.prepare("DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?)").bind(projectId),
		env.DB.prepare("DELETE FROM memories WHERE project_id = ?").bind(projectId),
		...LEGACY_PROJECT_TABLES.map((t) => env.DB.prepare(`DELETE FROM ${t} WHERE project_id = ?`).bind(projectId)),
		env.DB.prepare("DELETE FROM console_sessions WHERE key_id IN (SELECT id FROM api_keys WHERE project_id = ?)").bind(projectId),
		env.DB.prepare("DELETE FROM api_keys WHERE project_id = ?").bind(projectId),
		env.DB.prepare("DELETE FROM settings WHERE tenant_id = ? AND level = 'project' AND subject_id = ?").bind(tenantId, projectId),
		env.DB.prepare("DELETE FROM storage_moves WHERE project_id = ?").bind(projectId),
		env.DB.prepare("DELETE FROM projects WHERE id = ?").bind(projectId),
	]);
	// This isolate forgets it now; others within the isolate cache's bound.
	forgetProject(projectId);
	return { projectId, objects };
}

export async function deleteProject(env: Env, projectId: string): Promise<DeletedProject> {
	const project = await env.DB.prepare("SELECT tenant_id FROM projects WHERE id = ?").bind(projectId).first<{ tenant_id: string }>();
	if (!project) throw notFound("project");
	return purgeProject(env, projectId, project.tenant_id);
}

export async function deleteTenant(env: Env, tenantId: string): Promise<{ projects: DeletedProject[] }> {
	const tenant = await env.DB.prepare("SELECT id FROM tenants WHERE id = ?").bind(tenantId).first();
	if (!tenant) throw notFound("tenant");
	const projects: DeletedProject[] = [];
	for (;;) {
		const { results } = await env.DB.prepare("SELECT id FROM projects WHERE tenant_id = ? ORDER BY id LIMIT 50")
			.bind(tenantId)
			.all<{ id: string }>();
		if (results.length === 0) break;
		for (const p of results) projects.push(await purgeProject(env, p.id, tenantId));
	}
	// Anything left under the tenant's prefix (nothing should be) goes too.
	await deletePrefix(env.FILES, `tenants/${tenantId}/`);
	await env.DB.batch([
		env.DB.prepare("DELETE FROM console_sessions WHERE tenant_id = ?").bind(tenantId),
		env.DB.prepare("DELETE FROM api_keys WHERE tenant_id = ?").bind(tenantId),
		env.DB.prepare("DELETE FROM settings WHERE tenant_id = ?").bind(tenantId),
		env.DB.prepare("DELETE FROM users WHERE tenant_id = ?").bind(tenantId),
		env.DB.prepare("DELETE FROM tenants WHERE id = ?").bind(tenantId),
	]);
	forgetTenant(tenantId);
	return { projects };
}
