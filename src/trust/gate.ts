/**
 * The trust gate every memory write passes (docs/memory-trust.md): a write no project admin reviewed
 * whose text the danger check flags (src/security/danger.ts) is held — its file goes to the writer's
 * review queue as a `held` item with the reason, nothing else is stored — and answered 202
 * held_for_review. What happens to a held item next is src/trust/held.ts.
 */
import { CairnError } from "../errors";
import { nowIso, randomId, sha256Hex } from "../lib/ids";
import type { MemoryRow } from "../memory/rows";
import { type MemoryScope, type MemorySource, type MemoryType, renderTopicFile, type TopicFile } from "../memory/topic-file";
import { assessDanger, type DangerFinding, dangerSummary } from "../security/danger";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { type TrustTier, tierOfSource, type WriteTrust } from "./tier";

/** A review item's id, in the review queue's form (src/memory/reviews.ts). */
export const newHeldId = () => `rev_${randomId(16)}`;

/** What a held item keeps of the write: the file and how it came, to write it as it was on approval. */
export interface HeldProposal {
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
	// The free text of a memory, as the secret scan reads it: description, body, cues.
	return assessDanger([input.file.description, input.file.body, ...(input.cues ?? [])].join("\n"));
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
	/** Why it is held, when not for what the danger check found (src/pipeline/tool-origin.ts: where it came from). */
	reason?: string,
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
				reason ?? heldReason(findings),
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
	const id = newHeldId();
	await db.batch(holdStatements(db, ctx, input, findings, baseVersion, id));
	throw heldError(id, findings);
}
