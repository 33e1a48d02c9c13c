import { CairnError, notFound } from "../errors";
import { nowIso, sha256Hex } from "../lib/ids";
import { timed } from "../lib/timing";
import { assertNoSecretsIn } from "../security/guard";
import { ownSessionId } from "../sessions/sessions";
import { clientSessionId } from "../sessions/turns";
import { effectiveSettings, requireFeature } from "../settings/settings";
import { holdContent } from "../storage/content-holds";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { GuardFailure, type ProjectDb, type ProjectStatement } from "../storage/sql";
import { type Citation, citationsOf, resolveCitations, validateCitations } from "../text/citations";
import { deriveCues } from "../text/concepts";
import { gateWrite } from "../trust/gate";
import { type TrustTier, tierOfSource, type WriteTrust } from "../trust/tier";
import { resolveWriteTrust, servedInSql, servedSql, vouchStatements } from "../trust/vouch";
import { restoreStatements } from "./archive-rows";
import { type CodeState, citationStatements } from "./code-check";
import { cueStatements, dropStatements, embedForWrite, gramStatements, type RowRef, rowById, vectorStatements } from "./index-rows";
import { packRange } from "./packs";
import { memoryUrl, objectKey } from "./paths";
import type { CueSource, MemoryRow } from "./rows";
import {
	assertBodySize,
	assertValidName,
	type MemoryScope,
	type MemorySource,
	type MemoryType,
	renderTopicFile,
	type TopicFile,
	validateCues,
	validateFields,
} from "./topic-file";

export type { MemorySource } from "./topic-file";

/** A row's cues; an unreadable value reads as none. */
export function cuesOf(row: Pick<MemoryRow, "cues">): string[] {
	try {
		const value = JSON.parse(row.cues ?? "[]");
		return Array.isArray(value) ? value.filter((c): c is string => typeof c === "string") : [];
	} catch {
		return [];
	}
}

export interface MemoryMetadata {
	name: string;
	type: MemoryType;
	description: string;
	scope: MemoryScope;
	path: string;
	version: number;
	createdAt: string;
	updatedAt: string;
	verifiedAt: string;
	source: MemorySource;
	sessionId: string | null;
	timesServed: number;
	lastServedAt: string | null;
	/** Sessions it was served in, whose agent cited its path, that read it (src/memory/use.ts). */
	sessionsServed: number;
	sessionsCited: number;
	lastCitedAt: string | null;
	sessionsRead: number;
	lastReadAt: string | null;
	/** When a person approved archiving it: no longer served, still listed and readable (src/memory/archive-rows.ts). */
	archivedAt: string | null;
	/** A scope this memory is proposed for and nobody has decided yet (a rule its author called a team rule). */
	proposedScope: MemoryScope | null;
	/** The situations in which the memory applies, in its language and in English. */
	cues: string[];
	/** Whether the cues were written (by a model or a person) or derived from the concept map. */
	cuesSource: CueSource;
	/** The repository code it is about, as written (src/text/citations.ts). */
	citations: Citation[];
	/** What the last check of that code found: current, changed (or moved), gone; null when nothing it cites is tracked. */
	codeState: CodeState | null;
	/**
	 * A team memory whose current text no person vouched for yet (src/trust/vouch.ts): served to its writer
	 * only, marked unreviewed, until a person approves it. False for personal memories.
	 */
	awaitingReview: boolean;
}

export function toMetadata(row: MemoryRow): MemoryMetadata {
	return {
		name: row.name,
		type: row.type,
		description: row.description,
		scope: row.scope,
		path: memoryUrl(row.scope, row.name),
		version: row.version,
		createdAt: row.created_at,
		updatedAt: row.updated_at,
		verifiedAt: row.verified_at,
		source: row.source,
		sessionId: row.session_id === null ? null : clientSessionId(row.session_id),
		timesServed: row.times_served,
		lastServedAt: row.last_served_at,
		sessionsServed: row.served_sessions ?? 0,
		sessionsCited: row.cited_sessions ?? 0,
		lastCitedAt: row.last_cited_at ?? null,
		sessionsRead: row.read_sessions ?? 0,
		lastReadAt: row.last_read_at ?? null,
		archivedAt: row.archived_at ?? null,
		proposedScope: row.proposed_scope ?? null,
		cues: cuesOf(row),
		cuesSource: row.cues_source ?? "derived",
		citations: citationsOf(row),
		codeState: row.code_state ?? null,
		awaitingReview: row.scope === "team" && !row.vouched_by,
	};
}

const ownerOf = (ctx: ProjectContext, scope: MemoryScope) => (scope === "team" ? "" : ctx.userId);

export async function getMemoryRow(db: ProjectDb, ctx: ProjectContext, scope: MemoryScope, name: string) {
	return db
		.prepare("SELECT * FROM memories WHERE project_id = ? AND scope = ? AND owner_id = ? AND name = ?")
		.bind(ctx.projectId, scope, ownerOf(ctx, scope), name)
		.first<MemoryRow>();
}

export interface WriteInput {
	scope: MemoryScope;
	file: TopicFile;
	source: MemorySource;
	sessionId?: string | null;
	/** Expected current version (`If-Match`); "*" requires that the memory exists. */
	ifMatch?: number | "*";
	/** Records (or, with null, clears) a scope the memory is proposed for; left as is when absent. */
	proposedScope?: MemoryScope | null;
	/** The consolidation run that writes this version, and the sessions and turns it rests on. */
	provenance?: { runId: string; evidence: VersionEvidence[] };
	/**
	 * When the memory applies (validated by CuesSchema). Given: stored as written. Absent: written cues
	 * already stored are kept, otherwise cues are derived from the concept map. An empty list derives.
	 */
	cues?: string[];
	/**
	 * The code it is about (validated by CitationsInputSchema). Given: stored as written ([] removes them).
	 * Absent: the writer's citations already stored are kept and the paths its text names join them.
	 */
	citations?: Citation[];
	/** How the write came and whether an admin reviewed its text (src/trust/tier.ts); absent: implied by `source`, not reviewed. */
	trust?: WriteTrust;
	/** Files the agent read or edited in the turns the write comes from (consolidation): join the citations when none are given. */
	transcriptCitations?: Citation[];
}

/** A session and the turns in it (`t<seq>`) that a version rests on. */
export interface VersionEvidence {
	session: string;
	turns: string[];
}

export interface WriteResult {
	status: "created" | "updated" | "unchanged";
	memory: MemoryMetadata;
}

/** Points where a test can make a write fail, to prove the ordering leaves no dangling pointer. */
export interface WriteFaults {
	afterObjectPut?: () => void | Promise<void>;
}

/**
 * A condition the write's transaction checks before anything else (an SQL boolean expression and its
 * arguments): when it no longer holds at commit time nothing is written and `error()` is thrown.
 * Consolidation uses it to stop writing once the project was cleared under it.
 */
export interface WriteGuard {
	condition: string;
	args: unknown[];
	error: () => Error;
}

/** A statement that rolls its batch back unless `condition` holds (see ProjectDb.guard). */
export const guardStatement = (db: ProjectDb, condition: string, args: unknown[]): ProjectStatement => db.guard(condition, ...args);

/** Whether an error thrown by a batch is a guard statement's refusal. */
export const isGuardFailure = (err: unknown) => err instanceof GuardFailure;

/** The parts of a memory that are free text, as the secret scan reads them: description, body, cues. */
export const secretScanText = (description: string, body: string, cues: string[] = []) =>
	`${description}\n${body}${cues.map((c) => `\n${c}`).join("")}`;

/** Scans the parts of a memory that are free text; throws 422 naming rules, never the secret. */
export const assertNoSecrets = (file: TopicFile, cues: string[] = []) =>
	assertNoSecretsIn(secretScanText(file.description, file.body, cues), "memory");

/** The cues a write stores, and where they come from (see WriteInput.cues). */
export function resolveCues(
	file: TopicFile,
	given: string[] | undefined,
	current: MemoryRow | null,
): { cues: string[]; source: CueSource } {
	if (given && given.length > 0) return { cues: given, source: "written" };
	if (given === undefined && current?.cues_source === "written") return { cues: cuesOf(current), source: "written" };
	return { cues: deriveCues(file), source: "derived" };
}

/** Refuses writes to a scope that settings or managed policy switched off (`feature_disabled`, naming the setting). */
export async function assertScopeWritable(env: Env, ctx: ProjectContext, scope: MemoryScope): Promise<void> {
	const settings = await effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
	requireFeature(settings, `${scope} memory`, [scope === "team" ? "memories.teamMemory" : "memories.personalMemory"]);
}

/** A write whose fields passed every check that needs no storage: the normalised file and the cues given. */
export interface CheckedWrite {
	file: TopicFile;
	givenCues: string[] | undefined;
	givenCitations?: Citation[];
}

/**
 * Every invariant of a memory that needs no storage, for every caller (REST, batch, MCP, team sync,
 * import, consolidation): the name, the fields (a single-line description), the size, the cues and the
 * secret scan (422 naming rules, never the secret).
 */
export async function checkWrite(input: Pick<WriteInput, "file" | "cues" | "citations">): Promise<CheckedWrite> {
	assertValidName(input.file.name);
	const file: TopicFile = { ...input.file, ...validateFields(input.file) };
	assertBodySize(file.body);
	const givenCues = input.cues === undefined ? undefined : validateCues(input.cues);
	await timed("check.secrets", () => assertNoSecrets(file, givenCues));
	// Citations a writer gives are the writer's, whatever their `source` says.
	const givenCitations =
		input.citations === undefined ? undefined : validateCitations(input.citations.map(({ source: _source, ...c }) => c));
	return { file, givenCues, ...(givenCitations ? { givenCitations } : {}) };
}

/**
 * The session an agent's write names, as stored: the caller's own; another user's session of the same
 * id is another session (ids are per user), neither marked nor revealed by this write.
 */
export async function writerSession(db: ProjectDb, ctx: ProjectContext, input: Pick<WriteInput, "source" | "sessionId">) {
	const sessionId = input.sessionId ?? null;
	return input.source === "agent" && sessionId ? ownSessionId(db, ctx, sessionId) : sessionId;
}

/**
 * What one write does, decided against the memory's current row: nothing; its cues only (metadata, no
 * new version of the file); or a new version, whose content object must be in R2 before `statements`
 * (everything but the vector and the index generation) commit.
 */
export type WritePlan =
	| { kind: "unchanged"; current: MemoryRow }
	| { kind: "cues"; current: MemoryRow; statements: ProjectStatement[] }
	| {
			kind: "version";
			current: MemoryRow | null;
			file: TopicFile;
			content: string;
			hash: string;
			/** The object to put before the commit: the content-addressed one, or null when `contentRef` points into a pack. */
			key: string | null;
			contentRef: string | null;
			searchRow: RowRef;
			statements: ProjectStatement[];
	  };

/**
 * Plans one checked write (see WritePlan); `sessionId` is the writer's own (writerSession). `pack`, when
 * given, takes a new version's content and returns where it will be (a batch's pack, src/memory/packs.ts).
 */
export async function planWrite(
	db: ProjectDb,
	ctx: ProjectContext,
	input: Pick<WriteInput, "scope" | "source" | "proposedScope" | "provenance" | "trust" | "transcriptCitations">,
	checked: CheckedWrite,
	current: MemoryRow | null,
	sessionId: string | null,
	now: string,
	pack?: (content: string, hash: string) => string,
): Promise<WritePlan> {
	const { scope } = input;
	const { file } = checked;
	const content = renderTopicFile(file);
	const hash = await sha256Hex(content);
	const cues = resolveCues(file, checked.givenCues, current);
	const cuesJson = JSON.stringify(cues.cues);
	const citations = timed("check.citations", () => resolveCitations(file, checked.givenCitations, current, input.transcriptCitations));
	if (current && current.content_hash === hash) {
		const sameCitations = JSON.stringify(citations) === JSON.stringify(citationsOf(current));
		if (current.cues === cuesJson && current.cues_source === cues.source && sameCitations) return { kind: "unchanged", current };
		return {
			kind: "cues",
			current,
			statements: [
				// In a batch the commit comes after the R2 put: the memory must still be at the version read, or
				// its cue row is not replaced either.
				guardStatement(db, "EXISTS (SELECT 1 FROM memories WHERE id = ? AND version = ?)", [current.id, current.version]),
				db
					.prepare("UPDATE memories SET cues = ?, cues_source = ? WHERE id = ? AND version = ?")
					.bind(cuesJson, cues.source, current.id, current.version),
				...cueStatements(db, rowById(current.id), { ...file, cues: cues.cues }),
				...(sameCitations ? [] : citationStatements(db, ctx.projectId, rowById(current.id), citations, now)),
			],
		};
	}

	const bytes = new TextEncoder().encode(content).byteLength;
	const contentRef = pack ? pack(content, hash) : null;
	const owner = ownerOf(ctx, scope);
	const identity = "project_id = ? AND scope = ? AND owner_id = ? AND name = ?";
	const identityArgs = [ctx.projectId, scope, owner, file.name];
	// The CJK, cue and vector indexes change with memories_fts.
	const searchRow: RowRef = current ? rowById(current.id) : { sql: `(SELECT id FROM memories WHERE ${identity})`, args: identityArgs };
	// What a write sets on the memory's row, in the order both the update and the insert bind it.
	const written = [file.type, file.description, hash, contentRef, bytes, input.source, sessionId, ctx.userId];

	const statements: ProjectStatement[] = current
		? [
				// The R2 put is an await: a concurrent delete (or update) of this memory may land before the
				// commit. The memory must still be at the version read, or nothing is written — no version or
				// search row for a memory that is gone.
				guardStatement(db, "EXISTS (SELECT 1 FROM memories WHERE id = ? AND version = ?)", [current.id, current.version]),
				// The (memory_id, version) primary key makes a concurrent writer's batch fail as a whole.
				db
					.prepare(
						`INSERT INTO memory_versions (memory_id, project_id, version, content_hash, content_ref, type, description, source, session_id, author_id, created_at)
						 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					)
					.bind(
						current.id,
						ctx.projectId,
						current.version + 1,
						hash,
						contentRef,
						file.type,
						file.description,
						input.source,
						sessionId,
						ctx.userId,
						now,
					),
				db
					.prepare(
						`UPDATE memories SET type = ?, description = ?, version = version + 1, content_hash = ?, content_ref = ?, bytes = ?, source = ?,
						 session_id = ?, author_id = ?, updated_at = ?, verified_at = ? WHERE id = ? AND version = ?`,
					)
					.bind(...written, now, now, current.id, current.version),
				db.prepare("DELETE FROM memories_fts WHERE rowid = ?").bind(current.id),
				db
					.prepare("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)")
					.bind(current.id, file.name, file.description, file.body),
				...gramStatements(db, searchRow, file),
				...cueStatements(db, searchRow, { ...file, cues: cues.cues }),
			]
		: [
				db
					.prepare(
						`INSERT INTO memories (project_id, scope, owner_id, name, type, description, content_hash, content_ref, bytes, source, session_id, author_id, version, created_at, updated_at, verified_at)
						 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?)`,
					)
					.bind(ctx.projectId, scope, owner, file.name, ...written, now, now, now),
				db
					.prepare(
						`INSERT INTO memory_versions (memory_id, project_id, version, content_hash, content_ref, type, description, source, session_id, author_id, created_at)
						 SELECT id, project_id, 1, content_hash, content_ref, type, description, source, session_id, author_id, created_at FROM memories WHERE ${identity}`,
					)
					.bind(...identityArgs),
				db
					.prepare(`INSERT INTO memories_fts (rowid, name, description, body) SELECT id, ?, ?, ? FROM memories WHERE ${identity}`)
					.bind(file.name, file.description, file.body, ...identityArgs),
				...gramStatements(db, searchRow, file),
				...cueStatements(db, searchRow, { ...file, cues: cues.cues }),
				db
					.prepare(
						`INSERT INTO memory_visibility (memory_id, project_id, scope, owner_id) SELECT id, project_id, scope, owner_id FROM memories WHERE ${identity}`,
					)
					.bind(...identityArgs),
			];
	statements.push(
		db.prepare(`UPDATE memories SET cues = ?, cues_source = ? WHERE ${identity}`).bind(cuesJson, cues.source, ...identityArgs),
	);
	// The code it cites, on the memory and on this version (history keeps what each version cited).
	statements.push(
		...citationStatements(db, ctx.projectId, searchRow, citations, now),
		db
			.prepare(
				`UPDATE memory_versions SET citations = ?
				 WHERE memory_id = (SELECT id FROM memories WHERE ${identity}) AND version = (SELECT version FROM memories WHERE ${identity})`,
			)
			.bind(JSON.stringify(citations), ...identityArgs, ...identityArgs),
	);
	if (input.provenance) {
		statements.push(
			db
				.prepare(
					`UPDATE memory_versions SET run_id = ?, evidence_json = ?
					 WHERE memory_id = (SELECT id FROM memories WHERE ${identity}) AND version = (SELECT version FROM memories WHERE ${identity})`,
				)
				.bind(input.provenance.runId, JSON.stringify(input.provenance.evidence), ...identityArgs, ...identityArgs),
		);
	}
	// How this version came (src/trust/tier.ts): a new version is reviewed only when its own text was.
	const trust = [input.trust?.tier ?? tierOfSource(input.source), input.trust?.reviewedBy ?? null];
	statements.push(
		db.prepare(`UPDATE memories SET trust = ?, reviewed_by = ? WHERE ${identity}`).bind(...trust, ...identityArgs),
		db
			.prepare(
				`UPDATE memory_versions SET trust = ?, reviewed_by = ?
				 WHERE memory_id = (SELECT id FROM memories WHERE ${identity}) AND version = (SELECT version FROM memories WHERE ${identity})`,
			)
			.bind(...trust, ...identityArgs, ...identityArgs),
	);
	// A team version reaches teammates only when a person vouched for it (src/trust/vouch.ts); else it is a proposal.
	if (scope === "team") {
		statements.push(
			...vouchStatements(
				db,
				ctx,
				{
					file,
					vouchedBy: input.trust?.vouchedBy ?? null,
					tier: trust[0] as TrustTier,
					sessionId,
					version: current ? current.version + 1 : 1,
					memory: { sql: `(SELECT id FROM memories WHERE ${identity})`, args: identityArgs },
				},
				now,
			),
		);
	}
	if (input.proposedScope !== undefined) {
		statements.push(db.prepare(`UPDATE memories SET proposed_scope = ? WHERE ${identity}`).bind(input.proposedScope, ...identityArgs));
	}
	// A new version of an archived memory is news about it: it is served again (src/memory/archive-rows.ts).
	if (current?.archived_at) statements.push(...restoreStatements(db, current.id));
	if (input.source === "agent" && sessionId) {
		// Placed at the session's current turn count: stage 1 leaves out the tool call at or after that
		// turn which made this write (and its result), not the rest of the range (agentWriteTurns).
		statements.push(
			db
				.prepare(
					`INSERT OR IGNORE INTO session_writes (project_id, session_id, seq, memory_name, created_at)
					 VALUES (?1, ?2, coalesce((SELECT turns FROM sessions WHERE project_id = ?1 AND id = ?2), 0), ?3, ?4)`,
				)
				.bind(ctx.projectId, sessionId, file.name, now),
		);
	}
	const key = contentRef === null ? objectKey(ctx.tenantId, ctx.projectId, hash) : null;
	return { kind: "version", current, file, content, hash, key, contentRef, searchRow, statements };
}

/** Bumps the project's index generation: `MEMORY.md` is rebuilt when its cached copy is behind. */
/**
 * Whether a write changes what the index generation stands for — the listed headers (MEMORY.md, the
 * start view's counts and topics: name, type, description, scope, whether archived). A new body under
 * the same header does not: those caches stay valid through a project's busiest updates.
 */
export const headerChanges = (current: MemoryRow | null, file: Pick<TopicFile, "type" | "description">, vouched?: boolean): boolean =>
	!current ||
	(current.archived_at ?? null) !== null ||
	current.type !== file.type ||
	current.description !== file.description ||
	// A team memory turning into a proposal (or vouched for) changes who is served it.
	(current.scope === "team" && vouched !== undefined && Boolean(current.vouched_by) !== vouched);

export const bumpIndexStatement = (db: ProjectDb, ctx: ProjectContext): ProjectStatement =>
	db.prepare("UPDATE projects SET index_generation = index_generation + 1 WHERE id = ?").bind(ctx.projectId);

/** Puts a content-addressed object (the same bytes, the same key: idempotent). */
export const putContent = (env: Env, key: string, content: string) =>
	env.FILES.put(key, content, { httpMetadata: { contentType: "text/markdown; charset=utf-8" } });

/**
 * The error a write's failed commit means: the caller's guard no longer holding, a concurrent change or
 * delete (the version guard, or a key constraint), or — anything else — the error itself.
 */
export async function commitFailure(db: ProjectDb, err: unknown, guard?: WriteGuard): Promise<unknown> {
	if (guard && isGuardFailure(err)) {
		const stillHolds = await guardStatement(db, guard.condition, guard.args)
			.first()
			.then(() => true)
			.catch(() => false);
		if (!stillHolds) return guard.error();
	}
	if (isGuardFailure(err)) {
		return new ConcurrentWrite("the memory was changed or deleted by a concurrent request; re-read and retry");
	}
	if (/UNIQUE|PRIMARY KEY|constraint/i.test(String(err))) {
		return new ConcurrentWrite("the memory was changed by a concurrent write; re-read and retry");
	}
	return err;
}

/** A write's commit found the memory no longer as it read it: another write or a delete landed first. */
export class ConcurrentWrite extends CairnError {
	constructor(message: string) {
		super("version_conflict", message);
	}
}

/** How many times a write without If-Match is planned again over concurrent updates before it reports the conflict. */
export const WRITE_ATTEMPTS = 4;

/**
 * Writes one topic file: the one write function every single write calls (batches go through
 * `writeMemories`, src/memory/batch.ts, which shares every step), enforcing the name, the fields, the
 * size, the secret scan and the scope switches and policy (`checkWrite`, `assertScopeWritable`).
 * Order: the content-addressed R2 object first, then one transaction that inserts the version row,
 * moves the memory's pointer and replaces its search rows together. A crash between the two leaves an
 * unreferenced object (swept later), never a pointer to nothing. The object's key is held against the
 * orphan sweep from the put until the transaction has landed; an update's transaction first checks
 * that the memory is still at the version read (a delete or update that landed during the put makes
 * it write nothing: 412); a caller's `guard` is checked in the same transaction.
 * Cost is independent of how many memories the project holds.
 */
export async function writeMemory(
	env: ProjectEnv,
	ctx: ProjectContext,
	input: WriteInput,
	faults: WriteFaults = {},
	guard?: WriteGuard,
): Promise<WriteResult> {
	for (let attempt = 1; ; attempt++) {
		try {
			return await writeOnce(env, ctx, input, faults, guard);
		} catch (err) {
			// Without If-Match the writer asked for "this text, now": an update that landed during this one's
			// R2 put is not its conflict, so it is planned again over it (last writer wins, as if in turn).
			// A memory deleted meanwhile stays deleted: that is reported.
			if (!(err instanceof ConcurrentWrite) || input.ifMatch !== undefined || attempt >= WRITE_ATTEMPTS) throw err;
			if (!(await getMemoryRow(env.PDB, ctx, input.scope, input.file.name))) throw err;
		}
	}
}

/** One attempt of `writeMemory`. */
async function writeOnce(
	env: ProjectEnv,
	ctx: ProjectContext,
	input: WriteInput,
	faults: WriteFaults,
	guard?: WriteGuard,
): Promise<WriteResult> {
	const { scope } = input;
	const checked = await checkWrite(input);
	await assertScopeWritable(env, ctx, scope);
	// Whether this write may review or vouch for its text depends on its key and the project (src/trust/vouch.ts).
	input = { ...input, trust: await resolveWriteTrust(env, ctx, scope, input.trust) };
	const sessionId = await writerSession(env.PDB, ctx, input);
	const current = await getMemoryRow(env.PDB, ctx, scope, checked.file.name);

	if (input.ifMatch !== undefined) {
		const matches = input.ifMatch === "*" ? current !== null : current?.version === input.ifMatch;
		if (!matches) {
			throw new CairnError("version_conflict", "the memory changed since the version given in If-Match", {
				currentVersion: current?.version ?? null,
			});
		}
	}
	const db = env.PDB;
	const plan = await planWrite(db, ctx, input, checked, current, sessionId, nowIso());
	if (plan.kind === "unchanged") return { status: "unchanged", memory: toMetadata(plan.current) };
	// New text passes the trust gate (src/trust/gate.ts): flagged and unreviewed, it is held and nothing is written.
	if (plan.kind === "version") {
		await timed("check.trust", () =>
			gateWrite(
				db,
				ctx,
				{ scope, file: checked.file, source: input.source, trust: input.trust, cues: checked.givenCues },
				current?.version ?? null,
			),
		);
	}
	if (plan.kind === "cues") {
		try {
			await db.batch([...(guard ? [guardStatement(db, guard.condition, guard.args)] : []), ...plan.statements]);
		} catch (err) {
			throw await commitFailure(db, err, guard);
		}
	} else {
		// The embedding runs beside the R2 put.
		const embedding = embedForWrite(env.embedder?.(), [plan.file]).then(([embedded]) => embedded ?? null);
		const statements = [
			...(guard ? [guardStatement(db, guard.condition, guard.args)] : []),
			...plan.statements,
			...(headerChanges(current, plan.file, Boolean(input.trust?.vouchedBy)) ? [bumpIndexStatement(db, ctx)] : []),
		];
		// The key is held from before the put until the commit has landed, so the orphan sweep cannot
		// delete an identical old object this write is re-using (src/maintenance/sweep.ts).
		const key = plan.key ?? objectKey(ctx.tenantId, ctx.projectId, plan.hash);
		await holdContent([key], async () => {
			await timed("r2", () => putContent(env, key, plan.content));
			await faults.afterObjectPut?.();
			statements.push(...vectorStatements(db, plan.searchRow, ctx.projectId, plan.hash, await embedding));
			try {
				await db.batch(statements);
			} catch (err) {
				throw await commitFailure(db, err, guard);
			}
		});
	}
	const row = await getMemoryRow(db, ctx, scope, checked.file.name);
	if (!row) throw new CairnError("version_conflict", "the memory was deleted by a concurrent request");
	return { status: current ? "updated" : "created", memory: toMetadata(row) };
}

/**
 * A memory's file text from its row and its indexed body (`memories_fts`, which recall's candidates
 * carry) when they render to the stored content — the same hash — with no R2 read; from R2 otherwise.
 */
export async function memoryContentOf(
	env: Env,
	ctx: ProjectContext,
	row: Pick<MemoryRow, "name" | "type" | "description" | "content_hash" | "content_ref">,
	body: string,
): Promise<string> {
	const content = renderTopicFile({ name: row.name, type: row.type, description: row.description, body });
	if ((await sha256Hex(content)) === row.content_hash) return content;
	return readMemoryContent(env, ctx, row);
}

/**
 * A memory's current file text, read where the object holds it: its indexed body when that renders to the
 * stored content (no R2 read, the common case), else from R2.
 */
export async function currentContent(env: ProjectEnv, ctx: ProjectContext, row: MemoryRow): Promise<string> {
	const indexed = await env.PDB.prepare("SELECT body FROM memories_fts WHERE rowid = ?").bind(row.id).first<{ body: string }>();
	return indexed ? memoryContentOf(env, ctx, row, indexed.body) : readMemoryContent(env, ctx, row);
}

/** Reads a version's file text from R2: its content-addressed object, or its range of a batch's pack. */
export async function readMemoryContent(
	env: Env,
	ctx: ProjectContext,
	row: Pick<MemoryRow, "content_hash" | "content_ref">,
): Promise<string> {
	if (row.content_ref) {
		const range = packRange(ctx.tenantId, ctx.projectId, row.content_ref);
		const object = range && (await env.FILES.get(range.key, { range: { offset: range.offset, length: range.length } }));
		if (!object) throw new CairnError("internal_error", "memory content is temporarily unavailable");
		return object.text();
	}
	const object = await env.FILES.get(objectKey(ctx.tenantId, ctx.projectId, row.content_hash));
	if (!object) throw new CairnError("internal_error", "memory content is temporarily unavailable");
	return object.text();
}

/**
 * Removes a memory and every row keyed by its id (versions, FTS, visibility, what sessions were served and used)
 * in one batch; R2 objects are swept later. A write of the same memory that was awaiting its R2 put
 * finds the row gone in its own transaction and writes nothing.
 */
export async function deleteMemory(env: ProjectEnv, ctx: ProjectContext, scope: MemoryScope, name: string): Promise<void> {
	assertValidName(name);
	const row = await getMemoryRow(env.PDB, ctx, scope, name);
	if (!row) throw notFound("memory");
	await env.PDB.batch([
		env.PDB.prepare("DELETE FROM memories_fts WHERE rowid = ?").bind(row.id),
		...dropStatements(env.PDB, row.id),
		env.PDB.prepare("DELETE FROM memory_visibility WHERE memory_id = ?").bind(row.id),
		env.PDB.prepare("DELETE FROM memory_versions WHERE memory_id = ?").bind(row.id),
		env.PDB.prepare("DELETE FROM session_served WHERE project_id = ? AND memory_id = ?").bind(ctx.projectId, row.id),
		env.PDB.prepare("DELETE FROM session_used WHERE project_id = ? AND memory_id = ?").bind(ctx.projectId, row.id),
		env.PDB.prepare("DELETE FROM memories WHERE id = ?").bind(row.id),
		env.PDB.prepare("UPDATE projects SET index_generation = index_generation + 1 WHERE id = ?").bind(ctx.projectId),
		// A proposal that is gone has nothing left to approve.
		env.PDB.prepare(
			"DELETE FROM review_items WHERE project_id = ? AND kind = 'vouch' AND memory_scope = ? AND memory_name = ? AND status = 'pending'",
		).bind(ctx.projectId, scope, name),
	]);
}

export interface VersionRow {
	version: number;
	content_hash: string;
	content_ref: string | null;
	source: MemorySource;
	session_id: string | null;
	created_at: string;
	run_id: string | null;
	evidence_json: string;
	/** How this version came, who reviewed it, who vouched for it reaching teammates (src/trust/vouch.ts). */
	trust?: string | null;
	reviewed_by?: string | null;
	vouched_by?: string | null;
}

export async function listVersions(db: ProjectDb, memoryId: number): Promise<VersionRow[]> {
	const { results } = await db
		.prepare(
			"SELECT version, content_hash, content_ref, source, session_id, created_at, run_id, evidence_json, trust, reviewed_by, vouched_by FROM memory_versions WHERE memory_id = ? ORDER BY version DESC LIMIT 1000",
		)
		.bind(memoryId)
		.all<VersionRow>();
	return results;
}

export async function getVersion(db: ProjectDb, memoryId: number, version: number) {
	return db
		.prepare(
			"SELECT version, content_hash, content_ref, source, session_id, created_at, run_id, evidence_json FROM memory_versions WHERE memory_id = ? AND version = ?",
		)
		.bind(memoryId, version)
		.first<VersionRow>();
}

export interface ListFilter {
	scope?: MemoryScope;
	type?: MemoryType;
	limit: number;
	/** Keyset cursor: the last (name, scope) of the previous page. */
	after?: { name: string; scope: MemoryScope };
}

/** Memories visible to the caller: their personal ones and the project's team ones. */
export async function listMemories(db: ProjectDb, ctx: ProjectContext, filter: ListFilter): Promise<MemoryRow[]> {
	// Team memories no person vouched for are listed to their writer only (src/trust/vouch.ts).
	const where = ["project_id = ?", servedSql("", "?")];
	const args: unknown[] = [ctx.projectId, ctx.userId, ctx.userId];
	if (filter.scope) {
		where.push("scope = ?");
		args.push(filter.scope);
	}
	if (filter.type) {
		where.push("type = ?");
		args.push(filter.type);
	}
	if (filter.after) {
		where.push("(name, scope) > (?, ?)");
		args.push(filter.after.name, filter.after.scope);
	}
	const { results } = await db
		.prepare(`SELECT * FROM memories WHERE ${where.join(" AND ")} ORDER BY name, scope LIMIT ?`)
		.bind(...args, filter.limit)
		.all<MemoryRow>();
	return results;
}

/**
 * Every memory the caller may see in `scopes` (their personal ones, the project's team ones) that is
 * not archived, most served first, then most recently changed: the model selector's manifest, before
 * its token budget.
 */
export async function listManifest(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[], limit: number): Promise<MemoryRow[]> {
	if (scopes.length === 0) return [];
	const { results } = await db
		.prepare(
			`SELECT * FROM memories m WHERE m.project_id = ?1 AND ${servedInSql(scopes, "m", "?3")} AND m.archived_at IS NULL
			 ORDER BY m.times_served DESC, m.updated_at DESC LIMIT ?2`,
		)
		.bind(ctx.projectId, limit, ctx.userId)
		.all<MemoryRow>();
	return results;
}

/**
 * Rows of the team scope, all of them (by name) or those named. `servedOnly`: those served to the caller —
 * vouched for, or their own proposals (team pull; src/trust/vouch.ts); a push compares against every row.
 */
export async function teamRows(db: ProjectDb, ctx: ProjectContext, names?: string[], servedOnly = false): Promise<MemoryRow[]> {
	const served = servedOnly ? " AND (vouched_by IS NOT NULL OR author_id = ?3)" : "";
	const statement = names
		? db
				.prepare(
					`SELECT * FROM memories WHERE project_id = ?1 AND scope = 'team' AND owner_id = '' AND name IN (SELECT value FROM json_each(?2))${served}`,
				)
				.bind(ctx.projectId, JSON.stringify(names), ...(servedOnly ? [ctx.userId] : []))
		: db
				.prepare(
					`SELECT * FROM memories WHERE project_id = ?1 AND scope = 'team' AND owner_id = ''${served.replace("?3", "?2")} ORDER BY name`,
				)
				.bind(ctx.projectId, ...(servedOnly ? [ctx.userId] : []));
	return (await statement.all<MemoryRow>()).results;
}
