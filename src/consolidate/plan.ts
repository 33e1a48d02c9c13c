import { z } from "zod";
import { ModelCuesSchema, slugify } from "../extract/schema";
import { MAX_DESCRIPTION_CHARS, type MemoryType, MemoryTypeSchema } from "../memory/topic-file";

/** Evidence of a consolidation change: the sessions whose stage-1 output supports it. */
const Evidence = z.array(z.string().max(128)).max(50).default([]);
const Name = z
	.string()
	.min(1)
	.max(200)
	.transform((n) => slugify(n, 12));
const Description = z
	.string()
	.min(1)
	.transform((d) => d.replace(/\s+/g, " ").trim().slice(0, MAX_DESCRIPTION_CHARS));
const Reason = z.string().max(500).default("");

export const OperationSchema = z.discriminatedUnion("op", [
	z.object({
		op: z.enum(["create", "update"]),
		name: Name,
		type: MemoryTypeSchema,
		description: Description,
		body: z.string().min(1).max(16_000),
		cues: ModelCuesSchema,
		reason: Reason,
		evidence: Evidence,
		/** The user called it a team rule: proposed for team scope (recorded on the personal memory, never written to team). */
		proposedScope: z.literal("team").optional(),
	}),
	z.object({
		op: z.literal("merge"),
		name: Name,
		from: z.array(Name).min(1).max(20),
		type: MemoryTypeSchema,
		description: Description,
		body: z.string().min(1).max(16_000),
		cues: ModelCuesSchema,
		reason: Reason,
		evidence: Evidence,
	}),
	z.object({ op: z.literal("delete"), name: Name, reason: Reason, evidence: Evidence }),
	z.object({ op: z.literal("confirm"), name: Name, reason: Reason, evidence: Evidence }),
]);
export type Operation = z.output<typeof OperationSchema>;

export const SkillSchema = z.object({
	name: Name,
	description: Description,
	body: z.string().min(1).max(16_000),
	/** The memories the skill was made from, when known: a skill whose sources are all gone is retired. */
	sources: z.array(Name).max(20).optional(),
});

/** What one consolidation produces for one user: changes to topic files, the full skill set, a summary. */
export const ConsolidationSchema = z.object({
	operations: z.array(OperationSchema).max(100),
	/** Skills created or changed; a skill not listed is kept as it is. */
	skills: z.array(SkillSchema).max(50),
	/** Skills the new material contradicts or retires, each with its reason. */
	retiredSkills: z
		.array(z.object({ name: Name, reason: Reason }))
		.max(50)
		.default([]),
	summary: z.string().max(60_000),
});
export type ConsolidationPlan = z.output<typeof ConsolidationSchema>;

/** Current-state facts (as opposed to rules and preferences) are replaced, not appended to, when corrected. */
export const isCurrentState = (type: MemoryType) => type === "project" || type === "reference";
