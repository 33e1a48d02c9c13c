import {
	MemoryBodySchema,
	MemoryCuesSchema,
	MemoryDescriptionSchema,
	MemoryNameSchema,
	MemoryScopeSchema,
	MemoryTypeSchema,
} from "../../memory/schemas";
import { projectStore } from "../../project/client";
import { CitationsInputSchema } from "../../text/citations";
import { defineTool } from "../tool";

export const memoryWrite = defineTool({
	name: "memory_write",
	title: "Remember",
	annotations: { readOnlyHint: false },
	description:
		"Save or replace one memory as a topic file. Use for what the user wants kept across sessions: preferences (user), corrections and rules (feedback), facts about the project the code does not say (project), things looked up again and again (reference). Never store secrets, code patterns or task progress.",
	input: {
		name: MemoryNameSchema.describe("kebab-case topic name, e.g. testing-conventions"),
		type: MemoryTypeSchema.describe("user | feedback | project | reference"),
		description: MemoryDescriptionSchema.describe("One line: when this memory matters"),
		body: MemoryBodySchema.describe("The memory in markdown, with the reason when there is one"),
		cues: MemoryCuesSchema.optional().describe(
			"When it applies: situations and tasks in which an agent needs it, e.g. 'adding or upgrading a dependency' (in its language and in English)",
		),
		scope: MemoryScopeSchema.optional().describe("personal (default) or team"),
		citations: CitationsInputSchema.optional().describe(
			"The repository code this memory is about: files (path from the repository root), with the symbol or line range and the git blob id when known. Later sessions are told when that code changed or went. Without it, file paths named in the body are used",
		),
	},
	handler: async ({ name, type, description, body, cues, scope, citations }, { ctx, project }) => {
		const result = await projectStore(ctx.env, project.projectId).writeMemory(project, {
			scope: scope ?? "personal",
			file: { name, type, description, body },
			...(cues ? { cues } : {}),
			...(citations ? { citations: citations.map((c) => ({ ...c, source: "writer" as const })) } : {}),
			source: "agent",
			sessionId: ctx.sessionId,
		});
		return {
			status: result.status,
			path: result.memory.path,
			version: result.memory.version,
			// A team memory an agent writes is a proposal until a person vouches for it (docs/memory-trust.md).
			...(result.memory.awaitingReview
				? {
						awaitingReview: true,
						note: "stored as a team proposal: teammates' agents are served it once a person approves it (the console, or `cairn review approve` from their terminal); until then only your sessions see it, marked unreviewed",
					}
				: {}),
		};
	},
});
