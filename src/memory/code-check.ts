/**
 * The check of a memory's cited code, run where the repository is: the hooks, `cairn status` and
 * `cairn doctor` ask git for the current blob id of each cited path (and, for a path gone, whether git
 * saw it renamed) and send paths and ids only — never file contents. Here each citation is compared with
 * the blob its memory was written against and marked:
 *
 * - `current`: the file is as it was; `changed`: another blob; `moved`: git followed it to a new path;
 *   `gone`: no longer tracked; `untracked`: never tracked (a path in the text that is not a repository
 *   file): it marks nothing; `unchecked`: no check has seen it yet.
 *
 * A citation read from text has no blob of its own: the first check sets the blob the file had when the
 * memory was written (the hook reads it from the commit of that time), or the current one when the file
 * was not committed then. The memory's `code_state` sums its citations up: `gone` when every tracked
 * citation is gone (it leaves the start block and is offered for review: update or delete), `changed`
 * when any changed, moved or went, `current`, or null (nothing tracked, or no citations at all).
 */
import { newReviewId, nowIso } from "../lib/ids";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import type { Citation } from "../text/citations";
import { servedSql } from "../trust/vouch";
import type { RowRef } from "./index-rows";
import type { MemoryScope } from "./topic-file";

export const CITATION_STATES = ["unchecked", "current", "changed", "moved", "gone", "untracked"] as const;
export type CitationState = (typeof CITATION_STATES)[number];
export type CodeState = "current" | "changed" | "gone";

/** The paths a check may carry, and the most a listing for the hooks returns. */
export const MAX_CHECKED_PATHS = 5_000;

/** One cited path as the repository has it now (what a hook sends). */
export interface CheckedFile {
	path: string;
	/** Its blob id now (the working tree's where edited and not staged, else the index's), or null when git does not track it or it was deleted. */
	blob: string | null;
	/** Its blob id in the commit of the time the memory was written (asked for by `since`); null: absent then. */
	blobAtWrite?: string | null;
	/** Where git's rename detection followed a path no longer tracked, and the blob there. */
	movedTo?: string;
	movedBlob?: string | null;
}

export interface CodeCheck {
	files: CheckedFile[];
	/** Whether renames were looked for: without, a path already known to be moved stays moved. */
	renames?: boolean;
	/** The stamp of the cited list the caller checked (citedPaths): the answer says whether it still names the list. */
	stamp?: string;
}

/** A memory's mark: which of its cited paths changed, moved (to where) or went. */
export interface CodeMark {
	id: number;
	name: string;
	scope: MemoryScope;
	state: Exclude<CodeState, "current">;
	changed: string[];
	moved: { from: string; to: string }[];
	gone: string[];
}

/**
 * What the hooks are asked to check: every path the caller's memories cite; `since` when its write-time
 * blob is wanted; `unchecked` when a citation of it was never checked (a hook that remembers what it sent
 * last sends the paths so flagged, and otherwise only what changed).
 */
export interface CitedPath {
	path: string;
	since?: string;
	unchecked?: true;
}

// Team memories no person vouched for are the writer's only (src/trust/vouch.ts).
const VISIBLE = `m.project_id = ?1 AND ${servedSql("m", "?2")}`;

/**
 * Statements that store a write's citations on the memory (`ref`: its id) and replace its check rows:
 * a new version is compared with the code as it is when it is written.
 */
export function citationStatements(db: ProjectDb, projectId: string, ref: RowRef, citations: Citation[], now: string): ProjectStatement[] {
	return [
		db.prepare(`UPDATE memories SET citations = ?, code_state = NULL WHERE id = ${ref.sql}`).bind(JSON.stringify(citations), ...ref.args),
		db.prepare(`DELETE FROM code_citations WHERE memory_id = ${ref.sql}`).bind(...ref.args),
		...citations.map((c) =>
			db
				.prepare(`INSERT OR IGNORE INTO code_citations (memory_id, project_id, path, base_blob, written_at) SELECT ${ref.sql}, ?, ?, ?, ?`)
				.bind(...ref.args, projectId, c.path, c.blob ?? null, now),
		),
	];
}

const CITED = `FROM code_citations c JOIN memories m ON m.id = c.memory_id WHERE ${VISIBLE} AND m.archived_at IS NULL`;

/** Names the caller's cited list: rows added or dropped move the count or the last row id, a check moves the unchecked count. */
export async function citedStamp(db: ProjectDb, ctx: ProjectContext): Promise<string> {
	const sums = await db
		.prepare(`SELECT count(*) AS n, coalesce(max(c.rowid), 0) AS last, coalesce(sum(c.state = 'unchecked'), 0) AS fresh ${CITED}`)
		.bind(ctx.projectId, ctx.userId)
		.first<{ n: number; last: number; fresh: number }>();
	return `${sums?.n ?? 0}.${sums?.last ?? 0}.${sums?.fresh ?? 0}`;
}

/**
 * Every path the caller's memories (personal and team) cite, with `since` where the blob at write time is
 * still to be set (never checked; a path found untracked is compared from when it first appears), and a
 * stamp of that list: given the stamp a hook has, an unchanged list is not sent again.
 */
export async function citedPaths(
	db: ProjectDb,
	ctx: ProjectContext,
	knownStamp?: string,
): Promise<{ stamp: string; unchanged: boolean; paths: CitedPath[]; truncated: boolean }> {
	const stamp = await citedStamp(db, ctx);
	if (knownStamp === stamp) return { stamp, unchanged: true, paths: [], truncated: false };
	const { results } = await db
		.prepare(
			`SELECT c.path, min(CASE WHEN c.base_blob IS NULL AND c.state = 'unchecked' THEN c.written_at END) AS since,
			 max(c.state = 'unchecked') AS unchecked ${CITED} GROUP BY c.path ORDER BY c.path LIMIT ?3`,
		)
		.bind(ctx.projectId, ctx.userId, MAX_CHECKED_PATHS + 1)
		.all<{ path: string; since: string | null; unchecked: number }>();
	const paths = results
		.slice(0, MAX_CHECKED_PATHS)
		.map(
			(r): CitedPath => ({ path: r.path, ...(r.since ? { since: r.since } : {}), ...(r.unchecked ? { unchecked: true as const } : {}) }),
		);
	return { stamp, unchanged: false, paths, truncated: results.length > MAX_CHECKED_PATHS };
}

interface CitationRow {
	memory_id: number;
	path: string;
	base_blob: string | null;
	state: CitationState;
	current_blob: string | null;
	moved_to: string | null;
}

/** A citation's new base blob and state for what the repository says of its path now. */
export function judge(row: Pick<CitationRow, "base_blob" | "state">, file: CheckedFile, renames: boolean) {
	let base = row.base_blob;
	if (base === null) {
		// The blob of the time of writing; a file not committed then is compared from now on.
		if (file.blobAtWrite) base = file.blobAtWrite;
		else if (file.blob) base = file.blob;
		else return { base: null, state: "untracked" as const, current: null, movedTo: null };
	}
	if (file.blob)
		return { base, state: file.blob === base ? ("current" as const) : ("changed" as const), current: file.blob, movedTo: null };
	if (file.movedTo) return { base, state: "moved" as const, current: file.movedBlob ?? null, movedTo: file.movedTo };
	if (!renames && row.state === "moved") return null;
	return { base, state: "gone" as const, current: null, movedTo: null };
}

/** A memory's state from its citations' states (see the module comment). */
export function codeStateOf(states: CitationState[]): CodeState | null {
	const tracked = states.filter((s) => s !== "unchecked" && s !== "untracked");
	if (tracked.length === 0) return null;
	if (tracked.every((s) => s === "gone")) return "gone";
	return tracked.some((s) => s !== "current") ? "changed" : "current";
}

/**
 * Applies one check to the caller's memories: every citation of a path in `check` gets its state, a
 * memory's `code_state` follows, and a memory whose cited files are all gone is offered for review to
 * its owner (a team memory: to its last author and the project's admins), once; the offer goes when a file comes back.
 * Writes only what changed. Returns how many citations changed state.
 */
export async function applyCodeCheck(db: ProjectDb, ctx: ProjectContext, check: CodeCheck, now = nowIso()): Promise<number> {
	const files = new Map(check.files.slice(0, MAX_CHECKED_PATHS).map((f) => [f.path, f]));
	if (files.size === 0) return 0;
	const { results } = await db
		.prepare(
			`SELECT c.memory_id, c.path, c.base_blob, c.state, c.current_blob, c.moved_to FROM code_citations c
			 JOIN memories m ON m.id = c.memory_id WHERE ${VISIBLE} AND c.project_id = ?1 AND c.path IN (SELECT value FROM json_each(?3))`,
		)
		.bind(ctx.projectId, ctx.userId, JSON.stringify([...files.keys()]))
		.all<CitationRow>();
	const statements: ProjectStatement[] = [];
	const touched = new Set<number>();
	for (const row of results) {
		const file = files.get(row.path);
		const next = file && judge(row, file, check.renames === true);
		if (!next) continue;
		if (next.base === row.base_blob && next.state === row.state && next.current === row.current_blob && next.movedTo === row.moved_to)
			continue;
		statements.push(
			db
				.prepare(
					"UPDATE code_citations SET base_blob = ?, state = ?, current_blob = ?, moved_to = ?, checked_at = ? WHERE memory_id = ? AND path = ?",
				)
				.bind(next.base, next.state, next.current, next.movedTo, now, row.memory_id, row.path),
		);
		touched.add(row.memory_id);
	}
	if (statements.length === 0) return 0;
	await db.batch(statements);
	await settleMemories(db, ctx, [...touched], now);
	return statements.length;
}

/** Sets `code_state` of `ids` from their citations, and opens (or withdraws) the review item of a memory whose code is gone. */
async function settleMemories(db: ProjectDb, ctx: ProjectContext, ids: number[], now: string): Promise<void> {
	const { results } = await db
		.prepare(
			`SELECT m.id, m.scope, m.owner_id, m.author_id, m.name, m.version, m.code_state, json_group_array(c.state) AS states,
			 json_group_array(c.path) AS paths FROM memories m JOIN code_citations c ON c.memory_id = m.id
			 WHERE m.project_id = ? AND m.id IN (SELECT value FROM json_each(?)) GROUP BY m.id`,
		)
		.bind(ctx.projectId, JSON.stringify(ids))
		.all<{
			id: number;
			scope: MemoryScope;
			owner_id: string;
			author_id: string;
			name: string;
			version: number;
			code_state: CodeState | null;
			states: string;
			paths: string;
		}>();
	const statements: ProjectStatement[] = [];
	for (const m of results) {
		const states = JSON.parse(m.states) as CitationState[];
		const paths = JSON.parse(m.paths) as string[];
		const state = codeStateOf(states);
		if (state === m.code_state) continue;
		statements.push(db.prepare("UPDATE memories SET code_state = ? WHERE id = ?").bind(state, m.id));
		const decider = m.scope === "team" ? m.author_id : m.owner_id;
		const item = "project_id = ? AND kind = 'code' AND status = 'pending' AND memory_scope = ? AND memory_name = ?";
		if (state === "gone") {
			const gone = paths.filter((_, i) => states[i] === "gone");
			statements.push(
				db
					.prepare(
						`INSERT OR IGNORE INTO review_items (id, project_id, owner_id, kind, memory_name, memory_scope, base_version, op, proposal_json, reason, evidence_json, created_at)
						 VALUES (?, ?, ?, 'code', ?, ?, ?, 'delete', '{}', ?, ?, ?)`,
					)
					.bind(
						newReviewId(),
						ctx.projectId,
						decider,
						m.name,
						m.scope,
						m.version,
						`every file it cites is gone from the repository (${gone.slice(0, 5).join(", ")}${gone.length > 5 ? ", …" : ""}): update it, or approve to delete it`.slice(
							0,
							500,
						),
						JSON.stringify(gone.slice(0, 50)),
						now,
					),
			);
		} else if (m.code_state === "gone") {
			statements.push(db.prepare(`DELETE FROM review_items WHERE ${item}`).bind(ctx.projectId, m.scope, m.name));
		}
	}
	if (statements.length > 0) await db.batch(statements);
}

/** Rejecting a "code gone" item keeps the memory: its citations of gone files are dropped, so it is marked no more. */
export function dismissGoneStatements(
	db: ProjectDb,
	projectId: string,
	scope: MemoryScope,
	owner: string,
	name: string,
): ProjectStatement[] {
	const memory = "(SELECT id FROM memories WHERE project_id = ? AND scope = ? AND owner_id = ? AND name = ?)";
	const args = [projectId, scope, scope === "team" ? "" : owner, name];
	return [
		db.prepare(`DELETE FROM code_citations WHERE state = 'gone' AND memory_id = ${memory}`).bind(...args),
		db
			.prepare(
				`UPDATE memories SET code_state = CASE WHEN EXISTS (SELECT 1 FROM code_citations c WHERE c.memory_id = memories.id AND c.state IN ('changed', 'moved')) THEN 'changed'
				 WHEN EXISTS (SELECT 1 FROM code_citations c WHERE c.memory_id = memories.id AND c.state = 'current') THEN 'current' ELSE NULL END
				 WHERE id = ${memory}`,
			)
			.bind(...args),
	];
}

/** The marks of the caller's memories whose cited code changed or went (at most `limit` memories), by memory. */
export async function codeMarks(db: ProjectDb, ctx: ProjectContext, limit = 2_000): Promise<CodeMark[]> {
	const { results } = await db
		.prepare(
			`SELECT m.id, m.name, m.scope, m.code_state, c.path, c.state, c.moved_to FROM memories m JOIN code_citations c ON c.memory_id = m.id
			 WHERE m.id IN (SELECT m.id FROM memories m WHERE ${VISIBLE} AND m.code_state IN ('changed', 'gone') ORDER BY m.id LIMIT ?3)
			   AND c.state IN ('changed', 'moved', 'gone') ORDER BY m.id, c.path`,
		)
		.bind(ctx.projectId, ctx.userId, limit)
		.all<{
			id: number;
			name: string;
			scope: MemoryScope;
			code_state: CodeMark["state"];
			path: string;
			state: CitationState;
			moved_to: string | null;
		}>();
	const marks = new Map<number, CodeMark>();
	for (const r of results) {
		let mark = marks.get(r.id);
		if (!mark) {
			mark = { id: r.id, name: r.name, scope: r.scope, state: r.code_state, changed: [], moved: [], gone: [] };
			marks.set(r.id, mark);
		}
		if (r.state === "changed") mark.changed.push(r.path);
		else if (r.state === "moved") mark.moved.push({ from: r.path, to: r.moved_to ?? "" });
		else mark.gone.push(r.path);
	}
	return [...marks.values()];
}

/**
 * Applies a check when one is given, then returns the marks (what a block, `cairn doctor` and the console
 * read) and, when the check named the cited list it was made from, whether that list is still the list.
 */
export async function checkCode(
	db: ProjectDb,
	ctx: ProjectContext,
	check: CodeCheck | null,
): Promise<{ marks: CodeMark[]; cited?: { stamp: string; unchanged: boolean } }> {
	if (check) await applyCodeCheck(db, ctx, check);
	const marks = await codeMarks(db, ctx);
	if (!check?.stamp) return { marks };
	const stamp = await citedStamp(db, ctx);
	return { marks, cited: { stamp, unchanged: stamp === check.stamp } };
}
