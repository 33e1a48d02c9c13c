import { generateText, type LanguageModel, Output } from "ai";
import consolidationPrompt from "../../prompts/consolidation.md";
import { fillTemplate } from "../lib/template";
import { stripDelimiters } from "../llm/delimiters";
import { modelFailure } from "../llm/models";
import { cuesOf } from "../memory/store";
import { redactSecrets } from "../security/secrets";
import { truncateToTokens } from "../text/tokens";
import type { SkillRow } from "./artifacts";
import { codeEntry } from "./code-state";
import type { PendingOutput, TouchedMemory } from "./inputs";
import { type ConsolidationPlan, ConsolidationSchema } from "./plan";

export const CONSOLIDATION_TIMEOUT_MS = 180_000;

/** A failed consolidation, described in Cairn's words (never the model's output). */
export class ConsolidationError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "ConsolidationError";
	}
}

/** Skills with their bodies, each cut to an equal share of the budget when together they exceed it. */
function skillsWithinBudget(skills: (SkillRow & { body?: string })[]) {
	const share = Math.max(200, Math.floor(SKILL_TOKEN_BUDGET / Math.max(1, skills.length)));
	return skills.map((s) => ({ name: s.name, description: s.description, body: truncateToTokens(s.body ?? "", share).text }));
}

/** Every delimiter any prompt uses, in any case and spacing (src/llm/delimiters.ts). */
const strip = stripDelimiters;

/** The prompt for one user's consolidation; the inputs are redacted again before they leave. */
/** Skill bodies shown to the model, at most: beyond it the longest are cut (head kept). */
export const SKILL_TOKEN_BUDGET = 8_000;

export async function consolidationPromptFor(
	outputs: PendingOutput[],
	touched: TouchedMemory[],
	skills: (SkillRow & { body?: string })[],
	previousSummary: string | null,
	summaryTokenLimit: number,
): Promise<string> {
	const existing = touched.map((m) => ({
		name: m.name,
		scope: m.scope,
		type: m.type,
		description: m.description,
		body: m.body,
		cues: cuesOf(m),
		updatedAt: m.updated_at,
		explicit: m.source !== "consolidation" && m.source !== "extraction",
		...codeEntry(m.code),
	}));
	const raw = outputs.map((o) => ({
		session: o.session_id,
		turns: `${o.from_seq}-${o.to_seq}`,
		notes: o.raw_memory,
		candidates: o.candidates,
	}));
	const summaries = outputs.map((o) => `- ${o.session_id} (turns ${o.from_seq}-${o.to_seq}): ${o.summary}`).join("\n");
	const prompt = fillTemplate(consolidationPrompt, {
		summary_token_limit: String(summaryTokenLimit),
		existing_memories: strip(JSON.stringify(existing, null, 1)),
		existing_skills: strip(JSON.stringify(skillsWithinBudget(skills), null, 1)),
		previous_summary: strip(previousSummary ? truncateToTokens(previousSummary, summaryTokenLimit).text : "(none yet)"),
		raw_memories: strip(JSON.stringify(raw, null, 1)),
		rollout_summaries: strip(summaries),
	});
	return (await redactSecrets(prompt)).text;
}

/** Consolidation with a model: one structured-output call; throws ConsolidationError on failure. */
export async function modelPlan(
	model: LanguageModel,
	outputs: PendingOutput[],
	touched: TouchedMemory[],
	skills: (SkillRow & { body?: string })[],
	previousSummary: string | null,
	summaryTokenLimit: number,
): Promise<ConsolidationPlan> {
	const prompt = await consolidationPromptFor(outputs, touched, skills, previousSummary, summaryTokenLimit);
	try {
		const result = await generateText({
			model,
			prompt,
			output: Output.object({ schema: ConsolidationSchema }),
			abortSignal: AbortSignal.timeout(CONSOLIDATION_TIMEOUT_MS),
			maxRetries: 1,
		});
		return ConsolidationSchema.parse(result.output);
	} catch (err) {
		const { kind, name } = modelFailure(err);
		if (kind === "timeout") throw new ConsolidationError("the consolidation model timed out");
		if (kind === "invalid") throw new ConsolidationError("the consolidation model's answer was not valid consolidation JSON");
		throw new ConsolidationError(`the consolidation model call failed (${name})`);
	}
}
