/**
 * Operator deletions: a project, or a whole tenant, with everything it holds — the project's object
 * (all of its SQLite and alarms), its R2 prefix, and its registry rows in D1. Order: the object and
 * R2 first, the registry row last, so an interrupted deletion can simply be run again (the project
 * is still listed until its data is gone).
 */

import { notFound } from "../errors";
import { deletePrefix } from "../memory/clear";
import { projectPrefix } from "../memory/paths";
import { projectStore } from "../project/client";
import { forgetProject, forgetTenant } from "../registry/cache";
import { projectRowDeletes, projectTenant, tenantExists, tenantProjects, tenantRowDeletes } from "../registry/projects";
import { legacyRowDeletes } from "./mover";

export interface DeletedProject {
	projectId: string;
	objects: number;
}

async function purgeProject(env: Env, projectId: string, tenantId: string): Promise<DeletedProject> {
	await projectStore(env, projectId).wipe(projectId);
	const objects = await deletePrefix(env.FILES, projectPrefix(tenantId, projectId));
	await env.DB.batch([...legacyRowDeletes(env.DB, projectId), ...projectRowDeletes(env.DB, tenantId, projectId)]);
	// This isolate forgets it now; others within the isolate cache's bound.
	forgetProject(projectId);
	return { projectId, objects };
}

export async function deleteProject(env: Env, projectId: string): Promise<DeletedProject> {
	const tenantId = await projectTenant(env.DB, projectId);
	if (!tenantId) throw notFound("project");
	return purgeProject(env, projectId, tenantId);
}

export async function deleteTenant(env: Env, tenantId: string): Promise<{ projects: DeletedProject[] }> {
	if (!(await tenantExists(env.DB, tenantId))) throw notFound("tenant");
	const projects: DeletedProject[] = [];
	for (;;) {
		const ids = await tenantProjects(env.DB, tenantId, 50);
		if (ids.length === 0) break;
		for (const id of ids) projects.push(await purgeProject(env, id, tenantId));
	}
	// Anything left under the tenant's prefix (nothing should be) goes too.
	await deletePrefix(env.FILES, `tenants/${tenantId}/`);
	await env.DB.batch(tenantRowDeletes(env.DB, tenantId));
	forgetTenant(tenantId);
	return { projects };
}
