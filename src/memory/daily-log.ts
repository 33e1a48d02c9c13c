import { badRequest, CairnError } from "../errors";
import { assertNoSecretsIn } from "../security/guard";
import type { ProjectContext } from "../storage/context";
import { logKey, logsPrefix } from "./paths";

export const MAX_ENTRY_BYTES = 8 * 1024;
export const MAX_LOG_BYTES = 256 * 1024;
const DEFAULT_SECTION = "Notes";
const SECTION_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 ,'-]{0,39}$/;

/** `YYYY-MM-DD` that is a real calendar date. */
export function assertLogDate(date: string): void {
	const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
	const parsed = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
	if (!parsed || parsed.toISOString().slice(0, 10) !== date)
		throw badRequest("date must be a calendar date as YYYY-MM-DD", { field: "date" });
}

/** Inserts an entry at the end of its section, creating the section (or the file) when needed. */
export function appendToLog(existing: string | null, date: string, section: string, entry: string, at: Date): string {
	const time = at.toISOString().slice(11, 16);
	const [first = "", ...rest] = entry.trim().split(/\r?\n/);
	const item = [`- ${time} ${first}`, ...rest.map((l) => `  ${l}`)].join("\n");
	const text = existing ?? `# Daily log ${date}\n`;
	const lines = text.replace(/\n+$/, "").split("\n");
	const heading = `## ${section}`;
	const start = lines.indexOf(heading);
	if (start < 0) return `${lines.join("\n")}\n\n${heading}\n${item}\n`;
	let end = start + 1;
	while (end < lines.length && !lines[end]?.startsWith("## ")) end++;
	while (end > start + 1 && lines[end - 1] === "") end--;
	lines.splice(end, 0, item);
	return `${lines.join("\n")}\n`;
}

/**
 * Appends to the caller's log for a date. Read-modify-write guarded by the object's etag, so two
 * concurrent appends both land (the loser re-reads and retries).
 */
export async function appendDailyLog(
	env: Env,
	ctx: ProjectContext,
	date: string,
	entry: string,
	section = DEFAULT_SECTION,
	now = new Date(),
): Promise<string> {
	assertLogDate(date);
	if (!SECTION_PATTERN.test(section)) throw badRequest("section must be 1-40 letters, digits, spaces or - , '", { field: "section" });
	if (!entry.trim()) throw badRequest("entry must not be empty", { field: "entry" });
	if (new TextEncoder().encode(entry).byteLength > MAX_ENTRY_BYTES)
		throw new CairnError("payload_too_large", `entry exceeds ${MAX_ENTRY_BYTES} bytes`);
	await assertNoSecretsIn(entry, "log entry");
	const key = logKey(ctx.tenantId, ctx.projectId, ctx.userId, date);
	for (let attempt = 0; attempt < 5; attempt++) {
		const current = await env.FILES.get(key);
		const text = appendToLog(current ? await current.text() : null, date, section, entry, now);
		if (new TextEncoder().encode(text).byteLength > MAX_LOG_BYTES)
			throw new CairnError("payload_too_large", `the log for ${date} is full (${MAX_LOG_BYTES} bytes)`);
		const written = await env.FILES.put(key, text, {
			httpMetadata: { contentType: "text/markdown; charset=utf-8" },
			onlyIf: current ? { etagMatches: current.etag } : { etagDoesNotMatch: "*" },
		});
		if (written) return text;
	}
	throw new CairnError("version_conflict", "the log is being written concurrently; retry");
}

export async function readDailyLog(env: Env, ctx: ProjectContext, date: string): Promise<string | null> {
	assertLogDate(date);
	const object = await env.FILES.get(logKey(ctx.tenantId, ctx.projectId, ctx.userId, date));
	return object ? object.text() : null;
}

export interface LogListing {
	date: string;
	path: string;
	bytes: number;
}

/** The caller's logs between two dates (inclusive), newest first. */
export async function listDailyLogs(env: Env, ctx: ProjectContext, from?: string, to?: string, limit = 366): Promise<LogListing[]> {
	if (from) assertLogDate(from);
	if (to) assertLogDate(to);
	const prefix = logsPrefix(ctx.tenantId, ctx.projectId, ctx.userId);
	const logs: LogListing[] = [];
	let cursor: string | undefined;
	do {
		const page = await env.FILES.list({ prefix, cursor, limit: 1000 });
		for (const o of page.objects) {
			const date = o.key.slice(prefix.length, -".md".length);
			if ((from && date < from) || (to && date > to)) continue;
			logs.push({ date, path: `memory://root/logs/${date}.md`, bytes: o.size });
		}
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return logs.sort((a, b) => b.date.localeCompare(a.date)).slice(0, limit);
}
