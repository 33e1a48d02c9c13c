import { z } from "zod";
import { MAX_CUE_CHARS, MAX_CUES, MAX_DESCRIPTION_CHARS, MemoryTypeSchema } from "../memory/topic-file";

/**
 * Cues as a model writes them: lenient (a model's list is cleaned, not refused) — each folded to one
 * trimmed line within the length limit, blanks and repeats dropped, at most MAX_CUES.
 */
export const ModelCuesSchema = z
	.array(z.string().max(2_000))
	.max(50)
	.transform((cues) =>
		[...new Set(cues.map((c) => c.replace(/\s+/g, " ").trim().slice(0, MAX_CUE_CHARS).trim()).filter((c) => c !== ""))].slice(0, MAX_CUES),
	)
	.optional();

/** Names become R2 key segments: anything a model writes is folded into a valid slug. */
export function slugify(text: string, maxWords = 6): string {
	const slug = text
		.toLowerCase()
		.normalize("NFKD")
		.replace(/[^a-z0-9]+/g, "-")
		.split("-")
		.filter(Boolean)
		.slice(0, maxWords)
		.join("-")
		.slice(0, 64)
		.replace(/-+$/, "");
	return slug || "memory";
}

export const CandidateSchema = z.object({
	name: z
		.string()
		.min(1)
		.max(200)
		.transform((n) => slugify(n, 12)),
	type: MemoryTypeSchema,
	description: z
		.string()
		.min(1)
		.transform((d) => d.replace(/\s+/g, " ").trim().slice(0, MAX_DESCRIPTION_CHARS)),
	body: z.string().min(1).max(8_000),
	/** When the memory applies (the situations and tasks that need it). */
	cues: ModelCuesSchema,
	evidence: z.array(z.string().max(200)).max(50).default([]),
	/** Set by Cairn, not the model: whether the evidence includes a user turn (an explicit statement). */
	userStated: z.boolean().optional(),
	/** An explicit step-by-step procedure, which consolidation may turn into a skill. */
	procedure: z.boolean().optional(),
	/** The statement corrects something said or assumed before: consolidation replaces the old value. */
	correction: z.boolean().optional(),
	/** The user called it a team or shared rule: proposed for team scope, never written there silently. */
	team: z.boolean().optional(),
});
export type Candidate = z.output<typeof CandidateSchema>;

/** What stage 1 produces for one session range (SPEC §3). Empty candidates = nothing durable. */
export const StageOneOutputSchema = z.object({
	raw_memory: z.string().max(20_000),
	summary: z.string().max(4_000),
	candidates: z.array(CandidateSchema).max(30),
});
export type StageOneOutput = z.output<typeof StageOneOutputSchema>;

/** The id a turn is cited by in prompts and evidence. */
export const turnRef = (seq: number) => `t${seq}`;
