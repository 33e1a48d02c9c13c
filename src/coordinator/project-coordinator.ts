import { DurableObject } from "cloudflare:workers";
import type { LanguageModel } from "ai";
import { listSkills, readSkill, readSummary, rebuildSummary } from "../consolidate/artifacts";
import { pendingCount } from "../consolidate/inputs";
import { ConsolidationError } from "../consolidate/model";
import { type ConsolidationFaults, consolidateProject } from "../consolidate/run";
import { CairnError, toWire, type WireError } from "../errors";
import { commitIngest, type IngestCommit, ingestBase, requireOwnSession, seenRecords } from "../ingest/ingest";
import { clientSessionId } from "../ingest/turns";
import { randomId } from "../lib/ids";
import { resolveModel } from "../llm/models";
import { sweepTranscripts } from "../maintenance/retention";
import { rescanProjectSecrets } from "../maintenance/secret-rescan";
import { sweepProjectOrphans } from "../maintenance/sweep";
import { type BatchWrite, writeMemories } from "../memory/batch";
import { clearProjectMemory } from "../memory/clear";
import { getIndex } from "../memory/index-file";
import { sweepProjectPacks } from "../memory/packs";
import { findMemory, resolveMemoryUrl } from "../memory/resolve";
import { decideReview, getReview, listReviews, type ReviewFilter } from "../memory/reviews";
import {
	deleteMemory,
	getMemoryRow,
	getVersion,
	type ListFilter,
	listManifest,
	listMemories,
	listVersions,
	type MemoryRow,
	type ProjectContext,
	type WriteInput,
	writeMemory,
} from "../memory/store";
import type { MemoryScope } from "../memory/topic-file";
import { type ConsumerOptions, processRange, recordRangeFailure } from "../pipeline/consumer";
import type { ExtractMessage } from "../pipeline/messages";
import { deadLetterCount, listCandidateOutputs, listSessions, markEnded, sessionsWithPendingTurns } from "../pipeline/sessions";
import { enqueueSessions, scanProjectIdleSessions } from "../pipeline/triggers";
import type { ProjectEnv } from "../project/env";
import { importLegacyRows, type LegacyRows } from "../project/mover";
import { migrateProjectSchema } from "../project/schema";
import { ObjectSqlDb } from "../project/sql";
import { backfillVectors, type CandidateOptions, findCandidates } from "../recall/candidates";
import { type Embedder, embedderOrReason } from "../recall/embedding";
import { recordServed } from "../recall/usage";
import { readSessionMemory, refreshSessionMemory } from "../session-memory/session-memory";

export interface LastRun {
	at: string;
	outcome: "succeeded" | "nothing to do" | "failed";
	error: string | null;
	changes: number;
	outputs: number;
}

/** State kept in the object's own storage so an evicted or crashed run is retried and converges. */
export interface CoordinatorState {
	/** The project this instance serves (its name), recorded by the first trigger. */
	projectId: string | null;
	dirty: boolean;
	running: boolean;
	runId: string | null;
	/** Number of triggers received. */
	generation: number;
	/** Consecutive failed runs, for backoff. */
	failures: number;
	lastRun: LastRun | null;
	/** Recent runs, newest last: lets anyone check that runs never overlapped. */
	history: { runId: string; startedAt: number; endedAt: number; outcome: string }[];
}

const INITIAL: CoordinatorState = {
	projectId: null,
	dirty: false,
	running: false,
	runId: null,
	generation: 0,
	failures: 0,
	lastRun: null,
	history: [],
};
export const DEBOUNCE_MS = 30_000;
/** Memories embedded per project per cron run when some lack a vector. */
const CRON_BACKFILL = 64;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const HISTORY = 20;

/**
 * What a session was already handed is kept under (user, session id): a caller can mark and read only
 * its own sessions' deliveries, whatever session id it names, and whether or not the session has
 * posted a transcript yet (inject runs at session start, before any).
 */
const servedKey = (ctx: ProjectContext, sessionId: string) => `${ctx.userId}/${sessionId}`;

export const backoffMs = (failures: number) => Math.min(MAX_BACKOFF_MS, DEBOUNCE_MS * 2 ** Math.max(0, failures - 1));

/** What an RPC method returns: a value, or a domain error in plain form (class identity does not cross RPC). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: WireError };

/**
 * One instance per project (addressed by project id, `getByName(projectId)`): it owns the project's
 * data in its own SQLite (memories, versions, full-text index, sessions, stage-1 outputs, skills,
 * consolidation events; schema in src/project/schema.ts) and serialises consolidation in place of
 * leases. The Worker authenticates and authorises every request; the object trusts the context it is
 * handed but binds itself to one project: the first call records its project id, and a call naming
 * another project is refused.
 *
 * `markDirty()` coalesces triggers and arms a debounce alarm; the alarm runs one consolidation; a
 * trigger during a run leaves the project dirty, and the run's end arms exactly one re-run. A DO's
 * input gate does not cover awaits on R2, D1 or a model call, so exclusion rests on the stored
 * `running` flag, set before the first such await, and on the in-memory run that owns it: a stored
 * `running` with no run in this instance means the instance was evicted or crashed mid-run, and the
 * alarm (retried by the platform, or re-armed with backoff) runs it again.
 */
export class ProjectCoordinator extends DurableObject<Env> {
	/** The run this instance is executing, if any. */
	private active: Promise<void> | null = null;
	/** Test seams: a scripted model and fault points. Production leaves them unset. */
	model: LanguageModel | null | undefined = undefined;
	/** Test seam: the stage-1 model for ranges this object extracts. */
	extractModel: LanguageModel | null | undefined = undefined;
	faults: ConsolidationFaults | undefined = undefined;
	/** Test seam: the embedding model (null: none). Production resolves it from CAIRN_EMBEDDING_MODEL. */
	embedder: Embedder | null | undefined = undefined;
	private configuredEmbedder: { embedder: Embedder | null; reason?: string } | null = null;
	onRunStart: (() => void | Promise<void>) | undefined = undefined;
	readonly db: ObjectSqlDb;
	/** The Worker's bindings plus this project's own database, for domain code running here. */
	readonly penv: ProjectEnv;
	private boundProject: string | null = null;

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.db = new ObjectSqlDb(ctx.storage.sql, (fn) => ctx.storage.transactionSync(fn));
		this.penv = { ...env, PDB: this.db, embedder: () => this.embedding().embedder };
		ctx.blockConcurrencyWhile(async () => {
			migrateProjectSchema(ctx.storage);
			this.boundProject = ctx.storage.sql.exec<{ id: string }>("SELECT id FROM projects LIMIT 1").toArray()[0]?.id ?? null;
		});
	}

	/** Binds the object to its project on first use; a call for any other project is a routing fault. */
	private bind(projectId: string): void {
		if (this.boundProject === projectId) return;
		if (this.boundProject !== null) throw new CairnError("forbidden", "this project's store was reached for another project");
		this.ctx.storage.sql.exec("INSERT INTO projects (id, index_generation) VALUES (?, 0) ON CONFLICT (id) DO NOTHING", projectId);
		this.boundProject = projectId;
	}

	/** Runs one operation for `projectId`, returning domain errors as values. */
	private async run<T>(projectId: string, fn: () => Promise<T>): Promise<Outcome<T>> {
		try {
			this.bind(projectId);
			return { ok: true, value: await fn() };
		} catch (err) {
			if (err instanceof CairnError) return { ok: false, error: toWire(err) };
			throw err;
		}
	}

	/** The embedding model for this project's memories, or the reason there is none. */
	private embedding(): { embedder: Embedder | null; reason?: string } {
		if (this.embedder !== undefined)
			return this.embedder ? { embedder: this.embedder } : { embedder: null, reason: "no embedding model is configured" };
		this.configuredEmbedder ??= embedderOrReason(this.env);
		return this.configuredEmbedder;
	}

	/** The project this object serves, or null before its first call. */
	async boundTo(): Promise<string | null> {
		return this.boundProject;
	}

	// Memories ---------------------------------------------------------------------------------------

	writeMemory(ctx: ProjectContext, input: WriteInput) {
		return this.run(ctx.projectId, () => writeMemory(this.penv, ctx, input));
	}

	/** Up to BATCH_LIMIT writes in one call and one transaction, with per-item results (src/memory/batch.ts). */
	writeMemories(ctx: ProjectContext, batch: BatchWrite) {
		return this.run(ctx.projectId, () => writeMemories(this.penv, ctx, batch));
	}

	deleteMemory(ctx: ProjectContext, scope: MemoryScope, name: string) {
		return this.run(ctx.projectId, () => deleteMemory(this.penv, ctx, scope, name));
	}

	getMemory(ctx: ProjectContext, scope: MemoryScope, name: string) {
		return this.run(ctx.projectId, () => getMemoryRow(this.db, ctx, scope, name));
	}

	findMemory(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, () => findMemory(this.db, ctx, name, scope));
	}

	listMemories(ctx: ProjectContext, filter: ListFilter) {
		return this.run(ctx.projectId, () => listMemories(this.db, ctx, filter));
	}

	/** Rows of the team scope, all of them or those named. */
	teamMemories(ctx: ProjectContext, names?: string[]) {
		return this.run(ctx.projectId, async () => {
			const statement = names
				? this.db
						.prepare(
							"SELECT * FROM memories WHERE project_id = ? AND scope = 'team' AND owner_id = '' AND name IN (SELECT value FROM json_each(?))",
						)
						.bind(ctx.projectId, JSON.stringify(names))
				: this.db
						.prepare("SELECT * FROM memories WHERE project_id = ? AND scope = 'team' AND owner_id = '' ORDER BY name")
						.bind(ctx.projectId);
			return (await statement.all<MemoryRow>()).results;
		});
	}

	/**
	 * What consolidation and review did to a memory (newest first): each change with its reason and the
	 * sessions it rests on. Only that memory's events: a personal memory's are its owner's, of personal
	 * scope; a team memory's are those recorded for team scope, where an event another member's run
	 * recorded keeps its outcome but not that member's sessions or reasons.
	 */
	memoryEvents(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, async () => {
			const row = await findMemory(this.db, ctx, name, scope);
			const { results } = await this.db
				.prepare(
					`SELECT owner_id, run_id, op, outcome, reason, evidence_json, created_at FROM consolidation_events
					 WHERE project_id = ?1 AND target = ?2 AND (
					   (?3 = 'personal' AND owner_id = ?4 AND COALESCE(memory_scope, 'personal') = 'personal')
					   OR (?3 = 'team' AND memory_scope = 'team'))
					 ORDER BY id DESC LIMIT 200`,
				)
				.bind(ctx.projectId, row.name, row.scope, ctx.userId)
				.all<{
					owner_id: string;
					run_id: string;
					op: string;
					outcome: string;
					reason: string;
					evidence_json: string;
					created_at: string;
				}>();
			return results.map((e) => {
				const mine = e.owner_id === ctx.userId;
				return {
					runId: e.run_id,
					op: e.op,
					outcome: e.outcome,
					reason: mine ? e.reason : "recorded by another member's consolidation",
					sessions: mine ? (JSON.parse(e.evidence_json) as string[]).map(clientSessionId) : [],
					createdAt: e.created_at,
				};
			});
		});
	}

	history(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, async () => {
			const row = await findMemory(this.db, ctx, name, scope);
			return { row, versions: await listVersions(this.db, row.id) };
		});
	}

	version(ctx: ProjectContext, name: string, scope: MemoryScope | undefined, version: number) {
		return this.run(ctx.projectId, async () => {
			const row = await findMemory(this.db, ctx, name, scope);
			return { row, version: await getVersion(this.db, row.id, version) };
		});
	}

	index(ctx: ProjectContext) {
		return this.run(ctx.projectId, () => getIndex(this.penv, ctx));
	}

	resolve(ctx: ProjectContext, url: string) {
		return this.run(ctx.projectId, () => resolveMemoryUrl(this.penv, ctx, url));
	}

	clear(ctx: ProjectContext) {
		return this.run(ctx.projectId, async () => {
			const cleared = await clearProjectMemory(this.penv, ctx);
			// The review queue holds proposed memory text: it goes with the memories.
			await this.db.prepare("DELETE FROM review_items WHERE project_id = ?").bind(ctx.projectId).run();
			return cleared;
		});
	}

	// The review queue ---------------------------------------------------------------------------------

	reviews(ctx: ProjectContext, filter: ReviewFilter) {
		return this.run(ctx.projectId, () => listReviews(this.db, ctx, filter));
	}

	review(ctx: ProjectContext, id: string) {
		return this.run(ctx.projectId, () => getReview(this.db, ctx, id));
	}

	decideReview(ctx: ProjectContext, id: string, decision: "approve" | "reject") {
		return this.run(ctx.projectId, () => decideReview(this.penv, ctx, id, decision));
	}

	// Recall -----------------------------------------------------------------------------------------

	/**
	 * The candidates for a query that the caller may see: ranked full-text matches of its words and CJK
	 * grams, and with `semanticQuery` the memories nearest to its embedding (src/recall/candidates.ts).
	 */
	recallCandidates(ctx: ProjectContext, terms: string[], options: CandidateOptions) {
		return this.run(ctx.projectId, async () => {
			const session = options.servedTo;
			if (!session) return findCandidates(this.db, ctx, terms, options, this.embedding());
			// What the session was handed, in the same call: one round trip less for a per-prompt inject.
			const served = await this.servedNames(ctx, session.sessionId);
			const excluded = new Set(session.excluded);
			const more = session.leaveOut ? new Set(served.filter((name) => !excluded.has(name))).size : 0;
			const set = await findCandidates(this.db, ctx, terms, { ...options, limit: options.limit + more }, this.embedding());
			return { ...set, served };
		});
	}

	/** The selector's manifest: the memories the caller may see in `scopes`, most used then most recent first (rows without bodies). */
	manifest(ctx: ProjectContext, scopes: MemoryScope[], limit: number) {
		return this.run(ctx.projectId, () => listManifest(this.db, ctx, scopes, limit));
	}

	/** Embeds up to `limit` memories that have no vector for their current content (resumable; see backfillVectors). */
	backfillEmbeddings(ctx: ProjectContext, limit: number) {
		return this.run(ctx.projectId, async () => {
			const { embedder, reason } = this.embedding();
			// Not a refusal of the caller (403): the deployment has no model to embed with.
			if (!embedder) throw new CairnError("conflict", `nothing to embed with: ${reason ?? "no embedding model is configured"}`);
			return backfillVectors(this.db, ctx.projectId, embedder, limit);
		});
	}

	/** Marks memories as handed to the caller's session `sessionId` (kept per user: see `servedKey`). */
	recordServed(ctx: ProjectContext, memoryIds: number[], sessionId?: string) {
		return this.run(ctx.projectId, () => recordServed(this.db, ctx.projectId, memoryIds, sessionId && servedKey(ctx, sessionId)));
	}

	/** Names of the memories this session was already handed (recall and inject with its id). */
	servedTo(ctx: ProjectContext, sessionId: string) {
		return this.run(ctx.projectId, () => this.servedNames(ctx, sessionId));
	}

	private async servedNames(ctx: ProjectContext, sessionId: string): Promise<string[]> {
		const { results } = await this.db
			.prepare(
				`SELECT m.name FROM session_served s JOIN memories m ON m.id = s.memory_id
				 WHERE s.project_id = ? AND s.session_id = ? AND (m.scope = 'team' OR m.owner_id = ?)`,
			)
			.bind(ctx.projectId, servedKey(ctx, sessionId), ctx.userId)
			.all<{ name: string }>();
		return results.map((r) => r.name);
	}

	// Sessions and the pipeline ----------------------------------------------------------------------

	/** A transcript post streams through the Worker: where it starts, which records are known, then one commit. */
	ingestBase(ctx: ProjectContext, sessionId: string) {
		return this.run(ctx.projectId, () => ingestBase(this.db, ctx, sessionId));
	}

	seenRecords(ctx: ProjectContext, sessionId: string, keys: string[]) {
		return this.run(ctx.projectId, () => seenRecords(this.db, ctx, sessionId, keys));
	}

	commitIngest(ctx: ProjectContext, sessionId: string, commit: IngestCommit) {
		return this.run(ctx.projectId, () => commitIngest(this.db, ctx, sessionId, commit));
	}

	session(ctx: ProjectContext, sessionId: string) {
		return this.run(ctx.projectId, () => requireOwnSession(this.db, ctx, sessionId));
	}

	sessions(ctx: ProjectContext, limit: number) {
		return this.run(ctx.projectId, () => listSessions(this.db, ctx, limit));
	}

	/** Ends the caller's session; queues its unprocessed turns when `enqueue` (extraction allowed). */
	endSession(ctx: ProjectContext, sessionId: string, enqueue: boolean) {
		return this.run(ctx.projectId, async () => {
			const own = await requireOwnSession(this.db, ctx, sessionId);
			// Idempotent: a client retries an end it never saw answered; an ended session already queued is not queued twice.
			if (own.status === "ended" && own.extraction_state === "queued") return own;
			await markEnded(this.db, ctx, own.id);
			const session = await requireOwnSession(this.db, ctx, sessionId);
			const queued = enqueue ? await enqueueSessions(this.penv, [session]) : 0;
			return queued > 0 ? { ...session, extraction_state: "queued" } : session;
		});
	}

	/** Queues a failed session's unprocessed turns again (dead-lettered or retrying); anything else is a 409. */
	retrySession(ctx: ProjectContext, sessionId: string) {
		return this.run(ctx.projectId, async () => {
			const session = await requireOwnSession(this.db, ctx, sessionId);
			if (session.extraction_state !== "dead_letter" && session.extraction_state !== "retrying")
				throw new CairnError("conflict", `nothing to retry: extraction is ${session.extraction_state}`, {
					state: session.extraction_state,
				});
			if ((await enqueueSessions(this.penv, [session])) === 0)
				throw new CairnError("conflict", "nothing to retry: the session has no unprocessed turns", { state: session.extraction_state });
			return requireOwnSession(this.db, ctx, sessionId);
		});
	}

	/** Queues extraction for these sessions of the caller's (or all with unprocessed turns). */
	enqueue(ctx: ProjectContext, sessionIds?: string[]) {
		return this.run(ctx.projectId, async () => {
			const pending = await sessionsWithPendingTurns(this.db, ctx);
			return enqueueSessions(this.penv, sessionIds ? pending.filter((s) => sessionIds.includes(s.id)) : pending);
		});
	}

	candidates(ctx: ProjectContext, limit: number) {
		return this.run(ctx.projectId, () => listCandidateOutputs(this.db, ctx, limit));
	}

	/** Reads the session memory, building it on first read; `refresh` rebuilds it now. */
	sessionMemory(ctx: ProjectContext, sessionId: string, tokenLimit: number, refresh: boolean) {
		return this.run(ctx.projectId, async () => {
			const session = await requireOwnSession(this.db, ctx, sessionId);
			const existing = refresh ? null : await readSessionMemory(this.env, ctx, session.id);
			if (existing !== null) return { text: existing, tokens: null, engine: null, turns: session.turns };
			const result = await refreshSessionMemory(this.penv, ctx, session, tokenLimit, this.sessionModel());
			return { ...result, turns: session.turns };
		});
	}

	private sessionModel(): LanguageModel | null {
		if (this.model !== undefined) return this.model;
		try {
			return resolveModel(this.env, "smol");
		} catch {
			return null;
		}
	}

	/** Stage 1 for one queued range; failures are recorded on the session and reported, not thrown. */
	async extractRange(message: ExtractMessage, attempts: number, maxAttempts: number) {
		this.bind(message.projectId);
		const options: ConsumerOptions = {
			model: this.extractModel,
			markDirty: async () => {
				await this.markDirty(message.projectId);
			},
		};
		try {
			return { outcome: await processRange(this.penv, message, options) } as const;
		} catch (err) {
			return { outcome: await recordRangeFailure(this.penv, message, err, attempts, maxAttempts) } as const;
		}
	}

	/** Pipeline counters for the status route. */
	pipelineCounts(ctx: ProjectContext) {
		return this.run(ctx.projectId, async () => ({
			pendingOutputs: await pendingCount(this.db, ctx.projectId),
			deadLetters: await deadLetterCount(this.db, ctx.projectId),
		}));
	}

	/** The caller's summary as it may be shown (stale lines left out; rebuilt at once when no model writes it). */
	summary(ctx: ProjectContext) {
		return this.run(ctx.projectId, () => readSummary(this.penv, ctx, { rebuildOffline: this.sessionModel() === null }));
	}

	/** Rebuilds the caller's summary from the current memories now (the rebuild command). */
	rebuildSummary(ctx: ProjectContext) {
		return this.run(ctx.projectId, () => rebuildSummary(this.penv, ctx));
	}

	skills(ctx: ProjectContext) {
		return this.run(ctx.projectId, () => listSkills(this.db, ctx));
	}

	skill(ctx: ProjectContext, name: string) {
		return this.run(ctx.projectId, () => readSkill(this.penv, ctx, name));
	}

	// Maintenance (called by the cron and by operators) ------------------------------------------------

	/** The idle-session scan for this project; returns how many were queued and how many remain pending. */
	async scanIdle(projectId: string, tenantId: string, now: number) {
		this.bind(projectId);
		const { chosen, pending } = await scanProjectIdleSessions(this.penv, projectId, tenantId, now);
		return { queued: chosen.length, pending };
	}

	/**
	 * Deletes this project's content objects that nothing references any more; with an embedding model,
	 * also embeds a slice of the memories still without a vector (the cron's backfill).
	 */
	async sweep(projectId: string, tenantId: string, now: number, graceMs: number) {
		this.bind(projectId);
		const removed =
			(await sweepProjectOrphans(this.penv, projectId, tenantId, now, graceMs)) +
			(await sweepProjectPacks(this.penv, projectId, tenantId, now, graceMs));
		await sweepTranscripts(this.penv, projectId, tenantId, now).catch((err) =>
			console.error("transcript retention failed", err instanceof Error ? err.message : String(err)),
		);
		const { embedder } = this.embedding();
		if (embedder) {
			await backfillVectors(this.db, projectId, embedder, CRON_BACKFILL).catch((err) =>
				console.error("embedding backfill failed", err instanceof Error ? err.message : String(err)),
			);
		}
		return removed;
	}

	/** Re-scans the next slice of this project's memories under the current secret policy into the review queue. */
	async rescanSecrets(projectId: string, limit?: number) {
		this.bind(projectId);
		return rescanProjectSecrets(this.penv, projectId, this.ctx.storage, limit === undefined ? {} : { limit });
	}

	/** Copies rows of the old shared layout into this object; re-copying a row changes nothing. */
	async importLegacy(projectId: string, rows: LegacyRows) {
		this.bind(projectId);
		return importLegacyRows(this.db, projectId, rows);
	}

	/** Erases everything this object holds (the project is being deleted). */
	async wipe(): Promise<void> {
		await this.ctx.storage.deleteAlarm();
		await this.ctx.storage.deleteAll();
		this.boundProject = null;
		migrateProjectSchema(this.ctx.storage);
	}

	// Consolidation ----------------------------------------------------------------------------------

	private async state(): Promise<CoordinatorState> {
		return { ...INITIAL, ...((await this.ctx.storage.get<CoordinatorState>("state")) ?? {}) };
	}

	private async arm(at: number): Promise<void> {
		const current = await this.ctx.storage.getAlarm();
		if (current === null || current > at) await this.ctx.storage.setAlarm(at);
	}

	/** Notes that new material exists; bursts of triggers become one run after the debounce. */
	async markDirty(projectId: string): Promise<CoordinatorState> {
		this.bind(projectId);
		const state = await this.state();
		state.projectId = projectId;
		state.dirty = true;
		state.generation += 1;
		await this.ctx.storage.put("state", state);
		// While a run is in progress its end schedules the re-run.
		if (!state.running || !this.active) await this.arm(Date.now() + DEBOUNCE_MS);
		return state;
	}

	/** A run as soon as possible (the rebuild command): no debounce. */
	async requestRun(projectId: string): Promise<CoordinatorState> {
		const state = await this.markDirty(projectId);
		if (!state.running || !this.active) await this.ctx.storage.setAlarm(Date.now());
		return state;
	}

	async status(): Promise<CoordinatorState> {
		return this.state();
	}

	async alarm(): Promise<void> {
		if (this.active) return; // a run is executing in this instance; its end re-arms if needed
		const state = await this.state();
		if ((!state.dirty && !state.running) || !state.projectId) return;
		const runId = randomId(12);
		state.running = true;
		state.runId = runId;
		state.dirty = false;
		await this.ctx.storage.put("state", state);
		const run = this.execute(state.projectId, runId);
		this.active = run;
		try {
			await run;
		} finally {
			this.active = null;
		}
	}

	private async execute(projectId: string, runId: string): Promise<void> {
		const startedAt = Date.now();
		let lastRun: LastRun;
		let more = false;
		try {
			await this.onRunStart?.();
			const result = await consolidateProject(this.penv, projectId, runId, { model: this.model, faults: this.faults });
			more = result.more;
			lastRun = { at: new Date().toISOString(), outcome: result.outcome, error: null, changes: result.changes, outputs: result.outputs };
		} catch (err) {
			const error = err instanceof ConsolidationError ? err.message : "consolidation failed on an internal error";
			if (!(err instanceof ConsolidationError)) console.error("consolidation failed", err instanceof Error ? err.stack : String(err));
			lastRun = { at: new Date().toISOString(), outcome: "failed", error, changes: 0, outputs: 0 };
		}
		const state = await this.state();
		state.running = false;
		state.runId = null;
		state.lastRun = lastRun;
		state.history = [...state.history, { runId, startedAt, endedAt: Date.now(), outcome: lastRun.outcome }].slice(-HISTORY);
		if (lastRun.outcome === "failed") {
			// The outputs are still pending: try again later, backing off.
			state.failures += 1;
			state.dirty = true;
			await this.ctx.storage.put("state", state);
			await this.ctx.storage.setAlarm(Date.now() + backoffMs(state.failures));
			return;
		}
		state.failures = 0;
		if (more) state.dirty = true;
		await this.ctx.storage.put("state", state);
		if (state.dirty) await this.arm(Date.now() + (more ? 0 : DEBOUNCE_MS));
	}
}
