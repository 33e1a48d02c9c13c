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
import { nowIso } from "../lib/ids";
import { type ReviewItem, type ReviewRow, toItem } from "../memory/reviews";
import { getMemoryRow, type MemoryMetadata, type WriteGuard, writeMemory } from "../memory/store";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb } from "../storage/sql";
import type { HeldProposal } from "./gate";
import { type Reviewer, vouchRefusal } from "./vouch";

const SELECT_HELD = `SELECT r.*, m.version AS current_version FROM review_items r
	LEFT JOIN memories m ON m.project_id = r.project_id AND m.scope = r.memory_scope
		AND m.owner_id = (CASE r.memory_scope WHEN 'team' THEN '' ELSE r.owner_id END) AND m.name = r.memory_name`;

/**
 * Whether `reviewer` sees every writer's held items: an admin, as a person — not from an agent's session
 * or with a key one used, so a held text reaches no teammate's agent through the queue (src/trust/vouch.ts).
 */
async function seesAll(db: ProjectDb, ctx: ProjectContext, reviewer: Reviewer): Promise<boolean> {
	return reviewer.admin && (await vouchRefusal(db, ctx.projectId, reviewer)) === null;
}

/** Held items of the project (an admin as a person: everyone's; anyone else: their own), newest first. */
export async function listHeld(
	db: ProjectDb,
	ctx: ProjectContext,
	options: { reviewer: Reviewer; status: ReviewItem["status"]; limit: number },
): Promise<(ReviewItem & { writer: string })[]> {
	const where = ["r.project_id = ?", "r.kind = 'held'", "r.status = ?"];
	const args: unknown[] = [ctx.projectId, options.status];
	if (!(await seesAll(db, ctx, options.reviewer))) {
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

export async function getHeld(
	db: ProjectDb,
	ctx: ProjectContext,
	id: string,
	reviewer: Reviewer,
): Promise<ReviewItem & { writer: string }> {
	const row = await heldRow(db, ctx, id, await seesAll(db, ctx, reviewer));
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
	reviewer: Reviewer,
): Promise<{ item: ReviewItem & { writer: string }; memory: MemoryMetadata | null }> {
	const db = env.PDB;
	const admin = reviewer.admin;
	const row = await heldRow(db, ctx, id, admin);
	if (row.status !== "pending") throw new CairnError("conflict", `this held memory was already ${row.status}`, { status: row.status });
	if (decision === "approve" && !admin) throw approvalNeedsAdmin();
	// An admin approves as a person: not from an agent's session, not with a key one used (src/trust/vouch.ts).
	if (decision === "approve") {
		const refusal = await vouchRefusal(db, ctx.projectId, reviewer);
		if (refusal) throw refusal;
	}
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
	return { item: { ...toItem((await heldRow(db, ctx, id, true)) as ReviewRow), writer: row.owner_id }, memory };
}
