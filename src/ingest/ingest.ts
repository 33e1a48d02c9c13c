import { CairnError } from "../errors";
import { nowIso, sha256Hex } from "../lib/ids";
import { type MemoryUse, useStatements } from "../memory/use";
import { redactSecrets } from "../security/secrets";
import { getSession, ownSessionId, type SessionRow, sessionTurnsGuard, upsertSession } from "../sessions/sessions";
import type { Agent, Turn } from "../sessions/turns";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { GuardFailure, type ProjectDb } from "../storage/sql";
import { dropSecretPaths } from "./file-access";

export interface IngestResult {
	accepted: number;
	duplicates: number;
	skipped: number;
	unknown: number;
	turns: number;
	agent: Agent;
	/** The session as committed by this post (null when nothing was ever stored); not part of the response. */
	session: Pick<SessionRow, "project_id" | "id" | "turns" | "cursor" | "memory_turns"> | null;
}

const SEPARATOR = "\n\u241e\u241e\n";

export const sessionHash = async (sessionId: string) => (await sha256Hex(`session:${sessionId}`)).slice(0, 32);

/**
 * Redacts secrets in every turn before anything is stored. One detector pass over all texts joined
 * by a separator no rule matches; if a finding swallowed a separator, falls back to turn by turn. The
 * files a tool call named are not kept when they look like a secret.
 */
export async function redactTurns<T extends { text: string; files?: string[] }>(turns: T[]): Promise<number> {
	if (turns.length === 0) return 0;
	await dropSecretPaths(turns);
	const joined = await redactSecrets(turns.map((t) => t.text).join(SEPARATOR));
	if (joined.findings.length === 0) return 0;
	const parts = joined.text.split(SEPARATOR);
	if (parts.length === turns.length) {
		turns.forEach((t, i) => {
			t.text = parts[i] ?? "";
		});
		return joined.findings.length;
	}
	let count = 0;
	for (const t of turns) {
		const one = await redactSecrets(t.text);
		t.text = one.text;
		count += one.findings.length;
	}
	return count;
}

/** Where a post starts: the session's turn count and agent (none yet: 0 and null). */
export interface IngestBase {
	turns: number;
	agent: Agent | null;
}

/** Where a post starts, and the stored id of the caller's session it adds to. */
export interface IngestStart extends IngestBase {
	sessionId: string;
}

/** Record keys per statement: a DO SQLite string parameter is capped at 2 MB. */
const KEYS_PER_STATEMENT = 500;

const inGroups = <T>(items: T[], size: number): T[][] =>
	Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size));

/**
 * The session a post adds to, by the id the agent sent: the caller's own session of that id, new or
 * not. An id another user holds gives the caller a session of their own (`scopedSessionId`), so a
 * post neither fails on nor reveals another user's session. The rest of the post uses the stored id.
 */
export async function ingestBase(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<IngestStart> {
	const stored = await ownSessionId(db, ctx, sessionId);
	return { ...baseOf(await postableSession(db, ctx, stored)), sessionId: stored };
}

/**
 * The session a post adds to by its stored id (null when new). Another user's row here means that
 * user took the free id between this post's start and its commit: the post is told to retry (and
 * then gets its own scoped session), in the same words as any concurrent change.
 */
async function postableSession(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<SessionRow | null> {
	const session = await getSession(db, ctx.projectId, sessionId);
	if (session && session.user_id !== ctx.userId)
		throw new CairnError("conflict", "the session changed under concurrent posts; retry the request");
	return session;
}

const baseOf = (session: SessionRow | null): IngestBase => ({ turns: session?.turns ?? 0, agent: session?.agent ?? null });

/** The record keys among `keys` that the session already holds. */
export async function seenRecords(db: ProjectDb, ctx: ProjectContext, sessionId: string, keys: string[]): Promise<string[]> {
	const seen: string[] = [];
	for (const group of inGroups(keys, KEYS_PER_STATEMENT)) {
		const { results } = await db
			.prepare(
				"SELECT value AS k FROM json_each(?1) WHERE value IN (SELECT record_key FROM session_records WHERE project_id = ?2 AND session_id = ?3)",
			)
			.bind(JSON.stringify(group), ctx.projectId, sessionId)
			.all<{ k: string }>();
		seen.push(...results.map((r) => r.k));
	}
	return seen;
}

/** A chunk of new turns already written to R2, waiting for the post to commit; `keys[i]` is its i-th turn's record key. */
export interface StagedChunk {
	objectKey: string;
	first: number;
	last: number;
	bytes: number;
	keys: string[];
}

export interface IngestCommit {
	/** The session's turn count the chunks were numbered from. */
	base: number;
	agent: Agent;
	cwd?: string;
	branch?: string;
	started: string;
	lastActivity: string;
	chunks: StagedChunk[];
	/** The memories the new turns cite and read (src/ingest/memory-use.ts): counted with the turns, once per session. */
	uses?: MemoryUse[];
}

export type CommittedSession = Pick<SessionRow, "project_id" | "id" | "turns" | "cursor" | "memory_turns">;

/**
 * Registers a post's staged chunks, their record keys, the session's counters and the uses of memories
 * its turns hold (src/memory/use.ts) in one transaction.
 * When another post moved the session past `commit.base` meanwhile, nothing is written and the new
 * base comes back (the caller renumbers its chunks and tries again); a record key stored twice, or a
 * chunk whose first turn is taken, likewise rolls everything back.
 */
export async function commitIngest(
	db: ProjectDb,
	ctx: ProjectContext,
	sessionId: string,
	commit: IngestCommit,
): Promise<{ session: CommittedSession } | { stale: IngestBase }> {
	// The batch below changes neither cursor nor memory turns, so the row read here is also the answer's.
	const row = await postableSession(db, ctx, sessionId);
	const current = baseOf(row);
	if (current.turns !== commit.base) return { stale: current };
	if (current.agent && current.agent !== commit.agent) {
		throw new CairnError("conflict", `this session holds a ${current.agent} transcript; the posted lines read as ${commit.agent}`);
	}
	const now = nowIso();
	const last = (commit.chunks.at(-1) as StagedChunk).last;
	const uses = await useStatements(db, ctx, sessionId, commit.uses ?? []);
	try {
		await db.batch([
			sessionTurnsGuard(db, ctx.projectId, sessionId, commit.base),
			...commit.chunks.map((c) =>
				db
					.prepare(
						"INSERT INTO session_chunks (project_id, session_id, first_seq, last_seq, object_key, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
					)
					.bind(ctx.projectId, sessionId, c.first, c.last, c.objectKey, c.bytes, now),
			),
			...inGroups(
				commit.chunks.flatMap((c) => c.keys),
				KEYS_PER_STATEMENT,
			).map((group) =>
				db
					.prepare("INSERT INTO session_records (project_id, session_id, record_key) SELECT ?1, ?2, value FROM json_each(?3)")
					.bind(ctx.projectId, sessionId, JSON.stringify(group)),
			),
			upsertSession(
				db,
				ctx,
				sessionId,
				{
					agent: commit.agent,
					cwd: commit.cwd,
					branch: commit.branch,
					started: commit.started,
					lastActivity: commit.lastActivity,
					turns: last + 1,
				},
				now,
			),
			...uses,
		]);
	} catch (err) {
		if (err instanceof GuardFailure || /UNIQUE|PRIMARY KEY|constraint/i.test(String(err)))
			return { stale: await ingestBase(db, ctx, sessionId) };
		throw err;
	}
	return {
		session: { project_id: ctx.projectId, id: sessionId, turns: last + 1, cursor: row?.cursor ?? 0, memory_turns: row?.memory_turns ?? 0 },
	};
}

/** Reads turns [fromSeq, toSeq] of a session back from its R2 chunks. */
export async function readTurns(env: ProjectEnv, projectId: string, sessionId: string, fromSeq: number, toSeq: number): Promise<Turn[]> {
	const { results } = await env.PDB.prepare(
		"SELECT object_key FROM session_chunks WHERE project_id = ? AND session_id = ? AND last_seq >= ? AND first_seq <= ? ORDER BY first_seq",
	)
		.bind(projectId, sessionId, fromSeq, toSeq)
		.all<{ object_key: string }>();
	const turns: Turn[] = [];
	for (const { object_key } of results) {
		const object = await env.FILES.get(object_key);
		if (!object) throw new Error("a transcript chunk is missing from storage");
		for (const line of (await object.text()).split("\n")) {
			if (!line) continue;
			const turn = JSON.parse(line) as Turn;
			if (turn.seq >= fromSeq && turn.seq <= toSeq) turns.push(turn);
		}
	}
	return turns;
}
