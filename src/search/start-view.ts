/**
 * What the session-start block's ranked index is chosen from, read inside the project's object: the
 * headers (name, type, description, scope, dates, use) of the memories the caller may see that stand
 * highest (team first, most used, most recently confirmed), never a body; the counts of each type; and
 * every memory grouped into topics (src/search/topics.ts), for what the block cannot list. The Worker
 * adds the candidates recall ranks for the session's context and orders the lines
 * (src/inject/start-index.ts); MEMORY.md is untouched by this view.
 */
import type { LanguageModel } from "ai";
import type { AfterUserEvent } from "../consolidate/run";
import { MEMORY_TYPES, type MemoryScope, type MemorySource, type MemoryType } from "../memory/topic-file";
import { useOf, useScore } from "../memory/use";
import type { ProjectContext } from "../storage/context";
import { namedRows, type ProjectDb } from "../storage/sql";
import { awaitingCount, servedInSql } from "../trust/vouch";
import { kindTopics } from "./fact-kinds";
import { topicsShownTo } from "./served";
import { applyLabels, labelTopics, storedLabels } from "./topic-labels";
import { groupTopics, type Topic, type TopicMember } from "./topics";

export interface HeaderRow {
	id: number;
	name: string;
	type: MemoryType;
	description: string;
	scope: MemoryScope;
	updated_at: string;
	verified_at: string;
	times_served: number;
	/** Use (src/memory/use.ts): the sessions it was served in, cited in and read in, and when last used. */
	served_sessions?: number;
	cited_sessions?: number;
	read_sessions?: number;
	last_cited_at?: string | null;
	last_read_at?: string | null;
	/** How it came and who reviewed it, for the provenance words of its line (src/trust/words.ts). */
	source?: MemorySource;
	trust?: string | null;
	reviewed_by?: string | null;
	author_id?: string | null;
	/** Who vouched for a team memory's text; null: a proposal, listed to its writer only (src/trust/vouch.ts). */
	vouched_by?: string | null;
}

/** Rules and preferences (they apply to any task) and facts and references (they apply to some). */
export type Kind = "rules" | "facts";
export const kindOf = (type: MemoryType): Kind => (type === "feedback" || type === "user" ? "rules" : "facts");

export interface StartView {
	/** The first rows of each kind by standing (`limit`). */
	rules: HeaderRow[];
	facts: HeaderRow[];
	/** Memories the caller may see, per type. */
	counts: Record<MemoryType, number>;
	/** Every memory the caller may see, grouped by what it is about (src/search/topics.ts): each topic's key, words and member ids. */
	topics: TopicRef[];
	/** Team memories of the project awaiting a person's review (src/trust/vouch.ts): teammates are told only this count. */
	awaiting?: number;
}

export interface TopicRef {
	key: string;
	words: string[];
	ids: number[];
	/** A model's title for it, when one named the topics (src/search/topic-labels.ts). */
	title?: string;
}

/**
 * How much each signal weighs in a line's rank: relevance to the session's context dominates; the rest
 * order the unrelated. A person's preferences (type `user`: how they want answers, reviews, commits)
 * apply to every prompt of theirs, so they lead the rules when not all fit.
 */
export const START_WEIGHTS = { relevance: 1, use: 0.6, freshness: 0.15, team: 0.1, preference: 0.3 };
const DAY = 86_400_000;

/**
 * The rows in the order the block lists them. `relevance`: memory id → recall's score for the session's
 * context; normalised by the best so that it weighs the same whatever the query. Freshness counts whole
 * days (memories confirmed the same day are as fresh). Ties — rows nothing tells apart, as in a project
 * with no history yet — go to the shorter line: when not all fit, the block then lists as many as it can,
 * each as likely to be needed as the next. Rows of the same length keep the object's standing order.
 */
export function rankHeaders<R extends HeaderRow>(
	rows: R[],
	relevance: Map<number, number>,
	now: number,
	/** A line's length as ties are broken: its name and description. */
	lengthOf: (r: R) => number = (r) => r.name.length + r.description.length,
): R[] {
	const best = Math.max(0, ...relevance.values());
	const scoreOf = (r: R) => {
		const rel = best > 0 ? (relevance.get(r.id) ?? 0) / best : 0;
		// What it was worth to the sessions it reached: cited or read, not merely served (src/memory/use.ts).
		const use = useScore(useOf(r), now);
		const ageDays = Math.max(0, Math.floor((now - Date.parse(r.verified_at || r.updated_at)) / DAY));
		const freshness = Number.isFinite(ageDays) ? Math.exp(-ageDays / 60) : 0;
		return (
			START_WEIGHTS.relevance * rel +
			START_WEIGHTS.use * use +
			START_WEIGHTS.freshness * freshness +
			START_WEIGHTS.team * (r.scope === "team" ? 1 : 0) +
			START_WEIGHTS.preference * (r.type === "user" ? 1 : 0)
		);
	};
	const scored = rows.map((r, i) => ({ r, i, s: scoreOf(r), length: lengthOf(r) }));
	return scored.sort((a, b) => b.s - a.s || a.length - b.length || a.i - b.i).map((x) => x.r);
}

/** Standing: team memory first, then the most served, then the most recently confirmed. */
const standing = (a: HeaderRow, b: HeaderRow) =>
	(b.scope === "team" ? 1 : 0) - (a.scope === "team" ? 1 : 0) ||
	b.times_served - a.times_served ||
	(b.verified_at > a.verified_at ? 1 : b.verified_at < a.verified_at ? -1 : 0) ||
	(a.name < b.name ? -1 : 1);

type Summary = Pick<StartView, "counts" | "topics"> & {
	members: Map<string, Topic>;
	/** Keys of topics a model merged into another: the key → the topic it is now part of. */
	aliases: Map<string, string>;
	/** The topics as grouped offline, before a model's names (what a model is shown to name them). */
	offline: Topic[];
	/** Each memory's topics, by memory id (a prompt looks its candidates up here). */
	topicsById: Map<number, TopicRef[]>;
	/** The kind topics of the facts (src/search/fact-kinds.ts), by key: listed and read like the others, not in the start block's map. */
	kinds: Map<string, Topic>;
};
/**
 * The counts and the topics read every memory's header: kept per (project, caller, index generation)
 * in the object's memory, so a project's sessions pay for it once per change of its memories.
 */
const summaries = new Map<string, Summary>();
const SUMMARIES_KEPT = 64;

const summaryKey = async (db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[]) => {
	const generation = await db.prepare("SELECT index_generation AS g FROM projects WHERE id = ?").bind(ctx.projectId).first<{ g: number }>();
	return `${ctx.projectId}/${ctx.userId}/${scopes.join(",")}/${generation?.g ?? 0}`;
};

/** Forgets a project's summaries (its topics were named anew): the next request makes them again. */
export function forgetSummaries(projectId: string): void {
	for (const key of [...summaries.keys()]) if (key.startsWith(`${projectId}/`)) summaries.delete(key);
}

/** Summaries being made, so that requests arriving together make one. */
const making = new Map<string, Promise<Summary>>();

/**
 * The summary for the caller, from the cache or read once. `cachedOnly` (a prompt, which must not wait for
 * a whole project's topics): null when it is not made yet, and it starts being made for the next request.
 */
async function summaryOf(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[], cachedOnly = false): Promise<Summary | null> {
	const key = await summaryKey(db, ctx, scopes);
	const hit = summaries.get(key);
	if (hit) return hit;
	let pending = making.get(key);
	if (!pending) {
		pending = summarise(db, ctx, scopes)
			.then((summary) => {
				if (summaries.size >= SUMMARIES_KEPT) summaries.delete(summaries.keys().next().value as string);
				summaries.set(key, summary);
				return summary;
			})
			.finally(() => making.delete(key));
		making.set(key, pending);
	}
	if (cachedOnly) {
		pending.catch(() => undefined);
		return null;
	}
	return pending;
}

/** A header as the view reads it, column by column. */
const HEADER_COLUMNS = [
	"id",
	"name",
	"type",
	"description",
	"scope",
	"updated_at",
	"verified_at",
	"times_served",
	"served_sessions",
	"cited_sessions",
	"read_sessions",
	"last_cited_at",
	"last_read_at",
	"source",
	"trust",
	"reviewed_by",
	"author_id",
	"vouched_by",
] as const;
/** What a chosen row still needs: its description's text and the provenance its line carries. */
const REST_COLUMNS = ["id", "description", "source", "trust", "reviewed_by", "author_id", "vouched_by"] as const;
/** What rows are chosen by (`fitting`): the rest of the header, and the description's length instead of its text. */
const RANKING_COLUMNS = [
	...HEADER_COLUMNS.filter((c) => c === "id" || !(REST_COLUMNS as readonly string[]).includes(c)),
	"description_length",
];
const selectList = (columns: readonly string[]) =>
	columns.map((c) => (c === "description_length" ? "length(m.description)" : `m.${c}`)).join(", ");

/** Rows kept past those whose lines fill the block: for rows the Worker leaves out (files served whole, a scope switched off, code gone) and lines a part skips. */
const FILL_MARGIN_ROWS = 40;

/** A row as `fitting` chooses among them: its header without the description's text, and that text's length. */
type Sized = HeaderRow & { description_length: number };
const sizedLength = (r: HeaderRow) => r.name.length + ((r as Sized).description_length ?? r.description.length);

/**
 * The rows a block of `fill` characters could list, in the object's standing order: those first in the
 * order the block ranks rows the session's context does not lift (recall's candidates reach the Worker with
 * their own rows) until their names and descriptions fill `fill` (a line is longer), and a margin.
 */
function fitting(rows: Sized[], fill: number, now: number): Sized[] {
	const keep = new Set<number>();
	let used = 0;
	let margin = FILL_MARGIN_ROWS;
	for (const row of rankHeaders(rows, new Map(), now, sizedLength)) {
		if (used >= fill && margin-- <= 0) break;
		keep.add(row.id);
		used += sizedLength(row);
	}
	return keep.size === rows.length ? rows : rows.filter((r) => keep.has(r.id));
}

/**
 * The view. Rows: per type of rule, the first `limit.rules` by use (cited or read, then served); per type
 * of fact, the first `limit.facts` most served through the (project, type, times served, updated) index
 * (team memory is ranked up by the Worker among them); with `fill`, only those a block of that many
 * characters could list (`fitting`), so that a project of long lines does not send hundreds it cannot.
 * Counts and topics: one pass over the headers, cached as above.
 */
export async function startView(
	db: ProjectDb,
	ctx: ProjectContext,
	scopes: MemoryScope[],
	limit: Record<Kind, number>,
	fill?: number,
): Promise<StartView> {
	const view: StartView = {
		rules: [],
		facts: [],
		counts: { user: 0, feedback: 0, project: 0, reference: 0 },
		topics: [],
	};
	if (scopes.length === 0) return view;
	// With `fill`, the rows are chosen from their headers without the descriptions' text (its length only),
	// and only the chosen are read whole.
	const chosenBy = fill === undefined ? HEADER_COLUMNS : RANKING_COLUMNS;
	// Rules and preferences are few and all compete for the block: by use first (cited or read), then by how
	// often served. Facts can be many: the most served through the index (recall's candidates for the
	// session's context join them in the Worker).
	const order = (kind: Kind) =>
		kind === "rules"
			? "m.cited_sessions + m.read_sessions DESC, m.times_served DESC, m.updated_at DESC"
			: "m.times_served DESC, m.updated_at DESC";
	const read = async () => {
		const perType: Sized[][] = [];
		for (const type of MEMORY_TYPES)
			perType.push(
				await namedRows<Sized>(
					db
						.prepare(
							`SELECT ${selectList(chosenBy)} FROM memories m WHERE m.project_id = ?1 AND m.type = ?2 AND ${servedInSql(scopes, "m", "?3")} AND m.archived_at IS NULL
							 ORDER BY ${order(kindOf(type))} LIMIT ?4`,
						)
						.bind(ctx.projectId, type, ctx.userId, limit[kindOf(type)]),
					chosenBy,
				),
			);
		return perType.flat();
	};
	const [results, summary, awaiting] = await Promise.all([
		read(),
		summaryOf(db, ctx, scopes),
		scopes.includes("team") ? awaitingCount(db, ctx.projectId) : 0,
	]);
	view.awaiting = awaiting;
	const rows: Record<Kind, Sized[]> = { rules: [], facts: [] };
	for (const row of results) rows[kindOf(row.type)].push(row);
	rows.rules = rows.rules.sort(standing).slice(0, limit.rules);
	rows.facts = rows.facts.sort(standing).slice(0, limit.facts);
	if (fill === undefined) {
		view.rules = rows.rules;
		view.facts = rows.facts;
	} else {
		const now = Date.now();
		const chosen = [...fitting(rows.rules, fill, now), ...fitting(rows.facts, fill, now)];
		const rest = await namedRows<Pick<HeaderRow, (typeof REST_COLUMNS)[number]>>(
			db
				.prepare(`SELECT ${selectList(REST_COLUMNS)} FROM memories m WHERE m.project_id = ?1 AND m.id IN (SELECT value FROM json_each(?2))`)
				.bind(ctx.projectId, JSON.stringify(chosen.map((r) => r.id))),
			REST_COLUMNS,
		);
		const byId = new Map(rest.map((r) => [r.id, r]));
		// In the standing order they were chosen in, each with the rest of its header.
		for (const r of chosen) {
			const more = byId.get(r.id);
			if (!more) continue;
			const { description_length: _length, ...header } = r;
			view[kindOf(r.type)].push({ ...header, ...more });
		}
	}
	return summary ? { ...view, counts: summary.counts, topics: summary.topics } : view;
}

/** Counts per type and the topics of every memory the caller may see. */
async function summarise(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[]): Promise<Summary> {
	const results = await visibleHeaders(db, ctx, scopes);
	const counts: Record<MemoryType, number> = { user: 0, feedback: 0, project: 0, reference: 0 };
	for (const row of results) counts[row.type] += 1;
	const offline = groupTopics(results);
	const { topics: grouped, aliases } = applyLabels(offline, await storedLabels(db, ctx));
	const topics = grouped.map((t) => ({
		key: t.key,
		words: t.words,
		ids: t.members.map((m) => m.id),
		...(t.title ? { title: t.title } : {}),
	}));
	const topicsById = new Map<number, TopicRef[]>();
	for (const t of topics) for (const id of t.ids) topicsById.set(id, [...(topicsById.get(id) ?? []), t]);
	// A word topic keyed like a kind (memories named `facts-access-…`) keeps its key; that kind is not made.
	const wordKeys = new Set(grouped.map((t) => t.key));
	const kinds = new Map(kindTopics(results).flatMap((t) => (wordKeys.has(t.key) ? [] : [[t.key, t] as const])));
	return { counts, topics, members: new Map([...grouped.map((t) => [t.key, t] as const), ...kinds]), aliases, offline, topicsById, kinds };
}

/** The headers topics are made of: every memory the caller may see in `scopes`, in id order. */
async function visibleHeaders(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[]) {
	const { results } = await db
		.prepare(
			`SELECT m.id, m.name, m.type, m.description, m.scope FROM memories m WHERE m.project_id = ?1 AND ${servedInSql(scopes, "m", "?3")} AND m.archived_at IS NULL ORDER BY m.id`,
		)
		.bind(ctx.projectId, null, ctx.userId)
		.all<TopicMember & { type: MemoryType; scope: MemoryScope }>();
	return results;
}

/**
 * Every topic the caller's memories fall in as grouped offline, without a model's names (what a model is shown
 * to name them): from the made topics, so that naming them costs no second grouping.
 */
export async function offlineTopics(db: ProjectDb, ctx: ProjectContext): Promise<Topic[]> {
	return (await summaryOf(db, ctx, ["personal", "team"]))?.offline ?? [];
}

/** The audit events of topic naming name the topic list, which no memory's name can be. */
const TOPICS_TARGET = "memory://root/topics";

/**
 * After a user's consolidation with a model: names their topics when the topics changed (src/search/topic-labels.ts)
 * and forgets the made ones so the next block shows the names; what happened, for the run's audit.
 */
export async function nameTopics(db: ProjectDb, ctx: ProjectContext, model: LanguageModel): Promise<AfterUserEvent | null> {
	const named = await labelTopics(db, ctx, await offlineTopics(db, ctx), model);
	if (named.outcome === "unchanged") return null;
	if (named.outcome === "skipped") return { op: "topics", target: TOPICS_TARGET, outcome: "skipped", reason: named.reason };
	forgetSummaries(ctx.projectId);
	return {
		op: "topics",
		target: TOPICS_TARGET,
		outcome: "applied",
		reason: `named ${named.topics} topics${named.merged > 0 ? `, merged ${named.merged}` : ""}`,
	};
}

/** Every topic the caller's memories fall in, as memory_read of memory://root/topics lists them. */
export async function allTopics(db: ProjectDb, ctx: ProjectContext): Promise<Topic[]> {
	return [...((await summaryOf(db, ctx, ["personal", "team"]))?.members.values() ?? [])];
}

/** A topic's members, as memory_read of memory://root/topics/<key>.md lists them; null when no such topic. */
export async function topicMembers(db: ProjectDb, ctx: ProjectContext, key: string): Promise<Topic | null> {
	const summary = await summaryOf(db, ctx, ["personal", "team"]);
	return summary?.members.get(key) ?? summary?.members.get(summary.aliases.get(key) ?? "") ?? null;
}

/** A topic a prompt's block may name: its key, label words, size, and which of the prompt's candidates it holds. */
export interface PromptTopic {
	key: string;
	words: string[];
	size: number;
	ids: number[];
	title?: string;
}

/** Two words are the same for naming a topic: equal, or one is the other with a plural ending (`runbook`, `runbooks`). */
const sameWord = (a: string, b: string) =>
	a === b || (a.length >= 4 && b.length >= 4 && (a === `${b}s` || b === `${a}s` || a === `${b}es` || b === `${a}es`));

/**
 * The topics a prompt names by their key (`staging` for "deploy my branch to staging", `billing-invoice` when
 * it says both), the most specific (fewest memories) first: what the prompt is about by name, though recall
 * may rank none of the topic's memories high in a large project. Catch-all topics (`other-…`) are never named.
 */
export function topicsNamedBy(topics: Iterable<Topic>, words: string[]): PromptTopic[] {
	if (words.length === 0) return [];
	const out: PromptTopic[] = [];
	for (const t of topics) {
		if (t.key.startsWith("other-")) continue;
		const keyWords = t.key.replace(/-\d+$/, "").split("-");
		if (keyWords.every((k) => k.length >= 3 && words.some((w) => sameWord(w, k))))
			out.push({ key: t.key, words: t.words, size: t.members.length, ids: [], ...(t.title ? { title: t.title } : {}) });
	}
	return out.sort((a, b) => a.size - b.size || (a.key < b.key ? -1 : 1));
}

/**
 * The topics holding these memories (for a prompt's block): each topic once, with how many of the ids it holds,
 * in the ids' order; and the topics the prompt's `words` name (`topicsNamedBy`).
 */
export async function topicsOf(
	db: ProjectDb,
	ctx: ProjectContext,
	ids: number[],
	words: string[] = [],
	kinds: string[] = [],
	/** A session whose prompt blocks already named some topics: those are left out. */
	session?: string,
): Promise<{ holding: PromptTopic[]; named: PromptTopic[]; kinds: PromptTopic[] }> {
	// A prompt never waits for the topics: until they are made (once per change of the memories), it names none.
	const summary = await summaryOf(db, ctx, ["personal", "team"], true);
	if (!summary) return { holding: [], named: [], kinds: [] };
	const shown = session ? await topicsShownTo(db, ctx, session) : new Set<string>();
	const unseen = (t: PromptTopic) => !shown.has(t.key);
	const out = new Map<string, PromptTopic>();
	for (const id of ids) {
		// One topic per memory: the last of its topics in the map's order, as the measured figures were taken.
		const t = summary.topicsById.get(id)?.at(-1);
		if (!t) continue;
		const entry = out.get(t.key) ?? { key: t.key, words: t.words, size: t.ids.length, ids: [], ...(t.title ? { title: t.title } : {}) };
		entry.ids.push(id);
		out.set(t.key, entry);
	}
	const kindTopics = kinds.flatMap((key) => {
		const t = summary.kinds.get(key);
		return t ? [{ key, words: t.words, size: t.members.length, ids: [], ...(t.title ? { title: t.title } : {}) }] : [];
	});
	const wordTopics = [...summary.members.values()].filter((t) => !summary.kinds.has(t.key));
	return {
		holding: [...out.values()].filter(unseen),
		named: topicsNamedBy(wordTopics, words).filter(unseen),
		kinds: kindTopics.filter(unseen),
	};
}
