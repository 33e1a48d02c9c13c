import { projectPrefix } from "../memory/paths";
import type { ProjectEnv } from "../project/env";

/** Objects younger than this may belong to a write whose commit has not landed yet. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes one project's content objects that no version row or skill references (inside the
 * project's object): the leftovers of writes that failed between the R2 put and the commit, of
 * deleted memories and of replaced skills. Returns how many were removed.
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
	let cursor: string | undefined;
	do {
		const page = await env.FILES.list({ prefix, cursor, limit: 500 });
		const old = page.objects.filter((o) => now - o.uploaded.getTime() >= grace);
		for (let i = 0; i < old.length; i += 90) {
			const chunk = old.slice(i, i + 90);
			const hashes = chunk.map((o) => o.key.slice(prefix.length).replace(/\.md$/, ""));
			// Live: any memory version or skill of the project points at it.
			const { results } = await env.PDB.prepare(
				`SELECT content_hash FROM memory_versions WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))
				 UNION SELECT content_hash FROM skills WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))`,
			)
				.bind(projectId, JSON.stringify(hashes))
				.all<{ content_hash: string }>();
			const live = new Set(results.map((r) => r.content_hash));
			const orphans = chunk.filter((_, j) => !live.has(hashes[j] ?? ""));
			if (orphans.length > 0) {
				await env.FILES.delete(orphans.map((o) => o.key));
				removed += orphans.length;
			}
		}
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return removed;
}
