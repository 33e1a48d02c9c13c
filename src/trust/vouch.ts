/**
 * Team memory a person vouched for (docs/memory-trust.md, "Team memory is vouched for"). A team memory is
 * an instruction to every teammate's agent, so it reaches teammates' sessions — the start and prompt
 * blocks, `memory://` and `memory_read`, recall, team pull, the listing — only when a person vouched for
 * its current text: wrote it with an admin key outside an agent session, or approved it in the console
 * or with `cairn review approve` from their own terminal. Until then it is a proposal: stored, served to
 * its writer marked "unreviewed", and a `vouch` item in the review queue; teammates see a count.
 *
 * `memories.vouched_by` (and each version's) says who let the text through: a person's user id,
 * {@link PUBLISHED_BY_SETTING} when the project publishes team writes at once
 * (`memories.teamPublishUnreviewed`, a project setting only an admin changes), or
 * {@link VOUCHED_AT_UPGRADE} for what teammates were served before this rule. A proposal's search
 * visibility row carries its writer as owner (a vouched team memory's carries ''), so the candidate
 * queries over `memory_visibility` (src/memory/lexical.ts) find it for the writer only.
 *
 * A key an agent session used in this project (its hooks, MCP client, a write naming a session) never
 * vouches, reviews or approves: an agent holding it could otherwise approve its own plant.
 */
import { CairnError } from "../errors";
import { newReviewId, nowIso } from "../lib/ids";
import { lookupTable } from "../lib/lookup";
import type { MemoryRow } from "../memory/rows";
import type { MemoryScope, TopicFile } from "../memory/topic-file";
import { clientSessionId } from "../sessions/turns";
import { effectiveSettings } from "../settings/settings";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { type TrustTier, tierOfSource, type WriteTrust } from "./tier";

/** `vouched_by` of the team memories stored before vouching existed: kept served. */
export const VOUCHED_AT_UPGRADE = "cairn:upgrade";
/** `vouched_by` of a team write published at once by the project's setting, no person having read it. */
export const PUBLISHED_BY_SETTING = "cairn:setting";
/** The project setting that publishes team writes at once (off by default; an admin changes it). */
export const PUBLISH_SETTING = "memories.teamPublishUnreviewed";

type Served = Pick<MemoryRow, "scope" | "owner_id" | "author_id"> & { vouched_by?: string | null };

/**
 * SQL: whether the `memories` row under `alias` is served to the user bound as `user` (a placeholder such
 * as `?2`): their personal memories, the team memories a person vouched for, and their own team proposals.
 */
export function servedSql(alias: string, user: string): string {
	const a = alias ? `${alias}.` : "";
	return `(${a}owner_id = ${user} OR (${a}scope = 'team' AND (${a}vouched_by IS NOT NULL OR ${a}author_id = ${user})))`;
}

/** The same, of one scope only. */
export function servedInSql(scopes: MemoryScope[], alias: string, user: string): string {
	const a = alias ? `${alias}.` : "";
	if (scopes.length === 2) return servedSql(alias, user);
	return scopes[0] === "team"
		? `(${a}scope = 'team' AND (${a}vouched_by IS NOT NULL OR ${a}author_id = ${user}))`
		: `(${a}scope = 'personal' AND ${a}owner_id = ${user})`;
}

/** Whether `row` is served to `userId` (see servedSql). */
export function isServedTo(row: Served, userId: string): boolean {
	if (row.scope !== "team") return row.owner_id === userId;
	return Boolean(row.vouched_by) || row.author_id === userId;
}

/** A team memory whose current text no person vouched for yet: a proposal. */
export const awaitsReview = (row: Pick<Served, "scope" | "vouched_by">) => row.scope === "team" && !row.vouched_by;

/** The line teammates' session-start blocks carry instead of proposals' text. */
export function awaitingLine(count: number): string {
	if (count <= 0) return "";
	return `${count} team ${count === 1 ? "memory awaits" : "memories await"} review — cairn review (a person approves it before teammates' agents are served it)`;
}

/** How many team memories await review in the project (not archived). */
export async function awaitingCount(db: ProjectDb, projectId: string): Promise<number> {
	const row = await db
		.prepare(
			"SELECT count(*) AS n FROM memories INDEXED BY memories_awaiting WHERE project_id = ? AND scope = 'team' AND vouched_by IS NULL AND archived_at IS NULL",
		)
		.bind(projectId)
		.first<{ n: number }>();
	return row?.n ?? 0;
}

// Keys an agent session used ------------------------------------------------------------------------

/** Records that an agent session used `keyId` in this project (idempotent). */
export async function noteSessionKey(db: ProjectDb, projectId: string, keyId: string): Promise<void> {
	await db
		.prepare("INSERT OR IGNORE INTO session_keys (project_id, key_id, first_seen_at) VALUES (?, ?, ?)")
		.bind(projectId, keyId, nowIso())
		.run();
}

/** Whether an agent session used `keyId` in this project. */
export async function keyUsedInSession(db: ProjectDb, projectId: string, keyId: string): Promise<boolean> {
	const row = await db.prepare("SELECT 1 AS y FROM session_keys WHERE project_id = ? AND key_id = ?").bind(projectId, keyId).first();
	return row !== null;
}

/**
 * Who asks to approve (or to see others' proposals in full): the key they hold and whether the request
 * names an agent session (`X-Cairn-Session`, or `X-Cairn-Agent` from `cairn` run in an agent's shell).
 */
export interface Reviewer {
	keyId: string;
	/** The request came from an agent's session or shell. */
	agentSession: boolean;
	admin: boolean;
}

/** Why `reviewer` may not vouch for text (approve it for teammates), or null when they may. */
export async function vouchRefusal(db: ProjectDb, projectId: string, reviewer: Reviewer): Promise<CairnError | null> {
	if (reviewer.agentSession)
		return new CairnError(
			"forbidden",
			"approving is a person's act: this request comes from an agent's session (X-Cairn-Session or X-Cairn-Agent). Approve in the console or with `cairn review approve` from your own terminal",
			{ reason: "agent_session" },
		);
	if (await keyUsedInSession(db, projectId, reviewer.keyId))
		return new CairnError(
			"forbidden",
			"this API key was used by an agent session in this project (its hooks or MCP client), so an agent holding it could approve its own proposals. Approve in the console signed in with a key no agent uses, or with `cairn review approve --key <that key>` (an admin issues one: POST /v1/keys)",
			{ reason: "session_key" },
		);
	return null;
}

// The write path ---------------------------------------------------------------------------------------

/**
 * The trust a write carries once its key is known: a key an agent session used neither reviews nor
 * vouches; a team write is vouched for by its reviewer (an admin outside an agent session), else by the
 * project's publish setting (project or policy level, never a user's own), else it is a proposal.
 */
export async function resolveWriteTrust(
	env: Env & { PDB: ProjectDb },
	ctx: ProjectContext,
	scope: MemoryScope,
	trust: WriteTrust | undefined,
): Promise<WriteTrust> {
	const out: WriteTrust = { ...trust };
	if ((out.reviewedBy || out.vouchedBy) && out.keyId && (await keyUsedInSession(env.PDB, ctx.projectId, out.keyId))) {
		out.reviewedBy = null;
		out.vouchedBy = null;
	}
	if (scope !== "team") {
		out.vouchedBy = null;
		return out;
	}
	out.vouchedBy ??= out.reviewedBy ?? null;
	if (!out.vouchedBy && (await publishesAtOnce(env, ctx))) out.vouchedBy = PUBLISHED_BY_SETTING;
	return out;
}

/**
 * Whether the project publishes team writes at once: its own level only (an admin set it there, as a
 * person). A user's level does not count, and the tenant's policy can forbid it (false wins) but not turn
 * it on for every project.
 */
export async function publishesAtOnce(env: Env, ctx: ProjectContext): Promise<boolean> {
	const settings = await effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
	const s = settings[PUBLISH_SETTING];
	return s.value === true && s.source === "project";
}

/** Records a change of the publish setting as an audit event of the project (beside review decisions). */
export async function recordSettingChange(db: ProjectDb, ctx: ProjectContext, key: string, value: unknown): Promise<void> {
	await db
		.prepare(
			`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
			 VALUES (?, ?, 'project', 'settings', 'setting', ?, ?, ?, '[]', ?)`,
		)
		.bind(ctx.projectId, ctx.userId, key, JSON.stringify(value), `${key} set to ${JSON.stringify(value)} by ${ctx.userId}`, nowIso())
		.run();
}

/** What a `vouch` item keeps: the proposed text, to show beside its findings and provenance. */
export interface VouchProposal {
	type: TopicFile["type"];
	description: string;
	body: string;
}

const TIER_WORDS: Record<TrustTier, string> = lookupTable({
	person: "written without an admin key (or with a key an agent session used)",
	agent: "written by an agent",
	extracted: "extracted from a session",
	imported: "imported",
});

/**
 * Statements a team write's plan ends with (src/memory/store.ts, planWrite): the version's vouch on the
 * memory and its version row, the search visibility (the writer only, until vouched), and the review
 * queue — a proposal replaces any pending `vouch` item of the memory; a vouched text withdraws it.
 * `memory` and `version` are SQL expressions (with their arguments) for the memory's id and new version.
 */
export function vouchStatements(
	db: ProjectDb,
	ctx: ProjectContext,
	write: {
		file: TopicFile;
		vouchedBy: string | null;
		tier: TrustTier;
		sessionId: string | null;
		version: number;
		memory: { sql: string; args: unknown[] };
	},
	now: string,
): ProjectStatement[] {
	const { file, vouchedBy } = write;
	const statements: ProjectStatement[] = [
		db.prepare(`UPDATE memories SET vouched_by = ? WHERE id = ${write.memory.sql}`).bind(vouchedBy, ...write.memory.args),
		db
			.prepare(`UPDATE memory_versions SET vouched_by = ? WHERE memory_id = ${write.memory.sql} AND version = ?`)
			.bind(vouchedBy, ...write.memory.args, write.version),
		db
			.prepare(`UPDATE memory_visibility SET owner_id = ? WHERE memory_id = ${write.memory.sql}`)
			.bind(vouchedBy ? "" : ctx.userId, ...write.memory.args),
		db
			.prepare(
				"DELETE FROM review_items WHERE project_id = ? AND kind = 'vouch' AND memory_scope = 'team' AND memory_name = ? AND status = 'pending'",
			)
			.bind(ctx.projectId, file.name),
	];
	if (!vouchedBy) {
		const proposal: VouchProposal = { type: file.type, description: file.description, body: file.body };
		const evidence = [
			`tier:${write.tier}`,
			`writer:${ctx.userId}`,
			...(write.sessionId ? [`session:${clientSessionId(write.sessionId)}`] : []),
		];
		statements.push(
			db
				.prepare(
					`INSERT INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, run_id, created_at)
					 VALUES (?, ?, ?, 'vouch', ?, 'team', ?, 'update', ?, ?, ?, NULL, ?)`,
				)
				.bind(
					newReviewId(),
					ctx.projectId,
					ctx.userId,
					file.name,
					write.version,
					JSON.stringify(proposal),
					`A team memory ${TIER_WORDS[write.tier]}: teammates' agents are served it once a person vouches for this text (the console, or cairn review approve from a terminal). The danger check flagged nothing.`,
					JSON.stringify(evidence),
					now,
				),
		);
	}
	return statements;
}

/** The tier a write records (as planWrite does). */
export const writeTier = (trust: WriteTrust | undefined, source: Parameters<typeof tierOfSource>[0]) => trust?.tier ?? tierOfSource(source);
