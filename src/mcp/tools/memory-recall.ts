import { RecallLimitSchema, RecallQuerySchema, ToolListSchema } from "../../memory/schemas";
import { recall } from "../../recall/recall";
import { recordServedMemories } from "../../recall/usage";
import { defineTool } from "../tool";

export const memoryRecall = defineTool({
	name: "memory_recall",
	title: "Recall memories",
	annotations: { readOnlyHint: true },
	description:
		"Find the saved memories (rules, preferences, project facts, references) that matter for a task. Use it before you decide how this project does something the memory blocks do not list (their index is cut to fit, and says what is not listed): a convention, a command, who owns what, why something is the way it is. Returns names, descriptions, memory:// paths and ages; read a file with memory_read, and cite the memory:// path of any memory that changes your plan.",
	input: {
		query: RecallQuerySchema.describe("What you are about to do, in a sentence"),
		limit: RecallLimitSchema.optional().describe("How many memories at most (default: the project's recall limit)"),
		recentTools: ToolListSchema.optional().describe(
			"Tools used recently, e.g. Bash(gh pr create:*), to skip memories that only document them",
		),
	},
	handler: async ({ query, limit, recentTools }, { ctx, project }) => {
		const result = await recall(ctx.env, project, { query, limit, recentTools });
		ctx.waitUntil(
			recordServedMemories(
				ctx.env,
				project,
				result.served.map((m) => m.row.id),
			),
		);
		return { memories: result.memories, warnings: result.warnings };
	},
});
