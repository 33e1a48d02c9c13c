import { CairnError } from "../errors";
import { nowIso, randomId, sha256Hex } from "../lib/ids";
import { sessionPrefix } from "../memory/paths";
import type { ProjectContext } from "../memory/store";
import type { ProjectEnv } from "../project/env";
import type { ProjectDb } from "../project/sql";
import { redactSecrets } from "../security/secrets";
import { type Format, normalise, readRecords } from "./parse";
import type { Agent, ParsedTurn, Turn } from "./turns";

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

const SEPARATOR = "\n\u241e\u241e\n";
const ATTEMPTS = 4;

export const sessionHash = async (sessionId: string) => (await sha256Hex(`session:${sessionId}`)).slice(0, 32);

export async function getSession(db: ProjectDb, projectId: string, sessionId: string): Promise<SessionRow | null> {
	return db.prepare("SELECT * FROM sessions WHERE project_id = ? AND id = ?").bind(projectId, sessionId).first<SessionRow>();
}

/** The caller's own session, or 404 (another user's session is not visible). */
export async function requireOwnSession(db: ProjectDb, ctx: ProjectContext, sessionId: string): Promise<SessionRow> {
	const row = await getSession(db, ctx.projectId, sessionId);
	if (!row || row.user_id !== ctx.userId) throw new CairnError("not_found", "session not found");
	return row;
}

/**
 * Redacts secrets in every turn before anything is stored. One detector pass over all texts joined
 * by a separator no rule matches; if a finding swallowed a separator, falls back to turn by turn.
 */
export async function redactTurns<T extends { text: string }>(turns: T[]): Promise<number> {
	if (turns.length === 0) return 0;
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

const validTime = (ts: string | null, now: string) =>
	ts && !Number.isNaN(Date.parse(ts)) && ts <= now ? new Date(ts).toISOString() : null;

/** A transcript parsed and de-duplicated within itself: the part of ingest that needs no stored state. */
export interface ParsedTranscript {
	agent: Agent;
	cwd?: string;
	branch?: string;
	skipped: number;
	unknown: number;
	duplicates: number;
	turns: ParsedTurn[];
}

/** Parses a posted transcript (400 naming the bad line); runs in the Worker, before the project's object is involved. */
export async function parseTranscript(body: string, format: Format): Promise<ParsedTranscript> {
	const records = await readRecords(body);
	const parsed = normalise(records, format);
	const unique = new Map<string, ParsedTurn>();
	let duplicates = 0;
	for (const t of parsed.turns) {
		if (unique.has(t.key)) duplicates++;
		else unique.set(t.key, t);
	}
	return {
		agent: parsed.agent,
		...(parsed.cwd ? { cwd: parsed.cwd } : {}),
		...(parsed.branch ? { branch: parsed.branch } : {}),
		skipped: parsed.skipped,
		unknown: parsed.unknown,
		duplicates,
		turns: [...unique.values()],
	};
}

/**
 * Stores the turns of a parsed transcript (a whole file or the lines added since the last post)
 * that the session does not hold yet, inside the project's object.
 * Turns whose native ids were seen before are dropped, so re-posting a file, or an overlapping tail
 * of it, adds nothing. New turns are secret-redacted, written to R2 as one NDJSON chunk, then one
 * transaction in the project's object registers the chunk, the record ids and the session's counters. The chunk's first seq is
 * its primary key, so two concurrent posts cannot both claim the same turn numbers: the loser's batch
 * fails, its chunk is deleted, and it retries against the new state.
 */
export async function ingestTurns(
	env: ProjectEnv,
	ctx: ProjectContext,
	sessionId: string,
	parsed: ParsedTranscript,
): Promise<IngestResult> {
	const unique = new Map(parsed.turns.map((t) => [t.key, t]));
	const duplicates = parsed.duplicates;
	const hash = await sessionHash(sessionId);
	const redacted = new WeakSet<ParsedTurn>();

	for (let attempt = 1; ; attempt++) {
		const keys = [...unique.keys()];
		const [sessionRes, seenRes] = await env.PDB.batch([
			env.PDB.prepare("SELECT * FROM sessions WHERE project_id = ? AND id = ?").bind(ctx.projectId, sessionId),
			env.PDB.prepare(
				"SELECT value AS k FROM json_each(?1) WHERE value IN (SELECT record_key FROM session_records WHERE project_id = ?2 AND session_id = ?3)",
			).bind(JSON.stringify(keys), ctx.projectId, sessionId),
		]);
		const session = (sessionRes?.results[0] as unknown as SessionRow | undefined) ?? null;
		if (session && session.user_id !== ctx.userId) throw new CairnError("conflict", "this session id is already used by another user");
		if (session && session.agent !== parsed.agent && unique.size > 0) {
			throw new CairnError("conflict", `this session holds a ${session.agent} transcript; the posted lines read as ${parsed.agent}`);
		}
		const seen = new Set((seenRes?.results ?? []).map((r) => (r as { k: string }).k));
		const fresh = [...unique.values()].filter((t) => !seen.has(t.key));
		const result = {
			duplicates: duplicates + (unique.size - fresh.length),
			skipped: parsed.skipped,
			unknown: parsed.unknown,
			agent: session?.agent ?? parsed.agent,
		};
		if (fresh.length === 0) return { accepted: 0, ...result, turns: session?.turns ?? 0, session };

		// Only new turns are scanned: a re-post of a known file costs parsing and one lookup.
		const unscanned = fresh.filter((t) => !redacted.has(t));
		await redactTurns(unscanned);
		for (const t of unscanned) redacted.add(t);
		const first = session?.turns ?? 0;
		const turns: Turn[] = fresh.map(({ key: _key, ...t }, i) => ({ ...t, seq: first + i }));
		const now = nowIso();
		const times = turns.map((t) => validTime(t.ts, now)).filter((t): t is string => t !== null);
		// ISO-8601 UTC strings order lexically.
		times.sort();
		const started = times[0] ?? now;
		const lastActivity = times.at(-1) ?? now;
		const objectKey = `${sessionPrefix(ctx.tenantId, ctx.projectId, hash)}chunks/${String(first).padStart(8, "0")}-${randomId(8)}.ndjson`;
		const ndjson = `${turns.map((t) => JSON.stringify(t)).join("\n")}\n`;
		await env.FILES.put(objectKey, ndjson, { httpMetadata: { contentType: "application/x-ndjson" } });
		const last = first + turns.length - 1;
		try {
			await env.PDB.batch([
				env.PDB.prepare(
					`INSERT INTO session_chunks (project_id, session_id, first_seq, last_seq, object_key, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				).bind(ctx.projectId, sessionId, first, last, objectKey, ndjson.length, now),
				env.PDB.prepare("INSERT INTO session_records (project_id, session_id, record_key) SELECT ?1, ?2, value FROM json_each(?3)").bind(
					ctx.projectId,
					sessionId,
					JSON.stringify(fresh.map((t) => t.key)),
				),
				env.PDB.prepare(
					`INSERT INTO sessions (project_id, id, user_id, agent, cwd, branch, started_at, last_activity_at, turns, updated_at)
					 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
					 ON CONFLICT (project_id, id) DO UPDATE SET turns = excluded.turns,
					   cwd = coalesce(excluded.cwd, cwd), branch = coalesce(excluded.branch, branch),
					   started_at = min(started_at, excluded.started_at), last_activity_at = max(last_activity_at, excluded.last_activity_at),
					   updated_at = excluded.updated_at`,
				).bind(
					ctx.projectId,
					sessionId,
					ctx.userId,
					parsed.agent,
					parsed.cwd ?? null,
					parsed.branch ?? null,
					started,
					lastActivity,
					last + 1,
					now,
				),
			]);
		} catch (err) {
			await env.FILES.delete(objectKey);
			if (/UNIQUE|PRIMARY KEY|constraint/i.test(String(err)) && attempt < ATTEMPTS) continue;
			if (/UNIQUE|PRIMARY KEY|constraint/i.test(String(err))) {
				throw new CairnError("conflict", "the session changed under concurrent posts; retry the request");
			}
			throw err;
		}
		const committed = {
			project_id: ctx.projectId,
			id: sessionId,
			cursor: session?.cursor ?? 0,
			memory_turns: session?.memory_turns ?? 0,
			turns: last + 1,
		};
		return { accepted: turns.length, ...result, turns: last + 1, session: committed };
	}
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
