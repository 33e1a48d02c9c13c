import type { LanguageModel } from "ai";
import { stampCitedFiles } from "../consolidate/transcript-citations";
import { extractOffline } from "../extract/offline";
import type { StageOneOutput } from "../extract/schema";
import { extractWithModel, StageOneError } from "../extract/stage-one";
import { stampStatementTimes } from "../extract/statement-time";
import { readTurns } from "../ingest/ingest";
import { nowIso } from "../lib/ids";
import { ModelConfigError, resolveModel } from "../llm/models";
import { projectTenant } from "../registry/projects";
import type { SessionRow } from "../sessions/sessions";
import { advanceCursor, getSession, recordExtractionFailure, sessionExistsGuard, unqueue } from "../sessions/sessions";
import type { Turn } from "../sessions/turns";
import { effectiveSettings } from "../settings/settings";
import type { ProjectEnv } from "../storage/env";
import { GuardFailure } from "../storage/sql";
import { sessionIsOver, writeSessionLog } from "./daily-log-writer";
import type { ExtractMessage } from "./messages";
import { checkWriteOrigins } from "./tool-origin";
import { extractionAllowed } from "./triggers";

/** Deliveries before a message goes to the dead-letter queue: the consumer's max_retries (3) + 1. */
export const MAX_ATTEMPTS = 4;

export type RangeOutcome = "extracted" | "duplicate" | "disabled" | "gone" | "empty";

export interface ConsumerOptions {
	/** The stage-1 model; by default resolved from the environment (null = offline extractor). */
	model?: LanguageModel | null;
	/** Tells the project's coordinator that new material exists. */
	markDirty: () => Promise<void>;
}

export class LostRace extends Error {}

/** Backoff between deliveries of a failed range: 10 s, 20 s, 40 s, … capped at 5 minutes. */
export const retryDelaySeconds = (attempts: number) => Math.min(300, 10 * 2 ** (attempts - 1));

/**
 * Stage 1 for one session range, inside the project's object. Reads the session's cursor first: a
 * range already behind the cursor is a duplicate delivery and does nothing. The output row (keyed by
 * the range's first turn) and the cursor advance are one transaction, so two deliveries of the same
 * range cannot both commit.
 */
export async function processRange(env: ProjectEnv, message: ExtractMessage, options: ConsumerOptions): Promise<RangeOutcome> {
	const [session, tenantId] = await Promise.all([
		getSession(env.PDB, message.projectId, message.sessionId),
		projectTenant(env.DB, message.projectId),
	]);
	if (!session || !tenantId) return "gone";
	if (session.cursor > message.toSeq) return "duplicate";
	const settings = await effectiveSettings(env.DB, tenantId, session.user_id, message.projectId);
	if (!extractionAllowed(settings)) {
		// Switched off after the range was queued: nothing runs, and the session no longer shows as queued.
		await unqueue(env.PDB, message.projectId, message.sessionId);
		return "disabled";
	}

	const from = session.cursor;
	const to = Math.min(message.toSeq, session.turns - 1);
	if (to < from) return "empty";

	const [turns, writes] = await Promise.all([
		readTurns(env, message.projectId, message.sessionId, from, to),
		env.PDB.prepare(
			"SELECT seq, memory_name FROM session_writes WHERE project_id = ? AND session_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
		)
			.bind(message.projectId, message.sessionId, from, to)
			.all<SessionWrite>(),
	]);
	// What the agent wrote naming this session is checked against what it had seen: what came from tool
	// output is held for the writer too (src/pipeline/tool-origin.ts). A failure leaves the writes unchecked
	// (served to their writer as unreviewed) for the next range; extraction goes on.
	await checkWriteOrigins(env, session, turns, to, (a, b) => readTurns(env, message.projectId, message.sessionId, a, b), tenantId).catch(
		(err) => console.error("tool-origin check failed", err instanceof Error ? err.stack : String(err)),
	);
	// Explicit writes beat automatic extraction — for the turns that made them, not for the whole range.
	const left = agentWriteTurns(turns, writes.results);
	const kept = turns.filter((t) => !left.has(t.seq));
	const model = options.model !== undefined ? options.model : resolveModel(env, "default");
	const extracted =
		kept.length === 0
			? { raw_memory: "", summary: "", candidates: [] }
			: model
				? await extractWithModel(model, message.sessionId, kept)
				: extractOffline(message.sessionId, kept);
	const output = stampCitedFiles(stampStatementTimes(extracted, kept), kept);
	try {
		await commit(
			env,
			session,
			from,
			to,
			model ? "model" : "offline",
			output,
			[...left].sort((a, b) => a - b),
		);
	} catch (err) {
		// The session was cleared (or deleted) while the range was being extracted: nothing is written back.
		if (err instanceof GuardFailure) return "gone";
		throw err;
	}
	if (output.candidates.length > 0 || output.raw_memory.trim()) await options.markDirty();
	// The session's last range: in assistant mode, its entry in the user's daily log.
	if (to === session.turns - 1 && sessionIsOver(session, settings)) {
		await writeSessionLog(env, tenantId, session, settings, turns, output.summary, output.candidates);
	}
	return "extracted";
}

/** A memory write recorded with `X-Cairn-Session`: at the session's turn count when it landed. */
export interface SessionWrite {
	seq: number;
	memory_name: string;
}

/** A tool call that writes memory by some other road: a REST call to `/memories/<name>`, a wrapper tool named for it. */
const MEMORY_CALL = /memor|remember/i;

/** Whether a tool call names the memory `name` as a whole slug (its `memory_write` name, a URL segment, an argument). */
function namesMemory(turn: Turn, name: string): boolean {
	if (turn.memoryName === name) return true;
	const slug = /[a-z0-9-]/;
	for (let i = turn.text.indexOf(name); i >= 0; i = turn.text.indexOf(name, i + 1)) {
		const before = turn.text[i - 1] ?? " ";
		const after = turn.text[i + name.length] ?? " ";
		if (!slug.test(before) && !slug.test(after)) return true;
	}
	return false;
}

/**
 * The turns of a range that stage 1 leaves out because they are the agent writing memory itself:
 * - every tool call the transcript shows writing Cairn memory (`agentWrite`: `memory_write` under any
 *   MCP server name, `cairn remember` in a shell, a `!cairn remember` the user typed), with its result;
 * - for each write recorded through `X-Cairn-Session` at seq N (the session's turn count when the
 *   write landed, so the call that made it is normally the first such call ingested after it): the
 *   first tool call at seq ≥ N in the range that made it — a detected write of that memory, else a
 *   memory call naming it (`PUT …/memories/<name>`, a wrapper tool with the name in its arguments) —
 *   or, when the call was ingested before the write landed, the last such call before N; with its
 *   result. A write whose call the range does not show suppresses nothing.
 * Everything else in the range is extracted as usual.
 */
export function agentWriteTurns(turns: Turn[], writes: SessionWrite[]): Set<number> {
	const left = new Set<number>();
	const calls = new Set<string>();
	const take = (t: Turn) => {
		left.add(t.seq);
		if (t.callId) calls.add(t.callId);
	};
	for (const t of turns) if (t.agentWrite) take(t);
	const toolCalls = turns.filter((t) => t.role === "tool_call");
	for (const w of writes) {
		// A detected write of this memory (or of one it cannot name), else a call that names it and writes memory.
		const ranked = [
			(t: Turn) => t.agentWrite === true && (t.memoryName === undefined || t.memoryName === w.memory_name),
			(t: Turn) => !t.agentWrite && MEMORY_CALL.test(t.text) && namesMemory(t, w.memory_name),
		];
		let call: Turn | undefined;
		for (const fits of ranked) {
			call = toolCalls.find((t) => t.seq >= w.seq && fits(t)) ?? toolCalls.filter((t) => t.seq < w.seq && fits(t)).at(-1);
			if (call) break;
		}
		if (call) take(call);
	}
	for (const t of turns) if (t.callId && calls.has(t.callId) && (t.role === "tool_call" || t.role === "tool_result")) left.add(t.seq);
	return left;
}

async function commit(
	env: ProjectEnv,
	session: SessionRow,
	from: number,
	to: number,
	extractor: string,
	output: StageOneOutput,
	agentWrites: number[],
) {
	const now = nowIso();
	try {
		await env.PDB.batch([
			// The session must still exist: a clear during the model call removes it, and its output must not come back.
			sessionExistsGuard(env.PDB, session.project_id, session.id),
			env.PDB.prepare(
				`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at, agent_write_turns)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			).bind(
				session.project_id,
				session.id,
				from,
				to,
				session.user_id,
				extractor,
				output.raw_memory,
				output.summary,
				JSON.stringify(output.candidates),
				now,
				JSON.stringify(agentWrites),
			),
			advanceCursor(env.PDB, session, from, to + 1, now),
		]);
	} catch (err) {
		if (/UNIQUE|PRIMARY KEY|constraint/i.test(String(err))) throw new LostRace();
		throw err;
	}
}

/** The error recorded on the session: Cairn's own words, never model output or stack traces. */
function failureMessage(err: unknown): string {
	if (err instanceof StageOneError || err instanceof ModelConfigError) return err.message;
	return "extraction failed on an internal error";
}

/**
 * Records a failed range on its session and says how the delivery should be retried: soon
 * (`lost-race`: another delivery committed this range first) or with backoff (`failed`).
 */
export async function recordRangeFailure(
	env: ProjectEnv,
	message: ExtractMessage,
	err: unknown,
	attempts: number,
	maxAttempts = MAX_ATTEMPTS,
): Promise<"lost-race" | "failed"> {
	if (err instanceof LostRace) return "lost-race";
	const last = attempts >= maxAttempts;
	const error = `${failureMessage(err)} (attempt ${attempts} of ${maxAttempts})`;
	if (!(err instanceof StageOneError)) console.error("extract queue: range failed", err instanceof Error ? err.stack : String(err));
	await recordExtractionFailure(env.PDB, message.projectId, message.sessionId, last ? "dead_letter" : "retrying", error).catch(
		() => undefined,
	);
	return "failed";
}
