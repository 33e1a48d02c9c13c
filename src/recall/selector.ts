import { generateText, type LanguageModel, Output } from "ai";
import { z } from "zod";
import selectorPrompt from "../../prompts/recall_selector.md";
import { fillTemplate } from "../lib/template";
import { stripDelimiters } from "../llm/delimiters";
import { cuesOf } from "../memory/store";
import { tokenCount } from "../text/tokens";
import type { ScoredMemory } from "./ranking";

const SelectionSchema = z.object({ names: z.array(z.string().max(64)).max(20) });

export type Selection = { ok: true; memories: ScoredMemory[] } | { ok: false; reason: string };

/** The longest the selector is waited for when the caller sets no limit of its own. */
export const SELECTOR_TIMEOUT_MS = 8_000;

/** "updated 3 days ago" / "confirmed today": how long ago the memory was last known true. */
const ageOf = (c: ScoredMemory) =>
	`${c.confirmed ? "confirmed" : "updated"} ${c.ageDays < 1 ? "today" : `${c.ageDays} day${c.ageDays === 1 ? "" : "s"} ago`}`;

/** One manifest line: name, type, age, description and cues; data, with delimiters and angle brackets removed. */
const manifestLine = (c: ScoredMemory) => {
	const cues = cuesOf(c.row);
	const when = cues.length > 0 ? ` [applies when: ${cues.join("; ")}]` : "";
	return `- ${c.row.name} (${c.row.type}, ${ageOf(c)}): ${stripDelimiters(`${c.row.description}${when}`).replace(/[<>]/g, "")}`;
};

/** The first memories whose manifest lines fit `tokens` (a real tokenizer's count). */
export function withinTokens(memories: ScoredMemory[], tokens: number): ScoredMemory[] {
	let used = 0;
	const kept: ScoredMemory[] = [];
	for (const m of memories) {
		used += tokenCount(manifestLine(m)) + 1;
		if (used > tokens) break;
		kept.push(m);
	}
	return kept;
}

/**
 * Asks a small model to pick at most `limit` memories from the manifest (name, type, age, description
 * and cues), told the tools in use and what the session was already shown. Names the model invents
 * are dropped. Never runs past `timeoutMs`. Never throws: any failure is a reason, and the caller falls
 * back to the ranked answer.
 */
export async function selectWithModel(
	model: LanguageModel,
	query: string,
	recentTools: string[],
	candidates: ScoredMemory[],
	limit: number,
	/** Memories already shown to the agent in this session. */
	shown: string[] = [],
	timeoutMs = SELECTOR_TIMEOUT_MS,
): Promise<Selection> {
	if (candidates.length === 0) return { ok: true, memories: [] };
	const manifest = candidates.map(manifestLine).join("\n");
	const prompt = fillTemplate(selectorPrompt, {
		limit: String(limit),
		query: stripDelimiters(query),
		recent_tools: recentTools.length > 0 ? recentTools.join(", ") : "none",
		already_shown: shown.length > 0 ? shown.slice(0, 50).join(", ") : "none",
		manifest,
	});
	const abort = new AbortController();
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		// The abort signal stops the request; the race makes sure the caller is answered on time even
		// when a provider does not observe it.
		const late = new Promise<never>((_, reject) => {
			timer = setTimeout(() => {
				abort.abort();
				reject(new SelectorTimeout(timeoutMs));
			}, timeoutMs);
		});
		const { output } = await Promise.race([
			generateText({
				model,
				prompt,
				output: Output.object({ schema: SelectionSchema }),
				abortSignal: abort.signal,
				maxRetries: 1,
			}),
			late,
		]);
		const byName = new Map(candidates.map((c) => [c.row.name, c]));
		const chosen: ScoredMemory[] = [];
		for (const name of output.names) {
			const hit = byName.get(name);
			if (hit && !chosen.includes(hit)) chosen.push(hit);
			if (chosen.length >= limit) break;
		}
		return { ok: true, memories: chosen };
	} catch (err) {
		if (err instanceof SelectorTimeout)
			return { ok: false, reason: `the model selector did not answer within ${timeoutMs} ms; the ranked answer is served` };
		// The reason names the failure class only; model output is never echoed.
		const kind = err instanceof Error ? err.name : "Error";
		return { ok: false, reason: `model selection failed (${kind})` };
	} finally {
		if (timer) clearTimeout(timer);
	}
}

class SelectorTimeout extends Error {
	constructor(ms: number) {
		super(`no answer within ${ms} ms`);
		this.name = "SelectorTimeout";
	}
}
