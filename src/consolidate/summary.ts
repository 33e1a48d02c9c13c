import { truncateToTokens } from "../inject/tokens";
import type { ProjectContext } from "../memory/store";
import type { MemoryType } from "../memory/topic-file";
import type { ProjectDb } from "../project/sql";

const SECTIONS: [MemoryType, string][] = [
	["user", "Profile and preferences"],
	["feedback", "Rules that apply everywhere"],
	["project", "Project"],
	["reference", "References"],
];
const PER_TYPE = 15;
const STOP = new Set("a an the to of for in on at by with and or is are use".split(" "));

interface Row {
	name: string;
	scope: "personal" | "team";
	type: MemoryType;
	description: string;
}

/**
 * The offline memory_summary.md: the most used and most recent memories of each type (personal and
 * team), one line each with its memory:// path, then a keyword map into the topic files. Cut to the
 * token limit at a line boundary.
 */
export async function buildSummary(db: ProjectDb, ctx: ProjectContext, tokenLimit: number): Promise<string> {
	// One ordered, limited read per type through the (project_id, type, times_served, updated_at) index.
	const perType = (type: MemoryType) =>
		db
			.prepare(
				`SELECT name, scope, type, description FROM memories INDEXED BY memories_summary
				 WHERE project_id = ? AND type = ? AND (scope = 'team' OR owner_id = ?)
				 ORDER BY times_served DESC, updated_at DESC LIMIT ?`,
			)
			.bind(ctx.projectId, type, ctx.userId, PER_TYPE);
	const batches = await db.batch<Row>(SECTIONS.map(([type]) => perType(type)));
	const results = batches.flatMap((b) => b.results);
	if (results.length === 0) return "";
	const path = (r: Row) => `memory://root/${r.scope === "team" ? "team/" : ""}${r.name}.md`;
	const parts = ["# Memory summary", ""];
	for (const [type, title] of SECTIONS) {
		const rows = results.filter((r) => r.type === type);
		if (rows.length === 0) continue;
		parts.push(`## ${title}`, "", ...rows.map((r) => `- ${r.description} (${path(r)})`), "");
	}
	parts.push("## Keyword map", "");
	for (const r of results) {
		const words = r.name.split("-").filter((w) => w.length > 2 && !STOP.has(w));
		if (words.length) parts.push(`- ${words.slice(0, 4).join(", ")} → ${path(r)}`);
	}
	return truncateToTokens(`${parts.join("\n").trim()}\n`, tokenLimit).text;
}
