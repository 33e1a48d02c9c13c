import { projectPrefix } from "../memory/paths";
import type { ProjectEnv } from "../project/env";

/** Objects younger than this may belong to a write whose commit has not landed yet. */
export const ORPHAN_GRACE_MS = 60 * 60 * 1000;

/**
 * Content objects are addressed by their hash, so a writer can re-put an old object that the sweep
 * judged orphaned (an identical re-write of a deleted memory's content) while the sweep is about to
 * delete it: the sweep's listing still shows the old upload time and the writer's commit has not
 * landed. Both run in the project's object, so they coordinate in memory: a writer holds its keys from
 * before its put until its commit has landed (or failed), and a sweep skips held keys and marks the
 * keys it deletes; a writer that finds its key being deleted waits for the delete to finish before it
 * puts. Checking and marking happen without an await in between, so no write slips through.
 */
const held = new Map<string, number>();
const deleting = new Map<string, Promise<unknown>>();

/** Runs `fn` (put the objects at `keys`, then commit the rows that reference them) with the keys held. */
export async function holdContent<T>(keys: string[], fn: () => Promise<T>): Promise<T> {
	const unique = [...new Set(keys)];
	for (const key of unique) held.set(key, (held.get(key) ?? 0) + 1);
	try {
		for (const key of unique) {
			for (let pending = deleting.get(key); pending; pending = deleting.get(key)) await pending.catch(() => undefined);
		}
		return await fn();
	} finally {
		for (const key of unique) {
			const n = (held.get(key) ?? 1) - 1;
			if (n > 0) held.set(key, n);
			else held.delete(key);
		}
	}
}

/** Whether a writer currently holds this content key (for tests and diagnostics). */
export const isHeld = (key: string) => held.has(key);

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
	let cursor: string | undefined;
	do {
		const page = await env.FILES.list({ prefix, cursor, limit: 500 });
		const old = page.objects.filter((o) => now - o.uploaded.getTime() >= grace);
		for (let i = 0; i < old.length; i += 90) {
			const chunk = old.slice(i, i + 90);
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
			const orphans = chunk.filter((o, j) => !live.has(hashes[j] ?? "") && !held.has(o.key) && !deleting.has(o.key));
			if (orphans.length === 0) continue;
			const keys = orphans.map((o) => o.key);
			const done = env.FILES.delete(keys);
			for (const key of keys) deleting.set(key, done);
			try {
				await done;
			} finally {
				for (const key of keys) if (deleting.get(key) === done) deleting.delete(key);
			}
			removed += orphans.length;
		}
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
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
	let cursor: string | undefined;
	do {
		const page = await env.FILES.list({ prefix, cursor, limit: 500 });
		const old = page.objects.filter((o) => o.key.includes("/chunks/") && now - o.uploaded.getTime() >= grace).map((o) => o.key);
		for (let i = 0; i < old.length; i += 90) {
			const keys = old.slice(i, i + 90);
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
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return removed;
}
