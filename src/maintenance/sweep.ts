import { projectPrefix } from "../memory/paths";

/** Objects younger than this may belong to a write whose D1 batch has not landed yet. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Deletes content objects that no version row or skill references: the leftovers of writes that
 * failed between the R2 put and the D1 batch, of deleted memories and of replaced skills. Returns how many were removed.
 */
export async function sweepOrphans(env: Env, options: { now?: number; graceMs?: number; maxProjects?: number } = {}): Promise<number> {
	const now = options.now ?? Date.now();
	const grace = options.graceMs ?? ORPHAN_GRACE_MS;
	const { results: projects } = await env.DB.prepare("SELECT id, tenant_id FROM projects ORDER BY id LIMIT ?")
		.bind(options.maxProjects ?? 500)
		.all<{ id: string; tenant_id: string }>();
	let removed = 0;
	for (const project of projects) {
		const prefix = `${projectPrefix(project.tenant_id, project.id)}objects/`;
		let cursor: string | undefined;
		do {
			const page = await env.FILES.list({ prefix, cursor, limit: 500 });
			const old = page.objects.filter((o) => now - o.uploaded.getTime() >= grace);
			for (let i = 0; i < old.length; i += 90) {
				const chunk = old.slice(i, i + 90);
				const hashes = chunk.map((o) => o.key.slice(prefix.length).replace(/\.md$/, ""));
				// Live: any memory version or skill of the project points at it.
				const { results } = await env.DB.prepare(
					`SELECT content_hash FROM memory_versions WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))
					 UNION SELECT content_hash FROM skills WHERE project_id = ?1 AND content_hash IN (SELECT value FROM json_each(?2))`,
				)
					.bind(project.id, JSON.stringify(hashes))
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
	}
	return removed;
}
