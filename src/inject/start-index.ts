/**
 * The session-start block's index: a view of the memories, not MEMORY.md. Rules and preferences come
 * first (they apply to any task), then facts and references ranked by what the session is about (the
 * folder, the branch, recent commit subjects and the files changed on the branch, as the hook reads them
 * from git), then team scope, use and freshness. One compact line each (name and description); what
 * does not fit is named by a short map of topics with counts and the ways to reach it.
 */
import type { HeaderRow, Kind, StartView } from "../search/start-view";
import { provenanceTag } from "../trust/words";

export { rankHeaders, START_WEIGHTS } from "../search/start-view";

/** What the session is about, as the session-start hook reads it from git (bounded by the API). */
export interface SessionContext {
	folder?: string;
	branch?: string;
	commits?: string[];
	files?: string[];
}

/** The words recall ranks the index by: the folder, the branch and file paths split into words, the commit subjects. */
export function contextQuery(context: SessionContext): string {
	const split = (s: string) => s.replace(/[/_.\-\\]+/g, " ");
	return [
		context.folder ? split(context.folder) : "",
		context.branch ? split(context.branch) : "",
		...(context.commits ?? []),
		...(context.files ?? []).map(split),
	]
		.filter(Boolean)
		.join("\n")
		.slice(0, 4000);
}

/** One index line: the name (its file is memory://root/<name>.md, team: memory://root/team/<name>.md) and the description. */
export const headerLine = (
	r: Pick<HeaderRow, "name" | "description" | "scope" | "source" | "trust" | "reviewed_by" | "author_id" | "vouched_by">,
	viewer?: string,
) => {
	const tag = viewer !== undefined && r.source ? provenanceTag({ ...r, source: r.source }, viewer) : r.scope === "team" ? "team" : "";
	return `- ${r.name}${tag ? ` (${tag})` : ""} — ${r.description.replace(/\s+/g, " ").trim()}`;
};

/** Topics named in the map of a block in one piece. */
const TOPICS_NAMED = 12;

const kindLabel = (kind: Kind) => (kind === "rules" ? "rules and preferences" : "project facts and references");

/**
 * The map of what the index leaves out: per kind, how many and the topics its memories' names are about,
 * then how to reach them. Empty when everything is listed.
 */
export function topicMap(view: StartView, listed: Record<Kind, number>): string {
	const total: Record<Kind, number> = {
		rules: view.counts.feedback + view.counts.user,
		facts: view.counts.project + view.counts.reference,
	};
	const lines: string[] = [];
	const largest = [...view.topics].sort((a, b) => b.ids.length - a.ids.length || (a.key < b.key ? -1 : 1)).slice(0, TOPICS_NAMED);
	const about = largest.map((t) => `${t.key} ${t.ids.length}`).join(", ");
	for (const kind of ["rules", "facts"] as const) {
		const more = total[kind] - listed[kind];
		if (more > 0) lines.push(`- ${more} more ${kindLabel(kind)}`);
	}
	if (lines.length > 0 && about) lines.push(`- the topics they are in (memory://root/topics/<topic>.md): ${about}`);
	if (lines.length === 0) return "";
	return [
		"Not listed above:",
		...lines,
		'When a task touches one of these, search with memory_recall (MCP) or `cairn recall "<words>"`, and open a file with memory_read memory://root/<name>.md (for a line marked team, put team/ before the name). Every memory: memory://root/MEMORY.md.',
	].join("\n");
}
