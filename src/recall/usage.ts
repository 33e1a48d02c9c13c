import { nowIso } from "../lib/ids";

/**
 * Records that these memories were served (times served, last served): the basis for ranking and
 * pruning later. Called through waitUntil, off the response path.
 */
export async function recordServed(db: D1Database, memoryIds: number[]): Promise<void> {
	const ids = [...new Set(memoryIds)].slice(0, 90);
	if (ids.length === 0) return;
	await db
		.prepare(`UPDATE memories SET times_served = times_served + 1, last_served_at = ? WHERE id IN (${ids.map(() => "?").join(",")})`)
		.bind(nowIso(), ...ids)
		.run();
}
