import { MemoryNameSchema, MemoryScopeSchema } from "../../memory/schemas";
import { projectStore } from "../../project/client";
import { defineTool } from "../tool";

export const memoryForget = defineTool({
	name: "memory_forget",
	title: "Forget",
	annotations: { readOnlyHint: false, destructiveHint: true },
	description: "Delete one memory that is wrong or no longer wanted.",
	input: {
		name: MemoryNameSchema.describe("The memory's name"),
		scope: MemoryScopeSchema.optional().describe("personal (default) or team"),
	},
	handler: async ({ name, scope }, { ctx, project }) => {
		await projectStore(ctx.env, project.projectId).deleteMemory(project, scope ?? "personal", name);
		return { status: "deleted", name };
	},
});
