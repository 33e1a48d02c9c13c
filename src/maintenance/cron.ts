/**
 * The cron's reach over every project, a slice per run. A cursor per task in D1 (`maintenance_cursors`)
 * remembers the last project visited; the next run continues after it and wraps around, so every
 * project is visited however many there are, at `PROJECTS_PER_RUN` per run.
 */
import { ORPHAN_GRACE_MS } from "./sweep";

export const PROJECTS_PER_RUN = 200;

type Task = "sweep" | "idle-scan" | "secret-rescan";

async function nextSlice(env: Env, task: Task, limit: number, where = "1 = 1"): Promise<{ id: string; tenant_id: string }[]> {
	const cursor = await env.DB.prepare("SELECT last_project_id FROM maintenance_cursors WHERE task = ?")
		.bind(task)
		.first<{ last_project_id: string }>();
	const after = cursor?.last_project_id ?? "";
	let { results } = await env.DB.prepare(`SELECT id, tenant_id FROM projects WHERE id > ? AND ${where} ORDER BY id LIMIT ?`)
		.bind(after, limit)
		.all<{ id: string; tenant_id: string }>();
	if (results.length < limit && after !== "") {
		// Wrap around to the start for the rest of the slice.
		const more = await env.DB.prepare(`SELECT id, tenant_id FROM projects WHERE id <= ? AND ${where} ORDER BY id LIMIT ?`)
			.bind(after, limit - results.length)
			.all<{ id: string; tenant_id: string }>();
		results = [...results, ...more.results];
	}
	const last = results.at(-1)?.id;
	await env.DB.prepare(
		"INSERT INTO maintenance_cursors (task, last_project_id) VALUES (?, ?) ON CONFLICT (task) DO UPDATE SET last_project_id = excluded.last_project_id",
	)
		.bind(task, last && results.length === limit ? last : "")
		.run();
	return results;
}

/** The orphan sweep over the next slice of projects. Returns objects removed and projects visited. */
export async function sweepSlice(
	env: Env,
	options: { now?: number; graceMs?: number; limit?: number } = {},
): Promise<{ removed: number; projects: number }> {
	const slice = await nextSlice(env, "sweep", options.limit ?? PROJECTS_PER_RUN);
	let removed = 0;
	for (const p of slice) {
		removed += await env.PROJECT_COORDINATOR.getByName(p.id).sweep(
			p.id,
			p.tenant_id,
			options.now ?? Date.now(),
			options.graceMs ?? ORPHAN_GRACE_MS,
		);
	}
	return { removed, projects: slice.length };
}

/**
 * The idle scan over the next slice of projects that have unprocessed turns (`projects.pending_work`,
 * set when a post adds turns); a project found with none left is cleared from the list.
 */
export async function idleScanSlice(
	env: Env,
	options: { now?: number; limit?: number } = {},
): Promise<{ queued: number; projects: number }> {
	const slice = await nextSlice(env, "idle-scan", options.limit ?? PROJECTS_PER_RUN, "pending_work = 1");
	let queued = 0;
	for (const p of slice) {
		const result = await env.PROJECT_COORDINATOR.getByName(p.id).scanIdle(p.id, p.tenant_id, options.now ?? Date.now());
		queued += result.queued;
		if (result.pending === 0) {
			await env.DB.prepare("UPDATE projects SET pending_work = 0 WHERE id = ?").bind(p.id).run();
		}
	}
	return { queued, projects: slice.length };
}

/**
 * The secret re-scan (src/maintenance/secret-rescan.ts) over the next slice of projects: each visit
 * examines up to RESCAN_PER_VISIT memories of a project and queues its hits for review.
 */
export async function secretRescanSlice(
	env: Env,
	options: { limit?: number; perProject?: number } = {},
): Promise<{ scanned: number; queued: number; projects: number }> {
	const slice = await nextSlice(env, "secret-rescan", options.limit ?? PROJECTS_PER_RUN);
	let scanned = 0;
	let queued = 0;
	for (const p of slice) {
		const result = await env.PROJECT_COORDINATOR.getByName(p.id).rescanSecrets(p.id, options.perProject);
		scanned += result.scanned;
		queued += result.queued;
	}
	return { scanned, queued, projects: slice.length };
}
