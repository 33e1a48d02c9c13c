import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb } from "../storage/sql";
import { servedSql } from "../trust/vouch";
import { indexKey, relativePath } from "./paths";
import { MEMORY_TYPES, type MemoryScope, type MemoryType } from "./topic-file";

/** Hard caps from the spec: whichever comes first. */
export const INDEX_MAX_LINES = 200;
export const INDEX_MAX_BYTES = 25_000;

const HEADINGS: Record<MemoryType, string> = {
	user: "User preferences",
	feedback: "Feedback and rules",
	project: "Project facts",
	reference: "References",
};

export interface IndexEntry {
	name: string;
	type: MemoryType;
	description: string;
	scope: MemoryScope;
}

const encoder = new TextEncoder();
const byteLength = (s: string) => encoder.encode(s).byteLength;

function entryLine(e: IndexEntry): string {
	const team = e.scope === "team" ? " (team)" : "";
	// Descriptions are single-line by validation; brackets are escaped so a description cannot forge a link.
	const description = e.description.replace(/[[\]]/g, "\\$&");
	return `- [${e.name}](${relativePath(e.scope, e.name)})${team} — ${description}`;
}

/**
 * Renders MEMORY.md: one line per topic file, grouped by type. Past 200 lines or 25,000 bytes it
 * is cut at a line boundary and ends with a warning, never silently compressed. `total` is the
 * number of memories in all; `entries` may hold only the first ones per type.
 */
export function renderIndex(entries: IndexEntry[], total: number): string {
	const lines: string[] = ["# MEMORY.md", ""];
	if (total === 0) lines.push("_No memories yet._");
	for (const type of MEMORY_TYPES) {
		const group = entries.filter((e) => e.type === type);
		if (group.length === 0) continue;
		lines.push(`## ${HEADINGS[type]}`, ...group.map(entryLine), "");
	}
	while (lines.at(-1) === "") lines.pop();

	const warning = (shown: number) =>
		`> WARNING: this index was truncated: it lists ${shown} of ${total} memories (caps: ${INDEX_MAX_LINES} lines, ${INDEX_MAX_BYTES} bytes). Tidy the memories: merge or delete some.`;
	const entryCount = (ls: string[]) => ls.filter((l) => l.startsWith("- [")).length;
	const fits = (ls: string[]) => ls.length <= INDEX_MAX_LINES && byteLength(`${ls.join("\n")}\n`) <= INDEX_MAX_BYTES;

	if (entryCount(lines) === total && fits(lines)) return `${lines.join("\n")}\n`;
	// Keep as many whole lines as fit with the warning appended.
	const kept = [...lines];
	while (kept.length > 0 && !fits([...kept, warning(entryCount(kept))])) kept.pop();
	while (kept.length > 0 && !kept.at(-1)?.startsWith("- [")) kept.pop();
	return `${[...kept, warning(entryCount(kept))].join("\n")}\n`;
}

/**
 * Returns the caller's current MEMORY.md. Writes only bump the project's index generation (O(1));
 * the file is rebuilt here, lazily, when the cached copy's generation is behind, reading at most
 * INDEX_MAX_LINES rows per type through the (project, type, name) index — never every memory.
 * Archived memories are left out: they are not served (src/memory/archive-rows.ts).
 */
export const generationStatement = (db: ProjectDb, projectId: string) =>
	db.prepare("SELECT index_generation FROM projects WHERE id = ?").bind(projectId);

export async function getIndex(env: ProjectEnv, ctx: ProjectContext, knownGeneration?: number): Promise<string> {
	const project =
		knownGeneration === undefined ? await generationStatement(env.PDB, ctx.projectId).first<{ index_generation: number }>() : null;
	const generation = String(knownGeneration ?? project?.index_generation ?? 0);
	const key = indexKey(ctx.tenantId, ctx.projectId, ctx.userId);
	const cached = await env.FILES.get(key);
	if (cached && cached.customMetadata?.generation === generation) return cached.text();

	const perType = MEMORY_TYPES.map((type) =>
		env.PDB.prepare(
			`SELECT name, type, description, scope FROM memories
			 WHERE project_id = ?1 AND type = ?2 AND ${servedSql("", "?3")} AND archived_at IS NULL ORDER BY name, scope LIMIT ?4`,
		).bind(ctx.projectId, type, ctx.userId, INDEX_MAX_LINES),
	);
	const results = await env.PDB.batch<IndexEntry>(perType);
	const entries = results.flatMap((r) => r.results);
	let total = entries.length;
	if (results.some((r) => r.results.length === INDEX_MAX_LINES)) {
		const count = await env.PDB.prepare(
			`SELECT COUNT(*) AS n FROM memories WHERE project_id = ?1 AND ${servedSql("", "?2")} AND archived_at IS NULL`,
		)
			.bind(ctx.projectId, ctx.userId)
			.first<{ n: number }>();
		total = count?.n ?? total;
	}
	const text = renderIndex(entries, total);
	await env.FILES.put(key, text, {
		httpMetadata: { contentType: "text/markdown; charset=utf-8" },
		customMetadata: { generation },
	});
	return text;
}
