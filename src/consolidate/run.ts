import type { LanguageModel } from "ai";
import { CairnError, isInputError } from "../errors";
import { distinctiveWords, wordsSupported } from "../extract/provenance";
import type { Candidate } from "../extract/schema";
import { nowIso } from "../lib/ids";
import { ModelConfigError, resolveModel } from "../llm/models";
import { summaryKey } from "../memory/paths";
import { proposalProblem, type ReviewProposal, reviewStatements } from "../memory/reviews";
import type { MemoryRow } from "../memory/rows";
import {
	deleteMemory,
	getMemoryRow,
	guardStatement,
	isGuardFailure,
	type VersionEvidence,
	type WriteGuard,
	writeMemory,
} from "../memory/store";
import { forgetStoredSummaries } from "../memory/summary-cache";
import { projectTenant } from "../registry/projects";
import { assessDanger } from "../security/danger";
import { findSecrets, redactSecrets } from "../security/secrets";
import { effectiveSettings } from "../settings/settings";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { truncateToTokens } from "../text/tokens";
import { withoutFlaggedLines } from "../trust/outputs";
import { servedSql } from "../trust/vouch";
import { listSkills, readSkill, readSummary, replaceSkills, type SkillRow, writeSummary } from "./artifacts";
import { loadPending, MAX_OUTPUTS_PER_RUN, type PendingOutput, touchedMemories } from "./inputs";
import { ConsolidationError, modelPlan } from "./model";
import { offlinePlan } from "./offline";
import type { ConsolidationPlan, Operation } from "./plan";
import { buildSummary } from "./summary";
import { operationCitations } from "./transcript-citations";
import { newestWins, withoutChangeOnly } from "./updates";

/** Points where a test can make a run fail, to prove a retried run converges. */
export interface ConsolidationFaults {
	afterObjectPut?: () => void | Promise<void>;
	afterBatch?: () => void | Promise<void>;
	beforeMarkConsolidated?: () => void | Promise<void>;
}

/** What a step after a user's consolidation records in the run's audit (an event without evidence). */
export interface AfterUserEvent {
	op: string;
	target: string;
	outcome: "applied" | "skipped";
	reason: string;
}

export interface RunOptions {
	/** The consolidation model; by default the `smol` role (falling back to `default`). null = offline. */
	model?: LanguageModel | null;
	faults?: ConsolidationFaults;
	/**
	 * With a model, run after each user's consolidation, before its audit batch (the object passes the naming of
	 * the user's topics, src/search/start-view.ts `nameTopics`): what it returns is recorded with the run's events.
	 */
	afterUser?: (ctx: ProjectContext, model: LanguageModel) => Promise<AfterUserEvent | null>;
}

export interface RunOutcome {
	outcome: "succeeded" | "nothing to do";
	outputs: number;
	changes: number;
	/** More outputs are waiting than one run takes. */
	more: boolean;
}

interface Event {
	op: string;
	target: string;
	/** The scope of the memory `target` names when it is a team memory; personal (the run's owner's) otherwise. */
	scope?: "team";
	/** `proposed`: a change to a memory written on purpose, kept in the review queue instead of applied. */
	outcome: "applied" | "unchanged" | "skipped" | "refused" | "proposed";
	reason: string;
	evidence: string[];
}

const EXPLICIT = new Set(["user", "agent", "import"]);

/** The project was cleared while this run was working: nothing more of it may be written. */
export class RunCleared extends Error {
	constructor() {
		super("the project's memory was cleared during the consolidation run");
		this.name = "RunCleared";
	}
}

/**
 * The run's hold on the project: its outputs still pending, exactly as loaded. `clear` deletes every
 * stage-1 output in the same transaction as the memories, so once it has run this no longer holds, and
 * every write of the run checks it in the transaction that commits the write.
 */
export interface RunGuard extends WriteGuard {
	/** The run this guard belongs to: recorded on every version it writes. */
	runId: string;
	/** Throws RunCleared when the guard no longer holds. Synchronous SQL: nothing runs in between. */
	check: () => Promise<void>;
	statement: () => ProjectStatement;
}

/** A batch refused by the run's guard means the project was cleared. */
const rethrowCleared = (err: unknown): never => {
	throw isGuardFailure(err) ? new RunCleared() : err;
};

function runGuard(db: ProjectDb, projectId: string, outputs: PendingOutput[], runId: string): RunGuard {
	const first = outputs[0] as PendingOutput;
	const condition =
		"EXISTS (SELECT 1 FROM stage1_outputs WHERE project_id = ? AND session_id = ? AND from_seq = ? AND created_at = ? AND consolidated_at IS NULL)";
	const args = [projectId, first.session_id, first.from_seq, first.created_at];
	const statement = () => guardStatement(db, condition, args);
	return {
		runId,
		condition,
		args,
		error: () => new RunCleared(),
		statement,
		check: async () => {
			try {
				await statement().first();
			} catch (err) {
				if (isGuardFailure(err)) throw new RunCleared();
				throw err;
			}
		},
	};
}

/** Does this user-stated candidate speak about the change: same memory, or the change carries its words? */
function relatesTo(c: Candidate, op: Operation, row: MemoryRow): boolean {
	if (c.name === row.name || c.name === op.name) return true;
	const changed = "body" in op ? `${op.description}\n${op.body}` : row.description;
	return wordsSupported(distinctiveWords(`${c.description}\n${c.body}`), distinctiveWords(changed));
}

/**
 * May automatic consolidation change this memory? Memories written on purpose (by a person, an agent,
 * an import) only change on a newer explicit signal: a user statement, in one of the evidence
 * sessions, made after the memory was last written, about this change (another candidate of the same
 * output that the user stated does not count). "Made after" is the statement's own time (`statedAt`,
 * the turn it rests on), so a statement before a write in the same session never counts as newer;
 * outputs stored before candidates carried it fall back to the session's last activity.
 */
function mayChange(row: MemoryRow, op: Operation, evidence: string[], outputs: PendingOutput[]): boolean {
	if (!EXPLICIT.has(row.source)) return true;
	const written = Date.parse(row.updated_at);
	return outputs.some(
		(o) =>
			evidence.includes(o.session_id) &&
			o.candidates.some(
				(c) => c.userStated && Date.parse(c.statedAt ?? o.session_activity ?? o.created_at) > written && relatesTo(c, op, row),
			),
	);
}

const PROPOSED = "written explicitly; proposed for review";
const HELD = "held for review: it asks for what a planted instruction would";

/**
 * A change to a memory written on purpose, kept for its owner to decide (src/memory/reviews.ts), or the
 * reason it cannot be (text the write path would refuse).
 */
async function propose(proposal: ReviewProposal, proposals: ReviewProposal[], base: Omit<Event, "outcome">): Promise<Event> {
	const problem = await proposalProblem(proposal);
	if (problem) return { ...base, outcome: "refused", reason: problem };
	proposals.push(proposal);
	return { ...base, outcome: "proposed", reason: PROPOSED };
}

/** The review proposal for an operation on an explicit memory that consolidation may not change alone. */
function changeProposal(op: Operation, row: MemoryRow, evidence: string[]): ReviewProposal {
	const common = { kind: "change" as const, name: row.name, scope: row.scope, baseVersion: row.version, reason: op.reason, evidence };
	if (op.op === "delete" || op.op === "confirm") return { ...common, op: "delete", proposed: {} };
	const file = { type: op.type, description: op.description, body: op.body };
	if (op.op === "merge") return { ...common, op: "merge", proposed: { ...file, from: op.from.filter((f) => f !== op.name) } };
	return { ...common, op: "update", proposed: { ...file, ...(op.proposedScope ? { scope: op.proposedScope } : {}) } };
}

/**
 * The turns behind an operation: in each evidence session, the candidates named like its memory (or
 * a memory it merges), or whose statement its body carries.
 */
function supportingTurns(op: Operation, sessions: string[], outputs: PendingOutput[]): VersionEvidence[] {
	const names = new Set([op.name, ...(op.op === "merge" ? op.from : [])]);
	const body = "body" in op ? op.body.toLowerCase() : "";
	return sessions.map((session) => {
		const turns = new Set<string>();
		for (const o of outputs.filter((x) => x.session_id === session)) {
			for (const c of o.candidates) {
				const statement = c.description.replace(/[.!]+$/, "").toLowerCase();
				if (names.has(c.name) || (statement.length > 8 && body.includes(statement))) for (const t of c.evidence) turns.add(t);
			}
		}
		return { session, turns: [...turns].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1))) };
	});
}

async function applyOperation(
	env: ProjectEnv,
	ctx: ProjectContext,
	op: Operation,
	outputs: PendingOutput[],
	faults: ConsolidationFaults,
	guard: RunGuard,
	proposals: ReviewProposal[],
): Promise<Event[]> {
	const evidence = op.evidence.filter((e) => outputs.some((o) => o.session_id === e));
	const base = { op: op.op, target: op.name, reason: op.reason.slice(0, 500), evidence };
	const personal = await getMemoryRow(env.PDB, ctx, "personal", op.name);
	const team = personal ? null : await getMemoryRow(env.PDB, ctx, "team", op.name);
	const current = personal ?? team;

	if (op.op === "confirm") {
		if (!current) return [{ ...base, outcome: "skipped", reason: "no such memory" }];
		await env.PDB.batch([
			guard.statement(),
			env.PDB.prepare("UPDATE memories SET verified_at = ? WHERE id = ?").bind(nowIso(), current.id),
		]).catch((err) => {
			throw isGuardFailure(err) ? new RunCleared() : err;
		});
		return [{ ...base, outcome: "applied" }];
	}
	if (team && !personal && op.op !== "create") {
		return [{ ...base, scope: "team", outcome: "skipped", reason: "team memories are changed by their authors, not by consolidation" }];
	}
	if (personal && !mayChange(personal, op, evidence, outputs)) {
		// Not dropped: kept in the owner's review queue, with the version it was based on.
		return [await propose(changeProposal(op, personal, evidence), proposals, base)];
	}
	if (op.op === "delete") {
		if (!personal) return [{ ...base, outcome: "skipped", reason: "no such memory" }];
		await guard.check(); // deleteMemory reads and deletes without an await on R2: nothing runs in between
		await deleteMemory(env, ctx, "personal", op.name);
		await faults.afterBatch?.();
		return [{ ...base, outcome: "applied" }];
	}
	const events: Event[] = [];
	try {
		const written = await writeMemory(
			env,
			ctx,
			{
				scope: "personal",
				file: { name: op.name, type: op.type, description: op.description, body: op.body },
				...(op.cues?.length ? { cues: op.cues } : {}),
				source: "consolidation",
				sessionId: evidence.at(-1) ?? null,
				...(op.op !== "merge" && op.proposedScope ? { proposedScope: op.proposedScope } : {}),
				provenance: { runId: guard.runId, evidence: supportingTurns(op, evidence, outputs) },
				transcriptCitations: operationCitations(op, evidence, outputs),
			},
			{ afterObjectPut: faults.afterObjectPut },
			guard,
		);
		await faults.afterBatch?.();
		events.push({ ...base, outcome: written.status === "unchanged" ? "unchanged" : "applied" });
		if (op.op !== "merge" && op.proposedScope === "team" && written.memory.proposedScope === "team") {
			// One pending "promote to team" item per memory: a person decides, never consolidation.
			proposals.push({
				kind: "promote",
				name: op.name,
				scope: "personal",
				op: "promote",
				baseVersion: written.memory.version,
				proposed: { scope: "team" },
				reason: op.reason,
				evidence,
			});
		}
	} catch (err) {
		if (err instanceof CairnError && err.code === "secret_detected")
			return [{ ...base, outcome: "refused", reason: "contains what looks like a secret" }];
		// The trust gate held the text (src/trust/gate.ts): the memory stays as it was, a project admin decides.
		if (err instanceof CairnError && err.code === "held_for_review") return [{ ...base, outcome: "proposed", reason: HELD }];
		if (isInputError(err) || (err instanceof CairnError && err.code === "feature_disabled"))
			return [{ ...base, outcome: "refused", reason: err.message }];
		throw err;
	}
	if (op.op === "merge") {
		for (const from of op.from) {
			if (from === op.name) continue;
			const row = await getMemoryRow(env.PDB, ctx, "personal", from);
			if (!row) continue;
			if (!mayChange(row, op, evidence, outputs)) {
				const proposal: ReviewProposal = {
					kind: "change",
					name: from,
					scope: "personal",
					op: "delete",
					baseVersion: row.version,
					proposed: {},
					reason: `merged into ${op.name}`,
					evidence,
				};
				events.push(await propose(proposal, proposals, { ...base, op: "delete", target: from, reason: "" }));
				continue;
			}
			await guard.check();
			await deleteMemory(env, ctx, "personal", from);
			await faults.afterBatch?.();
			events.push({ ...base, op: "delete", target: from, outcome: "applied", reason: `merged into ${op.name}` });
		}
	}
	return events;
}

/** Existing skills with their bodies (read from R2), for the model to keep what is still true. */
async function skillBodies(env: ProjectEnv, ctx: ProjectContext, skills: SkillRow[]): Promise<(SkillRow & { body: string })[]> {
	return Promise.all(
		skills.map(async (s) => {
			const text = (await readSkill(env, ctx, s.name)) ?? "";
			return { ...s, body: text.replace(/^---\n[\s\S]*?\n---\n+/, "") };
		}),
	);
}

/** Skills made from memories (their sources) of which none exists any more, with the reason. */
async function orphanedSkills(env: ProjectEnv, ctx: ProjectContext, skills: SkillRow[]): Promise<{ name: string; reason: string }[]> {
	const out: { name: string; reason: string }[] = [];
	for (const skill of skills) {
		const sources = JSON.parse(skill.sources || "[]") as string[];
		if (sources.length === 0) continue;
		const { results } = await env.PDB.prepare(
			`SELECT name FROM memories WHERE project_id = ?1 AND ${servedSql("", "?2")} AND name IN (SELECT value FROM json_each(?3))`,
		)
			.bind(ctx.projectId, ctx.userId, JSON.stringify(sources))
			.all<{ name: string }>();
		if (results.length === 0) out.push({ name: skill.name, reason: `its source memories are gone (${sources.join(", ")})` });
	}
	return out;
}

/**
 * One consolidation run over a project: the unconsolidated stage-1 outputs (oldest first, at most
 * MAX_OUTPUTS_PER_RUN), grouped by the user whose sessions produced them. For each user: the
 * memories the new material touches, a plan (model or offline), the plan applied through the
 * ordinary write path, skills replaced, the summary rewritten; then, in one D1 batch, the audit
 * events and the outputs marked consolidated. A failure anywhere leaves the outputs pending, so the
 * retried run redoes the work; writes of identical content are no-ops, so it converges.
 */
export async function consolidateProject(env: ProjectEnv, projectId: string, runId: string, options: RunOptions = {}): Promise<RunOutcome> {
	const faults = options.faults ?? {};
	const tenantId = await projectTenant(env.DB, projectId);
	if (!tenantId) return { outcome: "nothing to do", outputs: 0, changes: 0, more: false };
	const pending = await loadPending(env.PDB, projectId, MAX_OUTPUTS_PER_RUN + 1);
	const more = pending.length > MAX_OUTPUTS_PER_RUN;
	const batch = pending.slice(0, MAX_OUTPUTS_PER_RUN);
	if (batch.length === 0) return { outcome: "nothing to do", outputs: 0, changes: 0, more: false };

	let model: LanguageModel | null;
	try {
		model = options.model !== undefined ? options.model : resolveModel(env, "smol");
	} catch (err) {
		throw new ConsolidationError(err instanceof ModelConfigError ? err.message : "the consolidation model could not be configured");
	}

	let changes = 0;
	let processed = 0;
	try {
		for (const userId of [...new Set(batch.map((o) => o.user_id))]) {
			const outputs = batch.filter((o) => o.user_id === userId);
			const ctx: ProjectContext = { tenantId, userId, projectId };
			const guard = runGuard(env.PDB, projectId, outputs, runId);
			const settings = await effectiveSettings(env.DB, ctx.tenantId, userId, projectId);
			if (settings["memories.enabled"].value !== true) continue; // left pending until memory is on again
			const candidates = outputs.flatMap((o) => o.candidates);
			const events: Event[] = [];
			const proposals: ReviewProposal[] = [];
			if (candidates.length > 0 || outputs.some((o) => o.raw_memory.trim())) {
				const summaryLimit = Number(settings["memories.summaryInjectionTokenLimit"].value);
				const touched = await touchedMemories(env.PDB, ctx, candidates);
				const skillsBefore = await listSkills(env.PDB, ctx);
				const previousSummary = model ? await readSummary(env, ctx) : null;
				const plan: ConsolidationPlan = model
					? newestWins(
							await modelPlan(
								model,
								withoutChangeOnly(outputs),
								touched,
								await skillBodies(env, ctx, skillsBefore),
								previousSummary,
								summaryLimit,
							),
							touched,
							outputs,
						)
					: offlinePlan(outputs, touched);
				for (const op of plan.operations) events.push(...(await applyOperation(env, ctx, op, outputs, faults, guard, proposals)));

				// Skills: the run returns the skills it creates or changes; the rest are kept. A model retires a
				// skill (with its reason) only when the new material contradicts it; offline, a skill whose
				// source memories are all gone is retired.
				const retired = model
					? plan.retiredSkills.filter((r) => skillsBefore.some((s) => s.name === r.name))
					: await orphanedSkills(env, ctx, skillsBefore);
				const safeSkills = [];
				for (const skill of plan.skills) {
					if ((await findSecrets(`${skill.description}\n${skill.body}`)).length > 0) {
						events.push({ op: "skill", target: skill.name, outcome: "refused", reason: "contains what looks like a secret", evidence: [] });
					} else if (assessDanger(`${skill.description}\n${skill.body}`).length > 0) {
						// A skill is served like a memory and has no review of its own: what the trust gate would hold is not written.
						events.push({ op: "skill", target: skill.name, outcome: "refused", reason: HELD, evidence: [] });
					} else safeSkills.push(skill);
				}
				const { written, removed } = await replaceSkills(
					env,
					ctx,
					safeSkills,
					"add",
					guard.statement(),
					retired.map((r) => r.name),
				).catch(rethrowCleared);
				for (const name of written) events.push({ op: "skill", target: name, outcome: "applied", reason: "skill written", evidence: [] });
				for (const name of removed) {
					const reason = retired.find((r) => r.name === name)?.reason ?? "retired";
					events.push({ op: "skill-delete", target: name, outcome: "applied", reason: reason.slice(0, 500), evidence: [] });
				}

				// A model that returns no summary leaves the previous one standing — unless this run changed a
				// memory, whose old value the previous summary may still state: then it is rebuilt from the memories.
				const changedMemory = events.some((e) => e.outcome === "applied" && ["create", "update", "merge", "delete"].includes(e.op));
				const summary =
					model && plan.summary.trim()
						? plan.summary
						: ((model && !changedMemory ? previousSummary : null) ?? (await buildSummary(env.PDB, ctx, summaryLimit)));
				// The summary passes the same gate line by line: a merge cannot carry a held sentence into it.
				const safe = truncateToTokens(withoutFlaggedLines((await redactSecrets(summary)).text), summaryLimit).text;
				await guard.check();
				await writeSummary(env, ctx, safe);
				try {
					await guard.check();
				} catch (err) {
					// Cleared while the put was in flight: the clear's listing may have missed it.
					forgetStoredSummaries(summaryKey(ctx.tenantId, ctx.projectId, ctx.userId));
					await env.FILES.delete(summaryKey(ctx.tenantId, ctx.projectId, ctx.userId));
					throw err;
				}
			}
			// With a model, what runs after a user's consolidation (the naming of their topics) is recorded with its events.
			if (model && options.afterUser) {
				const after = await options.afterUser(ctx, model);
				if (after) events.push({ ...after, evidence: [] });
			}
			await faults.beforeMarkConsolidated?.();
			const now = nowIso();
			await env.PDB.batch([
				guard.statement(),
				...events.map((e) =>
					env.PDB.prepare(
						`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
					 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
					).bind(projectId, userId, e.scope ?? "personal", runId, e.op, e.target, e.outcome, e.reason, JSON.stringify(e.evidence), now),
				),
				...reviewStatements(env.PDB, ctx, proposals, runId, now),
				...outputs.map((o) =>
					env.PDB.prepare(
						"UPDATE stage1_outputs SET consolidated_at = ? WHERE project_id = ? AND session_id = ? AND from_seq = ? AND consolidated_at IS NULL",
					).bind(now, projectId, o.session_id, o.from_seq),
				),
			]).catch((err) => {
				throw isGuardFailure(err) ? new RunCleared() : err;
			});
			changes += events.filter((e) => e.outcome === "applied").length;
			processed += outputs.length;
		}
	} catch (err) {
		// A clear landed during the run: it stops here, writing nothing more, and its outputs are gone.
		if (err instanceof RunCleared)
			return { outcome: processed > 0 ? "succeeded" : "nothing to do", outputs: processed, changes, more: false };
		throw err;
	}
	return { outcome: processed > 0 ? "succeeded" : "nothing to do", outputs: processed, changes, more };
}
