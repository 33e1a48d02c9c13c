/**
 * What happens around a session, decided from the caller's settings: a transcript post (store what
 * is new, flag the project for the idle scan, queue in per-turn mode, refresh the session memory),
 * ending a session, extracting now, reading or rebuilding the session memory. Runs in the Worker;
 * the project's data is reached through its object.
 */
import { CairnError } from "../errors";
import type { IngestResult } from "../ingest/ingest";
import type { Format } from "../ingest/parse";
import { EXTRACTION_SWITCHES, extractionAllowed } from "../pipeline/triggers";
import { projectStore } from "../project/client";
import { markPendingWork } from "../registry/projects";
import { type EffectiveSettings, effectiveSettings, featureOff, requireFeature } from "../settings/settings";
import type { ProjectContext } from "../storage/context";
import { receiveTranscript } from "./receive";

/** Why session memory is off (the setting that turns it off), or null when it is on. */
const sessionMemoryOff = (settings: EffectiveSettings): string | null =>
	featureOff(settings, "session memory", ["memories.enabled", "memories.sessionMemory"]);
const tokenLimit = (settings: EffectiveSettings) => Number(settings["memories.sessionMemoryTokenLimit"].value);
const settingsOf = (env: Env, ctx: ProjectContext) => effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);

export async function postTranscript(
	env: Env,
	ctx: ProjectContext,
	sessionId: string,
	body: ReadableStream<Uint8Array> | null,
	format: Format,
	maxBytes: number,
	waitUntil: (p: Promise<unknown>) => void,
): Promise<Omit<IngestResult, "session">> {
	// Parsing and redaction run here, in the Worker, as the body streams in; the project's object stores only what is new.
	const { session, ...result } = await receiveTranscript(env, ctx, sessionId, body, format, maxBytes);
	const store = projectStore(env, ctx.projectId);
	if (result.accepted === 0 || !session) return result;
	const [settings] = await Promise.all([
		settingsOf(env, ctx),
		// The cron's idle scan visits only projects flagged as holding unprocessed turns.
		markPendingWork(env.DB, ctx.projectId),
	]);
	if (extractionAllowed(settings) && settings["memories.extractionTrigger"].value === "per-turn") {
		await store.enqueue(ctx, [session.id]);
	}
	// Enough new transcript since the last refresh: rebuild the session memory after responding.
	const every = Number(settings["memories.sessionMemoryRefreshTurns"].value);
	if (sessionMemoryOff(settings) === null && session.turns - session.memory_turns >= every) {
		waitUntil(
			store.sessionMemory(ctx, sessionId, tokenLimit(settings), true).then(
				() => undefined,
				(err: unknown) => console.error("session memory refresh failed", err instanceof Error ? err.message : String(err)),
			),
		);
	}
	return result;
}

/** Ends the caller's session; its unprocessed turns are queued at once when extraction is allowed. */
export async function endSession(env: Env, ctx: ProjectContext, sessionId: string) {
	const settings = await settingsOf(env, ctx);
	return projectStore(env, ctx.projectId).endSession(ctx, sessionId, extractionAllowed(settings));
}

/** Refuses while extraction is off (`feature_disabled`, naming the setting that turns it off). */
async function requireExtraction(env: Env, ctx: ProjectContext): Promise<void> {
	const settings = await settingsOf(env, ctx);
	requireFeature(settings, "extraction", EXTRACTION_SWITCHES);
}

/** Queues every session of the caller's with unprocessed turns; refused while extraction is off. */
export async function extractNow(env: Env, ctx: ProjectContext): Promise<number> {
	await requireExtraction(env, ctx);
	return projectStore(env, ctx.projectId).enqueue(ctx);
}

/** Queues a dead-lettered (or retrying) session's unprocessed turns again; refused while extraction is off. */
export async function retrySession(env: Env, ctx: ProjectContext, sessionId: string) {
	await requireExtraction(env, ctx);
	return projectStore(env, ctx.projectId).retrySession(ctx, sessionId);
}

/** The session memory (built on first read); `rebuild` makes it again now, as before a compaction. */
export async function sessionMemory(env: Env, ctx: ProjectContext, sessionId: string, rebuild: boolean) {
	const settings = await settingsOf(env, ctx);
	const off = sessionMemoryOff(settings);
	if (off) throw new CairnError("feature_disabled", off);
	return projectStore(env, ctx.projectId).sessionMemory(ctx, sessionId, tokenLimit(settings), rebuild);
}
