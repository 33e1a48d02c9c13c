/**
 * What a memory was worth to the sessions it reached. Three counts per memory, each in sessions:
 *
 * - **served**: recall or inject handed it to the session (`served_sessions`; `times_served` keeps
 *   counting every delivery, with or without a session);
 * - **cited**: the agent wrote its `memory://` path in its own words — an assistant message, not the
 *   injected block, the user's text or a tool's output (`cited_sessions`, `last_cited_at`);
 * - **read**: the agent opened it — `memory_read`, an MCP resource read, or a URL the service
 *   resolved for that session (`read_sessions`, `last_read_at`).
 *
 * A memory counts once per session and kind (`session_used`), so a transcript posted again, or a read
 * seen both in the transcript and by the service, is counted once. Sessions are keyed as in
 * `session_served`: `<user id>/<session id as the agent sent it>`.
 */
import { lookupTable } from "../lib/lookup";
import { clientSessionId } from "../sessions/turns";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import type { MemoryRow } from "./rows";
import { NAME_SOURCE } from "./topic-file";

export const USE_KINDS = ["cited", "read"] as const;
export type UseKind = (typeof USE_KINDS)[number];

/** One use of a topic file as the session named it: its name, whether the path said `team/`, and when. */
export interface MemoryUse {
	kind: UseKind;
	name: string;
	team: boolean;
	at: string;
}

/** The memory:// path of a topic file, anywhere in text. Skills, logs, the index and the summary are not topic files. */
const TOPIC_PATH = new RegExp(`memory://root/(team/)?(${NAME_SOURCE})\\.md(?![A-Za-z0-9_-])`, "g");

/** The topic files `text` names by their memory:// paths, each once. */
export function topicPaths(text: string): { name: string; team: boolean }[] {
	const seen = new Map<string, { name: string; team: boolean }>();
	for (const m of text.matchAll(TOPIC_PATH)) {
		const ref = { name: m[2] ?? "", team: m[1] !== undefined };
		seen.set(`${ref.team ? "team/" : ""}${ref.name}`, ref);
	}
	return [...seen.values()];
}

/** The key a session's deliveries and uses are kept under: one user's session, whatever id another user gave theirs. */
export const sessionUseKey = (ctx: Pick<ProjectContext, "userId">, sessionId: string) => `${ctx.userId}/${clientSessionId(sessionId)}`;

const COLUMNS: Readonly<Record<UseKind, { count: string; last: string }>> = lookupTable({
	cited: { count: "cited_sessions", last: "last_cited_at" },
	read: { count: "read_sessions", last: "last_read_at" },
});

/** Uses per statement batch, at most: a post naming more memories than this is not a citation. */
export const USES_PER_SESSION_POST = 200;

/**
 * The statements that record `uses` for the caller's session `sessionId`: a plain path is the caller's
 * personal memory of that name when there is one, else the team's; a `team/` path is the team's. A
 * path naming no memory the caller may see counts for nothing. Each memory's count moves once per
 * session and kind; its last-used time moves to the latest use. Run them in one batch.
 */
export async function useStatements(db: ProjectDb, ctx: ProjectContext, sessionId: string, uses: MemoryUse[]): Promise<ProjectStatement[]> {
	if (uses.length === 0) return [];
	const wanted = uses.slice(0, USES_PER_SESSION_POST);
	const { results } = await db
		.prepare(
			`SELECT j.key AS i, coalesce(
			   CASE WHEN json_extract(j.value, '$.team') THEN NULL ELSE
			     (SELECT id FROM memories WHERE project_id = ?1 AND scope = 'personal' AND owner_id = ?2 AND name = json_extract(j.value, '$.name')) END,
			   (SELECT id FROM memories WHERE project_id = ?1 AND scope = 'team' AND owner_id = '' AND name = json_extract(j.value, '$.name'))
			 ) AS id FROM json_each(?3) j`,
		)
		.bind(ctx.projectId, ctx.userId, JSON.stringify(wanted.map((u) => ({ name: u.name, team: u.team }))))
		.all<{ i: number; id: number | null }>();
	// The latest use of each memory and kind.
	const latest = new Map<string, { id: number; kind: UseKind; at: string }>();
	for (const { i, id } of results) {
		const use = wanted[i];
		if (id === null || !use) continue;
		const key = `${id}:${use.kind}`;
		const seen = latest.get(key);
		if (!seen || seen.at < use.at) latest.set(key, { id, kind: use.kind, at: use.at });
	}
	const key = sessionUseKey(ctx, sessionId);
	return [...latest.values()].flatMap(({ id, kind, at }) => {
		const { count, last } = COLUMNS[kind];
		return [
			// Before the row below exists: the count moves only for the session's first use of this kind.
			db
				.prepare(
					`UPDATE memories SET ${count} = ${count} + (NOT EXISTS (
					   SELECT 1 FROM session_used WHERE project_id = ?1 AND session_id = ?2 AND memory_id = ?3 AND kind = ?4)),
					 ${last} = CASE WHEN ${last} IS NULL OR ${last} < ?5 THEN ?5 ELSE ${last} END
					 WHERE id = ?3 AND project_id = ?1`,
				)
				.bind(ctx.projectId, key, id, kind, at),
			db
				.prepare(
					`INSERT INTO session_used (project_id, session_id, memory_id, kind, used_at) VALUES (?1, ?2, ?3, ?4, ?5)
					 ON CONFLICT (project_id, session_id, memory_id, kind) DO UPDATE SET used_at = max(used_at, excluded.used_at)`,
				)
				.bind(ctx.projectId, key, id, kind, at),
		];
	});
}

/** Records uses for the caller's session now (a read the service resolved for it). */
export async function recordUses(db: ProjectDb, ctx: ProjectContext, sessionId: string, uses: MemoryUse[]): Promise<void> {
	const statements = await useStatements(db, ctx, sessionId, uses);
	if (statements.length > 0) await db.batch(statements);
}

/** A memory's use, in sessions, as `useScore` reads it. */
export interface UseCounts {
	served: number;
	cited: number;
	read: number;
	/** The latest citation or read (ISO), or null when it was never used. */
	lastUsedAt: string | null;
}

const latestOf = (a: string | null | undefined, b: string | null | undefined) => (!a ? (b ?? null) : !b ? a : a > b ? a : b);

/** The use counts a memory row (or a recall candidate, which is one) carries. */
export const useOf = (
	row: Pick<MemoryRow, "served_sessions" | "cited_sessions" | "read_sessions" | "last_cited_at" | "last_read_at">,
): UseCounts => ({
	served: row.served_sessions ?? 0,
	cited: row.cited_sessions ?? 0,
	read: row.read_sessions ?? 0,
	lastUsedAt: latestOf(row.last_cited_at, row.last_read_at),
});

/** What a memory with no history scores: the share of its sessions a memory is assumed to be used in. */
export const USE_PRIOR = 0.2;
/** How many sessions' worth of weight the prior has: a memory's own history outweighs it after a few sessions. */
export const USE_PRIOR_SESSIONS = 5;
/** A read counts this much of a citation: the agent opened the memory, but did not say it changed the plan. */
export const USE_READ_WEIGHT = 0.5;
/** Uses fade by half over this many days since the last one: what helped a year ago says less today. */
export const USE_HALF_LIFE_DAYS = 90;

const DAY_MS = 86_400_000;

/**
 * What a memory has been worth to the sessions it was served in, from 0 to 1: the share of them that
 * used it (a citation counts 1, a read USE_READ_WEIGHT), fading by half every USE_HALF_LIFE_DAYS since
 * the last use, and smoothed towards USE_PRIOR with the weight of USE_PRIOR_SESSIONS sessions, so that a
 * memory with little history sits near the prior rather than at either end. Never served: USE_PRIOR
 * (0.2). Served in 40 sessions and never used: about 0.02. Cited in 6 of 10 and read in 2, lately: 0.53.
 * Pure, for ranking (the session-start block weighs memories by it).
 *
 * @example
 * useScore(useOf(candidateRow), Date.now())
 */
export function useScore(use: UseCounts, now: number): number {
	const used = use.cited + USE_READ_WEIGHT * use.read;
	const reached = Math.max(use.served, use.cited, use.read);
	const last = use.lastUsedAt ? Date.parse(use.lastUsedAt) : Number.NaN;
	const fade = Number.isNaN(last) ? 1 : 0.5 ** (Math.max(0, now - last) / (USE_HALF_LIFE_DAYS * DAY_MS));
	const score = (used * fade + USE_PRIOR * USE_PRIOR_SESSIONS) / (reached + USE_PRIOR_SESSIONS);
	return Math.min(1, Math.max(0, score));
}
