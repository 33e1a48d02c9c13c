import { generateText, type LanguageModel, Output } from "ai";
import { z } from "zod";
import selectorPrompt from "../../prompts/recall_selector.md";
import { stripDelimiters } from "../extract/delimiters";
import { fillTemplate } from "../lib/template";
import type { ScoredMemory } from "./lexical";

const SelectionSchema = z.object({ names: z.array(z.string().max(64)).max(20) });

export type Selection = { ok: true; memories: ScoredMemory[] } | { ok: false; reason: string };

const SELECTOR_TIMEOUT_MS = 8_000;

/** "updated 3 days ago" / "confirmed today": how long ago the memory was last known true. */
const ageOf = (c: ScoredMemory) =>
	`${c.confirmed ? "confirmed" : "updated"} ${c.ageDays < 1 ? "today" : `${c.ageDays} day${c.ageDays === 1 ? "" : "s"} ago`}`;

/**
 * Asks a small model to pick at most `limit` memories from the lexical candidates' manifest
 * (name, type, age and description), told the tools in use and what the session was already shown. Names the model invents are dropped. Never throws: any failure is
 * a reason, and the caller falls back to the lexical ranking.
 */
export async function selectWithModel(
	model: LanguageModel,
	query: string,
	recentTools: string[],
	candidates: ScoredMemory[],
	limit: number,
	/** Memories already shown to the agent in this session. */
	shown: string[] = [],
): Promise<Selection> {
	if (candidates.length === 0) return { ok: true, memories: [] };
	const manifest = candidates
		.map((c) => `- ${c.row.name} (${c.row.type}, ${ageOf(c)}): ${stripDelimiters(c.row.description).replace(/[<>]/g, "")}`)
		.join("\n");
	const prompt = fillTemplate(selectorPrompt, {
		limit: String(limit),
		query: stripDelimiters(query),
		recent_tools: recentTools.length > 0 ? recentTools.join(", ") : "none",
		already_shown: shown.length > 0 ? shown.slice(0, 50).join(", ") : "none",
		manifest,
	});
	try {
		const { output } = await generateText({
			model,
			prompt,
			output: Output.object({ schema: SelectionSchema }),
			abortSignal: AbortSignal.timeout(SELECTOR_TIMEOUT_MS),
			maxRetries: 1,
		});
		const byName = new Map(candidates.map((c) => [c.row.name, c]));
		const chosen: ScoredMemory[] = [];
		for (const name of output.names) {
			const hit = byName.get(name);
			if (hit && !chosen.includes(hit)) chosen.push(hit);
			if (chosen.length >= limit) break;
		}
		return { ok: true, memories: chosen };
	} catch (err) {
		// The reason names the failure class only; model output is never echoed.
		const kind = err instanceof Error ? err.name : "Error";
		return { ok: false, reason: `model selection failed (${kind})` };
	}
}
