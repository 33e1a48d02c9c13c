import { readSkill, readSummary } from "../consolidate/artifacts";
import { badRequest, CairnError, notFound } from "../errors";
import { nowIso } from "../lib/ids";
import { readDailyLog } from "../memory/daily-log";
import { getIndex } from "../memory/index-file";
import { memoryUrl } from "../memory/paths";
import type { MemoryRow } from "../memory/rows";
import { currentContent, getMemoryRow } from "../memory/store";
import { MEMORY_SCOPES, type MemoryScope, NAME_SOURCE } from "../memory/topic-file";
import { recordUses } from "../memory/use";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb } from "../storage/sql";
import { isServedTo } from "../trust/vouch";
import { allTopics, topicMembers } from "./start-view";
import { type Topic, topicLine, topicUrl } from "./topics";

/** Every topic, one line each: what each holds and how many. */
function topicIndex(topics: Topic[]): string {
	return [
		"# memory://root/topics",
		"",
		"Every memory of the project, grouped by what it is about; open a topic with memory_read memory://root/topics/<topic>.md.",
		"",
		...topics.map((t) => topicLine(t, t.members.length)),
		"",
	].join("\n");
}

/** A topic's file: its members' index lines, for the agent to open the one the task needs. */
function topicFile(topic: Topic): string {
	const lines = topic.members.map(
		(m) => `- ${memoryUrl(m.scope === "team" ? "team" : "personal", m.name)} (${m.type}) — ${m.description.replace(/\s+/g, " ").trim()}`,
	);
	const about = topic.title
		? `${topic.title}${topic.words.length > 0 ? `: ${topic.words.join(", ")}` : ""}`
		: [topic.key.startsWith("other-") ? "" : topic.key, ...topic.words].filter(Boolean).join(", ");
	return [
		`# ${topicUrl(topic.key)}: ${about} (${topic.members.length})`,
		"",
		"Memories grouped by what they are about; open one with memory_read by its URL.",
		"",
		...lines,
		"",
	].join("\n");
}

export const MEMORY_URL = new RegExp(
	`^memory://root(?:/(?:(MEMORY\\.md)|(team/)?(${NAME_SOURCE})\\.md|skills/(${NAME_SOURCE})/SKILL\\.md|logs/(\\d{4}-\\d{2}-\\d{2})\\.md|topics/(${NAME_SOURCE})\\.md|(topics)))?$`,
);

export const MEMORY_URL_FORMS =
	"memory://root, memory://root/MEMORY.md, memory://root/<name>.md, memory://root/team/<name>.md, memory://root/skills/<name>/SKILL.md, memory://root/topics, memory://root/topics/<topic>.md or memory://root/logs/<YYYY-MM-DD>.md";

/**
 * The memory with this name: personal first, then team (or only the scope given). A team memory no person
 * vouched for is found by its writer only (src/trust/vouch.ts): to anyone else it does not exist.
 */
export async function findMemory(db: ProjectDb, ctx: ProjectContext, name: string, scope?: MemoryScope): Promise<MemoryRow> {
	for (const s of scope ? [scope] : MEMORY_SCOPES) {
		const row = await getMemoryRow(db, ctx, s, name);
		if (row && isServedTo(row, ctx.userId)) return row;
	}
	throw notFound("memory");
}

/**
 * Reads the markdown a memory:// URL names: the index, a topic file, a skill, or the summary. A topic
 * file read for the caller's session `sessionId` counts as that session's read of it (src/memory/use.ts),
 * once, however the session reaches it; without a session the transcript's own record of the call counts.
 */
export async function resolveMemoryUrl(env: ProjectEnv, ctx: ProjectContext, url: string, sessionId?: string): Promise<string> {
	const m = MEMORY_URL.exec(url);
	if (!m) throw badRequest(`url must be ${MEMORY_URL_FORMS}`, { field: "url" });
	const [, index, team, name, skill, logDate, topic, topicList] = m;
	if (index) return getIndex(env, ctx);
	if (topicList) return topicIndex(await allTopics(env.PDB, ctx));
	if (topic) {
		const found = await topicMembers(env.PDB, ctx, topic);
		if (!found) throw new CairnError("not_found", "no such topic: the session-start block names the topics there are");
		return topicFile(found);
	}
	if (logDate) {
		const log = await readDailyLog(env, ctx, logDate);
		if (log === null) throw new CairnError("not_found", "no daily log for that date");
		return log;
	}
	if (name) {
		const text = await currentContent(env, ctx, await findMemory(env.PDB, ctx, name, team ? "team" : undefined));
		if (sessionId) await recordUses(env.PDB, ctx, sessionId, [{ kind: "read", name, team: team !== undefined, at: nowIso() }]);
		return text;
	}
	const found = skill ? await readSkill(env, ctx, skill) : await readSummary(env, ctx);
	if (found === null) throw new CairnError("not_found", skill ? "skill not found" : "memory summary not found");
	return found;
}
