/**
 * The review queue: what consolidation would change about a person's memories but may not decide alone.
 *
 * - `change`: consolidation planned an update, merge or delete of a memory written on purpose (by a
 *   person, an agent or an import) with no newer explicit statement to justify it. Instead of dropping
 *   the change, it is kept here with the version of the memory it was based on.
 * - `promote`: a memory proposed for team scope (`proposed_scope = 'team'`, a rule its author called a
 *   team rule). Approving it moves the memory: the team memory is written and the personal one removed,
 *   so the same rule is not recalled twice.
 * - `secret`: the secret re-scan (src/maintenance/secret-rescan.ts) found what the current policy calls a
 *   credential in a stored memory. Approving deletes the memory (op `delete`); rejecting keeps it.
 * - `archive`: the maintenance sweep (src/maintenance/archive-unused.ts) found a memory served in many
 *   sessions and never cited or read. Approving archives it (src/memory/archive-rows.ts: no longer
 *   served, never deleted); rejecting keeps it, and it is proposed again only after as many more
 *   unused sessions.
 * - `code`: a check from the repository (src/memory/code-check.ts) found every file the memory cites
 *   gone. Approving deletes the memory (op `delete`); updating it withdraws the item; rejecting keeps it
 *   and drops its citations of the gone files.
 * - `held`: a write the danger check flagged and no admin reviewed (src/trust/gate.ts, src/trust/held.ts): the text waits
 *   here instead of being stored. Only a project admin approves it (`/held/{id}/approve`); the writer
 *   may reject it.
 * - `vouch`: a team memory whose current text no person vouched for (src/trust/vouch.ts): stored and served
 *   to its writer only. A person approves it (any project member's key no agent session used, never from
 *   an agent's session): teammates are served it from the next request. Rejecting takes the proposal
 *   back — the last text a person vouched for is served again, or, when there is none, the memory goes.
 *
 * Items live in the project's object (`review_items`, schema version 8), one pending item per owner,
 * kind and memory: a newer proposal replaces the pending one (a new id; the old one is gone). Approval
 * goes through the ordinary write path (`writeMemory`: validation, the secret scan, the scope switches
 * and policy, history). Every decision is recorded on the item and as an audit event beside
 * consolidation's own.
 */
import { CairnError, notFound } from "../errors";
import { newReviewId, nowIso } from "../lib/ids";
import { assessDanger, type DangerFinding } from "../security/danger";
import { findSecrets } from "../security/secrets";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { type Reviewer, vouchRefusal } from "../trust/vouch";
import { approveVouch, takeBackProposal, vouchNeedsPerson } from "../trust/vouch-review";
import { archiveMemory } from "./archive";
import { dismissGoneStatements } from "./code-check";
import {
	assertScopeWritable,
	deleteMemory,
	getMemoryRow,
	guardStatement,
	isGuardFailure,
	type MemoryMetadata,
	readMemoryContent,
	toMetadata,
	type WriteGuard,
	writeMemory,
} from "./store";
import { assertBodySize, assertValidName, type MemoryScope, type MemoryType, parseTopicFile, validateFields } from "./topic-file";

export const REVIEW_KINDS = ["change", "promote", "secret", "archive", "code", "held", "vouch"] as const;
export type ReviewKind = (typeof REVIEW_KINDS)[number];
export const REVIEW_STATUSES = ["pending", "approved", "rejected"] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];
export const REVIEW_OPS = ["update", "merge", "delete", "promote", "archive"] as const;
export type ReviewOp = (typeof REVIEW_OPS)[number];

/** What an item proposes. `update`/`merge`: the new file; `merge` also the memories folded in; `promote`: the scope. */
export interface ProposedChange {
	type?: MemoryType;
	description?: string;
	body?: string;
	/** merge: the other memories folded into this one (deleted on approval). */
	from?: string[];
	/** update: the memory is also proposed for team scope; promote: the scope it goes to. */
	scope?: "team";
}

/** A proposal as consolidation makes it, before it is stored. */
export interface ReviewProposal {
	kind: ReviewKind;
	name: string;
	scope: MemoryScope;
	op: ReviewOp;
	/** The memory's version the proposal was made against (approval refuses a memory changed since). */
	baseVersion: number | null;
	proposed: ProposedChange;
	reason: string;
	evidence: string[];
}

export interface ReviewRow {
	id: string;
	project_id: string;
	owner_id: string;
	kind: ReviewKind;
	memory_name: string;
	memory_scope: MemoryScope;
	base_version: number | null;
	op: ReviewOp;
	proposal_json: string;
	reason: string;
	evidence_json: string;
	run_id: string | null;
	status: ReviewStatus;
	created_at: string;
	decided_at: string | null;
	decided_by: string | null;
	current_version?: number | null;
}

/** A review item as the API shows it. */
export interface ReviewItem {
	id: string;
	kind: ReviewKind;
	status: ReviewStatus;
	memory: { name: string; scope: MemoryScope; baseVersion: number | null; currentVersion: number | null };
	proposal: {
		op: ReviewOp;
		type: MemoryType | null;
		description: string | null;
		body: string | null;
		from: string[];
		scope: "team" | null;
	};
	reason: string;
	evidence: string[];
	runId: string | null;
	createdAt: string;
	decidedAt: string | null;
	decidedBy: string | null;
	/** The user whose write or memory the item is about (its owner). */
	writer: string;
	/** What the danger check finds in the proposed text now (src/security/danger.ts): classes and fixed phrases, never the text. */
	findings: DangerFinding[];
	/** Where the proposed text came from, as the item's evidence records it. */
	provenance: ReviewProvenance;
}

/** Where an item's text came from (its evidence tags: `tier:`, `session:`, `origin:`, `turn:`). */
export interface ReviewProvenance {
	/** How the write came (src/trust/tier.ts), when recorded. */
	tier: string | null;
	/** The agent session that wrote it, when one did. */
	session: string | null;
	/** What of it a tool result printed and the person never said (src/pipeline/tool-origin.ts): host, command, path, instructions. */
	fromToolOutput: string[];
	/** The transcript turns those came from. */
	turns: string[];
}

/** The provenance an item's evidence records. */
export function provenanceOf(evidence: string[]): ReviewProvenance {
	const tagged = (tag: string) => evidence.filter((e) => e.startsWith(`${tag}:`)).map((e) => e.slice(tag.length + 1));
	return {
		tier: tagged("tier")[0] ?? null,
		session: tagged("session")[0] ?? null,
		fromToolOutput: tagged("origin"),
		turns: tagged("turn"),
	};
}

export interface ReviewFilter {
	status: ReviewStatus;
	kind?: ReviewKind;
	limit: number;
	/** Who asks (src/trust/vouch.ts): an admin key sees team memories' items; a person who may vouch sees every team proposal. */
	reviewer?: Reviewer;
}

export { newReviewId };

export function toItem(row: ReviewRow): ReviewItem {
	const p = JSON.parse(row.proposal_json) as ProposedChange;
	const evidence = JSON.parse(row.evidence_json) as string[];
	const text = [p.description, p.body].filter((t): t is string => typeof t === "string" && t !== "").join("\n");
	return {
		id: row.id,
		kind: row.kind,
		status: row.status,
		memory: {
			name: row.memory_name,
			scope: row.memory_scope,
			baseVersion: row.base_version,
			currentVersion: row.current_version ?? null,
		},
		proposal: {
			op: row.op,
			type: p.type ?? null,
			description: p.description ?? null,
			body: p.body ?? null,
			from: p.from ?? [],
			scope: p.scope ?? null,
		},
		reason: row.reason,
		evidence,
		runId: row.run_id,
		createdAt: row.created_at,
		decidedAt: row.decided_at,
		decidedBy: row.decided_by,
		writer: row.owner_id,
		findings: text ? assessDanger(text) : [],
		provenance: provenanceOf(evidence),
	};
}

/** The item's row with the version its memory is at now (null: the memory is gone). Only the owner's items. */
const SELECT = `SELECT r.*, m.version AS current_version FROM review_items r
	LEFT JOIN memories m ON m.project_id = r.project_id AND m.scope = r.memory_scope
		AND m.owner_id = (CASE r.memory_scope WHEN 'team' THEN '' ELSE r.owner_id END) AND m.name = r.memory_name`;

/**
 * Whose items a caller sees: their own, with an admin key every team memory's (an item about a team
 * memory goes to its last author and to the project's admins), and every team proposal (`vouch`) when
 * the caller may vouch — a person, not an agent's session or a key one used: a proposal's text reaches no
 * teammate's agent, not even through the queue. Held writes have their own queue (/held).
 */
const MINE = "(r.owner_id = ? OR (? = 1 AND r.memory_scope = 'team' AND r.kind NOT IN ('held', 'vouch')) OR (? = 1 AND r.kind = 'vouch'))";

/** The arguments MINE binds after the project: the caller, whether an admin, whether they may vouch. */
async function mineArgs(db: ProjectDb, ctx: ProjectContext, reviewer: Reviewer | undefined): Promise<unknown[]> {
	const mayVouch = reviewer ? (await vouchRefusal(db, ctx.projectId, reviewer)) === null : false;
	return [ctx.userId, reviewer?.admin ? 1 : 0, mayVouch ? 1 : 0];
}

/** The caller's items (their personal changes, the promotions proposed for them, an admin's team items), newest first. */
export async function listReviews(db: ProjectDb, ctx: ProjectContext, filter: ReviewFilter): Promise<ReviewItem[]> {
	const where = ["r.project_id = ?", MINE, "r.status = ?"];
	const args: unknown[] = [ctx.projectId, ...(await mineArgs(db, ctx, filter.reviewer)), filter.status];
	if (filter.kind) {
		where.push("r.kind = ?");
		args.push(filter.kind);
	}
	const { results } = await db
		.prepare(`${SELECT} WHERE ${where.join(" AND ")} ORDER BY coalesce(r.decided_at, r.created_at) DESC, r.id LIMIT ?`)
		.bind(...args, filter.limit)
		.all<ReviewRow>();
	return results.map(toItem);
}

async function reviewRow(
	db: ProjectDb,
	ctx: ProjectContext,
	id: string,
	reviewer: Reviewer | undefined,
	deciding = false,
): Promise<ReviewRow> {
	const row = await db
		.prepare(`${SELECT} WHERE r.project_id = ? AND ${MINE} AND r.id = ?`)
		.bind(ctx.projectId, ...(await mineArgs(db, ctx, reviewer)), id)
		.first<ReviewRow>();
	if (!row && deciding && reviewer) {
		// A team proposal addressed by a member who may not vouch: the clear 403 (why not, and where to approve), never its text.
		const proposal = await db
			.prepare("SELECT 1 AS y FROM review_items WHERE project_id = ? AND id = ? AND kind = 'vouch'")
			.bind(ctx.projectId, id)
			.first();
		if (proposal) throw (await vouchRefusal(db, ctx.projectId, reviewer)) ?? notFound("review item");
	}
	// Another user's item is indistinguishable from a missing one.
	if (!row) throw notFound("review item");
	return row;
}

export async function getReview(db: ProjectDb, ctx: ProjectContext, id: string, reviewer?: Reviewer): Promise<ReviewItem> {
	return toItem(await reviewRow(db, ctx, id, reviewer));
}

/**
 * Why a proposed file could not be written (a name, field, size or secret problem), or null. Checked
 * when the proposal is made, so an item never holds text the write path would refuse.
 */
export async function proposalProblem(p: ReviewProposal): Promise<string | null> {
	try {
		assertValidName(p.name);
		for (const from of p.proposed.from ?? []) assertValidName(from);
		if (p.op === "update" || p.op === "merge") {
			validateFields({ type: p.proposed.type, description: p.proposed.description });
			assertBodySize(p.proposed.body ?? "");
			if ((await findSecrets(`${p.proposed.description ?? ""}\n${p.proposed.body ?? ""}`)).length > 0)
				return "contains what looks like a secret";
		}
	} catch (err) {
		if (err instanceof CairnError) return err.message;
		throw err;
	}
	return null;
}

/**
 * Statements that store proposals for one owner (run inside consolidation's final batch, so they land
 * with its events or not at all). A change replaces the pending change for the same memory; a promotion
 * already pending for the memory is kept as it is.
 */
export function reviewStatements(
	db: ProjectDb,
	ctx: ProjectContext,
	proposals: ReviewProposal[],
	runId: string | null,
	now: string,
): ProjectStatement[] {
	const statements: ProjectStatement[] = [];
	for (const p of proposals) {
		const values = [
			ctx.projectId,
			ctx.userId,
			p.kind,
			p.name,
			p.scope,
			p.baseVersion,
			p.op,
			JSON.stringify(p.proposed),
			p.reason.slice(0, 500),
			JSON.stringify(p.evidence.slice(0, 50)),
			runId,
			now,
		];
		const insert = `INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, run_id, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
		if (p.kind === "change") {
			statements.push(
				db
					.prepare(
						"DELETE FROM review_items WHERE project_id = ? AND owner_id = ? AND kind = 'change' AND memory_scope = ? AND memory_name = ? AND status = 'pending'",
					)
					.bind(ctx.projectId, ctx.userId, p.scope, p.name),
				db.prepare(`INSERT ${insert}`).bind(newReviewId(), ...values),
			);
		} else {
			statements.push(db.prepare(`INSERT OR IGNORE ${insert}`).bind(newReviewId(), ...values));
		}
	}
	return statements;
}

const stale = (current: number | null) =>
	new CairnError("version_conflict", "the memory changed since this was proposed; nothing was changed", { currentVersion: current });

/** Applies an approved item through the ordinary write path; returns the memory as it is now (null: deleted). */
async function apply(
	env: ProjectEnv,
	ctx: ProjectContext,
	row: ReviewRow,
	guard: WriteGuard,
	/** The approver, when they may vouch for what they approve into team scope (src/trust/vouch.ts). */
	vouchedBy: string | null,
): Promise<{ memory: MemoryMetadata | null; promote: ReviewProposal | null }> {
	const p = JSON.parse(row.proposal_json) as ProposedChange;
	const name = row.memory_name;
	if (row.kind === "archive") {
		return { memory: await archiveMemory(env, ctx, row.memory_scope, name, row.base_version, guard), promote: null };
	}
	const current = await getMemoryRow(env.PDB, ctx, row.memory_scope, name);
	if (row.kind === "promote") {
		if (!current) throw stale(null);
		// What a team write needs, before anything is read or written.
		await assertScopeWritable(env, ctx, "team");
		const team = await getMemoryRow(env.PDB, ctx, "team", name);
		if (team && team.content_hash !== current.content_hash)
			throw new CairnError("conflict", "a different team memory of this name exists; rename or merge it first", { name });
		const file = parseTopicFile(await readMemoryContent(env, ctx, current));
		const written = await writeMemory(
			env,
			ctx,
			{
				scope: "team",
				file: { ...file, name },
				source: "user",
				ifMatch: team ? team.version : undefined,
				proposedScope: null,
				// Approved from a person's terminal or the console, it reaches teammates; from an agent's session it is a proposal.
				trust: { vouchedBy },
			},
			{},
			guard,
		);
		// A move, not a copy: the personal memory would be recalled beside the team one.
		await deleteMemory(env, ctx, row.memory_scope, name);
		return { memory: written.memory, promote: null };
	}
	if (!current || current.version !== row.base_version) throw stale(current?.version ?? null);
	if (row.op === "delete") {
		// A team memory (a secret re-scan's item) is deleted only where a team write is allowed.
		if (row.memory_scope === "team") await assertScopeWritable(env, ctx, "team");
		await guardStatement(env.PDB, guard.condition, guard.args)
			.first()
			.catch((err) => {
				throw isGuardFailure(err) ? guard.error() : err;
			});
		await deleteMemory(env, ctx, row.memory_scope, name);
		return { memory: null, promote: null };
	}
	const written = await writeMemory(
		env,
		ctx,
		{
			scope: row.memory_scope,
			file: { name, type: p.type as MemoryType, description: p.description ?? "", body: p.body ?? "" },
			// The person approved it: the memory stays one written on purpose.
			source: "user",
			trust: { vouchedBy },
			ifMatch: row.base_version ?? "*",
			...(p.scope === "team" ? { proposedScope: "team" as const } : {}),
		},
		{},
		guard,
	);
	if (row.op === "merge") {
		for (const from of p.from ?? []) {
			if (from === name || !(await getMemoryRow(env.PDB, ctx, row.memory_scope, from))) continue;
			await deleteMemory(env, ctx, row.memory_scope, from);
		}
	}
	const promote: ReviewProposal | null =
		p.scope === "team" && written.memory.proposedScope === "team"
			? {
					kind: "promote",
					name,
					scope: row.memory_scope,
					op: "promote",
					baseVersion: written.memory.version,
					proposed: { scope: "team" },
					reason: row.reason,
					evidence: JSON.parse(row.evidence_json) as string[],
				}
			: null;
	return { memory: written.memory, promote };
}

/**
 * Approves or rejects one of the caller's pending items. Approval applies it first (a memory changed
 * since the proposal: 412 version_conflict; a team promotion refused by settings or policy: 403
 * feature_disabled, as a team write would be) and leaves the item pending when that fails. An item
 * already decided (or decided meanwhile) is a 409 conflict. Rejection changes nothing but the item
 * (and, for a promotion, clears the memory's proposed scope).
 */
export async function decideReview(
	env: ProjectEnv,
	ctx: ProjectContext,
	id: string,
	decision: "approve" | "reject",
	reviewer?: Reviewer,
): Promise<{ item: ReviewItem; memory: MemoryMetadata | null }> {
	const db = env.PDB;
	const row = await reviewRow(db, ctx, id, reviewer, true);
	if (row.status !== "pending") throw new CairnError("conflict", `this review item was already ${row.status}`, { status: row.status });
	// A held write is approved by a project admin only (src/trust/held.ts): never with the writer's own key.
	if (row.kind === "held" && decision === "approve")
		throw new CairnError(
			"forbidden",
			"a held memory is approved by a project admin (POST /v1/projects/{projectId}/held/{id}/approve with an admin key)",
		);
	const pending = "EXISTS (SELECT 1 FROM review_items WHERE id = ? AND status = 'pending')";
	const decidedMeanwhile = () => new CairnError("conflict", "this review item was decided by another request");
	const guard: WriteGuard = { condition: pending, args: [id], error: decidedMeanwhile };

	// Vouching for a team text is a person's act: never from an agent's session or with a key one used
	// (src/trust/vouch.ts). Approved from one, a promotion or a change of a team memory lands as a proposal.
	const refusal = reviewer ? await vouchRefusal(db, ctx.projectId, reviewer) : vouchNeedsPerson();
	if (decision === "approve" && row.kind === "vouch" && refusal) throw refusal;
	let memory: MemoryMetadata | null = null;
	let promote: ReviewProposal | null = null;
	const extra: ProjectStatement[] = [];
	if (row.kind === "vouch" && decision === "approve") {
		const decided = await approveVouch(env, ctx, row, reviewer?.admin === true);
		memory = decided.memory;
		extra.push(...decided.statements);
	} else if (row.kind === "vouch") {
		// Rejected: decided below first, then the proposal is taken back (its write withdraws pending items of the memory).
	} else if (decision === "approve") ({ memory, promote } = await apply(env, ctx, row, guard, refusal ? null : ctx.userId));
	else if (row.kind === "change" || row.kind === "secret" || row.kind === "archive" || row.kind === "code") {
		const current = await getMemoryRow(db, ctx, row.memory_scope, row.memory_name);
		memory = current ? toMetadata(current) : null;
	}

	const now = nowIso();
	const status: ReviewStatus = decision === "approve" ? "approved" : "rejected";
	const statements: ProjectStatement[] = [
		guardStatement(db, pending, [id]),
		db
			.prepare(
				`UPDATE review_items SET status = ?, decided_at = ?, decided_by = ?${row.kind === "held" || (row.kind === "vouch" && decision === "reject") ? ", proposal_json = '{}'" : ""} WHERE id = ?`,
			)
			.bind(status, now, ctx.userId, id),
		// The audit trail beside consolidation's: the memory's events show who decided what, and when.
		db
			.prepare(
				`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
				 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			)
			.bind(
				ctx.projectId,
				ctx.userId,
				row.memory_scope,
				id,
				row.kind === "vouch" ? "review-vouch" : `review-${row.op}`,
				row.memory_name,
				status,
				`${status} by ${ctx.userId}: ${row.reason}`.slice(0, 500),
				row.evidence_json,
				now,
			),
		...(promote ? reviewStatements(db, ctx, [promote], row.run_id, now) : []),
		...extra,
	];
	if (row.kind === "code" && decision === "reject")
		statements.push(...dismissGoneStatements(db, ctx.projectId, row.memory_scope, row.owner_id, row.memory_name));
	if (row.kind === "promote" && decision === "reject") {
		statements.push(
			db
				.prepare("UPDATE memories SET proposed_scope = NULL WHERE project_id = ? AND scope = ? AND owner_id = ? AND name = ?")
				.bind(ctx.projectId, row.memory_scope, ctx.userId, row.memory_name),
		);
		const current = await getMemoryRow(db, ctx, row.memory_scope, row.memory_name);
		memory = current ? { ...toMetadata(current), proposedScope: null } : null;
	}
	try {
		await db.batch(statements);
	} catch (err) {
		if (isGuardFailure(err)) throw decidedMeanwhile();
		throw err;
	}
	if (row.kind === "code" && memory) {
		const kept = await getMemoryRow(db, ctx, row.memory_scope, row.memory_name);
		memory = kept ? toMetadata(kept) : null;
	}
	if (row.kind === "vouch" && decision === "reject") memory = await takeBackProposal(env, ctx, row);
	return { item: toItem((await db.prepare(`${SELECT} WHERE r.id = ?`).bind(id).first<ReviewRow>()) as ReviewRow), memory };
}

/** Empties the project's review queue (it holds proposed memory text: it goes with the memories). */
export async function clearReviews(db: ProjectDb, projectId: string): Promise<void> {
	await db.prepare("DELETE FROM review_items WHERE project_id = ?").bind(projectId).run();
}

/** Which pending team proposals a batch approval takes: a writer's, a session's, or those named. */
export interface ProposalBatch {
	writer?: string;
	session?: string;
	ids?: string[];
}

/** The most proposals one batch approval decides. */
export const APPROVE_BATCH_LIMIT = 200;

/**
 * Approves a writer's or a session's pending team proposals at once (a person reviewing a batch; the same
 * refusals as one approval, before anything is decided). Each is decided on its own: one changed since its
 * proposal (412) fails alone, the others are approved.
 */
export async function approveProposals(
	env: ProjectEnv,
	ctx: ProjectContext,
	reviewer: Reviewer,
	batch: ProposalBatch,
): Promise<{ approved: ReviewItem[]; failed: { id: string; name: string; error: { code: string; message: string } }[] }> {
	const db = env.PDB;
	const refusal = await vouchRefusal(db, ctx.projectId, reviewer);
	if (refusal) throw refusal;
	const { results } = await db
		.prepare(
			`SELECT r.id, r.memory_name FROM review_items r WHERE r.project_id = ?1 AND r.kind = 'vouch' AND r.status = 'pending'
			 AND (?2 IS NULL OR r.owner_id = ?2)
			 AND (?3 IS NULL OR EXISTS (SELECT 1 FROM json_each(r.evidence_json) WHERE value = 'session:' || ?3))
			 AND (?4 IS NULL OR r.id IN (SELECT value FROM json_each(?4)))
			 ORDER BY r.created_at, r.id LIMIT ?5`,
		)
		.bind(ctx.projectId, batch.writer ?? null, batch.session ?? null, batch.ids ? JSON.stringify(batch.ids) : null, APPROVE_BATCH_LIMIT)
		.all<{ id: string; memory_name: string }>();
	const approved: ReviewItem[] = [];
	const failed: { id: string; name: string; error: { code: string; message: string } }[] = [];
	for (const r of results) {
		try {
			approved.push((await decideReview(env, ctx, r.id, "approve", reviewer)).item);
		} catch (err) {
			if (!(err instanceof CairnError)) throw err;
			failed.push({ id: r.id, name: r.memory_name, error: { code: err.code, message: err.message } });
		}
	}
	return { approved, failed };
}
