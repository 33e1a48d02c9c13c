import { projectPrefix } from "../memory/paths";
import { deleteUnheld, oldObjects } from "../storage/content-holds";
import type { ProjectEnv } from "../storage/env";

/**
 * Deletes one project's content objects that no version row or skill references (inside the
 * project's object): the leftovers of writes that failed between the R2 put and the commit, of
 * deleted memories and of replaced skills. An object is deleted only when, at the moment its delete
 * is issued, it is old by the listing, unreferenced and held by no writer. Returns how many were
 * removed.
 */
export async function sweepProjectOrphans(
	env: ProjectEnv,
	projectId: string,
	tenantId: string,
	now: number,
	grace: number,
): Promise<number> {
	const prefix = `${projectPrefix(tenantId, projectId)}objects/`;
	let removed = 0;
	for await (const chunk of oldObjects(env.FILES, prefix, now, grace)) {
		const hashes = chunk.map((o) => o.key.slice(prefix.length).replace(/\.md$/, ""));
		// Live: any memory version or skill of the project points at it. The object's SQL answers
		// synchronously, so from here to marking the keys nothing else runs.
		const { results } = await env.PDB.prepare(
			`SELECT content_hash FROM memory_versions WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))
			 UNION SELECT content_hash FROM skills WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))`,
		)
			.bind(projectId, JSON.stringify(hashes))
			.all<{ content_hash: string }>();
		const live = new Set(results.map((r) => r.content_hash));
		const orphans = chunk.filter((_, j) => !live.has(hashes[j] ?? ""));
		removed += (
			await deleteUnheld(
				env.FILES,
				orphans.map((o) => o.key),
			)
		).length;
	}
	return removed + (await sweepStagedChunks(env, projectId, tenantId, now, grace));
}

/**
 * Transcript chunks a post wrote but never committed (its Worker stopped between staging and the
 * commit): old by the listing and named by no `session_chunks` row. Chunk keys are unique per
 * post, so no writer can re-put one.
 */
async function sweepStagedChunks(env: ProjectEnv, projectId: string, tenantId: string, now: number, grace: number): Promise<number> {
	const prefix = `${projectPrefix(tenantId, projectId)}sessions/`;
	let removed = 0;
	for await (const group of oldObjects(env.FILES, prefix, now, grace)) {
		const keys = group.filter((o) => o.key.includes("/chunks/")).map((o) => o.key);
		if (keys.length === 0) continue;
		const { results } = await env.PDB.prepare(
			"SELECT object_key FROM session_chunks WHERE project_id = ? AND object_key IN (SELECT value FROM json_each(?))",
		)
			.bind(projectId, JSON.stringify(keys))
			.all<{ object_key: string }>();
		const live = new Set(results.map((r) => r.object_key));
		const orphans = keys.filter((k) => !live.has(k));
		if (orphans.length > 0) await env.FILES.delete(orphans);
		removed += orphans.length;
	}
	return removed;
}
