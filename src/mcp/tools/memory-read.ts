import { MemoryUrlSchema } from "../../memory/schemas";
import { projectStore } from "../../project/client";
import { defineTool } from "../tool";

export const memoryRead = defineTool({
	name: "memory_read",
	title: "Read a memory file",
	annotations: { readOnlyHint: true },
	description:
		'Read a memory:// file — a line of the memory index or a prompt\'s "Maybe relevant" lines names one, or memory_recall found it; open it when the task needs what the line describes: memory://root (summary), memory://root/MEMORY.md (index), memory://root/<name>.md, memory://root/team/<name>.md, memory://root/skills/<name>/SKILL.md, memory://root/topics (every topic), memory://root/topics/<topic>.md (the memories of one topic, a line each), memory://root/logs/<YYYY-MM-DD>.md (daily log). When a memory you read changes your plan, cite its memory:// path in your reply.',
	input: { url: MemoryUrlSchema.describe("A memory:// URL") },
	handler: ({ url }, { ctx, project }) => projectStore(ctx.env, project.projectId).resolve(project, url, ctx.sessionId ?? undefined),
});
