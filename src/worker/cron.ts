/**
 * The cron's reach over every project, a slice per run. A cursor per task in D1 (`maintenance_cursors`)
 * remembers the last project visited; the next run continues after it and wraps around, so every
 * project is visited however many there are, at `PROJECTS_PER_RUN` per run.
 */
import { projectStore } from "../project/client";
import { clearPendingWork, nextProjectSlice } from "../registry/projects";
import { ORPHAN_GRACE_MS } from "../storage/content-holds";

export const PROJECTS_PER_RUN = 200;

/** The orphan sweep over the next slice of projects. Returns objects removed and projects visited. */
export async function sweepSlice(
	env: Env,
	options: { now?: number; graceMs?: number; limit?: number } = {},
): Promise<{ removed: number; projects: number }> {
	const slice = await nextProjectSlice(env.DB, "sweep", options.limit ?? PROJECTS_PER_RUN);
	let removed = 0;
	for (const p of slice) {
		removed += await projectStore(env, p.id).sweep(p.id, p.tenant_id, options.now ?? Date.now(), options.graceMs ?? ORPHAN_GRACE_MS);
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
	const slice = await nextProjectSlice(env.DB, "idle-scan", options.limit ?? PROJECTS_PER_RUN, true);
	let queued = 0;
	for (const p of slice) {
		const result = await projectStore(env, p.id).scanIdle(p.id, p.tenant_id, options.now ?? Date.now());
		queued += result.queued;
		if (result.pending === 0) {
			await clearPendingWork(env.DB, p.id);
		}
	}
	return { queued, projects: slice.length };
}

/**
 * The secret re-scan (src/maintenance/secret-rescan.ts) over the next slice of projects: each visit
 * examines up to RESCAN_PER_VISIT memories of a project and queues its hits for review. The same visit
 * runs the trust re-check (src/trust/recheck.ts), which holds stored memories a changed danger check flags.
 */
export async function secretRescanSlice(
	env: Env,
	options: { limit?: number; perProject?: number } = {},
): Promise<{ scanned: number; queued: number; projects: number }> {
	const slice = await nextProjectSlice(env.DB, "secret-rescan", options.limit ?? PROJECTS_PER_RUN);
	let scanned = 0;
	let queued = 0;
	for (const p of slice) {
		const result = await projectStore(env, p.id).rescanSecrets(p.id, options.perProject);
		const trust = await projectStore(env, p.id).recheckTrust(p.tenant_id, p.id, options.perProject);
		scanned += result.scanned;
		queued += result.queued + trust.held;
	}
	return { scanned, queued, projects: slice.length };
}
