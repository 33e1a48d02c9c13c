import { summaryKey } from "../memory/paths";
import { keepSummary, keptSummary, type StoredSummary, summaryEpoch } from "../memory/summary-cache";
import { type MemoryType, NAME_SOURCE } from "../memory/topic-file";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb } from "../storage/sql";
import { EN_STOPWORDS } from "../text/stopwords/en";
import { truncateToTokens } from "../text/tokens";
import { servedSql } from "../trust/vouch";

const SECTIONS: [MemoryType, string][] = [
	["user", "Profile and preferences"],
	["feedback", "Rules that apply everywhere"],
	["project", "Project"],
	["reference", "References"],
];
const PER_TYPE = 15;

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
				 WHERE project_id = ?1 AND type = ?2 AND ${servedSql("", "?3")} AND archived_at IS NULL
				 ORDER BY times_served DESC, updated_at DESC LIMIT ?4`,
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
		const words = r.name.split("-").filter((w) => w.length > 2 && !EN_STOPWORDS.has(w));
		if (words.length) parts.push(`- ${words.slice(0, 4).join(", ")} → ${path(r)}`);
	}
	return truncateToTokens(`${parts.join("\n").trim()}\n`, tokenLimit).text;
}

/* --- A summary that is never stale ---
 * A summary cites memories and skills by their memory:// paths. When one of them changes or goes
 * away after the summary was written, the lines citing it would show an old value or a dead path: they
 * are left out whenever the summary is read, and without a model the summary is rebuilt then and there
 * (with a model, the next consolidation run rewrites it from the filtered text). */

/** The line a summary carries its date on (replaced on every write). */
const DATE_LINE = /^_Written \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\._$/m;

/** The summary text with its date (replacing an earlier one), after its first heading when it has one. */
export function datedSummary(text: string, at: Date): string {
	const line = `_Written ${at.toISOString().slice(0, 16).replace("T", " ")} UTC._`;
	const body = text
		.replace(DATE_LINE, "")
		.replace(/\n{3,}/g, "\n\n")
		.replace(/^\n+/, "");
	if (!body.trim()) return body;
	const heading = /^# .*\n/.exec(body);
	return heading ? `${heading[0]}\n${line}\n${body.slice(heading[0].length).replace(/^\n+/, "\n")}` : `${line}\n\n${body}`;
}

const CITED = new RegExp(`memory://root/(?:(team/)?(${NAME_SOURCE})\\.md|skills/(${NAME_SOURCE})/SKILL\\.md)`, "g");

/**
 * The summary without the lines that cite a memory or skill that no longer resolves for this user, or
 * that changed after `writtenAt`, or a memory since archived (no longer served). `dropped` counts the
 * lines left out.
 */
export async function withoutStaleLines(
	db: ProjectDb,
	ctx: ProjectContext,
	text: string,
	writtenAt: string,
): Promise<{ text: string; dropped: number }> {
	const memories = new Set<string>();
	const skills = new Set<string>();
	for (const m of text.matchAll(CITED)) {
		if (m[2]) memories.add(`${m[1] ? "team" : "personal"}/${m[2]}`);
		if (m[3]) skills.add(m[3]);
	}
	if (memories.size === 0 && skills.size === 0) return { text, dropped: 0 };
	const names = [...memories].map((k) => k.split("/")[1]);
	const [memoryRows, skillRows] = await db.batch<{ name: string; scope: string; updated_at: string; archived_at?: string | null }>([
		db
			.prepare(
				`SELECT name, scope, updated_at, archived_at FROM memories WHERE project_id = ?1 AND ${servedSql("", "?2")}
				 AND name IN (SELECT value FROM json_each(?3))`,
			)
			.bind(ctx.projectId, ctx.userId, JSON.stringify(names)),
		db
			.prepare(
				`SELECT name, 'skill' AS scope, updated_at FROM skills WHERE project_id = ? AND owner_id = ? AND name IN (SELECT value FROM json_each(?))`,
			)
			.bind(ctx.projectId, ctx.userId, JSON.stringify([...skills])),
	]);
	const written = Date.parse(writtenAt);
	const fresh = new Set<string>();
	for (const r of memoryRows?.results ?? []) if (!r.archived_at && !(Date.parse(r.updated_at) > written)) fresh.add(`${r.scope}/${r.name}`);
	for (const r of skillRows?.results ?? []) if (!(Date.parse(r.updated_at) > written)) fresh.add(`skill/${r.name}`);
	let dropped = 0;
	const kept = text.split("\n").filter((line) => {
		for (const m of line.matchAll(CITED)) {
			const key = m[3] ? `skill/${m[3]}` : `${m[1] ? "team" : "personal"}/${m[2]}`;
			if (!fresh.has(key)) {
				dropped++;
				return false;
			}
		}
		return true;
	});
	return { text: kept.join("\n"), dropped };
}

/** The stored summary and when it was written (its metadata, else the object's upload time); kept in the isolate (src/memory/summary-cache.ts). */
export async function storedSummary(env: ProjectEnv | Env, ctx: ProjectContext): Promise<StoredSummary | null> {
	const key = summaryKey(ctx.tenantId, ctx.projectId, ctx.userId);
	const hit = keptSummary(key);
	if (hit !== undefined) return hit;
	const since = summaryEpoch();
	const object = await env.FILES.get(key);
	const stored = object
		? { text: await object.text(), writtenAt: object.customMetadata?.writtenAt ?? object.uploaded.toISOString() }
		: null;
	keepSummary(key, stored, since);
	return stored;
}
