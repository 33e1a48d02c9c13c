import { generateText, type LanguageModel, Output } from "ai";
import inputTemplate from "../../prompts/stage_one_input.md";
import systemPrompt from "../../prompts/stage_one_system.md";
import { fillTemplate } from "../lib/template";
import { stripDelimiters } from "../llm/delimiters";
import { modelFailure } from "../llm/models";
import { findSecrets, redactSecrets } from "../security/secrets";
import { clip, type Turn } from "../sessions/turns";
import { tokenCount } from "../text/tokens";
import { provenanceOf } from "./provenance";
import { type StageOneOutput, StageOneOutputSchema, turnRef } from "./schema";

/** Transcript tokens one range may send to the model; longer ranges keep their head and tail. */
export const INPUT_TOKEN_BUDGET = 48_000;
export const MODEL_TIMEOUT_MS = 120_000;
const TOOL_TEXT_CHARS = 600;

interface Item {
	id: string;
	role: string;
	text: string;
	tool?: string;
	/** A user turn that is a slash or `!` command, or an interruption notice — not a statement. */
	kind?: string;
	sidechain?: true;
}

const toItem = (t: Turn): Item => ({
	id: turnRef(t.seq),
	role: t.role,
	text: t.role === "tool_call" || t.role === "tool_result" ? clip(t.text, TOOL_TEXT_CHARS) : t.text,
	...(t.tool ? { tool: t.tool } : {}),
	...(t.kind ? { kind: t.kind } : {}),
	...(t.sidechain ? { sidechain: true as const } : {}),
});

/**
 * The range as prompt items, one JSON object per line. When it exceeds the budget the first and
 * last halves of the budget are kept — the request that opened the work and where it ended — with a
 * marker saying how many items were left out between them.
 */
export function transcriptItems(turns: Turn[], budget = INPUT_TOKEN_BUDGET): { json: string; omitted: number } {
	const lines = turns.map((t) => JSON.stringify(toItem(t)));
	const costs = lines.map((l) => tokenCount(l) + 1);
	const total = costs.reduce((a, b) => a + b, 0);
	if (total <= budget) return { json: lines.join("\n"), omitted: 0 };
	const half = Math.floor(budget / 2);
	let head = 0;
	for (let used = 0; head < lines.length && used + (costs[head] ?? 0) <= half; head++) used += costs[head] ?? 0;
	let tail = lines.length;
	for (let used = 0; tail > head && used + (costs[tail - 1] ?? 0) <= half; tail--) used += costs[tail - 1] ?? 0;
	const omitted = tail - head;
	const marker = JSON.stringify({ id: "omitted", role: "note", text: `${omitted} items omitted here to fit the input budget` });
	return { json: [...lines.slice(0, head), marker, ...lines.slice(tail)].join("\n"), omitted };
}

/** The exact prompt stage 1 sends for a range; secrets are redacted again just before it leaves. */
export async function stageOnePrompt(sessionId: string, turns: Turn[], budget = INPUT_TOKEN_BUDGET): Promise<string> {
	const { json } = transcriptItems(turns, budget);
	const redacted = await redactSecrets(json);
	return fillTemplate(inputTemplate, { thread_id: sessionId.replace(/[<>]/g, ""), response_items_json: stripDelimiters(redacted.text) });
}

/** Failures a model call can end in, named without echoing what the model said. */
export class StageOneError extends Error {
	constructor(message: string) {
		super(message);
		this.name = "StageOneError";
	}
}

function describeFailure(err: unknown): string {
	const { kind, name } = modelFailure(err);
	if (kind === "timeout") return "the model call timed out";
	if (kind === "invalid") return "the model's answer was not valid stage-1 JSON";
	if (kind === "provider") return `the model provider refused or failed the call (${name})`;
	return `the model call failed (${name})`;
}

/**
 * Makes model output safe to store: evidence limited to turns of this range, candidates that carry a
 * secret dropped, secrets in the raw memory and summary redacted. `userStated` is Cairn's judgement,
 * not the model's citation: the cited user turns must carry the candidate's words (provenanceOf);
 * rules and preferences that come only from tool output are dropped.
 */
export async function sanitiseOutput(output: StageOneOutput, turns: Turn[]): Promise<StageOneOutput> {
	const refs = new Set(turns.map((t) => turnRef(t.seq)));
	const candidates = [];
	for (const c of output.candidates) {
		if ((await findSecrets(`${c.name}\n${c.description}\n${c.body}`)).length > 0) continue;
		const evidence = [...new Set(c.evidence.filter((e) => refs.has(e)))];
		const { userStated, fromToolOnly } = provenanceOf({ ...c, evidence }, turns);
		if (fromToolOnly) continue;
		candidates.push({ ...c, evidence, userStated, procedure: undefined });
	}
	return {
		raw_memory: (await redactSecrets(output.raw_memory)).text,
		summary: (await redactSecrets(output.summary)).text,
		candidates,
	};
}

/** Stage 1 with a model: one structured-output call over the range; throws StageOneError on failure. */
export async function extractWithModel(model: LanguageModel, sessionId: string, turns: Turn[]): Promise<StageOneOutput> {
	const prompt = await stageOnePrompt(sessionId, turns);
	let output: StageOneOutput;
	try {
		const result = await generateText({
			model,
			system: systemPrompt,
			prompt,
			output: Output.object({ schema: StageOneOutputSchema }),
			abortSignal: AbortSignal.timeout(MODEL_TIMEOUT_MS),
			maxRetries: 0,
		});
		output = StageOneOutputSchema.parse(result.output);
	} catch (err) {
		throw new StageOneError(describeFailure(err));
	}
	return sanitiseOutput(output, turns);
}
