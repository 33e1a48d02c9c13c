import { generateText, type LanguageModel } from "ai";
import sessionMemoryPrompt from "../../prompts/session_memory.md";
import { extractOffline } from "../extract/offline";
import { transcriptItems } from "../extract/stage-one";
import { readTurns, sessionHash } from "../ingest/ingest";
import { fillTemplate } from "../lib/template";
import { stripDelimiters } from "../llm/delimiters";
import { sessionPrefix } from "../memory/paths";
import { redactSecrets } from "../security/secrets";
import type { SessionRow } from "../sessions/sessions";
import { recordSessionMemory } from "../sessions/sessions";
import type { Turn } from "../sessions/turns";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { tokenCount, truncateToTokens } from "../text/tokens";

/** The template of a session memory (SPEC §2), in order. */
export const SECTIONS = [
	"Current state",
	"Task",
	"Key decisions",
	"Errors and corrections",
	"Files and commands",
	"Remaining work",
	"Work log",
] as const;
export type Section = (typeof SECTIONS)[number];

export const SECTION_TOKENS = 2_000;
const MODEL_TIMEOUT_MS = 60_000;
/** Transcript tokens one model refresh reads: the new turns' head and tail beyond this. */
const MODEL_INPUT_TOKENS = 40_000;

export const sessionMemoryKey = async (ctx: ProjectContext, sessionId: string) =>
	`${sessionPrefix(ctx.tenantId, ctx.projectId, await sessionHash(sessionId))}memory.md`;

/** Per-section cap: about 2,000 tokens, less when the total cap is small. */
export const sectionCap = (total: number) => Math.min(SECTION_TOKENS, Math.floor(total / SECTIONS.length));

/** Renders sections with both caps applied: each section cut at a line, then the whole. */
export function renderSections(sections: Partial<Record<Section, string[] | string>>, totalTokens: number): string {
	const cap = sectionCap(totalTokens);
	const parts: string[] = [];
	for (const name of SECTIONS) {
		const value = sections[name];
		const text = (Array.isArray(value) ? value.join("\n") : (value ?? "")).trim() || "_Nothing yet._";
		parts.push(`## ${name}\n\n${truncateToTokens(text, cap).text}`);
	}
	return truncateToTokens(`${parts.join("\n\n")}\n`, totalTokens).text;
}

/** Splits model output into the template's sections; unknown headings are dropped. */
export function parseSections(markdown: string): Partial<Record<Section, string>> {
	const out: Partial<Record<Section, string>> = {};
	const chunks = markdown.split(/^##\s+/m).slice(1);
	for (const chunk of chunks) {
		const newline = chunk.indexOf("\n");
		const heading = (newline < 0 ? chunk : chunk.slice(0, newline)).trim().toLowerCase();
		const section = SECTIONS.find((s) => s.toLowerCase() === heading);
		if (section) out[section] = newline < 0 ? "" : chunk.slice(newline + 1).trim();
	}
	return out;
}

const oneLine = (text: string, max = 200) => {
	const line = text.replace(/\s+/g, " ").trim();
	return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

const PATH = /(?:^|[\s"'`(=:])((?:\/|\.{1,2}\/|~\/)?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8})(?=$|[\s"'`),:;])/g;
const ERROR = /\b(?:error|failed|failure|exception|traceback|cannot|not found|denied|exit code [1-9]\d*|panic)\b/i;
const CORRECTION = /^(?:no\b|nope\b|actually\b|that'?s (?:wrong|not)|wrong\b|don'?t\b|do not\b|stop\b|instead\b)/i;

function toolArgs(turn: Turn): Record<string, unknown> | null {
	const space = turn.text.indexOf(" ");
	if (space < 0) return null;
	try {
		const parsed = JSON.parse(turn.text.slice(space + 1));
		return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
	} catch {
		return null;
	}
}

const commandOf = (turn: Turn): string | null => {
	const args = toolArgs(turn);
	const value = args?.command ?? args?.cmd;
	if (typeof value === "string") return value;
	if (Array.isArray(value)) return value.join(" ");
	return null;
};

/** The latest plan an agent wrote with its todo tool: unfinished items. */
function openTodos(turns: Turn[]): string[] | null {
	for (let i = turns.length - 1; i >= 0; i--) {
		const t = turns[i] as Turn;
		if (t.role !== "tool_call" || !t.tool || !/^(TodoWrite|update_plan|todo_write)$/.test(t.tool)) continue;
		const args = toolArgs(t);
		const items = (args?.todos ?? args?.plan) as { content?: string; step?: string; status?: string }[] | undefined;
		if (!Array.isArray(items)) continue;
		return items
			.filter((x) => x.status !== "completed")
			.map((x) => `- [${x.status ?? "pending"}] ${oneLine(x.content ?? x.step ?? "", 160)}`);
	}
	return null;
}

const pushUnique = (list: string[], value: string, max: number) => {
	const i = list.indexOf(value);
	if (i >= 0) list.splice(i, 1);
	list.push(value);
	if (list.length > max) list.shift();
};

/**
 * The offline session memory: built from the transcript alone — requests, decisions the user stated,
 * errors seen and corrections made, files touched and commands run by tool calls, the agent's open
 * plan items, and a work log of the user's requests. Deterministic; within both caps.
 */
export function buildOffline(sessionId: string, turns: Turn[], totalTokens: number, totalTurns = turns.length): string {
	const main = turns.filter((t) => !t.sidechain);
	const requests = main.filter((t) => t.role === "user" && !t.kind);
	const lastUser = requests.at(-1);
	const lastAssistant = main.filter((t) => t.role === "assistant").at(-1);
	const decisions = extractOffline(sessionId, turns).candidates.map((c) => `- ${c.description} (${c.evidence.join(", ")})`);

	const errors: string[] = [];
	for (const t of main) {
		if (t.role === "tool_result" && (t.text.startsWith("error:") || ERROR.test(t.text.slice(0, 400)))) {
			const first = t.text.split("\n").find((l) => ERROR.test(l)) ?? t.text.split("\n")[0] ?? "";
			pushUnique(errors, `- t${t.seq}${t.tool ? ` ${t.tool}` : ""}: ${oneLine(first, 180)}`, 30);
		}
		if (t.role === "user" && !t.kind && CORRECTION.test(t.text.trim()))
			pushUnique(errors, `- t${t.seq} user correction: ${oneLine(t.text, 180)}`, 30);
	}

	const files: string[] = [];
	const commands: string[] = [];
	for (const t of main) {
		if (t.role !== "tool_call") continue;
		const command = commandOf(t);
		if (command) pushUnique(commands, `- \`${oneLine(command, 160).replace(/`/g, "'")}\``, 25);
		const args = toolArgs(t);
		const direct = [args?.file_path, args?.path, args?.notebook_path].filter((v): v is string => typeof v === "string");
		for (const p of direct) pushUnique(files, `- ${p}`, 40);
		for (const m of t.text.matchAll(PATH)) if (m[1] && !m[1].startsWith("http")) pushUnique(files, `- ${m[1]}`, 40);
	}

	const log = requests.map((t) => `- t${t.seq}: ${oneLine(t.text, 140)}`);
	const state = [
		lastUser ? `Latest request (t${lastUser.seq}): ${oneLine(lastUser.text, 400)}` : "",
		lastAssistant ? `Latest answer (t${lastAssistant.seq}): ${oneLine(lastAssistant.text, 400)}` : "",
		totalTurns > turns.length
			? `Turns so far: ${totalTurns}; tool calls in the last ${turns.length} turns read: ${turns.filter((t) => t.role === "tool_call").length}.`
			: `Turns so far: ${turns.length}; tool calls: ${turns.filter((t) => t.role === "tool_call").length}.`,
	].filter(Boolean);
	return renderSections(
		{
			"Current state": state,
			Task: requests.slice(0, 3).map((t) => `- t${t.seq}: ${oneLine(t.text, 600)}`),
			"Key decisions": decisions,
			"Errors and corrections": errors,
			"Files and commands": [...(files.length ? ["Files:", ...files] : []), ...(commands.length ? ["Commands:", ...commands] : [])],
			"Remaining work": openTodos(main) ?? (lastUser ? [`- Continue: ${oneLine(lastUser.text, 300)}`] : []),
			// The newest requests matter most: keep the tail when the log is long.
			"Work log": log.length > 60 ? [`- (${log.length - 60} earlier requests omitted)`, ...log.slice(-60)] : log,
		},
		totalTokens,
	);
}

/** A model refresh: the previous notes plus the new turns, rewritten into the template; caps enforced after. */
export async function buildWithModel(model: LanguageModel, previous: string, newTurns: Turn[], totalTokens: number): Promise<string> {
	const { json } = transcriptItems(newTurns, MODEL_INPUT_TOKENS);
	const prompt = fillTemplate(sessionMemoryPrompt, {
		sections: SECTIONS.map((s) => `- ${s}`).join("\n"),
		section_tokens: String(sectionCap(totalTokens)),
		total_tokens: String(totalTokens),
		previous_memory: stripDelimiters(previous),
		transcript: stripDelimiters((await redactSecrets(json)).text),
	});
	const result = await generateText({ model, prompt, abortSignal: AbortSignal.timeout(MODEL_TIMEOUT_MS), maxRetries: 1 });
	const sections = parseSections(result.text);
	if (Object.keys(sections).length === 0) throw new Error("the session-memory model's answer had none of the template's sections");
	return renderSections(sections, totalTokens);
}

/**
 * How many turns one rebuild reads at most: the opening turns (what was asked) and the latest ones
 * (where the work stands). A rebuild costs the same however long the session has grown; what lies in
 * between is already in the previous notes (model refresh) or beyond what the sections keep (offline:
 * the newest errors, files, commands and requests).
 */
export const REBUILD_HEAD_TURNS = 200;
export const REBUILD_TAIL_TURNS = 1_500;

export interface RebuildBounds {
	headTurns: number;
	tailTurns: number;
}

/** Turns `from`…`to`, or only the first `headTurns` and last `tailTurns` of them when there are more. */
async function readBounded(
	env: ProjectEnv,
	projectId: string,
	sessionId: string,
	from: number,
	to: number,
	bounds: RebuildBounds,
): Promise<Turn[]> {
	if (to < from) return [];
	if (to - from + 1 <= bounds.headTurns + bounds.tailTurns) return readTurns(env, projectId, sessionId, from, to);
	const head = bounds.headTurns > 0 ? await readTurns(env, projectId, sessionId, from, from + bounds.headTurns - 1) : [];
	const tail = await readTurns(env, projectId, sessionId, to - bounds.tailTurns + 1, to);
	return [...head, ...tail];
}

export interface SessionMemoryResult {
	text: string;
	tokens: number;
	engine: "model" | "offline";
}

/**
 * Rebuilds one session's memory and stores it (R2 object, counters on the session row). With a model,
 * the previous notes are refreshed with the turns since the last refresh; if the model fails, the
 * offline builder runs over the session instead. Either reads at most the bounds' opening and latest
 * turns of its range, never the whole of a long session. Secrets are redacted before storage.
 */
export async function refreshSessionMemory(
	env: ProjectEnv,
	ctx: ProjectContext,
	session: Pick<SessionRow, "id" | "turns" | "memory_turns">,
	totalTokens: number,
	model: LanguageModel | null,
	bounds: RebuildBounds = { headTurns: REBUILD_HEAD_TURNS, tailTurns: REBUILD_TAIL_TURNS },
): Promise<SessionMemoryResult> {
	const key = await sessionMemoryKey(ctx, session.id);
	let text: string | null = null;
	let engine: SessionMemoryResult["engine"] = "offline";
	if (model) {
		const previous = (await (await env.FILES.get(key))?.text()) ?? "";
		const from = previous ? session.memory_turns : 0;
		const newTurns = await readBounded(env, ctx.projectId, session.id, from, session.turns - 1, bounds);
		try {
			text = await buildWithModel(model, previous, newTurns, totalTokens);
			engine = "model";
		} catch (err) {
			console.warn("session memory: model refresh failed, building offline", err instanceof Error ? err.name : "Error");
		}
	}
	if (text === null) {
		const turns = await readBounded(env, ctx.projectId, session.id, 0, session.turns - 1, bounds);
		text = buildOffline(session.id, turns, totalTokens, session.turns);
	}
	text = truncateToTokens((await redactSecrets(text)).text, totalTokens).text;
	await env.FILES.put(key, text, { httpMetadata: { contentType: "text/markdown; charset=utf-8" } });
	const tokens = tokenCount(text);
	const recorded = await recordSessionMemory(env.PDB, ctx.projectId, session.id, session.turns, tokens);
	// The session is gone (the project was cleared while this rebuild awaited its model or R2): the
	// clear's listing may have missed the object just put, so it must not outlive the session.
	if (!recorded) await env.FILES.delete(key);
	return { text, tokens, engine };
}

export async function readSessionMemory(env: Env, ctx: ProjectContext, sessionId: string): Promise<string | null> {
	const object = await env.FILES.get(await sessionMemoryKey(ctx, sessionId));
	return object ? object.text() : null;
}
