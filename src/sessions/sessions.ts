/**
 * The `sessions` table of a project's object: every statement that reads or writes it is here, so
 * its states (active or ended; extraction idle, queued, retrying or dead-lettered; the extraction
 * cursor; the session memory's size) change in one place. Callers put the write statements in their
 * own batches where a session's change must commit with other rows.
 */

import { CairnError } from "../errors";
import { nowIso } from "../lib/ids";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { type Agent, scopedSessionId } from "./turns";

export interface SessionRow {
	project_id: string;
	id: string;
	user_id: string;
	agent: Agent;
	cwd: string | null;
	branch: string | null;
	started_at: string;
	last_activity_at: string;
	turns: number;
	cursor: number;
	status: "active" | "ended";
	extraction_state: string;
	queued_at: string | null;
	last_error: string | null;
	updated_at: string;
	memory_turns: number;
	memory_tokens: number;
	memory_updated_at: string | null;
}

export async function getSession(db: ProjectDb, projectId: string, sessionId: string): Promise<SessionRow | null> {
	return db.prepare("SELECT * FROM sessions WHERE project_id = ? AND id = ?").bind(projectId, sessionId).first<SessionRow>();
}

/**
 * The stored id of the caller's session `sessionId` (see `scopedSessionId`): the id itself unless
 * another user holds it, then the caller's own scoped form. Whether that row exists is not checked.
 */
export async function ownSessionId(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<string> {
	const row = await db
		.prepare("SELECT user_id FROM sessions WHERE project_id = ? AND id = ?")
		.bind(ctx.projectId, sessionId)
		.first<{ user_id: string }>();
	return !row || row.user_id === ctx.userId ? sessionId : scopedSessionId(ctx.userId, sessionId);
}

/** The caller's own session, or 404: another user's session of the same id is neither found nor revealed. */
export async function requireOwnSession(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<SessionRow> {
	const plain = await getSession(db, ctx.projectId, sessionId);
	const row = plain && plain.user_id !== ctx.userId ? await getSession(db, ctx.projectId, scopedSessionId(ctx.userId, sessionId)) : plain;
	if (!row || row.user_id !== ctx.userId) throw new CairnError("not_found", "session not found");
	return row;
}

/** The caller's sessions in this project, most recently active first. */
export async function listSessions(db: ProjectDb, ctx: ProjectContext, limit: number): Promise<SessionRow[]> {
	const { results } = await db
		.prepare("SELECT * FROM sessions WHERE project_id = ? AND user_id = ? ORDER BY last_activity_at DESC, id LIMIT ?")
		.bind(ctx.projectId, ctx.userId, limit)
		.all<SessionRow>();
	return results;
}

/** The caller's sessions with turns stage 1 has not processed. */
export async function sessionsWithPendingTurns(db: ProjectDb, ctx: ProjectContext): Promise<SessionRow[]> {
	const { results } = await db
		.prepare("SELECT * FROM sessions WHERE project_id = ? AND user_id = ? AND cursor < turns")
		.bind(ctx.projectId, ctx.userId)
		.all<SessionRow>();
	return results;
}

export const deadLetterCount = async (db: ProjectDb, projectId: string) =>
	(
		await db
			.prepare("SELECT count(*) AS n FROM sessions WHERE project_id = ? AND extraction_state = 'dead_letter'")
			.bind(projectId)
			.first<{ n: number }>()
	)?.n ?? 0;

/** The caller ended the session. */
export async function markEnded(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<void> {
	await db
		.prepare("UPDATE sessions SET status = 'ended', updated_at = ? WHERE project_id = ? AND id = ?")
		.bind(nowIso(), ctx.projectId, sessionId)
		.run();
}

/** Sessions whose pending turns were just sent to the extraction queue. */
export const markQueued = (db: ProjectDb, projectId: string, sessionIds: string[], now = nowIso()): ProjectStatement[] =>
	sessionIds.map((id) =>
		db
			.prepare("UPDATE sessions SET extraction_state = 'queued', queued_at = ?, updated_at = ? WHERE project_id = ? AND id = ?")
			.bind(now, now, projectId, id),
	);

/** Extraction was switched off after the range was queued: the session no longer shows as queued. */
export async function unqueue(db: ProjectDb, projectId: string, sessionId: string): Promise<void> {
	await db
		.prepare(
			"UPDATE sessions SET extraction_state = 'idle', queued_at = NULL WHERE project_id = ? AND id = ? AND extraction_state = 'queued'",
		)
		.bind(projectId, sessionId)
		.run();
}

/** Stage 1 processed turns `from`‥`to - 1`: the cursor moves on, if no other delivery moved it first. */
export const advanceCursor = (db: ProjectDb, session: Pick<SessionRow, "project_id" | "id">, from: number, to: number, now: string) =>
	db
		.prepare(
			`UPDATE sessions SET cursor = ?1, extraction_state = 'idle', queued_at = NULL, last_error = NULL, updated_at = ?2
			 WHERE project_id = ?3 AND id = ?4 AND cursor = ?5`,
		)
		.bind(to, now, session.project_id, session.id, from);

/** A failed extraction: `retrying`, or `dead_letter` after the last attempt, with Cairn's own words for why. */
export async function recordExtractionFailure(
	db: ProjectDb,
	projectId: string,
	sessionId: string,
	state: "retrying" | "dead_letter",
	error: string,
): Promise<void> {
	await db
		.prepare("UPDATE sessions SET extraction_state = ?, last_error = ?, updated_at = ? WHERE project_id = ? AND id = ?")
		.bind(state, error, nowIso(), projectId, sessionId)
		.run();
}

/** What a transcript post adds to its session: created on the first post, turns and activity after. */
export interface SessionPost {
	agent: Agent;
	cwd?: string | null;
	branch?: string | null;
	started: string;
	lastActivity: string;
	turns: number;
}

/** Only while the session still holds `turns` turns (0: none yet): a guard for the post's batch. */
export const sessionTurnsGuard = (db: ProjectDb, projectId: string, sessionId: string, turns: number) =>
	db.guard("coalesce((SELECT turns FROM sessions WHERE project_id = ? AND id = ?), 0) = ?", projectId, sessionId, turns);

export const upsertSession = (db: ProjectDb, ctx: ProjectContext, sessionId: string, post: SessionPost, now: string) =>
	db
		.prepare(
			`INSERT INTO sessions (project_id, id, user_id, agent, cwd, branch, started_at, last_activity_at, turns, updated_at)
			 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
			 ON CONFLICT (project_id, id) DO UPDATE SET turns = excluded.turns,
			   cwd = coalesce(excluded.cwd, cwd), branch = coalesce(excluded.branch, branch),
			   started_at = min(started_at, excluded.started_at), last_activity_at = max(last_activity_at, excluded.last_activity_at),
			   updated_at = excluded.updated_at`,
		)
		.bind(
			ctx.projectId,
			sessionId,
			ctx.userId,
			post.agent,
			post.cwd ?? null,
			post.branch ?? null,
			post.started,
			post.lastActivity,
			post.turns,
			now,
		);

/** The session memory was rebuilt up to `turns`; false when the session is gone (cleared meanwhile). */
export async function recordSessionMemory(
	db: ProjectDb,
	projectId: string,
	sessionId: string,
	turns: number,
	tokens: number,
): Promise<boolean> {
	const updated = await db
		.prepare("UPDATE sessions SET memory_turns = ?, memory_tokens = ?, memory_updated_at = ? WHERE project_id = ? AND id = ?")
		.bind(turns, tokens, nowIso(), projectId, sessionId)
		.run();
	return updated.meta.changes > 0;
}

/** Whether the session still exists: a guard for a batch that must not outlive a clear. */
export const sessionExistsGuard = (db: ProjectDb, projectId: string, sessionId: string) =>
	db.guard("EXISTS (SELECT 1 FROM sessions WHERE project_id = ? AND id = ?)", projectId, sessionId);
