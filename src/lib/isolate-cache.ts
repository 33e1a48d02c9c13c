/**
 * What every authenticated request would otherwise read from D1 again — the verified key, its project
 * row, the effective settings — kept in the isolate for at most `ISOLATE_CACHE_SECONDS`. D1 is a
 * network round trip to the database's primary in a deployment; a hook call must not pay it on every
 * prompt. The bound is the promise: a key revoked, a project deleted or a setting changed in another
 * isolate takes effect here within it; in the isolate that made the change, at once (the change
 * clears what it touched). Each table holds at most `ISOLATE_CACHE_ENTRIES` entries, oldest dropped
 * first, so a flood of distinct keys cannot grow the isolate's memory.
 */
export const ISOLATE_CACHE_SECONDS = 10;
export const ISOLATE_CACHE_ENTRIES = 1000;

interface Entry<V> {
	value: V;
	expires: number;
}

export class IsolateCache<V> {
	private readonly entries = new Map<string, Entry<V>>();

	constructor(
		private readonly ttlMs = ISOLATE_CACHE_SECONDS * 1000,
		private readonly max = ISOLATE_CACHE_ENTRIES,
	) {}

	get(key: string, now = Date.now()): V | undefined {
		const hit = this.entries.get(key);
		if (!hit) return undefined;
		if (hit.expires <= now) {
			this.entries.delete(key);
			return undefined;
		}
		return hit.value;
	}

	set(key: string, value: V, now = Date.now()): void {
		this.entries.delete(key);
		this.entries.set(key, { value, expires: now + this.ttlMs });
		while (this.entries.size > this.max) {
			const oldest = this.entries.keys().next().value;
			if (oldest === undefined) break;
			this.entries.delete(oldest);
		}
	}

	/** Drops every entry whose key or value `matches`: what a change in this isolate touched. */
	drop(matches: (key: string, value: V) => boolean): void {
		for (const [key, entry] of this.entries) if (matches(key, entry.value)) this.entries.delete(key);
	}

	get size(): number {
		return this.entries.size;
	}
}
