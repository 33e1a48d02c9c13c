/**
 * The stored summaries (memory_summary.md, one R2 object per user of a project) this isolate read or wrote,
 * so that a session-start block does not wait for R2 each time. The project's object is the summary's only
 * writer (consolidation, the rebuild, the clear), and each write or delete here updates or drops the entry;
 * entries also expire after `SUMMARY_KEPT_MS`, the bound for a change made anywhere else (a project purged
 * from the Worker). A read that began before a write does not keep what it read (`epoch`).
 */
import { IsolateCache } from "../lib/isolate-cache";

export interface StoredSummary {
	text: string;
	writtenAt: string;
}

export const SUMMARY_KEPT_MS = 60_000;
const kept = new IsolateCache<StoredSummary | null>(SUMMARY_KEPT_MS, 256);
let epoch = 0;

/** The summary kept for this object key: the value (null: there is none), or undefined when not kept. */
export const keptSummary = (key: string): StoredSummary | null | undefined => kept.get(key);

/** The epoch a read starts in; pass it to `keepSummary` so that a write meanwhile wins. */
export const summaryEpoch = () => epoch;

/** Keeps what was read (when nothing was written or deleted since `since`) or written (no `since`). */
export function keepSummary(key: string, value: StoredSummary | null, since?: number): void {
	if (since !== undefined && since !== epoch) return;
	if (since === undefined) epoch++;
	kept.set(key, value);
}

/** Forgets the summaries under an object-key prefix (a user's key, or a project's prefix when its memory is cleared). */
export function forgetStoredSummaries(prefix: string): void {
	epoch++;
	kept.drop((key) => key.startsWith(prefix));
}
