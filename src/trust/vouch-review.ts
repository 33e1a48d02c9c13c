/**
 * Deciding a team proposal (a `vouch` review item, src/trust/vouch.ts). Approving records the approver as
 * the one who vouched for the memory's current text — on the memory and that version, in one transaction
 * with the item's decision and its audit event — and opens its search visibility to every teammate;
 * the index generation moves so cached blocks and indexes follow. An admin's approval is also their
 * review of the text (`reviewed_by`). A memory changed since the proposal is a 412 and the item stays
 * pending: only the text a person read is vouched for.
 *
 * Rejecting takes the proposal back: the last version a person vouched for is written again as a new
 * version (still vouched for by whoever did), or, when no version ever was, the memory is deleted.
 */
import { CairnError } from "../errors";
import type { MemoryRow } from "../memory/rows";
import {
	deleteMemory,
	getMemoryRow,
	guardStatement,
	isGuardFailure,
	type MemoryMetadata,
	readMemoryContent,
	toMetadata,
	type WriteGuard,
	writeMemory,
} from "../memory/store";
import { type MemoryScope, parseTopicFile } from "../memory/topic-file";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectStatement } from "../storage/sql";
import type { TrustTier } from "./tier";

/** What deciding a `vouch` item reads of it (its row in src/memory/reviews.ts). */
interface VouchItem {
	memory_name: string;
	base_version: number | null;
}

/** The refusal when an approval that writes team scope names no person at all (an internal caller). */
export const vouchNeedsPerson = () =>
	new CairnError("forbidden", "a team proposal is approved by a person: in the console, or with `cairn review approve` from a terminal");

const stale = (current: number | null) =>
	new CairnError("version_conflict", "the memory changed since this was proposed; nothing was changed", { currentVersion: current });

/**
 * Approves a pending `vouch` item: the memory as approved and the statements to commit with the item's
 * decision. A memory changed since the proposal is a 412, and the item stays pending.
 */
export async function approveVouch(
	env: ProjectEnv,
	ctx: ProjectContext,
	row: VouchItem,
	admin: boolean,
): Promise<{ memory: MemoryMetadata; statements: ProjectStatement[] }> {
	const db = env.PDB;
	const current = await getMemoryRow(db, ctx, "team", row.memory_name);
	if (!current || current.version !== row.base_version) throw stale(current?.version ?? null);
	const approver = ctx.userId;
	const reviewer = admin ? approver : null;
	const statements = [
		// Still the version the person read, still a proposal, when the decision commits.
		guardStatement(db, "EXISTS (SELECT 1 FROM memories WHERE id = ? AND version = ? AND vouched_by IS NULL)", [
			current.id,
			current.version,
		]),
		db
			.prepare("UPDATE memories SET vouched_by = ?, reviewed_by = coalesce(reviewed_by, ?) WHERE id = ? AND version = ?")
			.bind(approver, reviewer, current.id, current.version),
		db
			.prepare("UPDATE memory_versions SET vouched_by = ?, reviewed_by = coalesce(reviewed_by, ?) WHERE memory_id = ? AND version = ?")
			.bind(approver, reviewer, current.id, current.version),
		db.prepare("UPDATE memory_visibility SET owner_id = '' WHERE memory_id = ?").bind(current.id),
		db.prepare("UPDATE projects SET index_generation = index_generation + 1 WHERE id = ?").bind(ctx.projectId),
	];
	return { memory: toMetadata({ ...current, vouched_by: approver, reviewed_by: current.reviewed_by ?? reviewer }), statements };
}

/**
 * After a `vouch` item was rejected: nothing of the proposal stays served, its writer's sessions included —
 * unless the memory changed since (a newer text has its own item) or was vouched for meanwhile.
 */
export async function takeBackProposal(env: ProjectEnv, ctx: ProjectContext, row: VouchItem): Promise<MemoryMetadata | null> {
	const current = await getMemoryRow(env.PDB, ctx, "team", row.memory_name);
	if (!current || current.version !== row.base_version || current.vouched_by) return current ? toMetadata(current) : null;
	return takeBack(env, ctx, "team", current);
}

/**
 * Takes back a memory's current version: the latest earlier version a person vouched for (team) — or, for
 * a personal memory, the latest earlier version — is written again as a new version; with none, the memory
 * is deleted. Used when a proposal is rejected and when the tool-output check holds a write
 * (src/pipeline/tool-origin.ts). Returns the memory as it is now (null: deleted).
 */
export async function takeBack(
	env: ProjectEnv,
	ctx: ProjectContext,
	scope: MemoryScope,
	current: MemoryRow,
	guard?: WriteGuard,
): Promise<MemoryMetadata | null> {
	const db = env.PDB;
	const earlier = await db
		.prepare(
			`SELECT version, content_hash, content_ref, trust, reviewed_by, vouched_by FROM memory_versions
			 WHERE memory_id = ? AND version < ? ${scope === "team" ? "AND vouched_by IS NOT NULL" : ""} ORDER BY version DESC LIMIT 1`,
		)
		.bind(current.id, current.version)
		.first<{
			version: number;
			content_hash: string;
			content_ref: string | null;
			trust: string | null;
			reviewed_by: string | null;
			vouched_by: string | null;
		}>();
	const owner = scope === "team" ? ctx : { ...ctx, userId: current.owner_id };
	if (earlier) {
		const file = parseTopicFile(await readMemoryContent(env, ctx, earlier));
		try {
			const written = await writeMemory(
				env,
				owner,
				{
					scope,
					file: { ...file, name: current.name },
					source: current.source,
					ifMatch: current.version,
					trust: {
						...(earlier.trust ? { tier: earlier.trust as TrustTier } : {}),
						reviewedBy: earlier.reviewed_by,
						vouchedBy: earlier.vouched_by,
					},
				},
				{},
				guard,
			);
			return written.memory;
		} catch (err) {
			// The earlier text is one the danger check now holds: it is held in turn, and the memory goes.
			if (!(err instanceof CairnError && err.code === "held_for_review")) throw err;
		}
	}
	if (guard) {
		await guardStatement(db, guard.condition, guard.args)
			.first()
			.catch((err) => {
				throw isGuardFailure(err) ? guard.error() : err;
			});
	}
	await deleteMemory(env, owner, scope, current.name);
	return null;
}
