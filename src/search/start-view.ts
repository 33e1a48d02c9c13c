/**
 * What the session-start block's ranked index is chosen from, read inside the project's object in one
 * statement: the header of every memory the caller may see (name, type, description, scope, dates,
 * use), never a body. The object returns the first rows of each kind by their standing (team first,
 * most used, most recently confirmed), the counts of each type, and a map of topics (the words of the
 * memories' names, counted) for what the block cannot list. The Worker ranks the rows for the session
 * (src/inject/start-index.ts); MEMORY.md is untouched by this view.
 */
import { visibleIn } from "../memory/lexical";
import type { MemoryScope, MemoryType } from "../memory/topic-file";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import { queryTerms } from "../text/terms";

export interface HeaderRow {
	id: number;
	name: string;
	type: MemoryType;
	description: string;
	scope: MemoryScope;
	updated_at: string;
	verified_at: string;
	times_served: number;
}

/** Rules and preferences (they apply to any task) and facts and references (they apply to some). */
export type Kind = "rules" | "facts";
export const kindOf = (type: MemoryType): Kind => (type === "feedback" || type === "user" ? "rules" : "facts");

export interface StartView {
	/** The first `limit` rows of each kind by standing. */
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

export async function startView(db: ProjectDb, ctx: ProjectContext, scopes: MemoryScope[], limit: number): Promise<StartView> {
	const view: StartView = {
		rules: [],
		facts: [],
		counts: { user: 0, feedback: 0, project: 0, reference: 0 },
		topics: { rules: [], facts: [] },
	};
	if (scopes.length === 0) return view;
	const { results } = await db
		.prepare(
			`SELECT m.id, m.name, m.type, m.description, m.scope, m.updated_at, m.verified_at, m.times_served
			 FROM memories m WHERE m.project_id = ?1 AND ${visibleIn(scopes, "m")}`,
		)
		.bind(ctx.projectId, null, ctx.userId)
		.all<HeaderRow>();
	const words: Record<Kind, Map<string, number>> = { rules: new Map(), facts: new Map() };
	for (const row of results) {
		view.counts[row.type] += 1;
		const kind = kindOf(row.type);
		view[kind].push(row);
		for (const word of new Set(queryTerms(row.name.replace(/-/g, " ")))) {
			if (word.length < 3 || /^\d+$/.test(word)) continue;
			words[kind].set(word, (words[kind].get(word) ?? 0) + 1);
		}
	}
	for (const kind of ["rules", "facts"] as const) {
		view[kind] = view[kind].sort(standing).slice(0, limit);
		view.topics[kind] = [...words[kind]]
			.filter(([, n]) => n > 1)
			.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
			.slice(0, TOPICS);
	}
	return view;
}
