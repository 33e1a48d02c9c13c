/**
 * What the session-start block's ranked index is chosen from, read inside the project's object: the
 * headers (name, type, description, scope, dates, use) of the memories the caller may see that stand
 * highest (team first, most used, most recently confirmed), never a body; the counts of each type; and a
 * map of topics (the words of the memories' names, counted) for what the block cannot list. The Worker
 * adds the candidates recall ranks for the session's context and orders the lines
 * (src/inject/start-index.ts); MEMORY.md is untouched by this view.
 */
import { visibleIn } from "../memory/lexical";
import { MEMORY_TYPES, type MemoryScope, type MemorySource, type MemoryType } from "../memory/topic-file";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";

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
	/** Per kind, the words its memories' names are made of, most frequent first (at most TOPICS). */
	topics: Record<Kind, [string, number][]>;
}

/** Topics named per kind in the map. */
export const TOPICS = 12;

/** Standing: team memory first, then the most served, then the most recently confirmed. */
const standing = (a: HeaderRow, b: HeaderRow) =>
	(b.scope === "team" ? 1 : 0) - (a.scope === "team" ? 1 : 0) ||
	b.times_served - a.times_served ||
	(b.verified_at > a.verified_at ? 1 : b.verified_at < a.verified_at ? -1 : 0) ||
	(a.name < b.name ? -1 : 1);

type Summary = Pick<StartView, "counts" | "topics">;
/**
 * The counts and the topic map read every memory's name: kept per (project, caller, index generation)
 * in the object's memory, so a project's sessions pay for it once per change of its memories.
 */
const summaries = new Map<string, Summary>();
const SUMMARIES_KEPT = 64;

/**
 * The view. Rows: per type of rule, the first `limit.rules` by use (cited or read, then served); per type
 * of fact, the first `limit.facts` most served through the (project, type, times served, updated) index,
 * never every fact's row (team memory is ranked up by the Worker among them). Counts and topics: one pass over the names, cached as above.
 */
export async function startView(
	db: ProjectDb,
	ctx: ProjectContext,
	scopes: MemoryScope[],
	limit: Record<Kind, number>,
): Promise<StartView> {
	const view: StartView = {
		rules: [],
		facts: [],
		counts: { user: 0, feedback: 0, project: 0, reference: 0 },
		topics: { rules: [], facts: [] },
	};
	if (scopes.length === 0) return view;
	const columns =
		"m.id, m.name, m.type, m.description, m.scope, m.updated_at, m.verified_at, m.times_served, m.served_sessions, m.cited_sessions, m.read_sessions, m.last_cited_at, m.last_read_at, m.source, m.trust, m.reviewed_by, m.author_id";
	// Rules and preferences are few and all compete for the block: by use first (cited or read), then by how
	// often served. Facts can be many: the most served through the index, few of them (recall's candidates
	// for the session's context join them in the Worker).
	const order = (kind: Kind) =>
		kind === "rules"
			? "m.cited_sessions + m.read_sessions DESC, m.times_served DESC, m.updated_at DESC"
			: "m.times_served DESC, m.updated_at DESC";
	const statements = MEMORY_TYPES.map((type) =>
		db
			.prepare(
				`SELECT ${columns} FROM memories m WHERE m.project_id = ?1 AND m.type = ?2 AND ${visibleIn(scopes, "m")} AND m.archived_at IS NULL
				 ORDER BY ${order(kindOf(type))} LIMIT ?4`,
			)
			.bind(ctx.projectId, type, ctx.userId, limit[kindOf(type)]),
	);
	const generation = await db.prepare("SELECT index_generation AS g FROM projects WHERE id = ?").bind(ctx.projectId).first<{ g: number }>();
	const key = `${ctx.projectId}/${ctx.userId}/${scopes.join(",")}/${generation?.g ?? 0}`;
	const [results, summary] = await Promise.all([db.batch<HeaderRow>(statements), summaries.get(key) ?? summarise(db, ctx, scopes)]);
	if (!summaries.has(key)) {
		if (summaries.size >= SUMMARIES_KEPT) summaries.delete(summaries.keys().next().value as string);
		summaries.set(key, summary);
	}
	for (const row of results.flatMap((r) => r.results)) view[kindOf(row.type)].push(row);
	view.rules = view.rules.sort(standing).slice(0, limit.rules);
	view.facts = view.facts.sort(standing).slice(0, limit.facts);
	return { ...view, ...summary };
}

/** Counts per type and, per kind, the words of the memories' names, most frequent first. */
async function summarise(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[]): Promise<Summary> {
	const { results } = await db
		.prepare(`SELECT m.name, m.type FROM memories m WHERE m.project_id = ?1 AND ${visibleIn(scopes, "m")} AND m.archived_at IS NULL`)
		.bind(ctx.projectId, null, ctx.userId)
		.all<{ name: string; type: MemoryType }>();
	const counts: Record<MemoryType, number> = { user: 0, feedback: 0, project: 0, reference: 0 };
	const words: Record<Kind, Map<string, number>> = { rules: new Map(), facts: new Map() };
	for (const row of results) {
		counts[row.type] += 1;
		const kind = kindOf(row.type);
		for (const word of new Set(row.name.split("-"))) {
			if (word.length < 3 || /^\d+$/.test(word) || STOP.has(word)) continue;
			words[kind].set(word, (words[kind].get(word) ?? 0) + 1);
		}
	}
	const top = (m: Map<string, number>) =>
		[...m]
			.filter(([, n]) => n > 1)
			.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
			.slice(0, TOPICS);
	return { counts, topics: { rules: top(words.rules), facts: top(words.facts) } };
}

/** Name words that say nothing about a topic. */
const STOP = new Set([
	"the",
	"and",
	"for",
	"with",
	"not",
	"use",
	"never",
	"always",
	"only",
	"rule",
	"rules",
	"notes",
	"how",
	"when",
	"what",
	"who",
]);
