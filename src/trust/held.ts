/**
 * Held memories (docs/memory-trust.md): a write whose text asks for what the danger check flags
 * (src/security/danger.ts) and that no project admin reviewed is not stored as a memory. It goes to the
 * review queue as a `held` item with its reason — the writer sees it in their queue, the project's
 * admins see every one — and nothing else holds it: no memory row, version, search row, content object
 * or pack, so no session is served it, the index does not list it, `memory://` and `memory_read` do
 * not find it and team pull does not deliver it. The memory it would have changed, if any, stays as it
 * was.
 *
 * Only an admin (an admin key, or the console signed in with one) approves: the text is then written
 * through the ordinary write path as the original writer's, recorded as reviewed by that admin, and
 * served from the next request. The write-scoped key an agent's hooks and MCP client hold cannot, so an
 * agent never approves its own plant. Rejecting (the writer or an admin) drops the text from the item.
 */
import { CairnError, notFound } from "../errors";
import { nowIso, sha256Hex } from "../lib/ids";
import { newReviewId, type ReviewItem, type ReviewRow, toItem } from "../memory/reviews";
import type { MemoryRow } from "../memory/rows";
import { getMemoryRow, type MemoryMetadata, secretScanText, type WriteGuard, writeMemory } from "../memory/store";
import { type MemoryScope, type MemorySource, type MemoryType, renderTopicFile, type TopicFile } from "../memory/topic-file";
import { assessDanger, type DangerFinding, dangerSummary } from "../security/danger";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { type TrustTier, tierOfSource, type WriteTrust } from "./tier";

export const HELD_KIND = "held";

/** What a held item keeps of the write: the file and how it came, to write it as it was on approval. */
interface HeldProposal {
	type: MemoryType;
	description: string;
	body: string;
	source: MemorySource;
	tier: TrustTier;
}

export interface GateInput {
	scope: MemoryScope;
	file: TopicFile;
	source: MemorySource;
	trust?: WriteTrust;
	cues?: string[];
}

/** The danger check's findings for a write, or none when an admin reviewed its text. */
export function gateFindings(input: Pick<GateInput, "file" | "trust" | "cues">): DangerFinding[] {
	if (input.trust?.reviewedBy) return [];
	return assessDanger(secretScanText(input.file.description, input.file.body, input.cues ?? []));
}

/** Whether `file` renders to the content `current` already holds (a rewrite of stored text is not new text). */
export async function unchangedContent(file: TopicFile, current: Pick<MemoryRow, "content_hash"> | null): Promise<boolean> {
	return current !== null && (await sha256Hex(renderTopicFile(file))) === current.content_hash;
}

const heldReason = (findings: DangerFinding[]) =>
	`Held for review: it asks for what a planted instruction would (${dangerSummary(findings)}). A project admin approves it to serve it; rejecting drops it.`.slice(
		0,
		500,
	);

/** The answer a held write gets (202 held_for_review): the item's id and the classes, never the text. */
export const heldError = (id: string, findings: DangerFinding[]) =>
	new CairnError("held_for_review", "the memory was held for review and is not served until a project admin approves it", {
		reviewId: id,
		classes: [...new Set(findings.map((f) => f.class))],
		reasons: findings.map((f) => f.reason),
	});

/**
 * Statements that put a held write into the writer's review queue, replacing a pending held item for
 * the same memory (the newer text is the one to decide).
 */
export function holdStatements(
	db: ProjectDb,
	ctx: ProjectContext,
	input: GateInput,
	findings: DangerFinding[],
	baseVersion: number | null,
	id: string,
	evidence: string[] = [],
): ProjectStatement[] {
	const tier = input.trust?.tier ?? tierOfSource(input.source);
	const proposal: HeldProposal = {
		type: input.file.type,
		description: input.file.description,
		body: input.file.body,
		source: input.source,
		tier,
	};
	return [
		db
			.prepare(
				"DELETE FROM review_items WHERE project_id = ? AND owner_id = ? AND kind = 'held' AND memory_scope = ? AND memory_name = ? AND status = 'pending'",
			)
			.bind(ctx.projectId, ctx.userId, input.scope, input.file.name),
		db
			.prepare(
				`INSERT INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, run_id, created_at)
				 VALUES (?, ?, ?, 'held', ?, ?, ?, 'update', ?, ?, ?, NULL, ?)`,
			)
			.bind(
				id,
				ctx.projectId,
				ctx.userId,
				input.file.name,
				input.scope,
				baseVersion,
				JSON.stringify(proposal),
				heldReason(findings),
				JSON.stringify([`tier:${tier}`, ...new Set(findings.map((f) => `class:${f.class}`)), ...evidence].slice(0, 50)),
				nowIso(),
			),
	];
}

/**
 * The gate every write passes (writeMemory, writeMemories): a write an admin did not review whose text
 * the danger check flags is held — queued for review, nothing stored — and answered with 202
 * held_for_review. Returns when the write may go on.
 */
export async function gateWrite(db: ProjectDb, ctx: ProjectContext, input: GateInput, baseVersion: number | null): Promise<void> {
	const findings = gateFindings(input);
	if (findings.length === 0) return;
	const id = newReviewId();
	await db.batch(holdStatements(db, ctx, input, findings, baseVersion, id));
	throw heldError(id, findings);
}

const SELECT_HELD = `SELECT r.*, m.version AS current_version FROM review_items r
	LEFT JOIN memories m ON m.project_id = r.project_id AND m.scope = r.memory_scope
		AND m.owner_id = (CASE r.memory_scope WHEN 'team' THEN '' ELSE r.owner_id END) AND m.name = r.memory_name`;

/** Held items of the project (an admin: everyone's; anyone else: their own), newest first. */
export async function listHeld(
	db: ProjectDb,
	ctx: ProjectContext,
	options: { admin: boolean; status: ReviewItem["status"]; limit: number },
): Promise<(ReviewItem & { writer: string })[]> {
	const where = ["r.project_id = ?", "r.kind = 'held'", "r.status = ?"];
	const args: unknown[] = [ctx.projectId, options.status];
	if (!options.admin) {
		where.push("r.owner_id = ?");
		args.push(ctx.userId);
	}
	const { results } = await db
		.prepare(`${SELECT_HELD} WHERE ${where.join(" AND ")} ORDER BY coalesce(r.decided_at, r.created_at) DESC, r.id LIMIT ?`)
		.bind(...args, options.limit)
		.all<ReviewRow>();
	return results.map((row) => ({ ...toItem(row), writer: row.owner_id }));
}

async function heldRow(db: ProjectDb, ctx: ProjectContext, id: string, admin: boolean): Promise<ReviewRow> {
	const row = await db
		.prepare(`${SELECT_HELD} WHERE r.project_id = ? AND r.id = ? AND r.kind = 'held'`)
		.bind(ctx.projectId, id)
		.first<ReviewRow>();
	// Another writer's item is indistinguishable from a missing one, unless the caller is an admin.
	if (!row || (!admin && row.owner_id !== ctx.userId)) throw notFound("held memory");
	return row;
}

export async function getHeld(db: ProjectDb, ctx: ProjectContext, id: string, admin: boolean): Promise<ReviewItem & { writer: string }> {
	const row = await heldRow(db, ctx, id, admin);
	return { ...toItem(row), writer: row.owner_id };
}

export const approvalNeedsAdmin = () =>
	new CairnError(
		"forbidden",
		"a held memory is approved by a project admin (an admin key, or the console signed in with one); a write key cannot approve it",
	);

/**
 * Approves (admins only) or rejects (the writer or an admin) a pending held item. Approval writes the
 * held file as its writer's, through the ordinary write path, recorded as reviewed by the approver; a
 * memory changed since the hold is a 412 version_conflict and the item stays pending. Rejection keeps
 * no text: the item's proposal is emptied.
 */
export async function decideHeld(
	env: ProjectEnv,
	ctx: ProjectContext,
	id: string,
	decision: "approve" | "reject",
	admin: boolean,
): Promise<{ item: ReviewItem & { writer: string }; memory: MemoryMetadata | null }> {
	const db = env.PDB;
	const row = await heldRow(db, ctx, id, admin);
	if (row.status !== "pending") throw new CairnError("conflict", `this held memory was already ${row.status}`, { status: row.status });
	if (decision === "approve" && !admin) throw approvalNeedsAdmin();
	const pending = "EXISTS (SELECT 1 FROM review_items WHERE id = ? AND status = 'pending')";
	const decidedMeanwhile = () => new CairnError("conflict", "this held memory was decided by another request");
	const guard: WriteGuard = { condition: pending, args: [id], error: decidedMeanwhile };

	let memory: MemoryMetadata | null = null;
	if (decision === "approve") {
		const p = JSON.parse(row.proposal_json) as HeldProposal;
		// Written as the writer's own memory: their personal scope, their authorship.
		const writer: ProjectContext = { ...ctx, userId: row.owner_id };
		const current = await getMemoryRow(db, writer, row.memory_scope, row.memory_name);
		if ((current?.version ?? null) !== row.base_version) {
			throw new CairnError("version_conflict", "the memory changed since this was held; nothing was changed", {
				currentVersion: current?.version ?? null,
			});
		}
		const written = await writeMemory(
			env,
			writer,
			{
				scope: row.memory_scope,
				file: { name: row.memory_name, type: p.type, description: p.description, body: p.body },
				source: p.source,
				trust: { tier: p.tier, reviewedBy: ctx.userId },
				...(row.base_version !== null ? { ifMatch: row.base_version } : {}),
			},
			{},
			guard,
		);
		memory = written.memory;
	}
	const status = decision === "approve" ? "approved" : "rejected";
	const now = nowIso();
	try {
		await db.batch([
			db.guard(pending, id),
			db
				.prepare(
					`UPDATE review_items SET status = ?, decided_at = ?, decided_by = ?${decision === "reject" ? ", proposal_json = '{}'" : ""} WHERE id = ?`,
				)
				.bind(status, now, ctx.userId, id),
			db
				.prepare(
					`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
					 VALUES (?, ?, ?, ?, 'review-held', ?, ?, ?, ?, ?)`,
				)
				.bind(
					ctx.projectId,
					row.owner_id,
					row.memory_scope,
					id,
					row.memory_name,
					status,
					`${status} by ${ctx.userId}: ${row.reason}`.slice(0, 500),
					row.evidence_json,
					now,
				),
		]);
	} catch (err) {
		if (err instanceof CairnError) throw err;
		throw (
			(await db
				.guard(pending, id)
				.first()
				.then(() => null)
				.catch(() => decidedMeanwhile())) ?? err
		);
	}
	return { item: await getHeld(db, ctx, id, true), memory };
}
