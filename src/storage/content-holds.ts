/**
 * R2 content objects a writer is putting and the sweep may be deleting, coordinated inside the
 * project's object (see `holdContent`).
 */

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

/**
 * Deletes those of `keys` that no writer holds and no other delete is removing, marking them while the
 * delete runs (checked and marked with no await between, so no writer slips in); returns the keys deleted.
 */
export async function deleteUnheld(bucket: R2Bucket, keys: string[]): Promise<string[]> {
	const free = keys.filter((key) => !held.has(key) && !deleting.has(key));
	if (free.length === 0) return free;
	const done = bucket.delete(free);
	for (const key of free) deleting.set(key, done);
	try {
		await done;
	} finally {
		for (const key of free) if (deleting.get(key) === done) deleting.delete(key);
	}
	return free;
}

/**
 * The objects under `prefix` uploaded at least `grace` ms before `now` (by the listing), a listing page
 * at a time, in groups of at most `size` — as many as one statement's lookup of their references takes.
 */
export async function* oldObjects(bucket: R2Bucket, prefix: string, now: number, grace: number, size = 90): AsyncGenerator<R2Object[]> {
	let cursor: string | undefined;
	do {
		const page = await bucket.list({ prefix, cursor, limit: 500 });
		const old = page.objects.filter((o) => now - o.uploaded.getTime() >= grace);
		for (let i = 0; i < old.length; i += size) yield old.slice(i, i + size);
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
}
