import { DurableObject } from "cloudflare:workers";
import type { LanguageModel } from "ai";
import { listSkills, readSkill, readSummary, rebuildSummary } from "../consolidate/artifacts";
import { pendingCount } from "../consolidate/inputs";
import { type ConsolidationFaults, consolidateProject } from "../consolidate/run";
import { ConsolidationScheduler } from "../consolidate/scheduler";
import { CairnError, toWire, type WireError } from "../errors";
import { commitIngest, type IngestCommit, ingestBase, seenRecords } from "../ingest/ingest";
import { collecting, Timing } from "../lib/timing";
import { type Embedder, embedderOrReason } from "../llm/embedding";
import { resolveModel } from "../llm/models";
import { proposeArchives } from "../maintenance/archive-unused";
import { sweepTranscripts } from "../maintenance/retention";
import { rescanProjectSecrets } from "../maintenance/secret-rescan";
import { sweepProjectOrphans } from "../maintenance/sweep";
import { restoreMemory } from "../memory/archive";
import { type BatchWrite, writeMemories } from "../memory/batch";
import { clearProjectMemory } from "../memory/clear";
import { type CodeCheck, checkCode, citedPaths } from "../memory/code-check";
import { memoryEvents } from "../memory/events";
import { getIndex } from "../memory/index-file";
import { importLegacyRows, type LegacyRows } from "../memory/legacy";
import { sweepProjectPacks } from "../memory/packs";
import {
	approveProposals,
	clearReviews,
	decideReview,
	getReview,
	listReviews,
	type ProposalBatch,
	type ReviewFilter,
} from "../memory/reviews";
import {
	currentContent,
	deleteMemory,
	getMemoryRow,
	getVersion,
	type ListFilter,
	listManifest,
	listMemories,
	listVersions,
	teamRows,
	type WriteInput,
	writeMemory,
} from "../memory/store";
import type { MemoryScope } from "../memory/topic-file";
import { type ConsumerOptions, processRange, recordRangeFailure } from "../pipeline/consumer";
import type { ExtractMessage } from "../pipeline/messages";
import { listCandidateOutputs } from "../pipeline/outputs";
import { enqueueSessions, scanProjectIdleSessions } from "../pipeline/triggers";
import { backfillVectors, type CandidateOptions, findCandidates } from "../search/candidates";
import { findMemory, resolveMemoryUrl } from "../search/resolve";
import { recordServed, servedTo } from "../search/served";
import { type Kind, nameTopics, startView, topicsOf } from "../search/start-view";
import { readSessionMemory, refreshSessionMemory } from "../session-memory/session-memory";
import { deadLetterCount, listSessions, markEnded, requireOwnSession, sessionsWithPendingTurns } from "../sessions/sessions";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { migrateProjectSchema, recordProject, refreshConcepts, storedProject } from "../storage/schema";
import { ObjectSqlDb } from "../storage/sql";
import { decideHeld, getHeld, listHeld } from "../trust/held";
import { recheckProjectTrust } from "../trust/recheck";
import { awaitingCount, noteSessionKey, type Reviewer, recordSettingChange, vouchRefusal } from "../trust/vouch";

/** Memories embedded per project per cron run when some lack a vector. */
const CRON_BACKFILL = 64;

/** What an RPC method returns: a value, or a domain error in plain form (class identity does not cross RPC). */
export type Outcome<T> = ({ ok: true; value: T } | { ok: false; error: WireError }) & {
	/** The phases timed inside the call (src/lib/timing.ts), when the environment times requests. */
	timing?: [string, number][];
};

/**
 * What a subclass of the object may put in place of what production resolves from the environment: a
 * model for consolidation and session memory, one for stage 1, an embedding model (null: none), fault
 * points in a consolidation run, and a hook at the start of each run. The product sets none; the test
 * harness's object (test/worker.ts) sets them.
 */
export interface ObjectSeams {
	model?: LanguageModel | null;
	extractModel?: LanguageModel | null;
	embedder?: Embedder | null;
	faults?: ConsolidationFaults;
	onRunStart?: () => void | Promise<void>;
}

/** A session's start block as laid out once (src/inject/inject.ts): its parts and what they list. */
export interface StoredLayout {
	parts: string[];
	servedIds: number[];
	listedIds: number[];
	listed: { rules: number; facts: number; ofRules: number; ofFacts: number; topics: number };
	warnings: string[];
}
/**
 * How long a session's layout is kept: its parts' requests arrive within the hooks' seconds, and a later
 * start of the same session (resumed, compacted) must be laid out anew.
 */
const START_LAYOUT_MS = 30_000;
/** A claim older than this is taken over: its holder failed or went away. */
const STALE_CLAIM_MS = 5_000;
const START_LAYOUTS = 256;
/** The longest a part's request waits in the object for another part's layout (the hooks wait at most 5 s). */
const LAYOUT_WAIT_MS = 5_000;

/**
 * One instance per project (addressed by project id, `getByName(projectId)`): it owns the project's
 * data in its own SQLite (memories, versions, full-text index, sessions, stage-1 outputs, skills,
 * consolidation events; schema in src/storage/schema.ts) and serialises consolidation in place of
 * leases (src/consolidate/scheduler.ts). The Worker authenticates and authorises every request; the
 * object trusts the context it is handed but binds itself to one project: the first call records its
 * project id, and a call naming another project is refused. Every method returns an `Outcome`; the
 * Worker calls them through `projectStore` (src/project/client.ts). The methods only delegate: what
 * they do is domain code, each in its own module.
 */
export class ProjectCoordinator extends DurableObject<Env> {
	/** Replacements for what the environment resolves; empty in production (see `ObjectSeams`). */
	protected seams: ObjectSeams = {};
	private configuredEmbedder: { embedder: Embedder | null; reason?: string } | null = null;
	private readonly scheduler: ConsolidationScheduler;
	readonly db: ObjectSqlDb;
	/** The Worker's bindings plus this project's own database, for domain code running here. */
	readonly penv: ProjectEnv;
	private boundProject: string | null = null;
	private readonly startLayouts = new Map<string, { at: number; layout: StoredLayout | null }>();
	/** Parts waiting for a session's layout to be claimed or kept, by session key: woken when it is. */
	private readonly layoutWaiters = new Map<string, Set<() => void>>();

	constructor(ctx: DurableObjectState, env: Env) {
		super(ctx, env);
		this.db = new ObjectSqlDb(ctx.storage.sql, (fn) => ctx.storage.transactionSync(fn));
		this.penv = { ...env, PDB: this.db, embedder: () => this.embedding().embedder };
		this.scheduler = new ConsolidationScheduler(ctx.storage, async (projectId, runId) => {
			await this.seams.onRunStart?.();
			return consolidateProject(this.penv, projectId, runId, {
				model: this.seams.model,
				faults: this.seams.faults,
				afterUser: (ctx, model) => nameTopics(this.db, ctx, model),
			});
		});
		ctx.blockConcurrencyWhile(async () => {
			migrateProjectSchema(ctx.storage);
			refreshConcepts(ctx.storage);
			this.boundProject = storedProject(ctx.storage.sql);
		});
	}

	/** Binds the object to its project on first use; a call for any other project is a routing fault. */
	private bind(projectId: string): void {
		if (this.boundProject === projectId) return;
		if (this.boundProject !== null) throw new CairnError("forbidden", "this project's store was reached for another project");
		recordProject(this.ctx.storage.sql, projectId);
		this.boundProject = projectId;
	}

	/** Runs one operation for `projectId`, returning domain errors as values. */
	private async run<T>(projectId: string, fn: () => Promise<T>): Promise<Outcome<T>> {
		if (!this.env.CAIRN_SERVER_TIMING) return this.outcome(projectId, fn);
		const timing = new Timing();
		const started = performance.now();
		const outcome = await collecting(timing, () => this.outcome(projectId, fn));
		timing.add("total", performance.now() - started);
		return { ...outcome, timing: timing.entries() };
	}

	private async outcome<T>(projectId: string, fn: () => Promise<T>): Promise<Outcome<T>> {
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
		const { embedder } = this.seams;
		if (embedder !== undefined) return embedder ? { embedder } : { embedder: null, reason: "no embedding model is configured" };
		this.configuredEmbedder ??= embedderOrReason(this.env);
		return this.configuredEmbedder;
	}

	/** The project this object serves, or null before its first call. */
	async boundTo(): Promise<Outcome<string | null>> {
		return { ok: true, value: this.boundProject };
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

	/** Serves an archived memory again (src/memory/archive.ts). */
	restoreMemory(ctx: ProjectContext, scope: MemoryScope, name: string) {
		return this.run(ctx.projectId, () => restoreMemory(this.penv, ctx, scope, name));
	}

	getMemory(ctx: ProjectContext, scope: MemoryScope, name: string) {
		return this.run(ctx.projectId, () => getMemoryRow(this.db, ctx, scope, name));
	}

	findMemory(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, () => findMemory(this.db, ctx, name, scope));
	}

	/** A memory's row and its current file text, in one call (the text from the object's index when it can). */
	readMemory(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, async () => {
			const row = await findMemory(this.db, ctx, name, scope);
			return { row, content: await currentContent(this.penv, ctx, row) };
		});
	}

	listMemories(ctx: ProjectContext, filter: ListFilter) {
		return this.run(ctx.projectId, () => listMemories(this.db, ctx, filter));
	}

	/** Rows of the team scope, all of them or those named; `servedOnly`: those served to the caller (team pull). */
	teamMemories(ctx: ProjectContext, names?: string[], servedOnly?: boolean) {
		return this.run(ctx.projectId, () => teamRows(this.db, ctx, names, servedOnly));
	}

	/** What consolidation and review did to a memory, newest first (src/memory/events.ts). */
	memoryEvents(ctx: ProjectContext, name: string, scope?: MemoryScope) {
		return this.run(ctx.projectId, async () => memoryEvents(this.db, ctx, await findMemory(this.db, ctx, name, scope)));
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

	/** Reads a memory:// URL; with the caller's session id, a topic file read counts as that session's use. */
	resolve(ctx: ProjectContext, url: string, sessionId?: string) {
		return this.run(ctx.projectId, () => resolveMemoryUrl(this.penv, ctx, url, sessionId));
	}

	clear(ctx: ProjectContext) {
		return this.run(ctx.projectId, async () => {
			const cleared = await clearProjectMemory(this.penv, ctx);
			await clearReviews(this.db, ctx.projectId);
			return cleared;
		});
	}

	// The review queue ---------------------------------------------------------------------------------

	reviews(ctx: ProjectContext, filter: ReviewFilter) {
		return this.run(ctx.projectId, () => listReviews(this.db, ctx, filter));
	}

	review(ctx: ProjectContext, id: string, reviewer: Reviewer) {
		return this.run(ctx.projectId, () => getReview(this.db, ctx, id, reviewer));
	}

	decideReview(ctx: ProjectContext, id: string, decision: "approve" | "reject", reviewer: Reviewer) {
		return this.run(ctx.projectId, () => decideReview(this.penv, ctx, id, decision, reviewer));
	}

	/** Held writes (src/trust/held.ts): an admin sees and decides everyone's; anyone else sees and rejects their own. */
	held(ctx: ProjectContext, options: { reviewer: Reviewer; status: "pending" | "approved" | "rejected"; limit: number }) {
		return this.run(ctx.projectId, () => listHeld(this.db, ctx, options));
	}

	heldItem(ctx: ProjectContext, id: string, reviewer: Reviewer) {
		return this.run(ctx.projectId, () => getHeld(this.db, ctx, id, reviewer));
	}

	decideHeld(ctx: ProjectContext, id: string, decision: "approve" | "reject", reviewer: Reviewer) {
		return this.run(ctx.projectId, () => decideHeld(this.penv, ctx, id, decision, reviewer));
	}

	/** Records that an agent session used `keyId` in this project: it no longer vouches or approves (src/trust/vouch.ts). */
	noteSessionKey(ctx: ProjectContext, keyId: string) {
		return this.run(ctx.projectId, () => noteSessionKey(this.db, ctx.projectId, keyId));
	}

	/**
	 * A change of a project setting only a person may make (the publish setting, src/trust/vouch.ts): refused
	 * from an agent's session or with a key one used; `value` given: recorded as an audit event once made.
	 */
	settingChange(ctx: ProjectContext, reviewer: Reviewer, key: string, value?: unknown) {
		return this.run(ctx.projectId, async () => {
			if (value !== undefined) return recordSettingChange(this.db, ctx, key, value);
			const refusal = await vouchRefusal(this.db, ctx.projectId, reviewer);
			if (refusal) throw refusal;
		});
	}

	/** Approves a writer's or a session's pending team proposals at once (src/memory/reviews.ts). */
	approveProposals(ctx: ProjectContext, reviewer: Reviewer, batch: ProposalBatch) {
		return this.run(ctx.projectId, () => approveProposals(this.penv, ctx, reviewer, batch));
	}

	/** Team memories awaiting a person's review in this project. */
	awaitingReview(ctx: ProjectContext) {
		return this.run(ctx.projectId, () => awaitingCount(this.db, ctx.projectId));
	}

	// Recall -----------------------------------------------------------------------------------------

	/**
	 * The candidates for a query that the caller may see: ranked full-text matches of its words and CJK
	 * grams, and with `semanticQuery` the memories nearest to its embedding (src/search/candidates.ts).
	 */
	recallCandidates(ctx: ProjectContext, terms: string[], options: CandidateOptions) {
		return this.run(ctx.projectId, () => findCandidates(this.db, ctx, terms, options, this.embedding()));
	}

	/** The selector's manifest: the memories the caller may see in `scopes`, most used then most recent first (rows without bodies). */
	manifest(ctx: ProjectContext, scopes: MemoryScope[], limit: number) {
		return this.run(ctx.projectId, () => listManifest(this.db, ctx, scopes, limit));
	}

	/** The session-start block's index rows: every header the caller may see in `scopes`, the first `limit` of each kind by standing, counts and topics. */
	startView(ctx: ProjectContext, scopes: MemoryScope[], limit: Record<Kind, number>, fill?: number) {
		return this.run(ctx.projectId, () => startView(this.db, ctx, scopes, limit, fill));
	}

	/**
	 * A session's start block, laid out once and answered in parts (src/inject/start-parts.ts): the parts'
	 * requests may arrive together and in any order, in different isolates. `claim`: the caller will lay it
	 * out unless someone holds a claim younger than `STALE_CLAIM_MS` or the layout is here; the answer says
	 * which. Otherwise the call waits here up to `waitMs` for the layout (woken the moment it is kept), so a
	 * part that is not laying it out answers as soon as the one that is has finished. Kept in the object's
	 * memory for `START_LAYOUT_MS`, at most `START_LAYOUTS` sessions.
	 */
	startLayout(ctx: ProjectContext, key: string, claim: boolean, waitMs = 0) {
		return this.run(ctx.projectId, async () => {
			const at = `${ctx.userId}/${key}`;
			const until = Date.now() + Math.max(0, Math.min(waitMs, LAYOUT_WAIT_MS));
			for (;;) {
				const now = Date.now();
				const entry = this.startLayouts.get(at);
				if (entry?.layout && now - entry.at < START_LAYOUT_MS) return { layout: entry.layout, claimed: false };
				const held = entry !== undefined && !entry.layout && now - entry.at < STALE_CLAIM_MS;
				if (!held && claim) {
					this.keepLayout(at, { at: now, layout: null });
					return { layout: null, claimed: true };
				}
				if (now >= until) return { layout: null, claimed: false };
				await this.layoutChange(at, until - now);
			}
		});
	}

	/** Keeps a session's layout; the first one kept wins, so every part answers from the same ranking. */
	keepStartLayout(ctx: ProjectContext, key: string, layout: StoredLayout) {
		return this.run(ctx.projectId, async () => {
			const entry = this.startLayouts.get(`${ctx.userId}/${key}`);
			if (entry?.layout && Date.now() - entry.at < START_LAYOUT_MS) return entry.layout;
			this.keepLayout(`${ctx.userId}/${key}`, { at: Date.now(), layout });
			return layout;
		});
	}

	private keepLayout(key: string, entry: { at: number; layout: StoredLayout | null }) {
		this.startLayouts.delete(key);
		this.startLayouts.set(key, entry);
		while (this.startLayouts.size > START_LAYOUTS) this.startLayouts.delete(this.startLayouts.keys().next().value as string);
		const waiting = this.layoutWaiters.get(key);
		this.layoutWaiters.delete(key);
		for (const wake of waiting ?? []) wake();
	}

	/** Resolves when the session's layout is claimed or kept, or after `ms`. */
	private layoutChange(key: string, ms: number): Promise<void> {
		return new Promise((resolve) => {
			const waiting = this.layoutWaiters.get(key) ?? new Set<() => void>();
			this.layoutWaiters.set(key, waiting);
			const wake = () => {
				clearTimeout(timer);
				waiting.delete(wake);
				if (waiting.size === 0 && this.layoutWaiters.get(key) === waiting) this.layoutWaiters.delete(key);
				resolve();
			};
			const timer = setTimeout(wake, ms);
			waiting.add(wake);
		});
	}

	/** The topics holding these memories (src/search/topics.ts), and those the prompt names by key or by kind, for a prompt's block. */
	topicsOf(ctx: ProjectContext, ids: number[], words: string[] = [], kinds: string[] = [], session?: string) {
		return this.run(ctx.projectId, () => topicsOf(this.db, ctx, ids, words, kinds, session));
	}

	/** Every path the caller's memories cite, for a check from the repository (src/memory/code-check.ts). */
	citedPaths(ctx: ProjectContext, knownStamp?: string) {
		return this.run(ctx.projectId, () => citedPaths(this.db, ctx, knownStamp));
	}

	/** Applies a check of cited code from the repository (when given) and returns the marks of the memories whose code changed or went. */
	checkCode(ctx: ProjectContext, check: CodeCheck | null) {
		return this.run(ctx.projectId, () => checkCode(this.db, ctx, check));
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

	/** Marks memories as handed to the caller's session `sessionId` (kept per user: see `sessionUseKey`); `listedIds`: index lines shown alone; `topicKeys`: topic lines shown. */
	recordServed(ctx: ProjectContext, memoryIds: number[], sessionId?: string, listedIds?: number[], topicKeys?: string[]) {
		return this.run(ctx.projectId, () => recordServed(this.db, ctx, memoryIds, sessionId, listedIds, topicKeys));
	}

	/** What this session was already handed (recall and inject with its id): bodies, and index lines shown alone. */
	servedTo(ctx: ProjectContext, sessionId: string) {
		return this.run(ctx.projectId, () => servedTo(this.db, ctx, sessionId));
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
		if (this.seams.model !== undefined) return this.seams.model;
		try {
			return resolveModel(this.env, "smol");
		} catch {
			return null;
		}
	}

	/** Stage 1 for one queued range; failures are recorded on the session and reported, not thrown. */
	extractRange(message: ExtractMessage, attempts: number, maxAttempts: number) {
		return this.run(message.projectId, async () => {
			const options: ConsumerOptions = {
				model: this.seams.extractModel,
				markDirty: async () => {
					await this.scheduler.markDirty(message.projectId);
				},
			};
			try {
				return await processRange(this.penv, message, options);
			} catch (err) {
				return recordRangeFailure(this.penv, message, err, attempts, maxAttempts);
			}
		});
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
	scanIdle(projectId: string, tenantId: string, now: number) {
		return this.run(projectId, async () => {
			const { chosen, pending } = await scanProjectIdleSessions(this.penv, projectId, tenantId, now);
			return { queued: chosen.length, pending };
		});
	}

	/**
	 * Deletes this project's content objects that nothing references any more; removes consumed transcript
	 * chunks past their retention; proposes memories served often and never used for archiving; with an
	 * embedding model, also embeds a slice of the memories still without a vector (the cron's backfill).
	 */
	sweep(projectId: string, tenantId: string, now: number, graceMs: number) {
		return this.run(projectId, async () => {
			const removed =
				(await sweepProjectOrphans(this.penv, projectId, tenantId, now, graceMs)) +
				(await sweepProjectPacks(this.penv, projectId, tenantId, now, graceMs));
			await sweepTranscripts(this.penv, projectId, tenantId, now).catch((err) =>
				console.error("transcript retention failed", err instanceof Error ? err.message : String(err)),
			);
			await proposeArchives(this.penv, projectId, tenantId, this.ctx.storage).catch((err) =>
				console.error("archive proposals failed", err instanceof Error ? err.message : String(err)),
			);
			const { embedder } = this.embedding();
			if (embedder) {
				await backfillVectors(this.db, projectId, embedder, CRON_BACKFILL).catch((err) =>
					console.error("embedding backfill failed", err instanceof Error ? err.message : String(err)),
				);
			}
			return removed;
		});
	}

	/** Re-scans the next slice of this project's memories under the current secret policy into the review queue. */
	rescanSecrets(projectId: string, limit?: number) {
		return this.run(projectId, () => rescanProjectSecrets(this.penv, projectId, this.ctx.storage, limit === undefined ? {} : { limit }));
	}

	/** Checks the next slice of this project's unreviewed memories under the current danger check; holds what it flags. */
	recheckTrust(tenantId: string, projectId: string, limit?: number) {
		return this.run(projectId, () =>
			recheckProjectTrust(this.penv, tenantId, projectId, this.ctx.storage, limit === undefined ? {} : { limit }),
		);
	}

	/** Copies rows of the old shared layout into this object; re-copying a row changes nothing. */
	importLegacy(projectId: string, rows: LegacyRows) {
		return this.run(projectId, () => importLegacyRows(this.db, projectId, rows));
	}

	/** Erases everything this object holds (the project is being deleted). */
	wipe(projectId: string) {
		return this.run(projectId, async () => {
			await this.ctx.storage.deleteAlarm();
			await this.ctx.storage.deleteAll();
			this.boundProject = null;
			migrateProjectSchema(this.ctx.storage);
		});
	}

	// Consolidation (src/consolidate/scheduler.ts) ----------------------------------------------------

	/** Notes that new material exists; bursts of triggers become one run after the debounce. */
	markDirty(projectId: string) {
		return this.run(projectId, () => this.scheduler.markDirty(projectId));
	}

	/** A run as soon as possible (the rebuild command): no debounce. */
	requestRun(projectId: string) {
		return this.run(projectId, () => this.scheduler.requestRun(projectId));
	}

	/** The scheduler's state: whether a run is pending or running, the last run, recent history. */
	status(projectId: string) {
		return this.run(projectId, () => this.scheduler.state());
	}

	async alarm(): Promise<void> {
		await this.scheduler.alarm();
	}
}
