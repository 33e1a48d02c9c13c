import readPathTemplate from "../../prompts/read_path.md";
import { fillTemplate } from "../lib/template";
import { listDailyLogs, readDailyLog } from "../memory/daily-log";
import { summaryKey } from "../memory/paths";
import { type ProjectContext, readMemoryContent } from "../memory/store";
import { projectStore } from "../project/client";
import { recall } from "../recall/recall";
import { effectiveSettings } from "../settings/settings";
import { fence } from "./fence";
import { tokenCount, truncateToTokens } from "./tokens";

export interface InjectRequest {
	query?: string;
	recentTools?: string[];
	sessionId?: string;
	mode?: "default" | "assistant";
	exclude?: string[];
	/** Total token budget for the block. */
	maxTokens?: number;
}

export interface InjectedMemory {
	name: string;
	path: string;
	type: string;
	ageDays: number;
	tokens: number;
	truncated: boolean;
}

export interface InjectResult {
	text: string;
	tokens: number;
	truncated: boolean;
	warnings: string[];
	parts: { guidance: string; summary: string; index: string; memories: InjectedMemory[]; logs: { date: string; tokens: number }[] };
	/** Internal: ids of the memories served, for usage recording. */
	servedIds: number[];
}

export const DEFAULT_INJECT_TOKENS = 16_000;
/** One topic file may not take more than this share of the block. */
const PER_MEMORY_TOKENS = 2_000;
const PER_LOG_TOKENS = 1_500;

const ageNote = (days: number) =>
	days < 1 ? "updated today" : `updated ${days} day${days === 1 ? "" : "s"} ago — verify against the repository before relying on it`;

const empty = (warnings: string[]): InjectResult => ({
	text: "",
	tokens: 0,
	truncated: false,
	warnings,
	parts: { guidance: "", summary: "", index: "", memories: [], logs: [] },
	servedIds: [],
});

/**
 * Builds the block an agent puts into its context at session start: guidance with the summary,
 * MEMORY.md, the recalled topic files with their age, and in assistant mode the recent daily logs.
 * Everything from storage is fenced; the whole block fits `maxTokens`, shedding logs, then the
 * lowest-ranked memories, then index lines, with warnings saying what was cut.
 */
export async function buildInjection(env: Env, ctx: ProjectContext, request: InjectRequest): Promise<InjectResult> {
	const store = projectStore(env, ctx.projectId);
	// Settings (D1), the summary (R2) and MEMORY.md (the project's object) concurrently.
	const [settings, summaryObject, indexText] = await Promise.all([
		effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId),
		env.FILES.get(summaryKey(ctx.tenantId, ctx.projectId, ctx.userId)),
		store.index(ctx),
	]);
	if (settings["memories.enabled"].value !== true) {
		return empty([
			`memories are disabled for this project (memories.enabled is false, set by ${settings["memories.enabled"].source}); nothing injected`,
		]);
	}
	const budget = request.maxTokens ?? DEFAULT_INJECT_TOKENS;
	const warnings: string[] = [];
	let truncated = false;
	const mode = request.mode ?? (settings["memories.mode"].value === "assistant" ? "assistant" : "default");

	const recalled = request.query
		? await recall(env, ctx, { query: request.query, recentTools: request.recentTools, exclude: request.exclude }, Date.now(), settings)
		: null;

	// Summary, within its own limit.
	let summary = "";
	if (summaryObject) {
		const limit = Number(settings["memories.summaryInjectionTokenLimit"].value);
		const cut = truncateToTokens(await summaryObject.text(), limit);
		summary = cut.text;
		if (cut.truncated) {
			truncated = true;
			warnings.push(`memory_summary.md was cut to ${limit} tokens (memories.summaryInjectionTokenLimit)`);
		}
	}
	const guidanceWith = (summaryBlock: string) => fillTemplate(readPathTemplate, { memory_summary: summaryBlock }).trimEnd();
	let guidance = guidanceWith(summary ? fence(summary) : "_No summary yet._");

	// Recalled topic files, read in parallel.
	warnings.push(...(recalled?.warnings ?? []));
	const memoryBlocks: { block: string; info: InjectedMemory; id: number }[] = [];
	const served = recalled?.served ?? [];
	const contents = await Promise.all(served.map((m) => readMemoryContent(env, ctx, m.row)));
	for (const [i, m] of served.entries()) {
		const content = contents[i] ?? "";
		const cut = truncateToTokens(content, PER_MEMORY_TOKENS);
		const path = `memory://root/${m.row.scope === "team" ? "team/" : ""}${m.row.name}.md`;
		const block = `### ${path}\n${m.row.type}, ${m.row.scope}, ${ageNote(m.ageDays)}${cut.truncated ? " (cut; read the full file by its URL)" : ""}\n\n${fence(cut.text)}`;
		if (cut.truncated) truncated = true;
		memoryBlocks.push({
			block,
			id: m.row.id,
			info: { name: m.row.name, path, type: m.row.type, ageDays: m.ageDays, tokens: tokenCount(block), truncated: cut.truncated },
		});
	}

	// Daily logs in assistant mode.
	const logBlocks: { block: string; date: string; tokens: number }[] = [];
	if (mode === "assistant") {
		if (settings["memories.assistantLog"].value === false) warnings.push("assistant logs are turned off (memories.assistantLog)");
		else {
			const days = Number(settings["memories.dailyLogDays"].value);
			const logs = days > 0 ? await listDailyLogs(env, ctx, undefined, undefined, days) : [];
			const texts = await Promise.all(logs.map((log) => readDailyLog(env, ctx, log.date)));
			for (const [i, log] of logs.entries()) {
				const text = texts[i] ?? "";
				const cut = truncateToTokens(text, PER_LOG_TOKENS);
				if (cut.truncated) truncated = true;
				const block = `### ${log.date}\n\n${fence(cut.text)}`;
				logBlocks.push({ block, date: log.date, tokens: tokenCount(block) });
			}
		}
	}

	// Fit the budget: drop logs, then the lowest-ranked memories, then index lines.
	let index = indexText;
	const assemble = () =>
		[
			guidance,
			index ? `## Memory index (memory://root/MEMORY.md)\n\n${fence(index)}` : "",
			memoryBlocks.length > 0 ? `## Recalled memories\n\n${memoryBlocks.map((m) => m.block).join("\n\n")}` : "",
			logBlocks.length > 0 ? `## Recent daily logs\n\n${logBlocks.map((l) => l.block).join("\n\n")}` : "",
		]
			.filter(Boolean)
			.join("\n\n");
	let text = assemble();
	let tokens = tokenCount(text);
	while (tokens > budget && logBlocks.length > 0) {
		logBlocks.pop();
		truncated = true;
		text = assemble();
		tokens = tokenCount(text);
	}
	while (tokens > budget && memoryBlocks.length > 0) {
		const dropped = memoryBlocks.pop();
		warnings.push(`${dropped?.info.path} left out to fit ${budget} tokens`);
		truncated = true;
		text = assemble();
		tokens = tokenCount(text);
	}
	if (tokens > budget) {
		const room = Math.max(0, budget - (tokens - tokenCount(index)) - 40);
		index = `${truncateToTokens(indexText, room).text}\n> (index cut to fit the token budget; read memory://root/MEMORY.md)`;
		warnings.push(`MEMORY.md was cut to fit ${budget} tokens`);
		truncated = true;
		text = assemble();
		tokens = tokenCount(text);
	}
	// Never cut through a fence: whole parts go, in order of least use.
	if (tokens > budget) {
		index = "";
		summary = "";
		guidance = guidanceWith(
			"_The summary and index were left out to fit the token budget; read memory://root and memory://root/MEMORY.md._",
		);
		text = assemble();
		tokens = tokenCount(text);
		warnings.push(`the summary and MEMORY.md were left out to fit ${budget} tokens`);
		if (tokens > budget) warnings.push(`the guidance alone needs ${tokens} tokens, more than the budget of ${budget}`);
	}
	return {
		text,
		tokens,
		truncated,
		warnings,
		parts: {
			guidance,
			summary,
			index,
			memories: memoryBlocks.map((m) => m.info),
			logs: logBlocks.map((l) => ({ date: l.date, tokens: l.tokens })),
		},
		servedIds: memoryBlocks.map((m) => m.id),
	};
}
