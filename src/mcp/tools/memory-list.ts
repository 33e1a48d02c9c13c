import { memoryUrl } from "../../memory/paths";
import { MemoryTypeSchema } from "../../memory/schemas";
import { projectStore } from "../../project/client";
import { defineTool } from "../tool";

export const memoryList = defineTool({
	name: "memory_list",
	title: "List memories",
	annotations: { readOnlyHint: true },
	description: "List the project's memories (personal and team) with their type, description and memory:// path.",
	input: { type: MemoryTypeSchema.optional().describe("Only this type") },
	handler: async ({ type }, { ctx, project }) => {
		const rows = await projectStore(ctx.env, project.projectId).listMemories(project, { type, limit: 500 });
		return {
			memories: rows.map((r) => ({
				name: r.name,
				type: r.type,
				scope: r.scope,
				description: r.description,
				path: memoryUrl(r.scope, r.name),
			})),
		};
	},
});
