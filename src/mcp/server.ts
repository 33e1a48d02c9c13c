import { McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import type { AuthContext } from "../api/context";
import { CairnError } from "../errors";
import { SESSION_ID_PATTERN } from "../ingest/turns";
import { memoryUrl } from "../memory/paths";
import { MEMORY_URL } from "../memory/resolve";
import {
	MemoryBodySchema,
	MemoryCuesSchema,
	MemoryDescriptionSchema,
	MemoryNameSchema,
	MemoryScopeSchema,
	MemoryTypeSchema,
	MemoryUrlSchema,
	RecallLimitSchema,
	RecallQuerySchema,
	ToolListSchema,
} from "../memory/schemas";
import type { ProjectContext } from "../memory/store";
import { projectStore } from "../project/client";
import { canonicalKeyFromPath, GitRemoteSchema, projectIdentity, RootPathSchema } from "../projects/identity";
import { recall } from "../recall/recall";
import { servedInBackground } from "../recall/usage";

export interface McpRequestContext {
	env: Env;
	auth: AuthContext;
	/** From `X-Cairn-Project` (checked when used); null when absent. */
	projectId: string | null;
	/** From `X-Cairn-Session`: explicit writes mark this session so extraction skips them. */
	sessionId: string | null;
	waitUntil: (p: Promise<unknown>) => void;
}

/** Names the project when no X-Cairn-Project header does; resolved exactly as POST /v1/projects resolves them. */
const projectArgs = {
	gitRemote: GitRemoteSchema.optional().describe(
		"The repository's git remote (`git remote get-url origin`), to find the project when the X-Cairn-Project header is not set",
	),
	rootPath: RootPathSchema.optional().describe(
		"The repository's absolute root path (`git rev-parse --show-toplevel`), to find the project when the X-Cairn-Project header is not set and the repository has no remote or only a local one",
	),
};
type ProjectArgs = { gitRemote?: string; rootPath?: string };

type ToolResult = { content: { type: "text"; text: string }[]; isError?: boolean };
const text = (value: unknown): ToolResult => ({
	content: [{ type: "text", text: typeof value === "string" ? value : JSON.stringify(value, null, 2) }],
});
/** Errors come back as tool errors with Cairn's own message: never a stack trace, never echoed input. */
const failure = (err: unknown): ToolResult => {
	if (err instanceof CairnError) return { isError: true, content: [{ type: "text", text: `${err.code}: ${err.message}` }] };
	console.error("mcp tool failed", err instanceof Error ? err.stack : String(err));
	return { isError: true, content: [{ type: "text", text: "internal_error: the memory service failed; try again" }] };
};

/** JSON-RPC error codes for resource failures: MCP's "resource not found", invalid params, or internal. */
const RESOURCE_NOT_FOUND = -32002;
/**
 * Resource reads fail as JSON-RPC errors (resources have no error result); the message starts with
 * Cairn's stable code like a tool error's text, and nothing else of the failure leaves the server.
 */
async function asResourceError<T>(fn: () => Promise<T>): Promise<T> {
	try {
		return await fn();
	} catch (err) {
		if (err instanceof CairnError) {
			const rpc =
				err.code === "not_found" ? RESOURCE_NOT_FOUND : err.code === "invalid_request" ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest;
			throw new McpError(rpc, `${err.code}: ${err.message}`);
		}
		console.error("mcp resource failed", err instanceof Error ? err.stack : String(err));
		throw new McpError(ErrorCode.InternalError, "internal_error: the memory service failed; try again");
	}
}

/**
 * The project of a call: the header's, or the registered project of a git remote or root path (the
 * same identity rules as registration), in the key's tenant.
 */
async function projectFor(ctx: McpRequestContext, args: ProjectArgs): Promise<ProjectContext> {
	let projectId: string | null = null;
	if (ctx.projectId) {
		const row = await ctx.env.DB.prepare("SELECT id FROM projects WHERE id = ? AND tenant_id = ?")
			.bind(ctx.projectId, ctx.auth.tenantId)
			.first<{ id: string }>();
		if (!row) throw new CairnError("not_found", "project not found (X-Cairn-Project)");
		projectId = row.id;
	} else if (args.gitRemote || args.rootPath) {
		const identity = projectIdentity(args);
		const find = (key: string) =>
			ctx.env.DB.prepare("SELECT id FROM projects WHERE tenant_id = ? AND canonical_key = ?")
				.bind(ctx.auth.tenantId, key)
				.first<{ id: string }>();
		let row = await find(identity.canonicalKey);
		// Sent both, the remote names the project; a repository registered by its root path (no remote
		// then, or one the CLI does not key on, such as a local path) is still found by that path.
		const byPath = identity.from === "gitRemote" && args.rootPath ? canonicalKeyFromPath(args.rootPath) : null;
		if (!row && byPath) row = await find(byPath);
		if (!row) {
			const what = identity.from === "gitRemote" ? "git remote" : "root path";
			throw new CairnError("not_found", `no project is registered for this ${what}; run \`cairn init\` in the repository`);
		}
		projectId = row.id;
	}
	if (!projectId) {
		throw new CairnError("invalid_request", "name the project: set the X-Cairn-Project header or pass gitRemote (or rootPath)");
	}
	if (ctx.auth.projectId && ctx.auth.projectId !== projectId) {
		throw new CairnError("forbidden", "this API key is limited to another project");
	}
	return { tenantId: ctx.auth.tenantId, userId: ctx.auth.userId, projectId };
}

const resolveUrl = (env: Env, project: ProjectContext, url: string) => projectStore(env, project.projectId).resolve(project, url);

/**
 * Tools and resources follow REST's rules: reading needs the read scope, changing needs write. A tool's
 * `readOnlyHint` annotation must say which (test/authorization-integration.test.ts derives its expectations from it).
 */
const requireScope = (ctx: McpRequestContext, scope: "read" | "write") => {
	if (!ctx.auth.scopes.includes(scope)) throw new CairnError("forbidden", `this API key lacks the ${scope} scope`);
};
const requireWrite = (ctx: McpRequestContext) => requireScope(ctx, "write");
const requireRead = (ctx: McpRequestContext) => requireScope(ctx, "read");

/**
 * The MCP server for one request: tools and memory:// resources, closed over the caller's key and
 * project. Built per request because every tool acts for that caller (stateless Streamable HTTP).
 */
/** Every tool `buildMcpServer` registers; a call naming anything else is refused before the SDK looks it up. */
export const MCP_TOOL_NAMES: ReadonlySet<string> = new Set([
	"memory_recall",
	"memory_read",
	"memory_write",
	"memory_forget",
	"memory_list",
]);

export function buildMcpServer(ctx: McpRequestContext): McpServer {
	const server = new McpServer(
		{ name: "cairn", version: "0.1.0" },
		{
			instructions:
				"Long-term memory for this project: recall before you start, read memory:// files, remember what the user asks you to keep, forget what is wrong.",
		},
	);

	server.registerTool(
		"memory_recall",
		{
			title: "Recall memories",
			annotations: { readOnlyHint: true },
			description:
				"Find the saved memories (rules, preferences, project facts, references) that matter for a task. Returns names, descriptions, memory:// paths and ages; read a file with memory_read.",
			inputSchema: {
				query: RecallQuerySchema.describe("What you are about to do, in a sentence"),
				limit: RecallLimitSchema.optional().describe("How many memories at most (default: the project's recall limit)"),
				recentTools: ToolListSchema.optional().describe(
					"Tools used recently, e.g. Bash(gh pr create:*), to skip memories that only document them",
				),
				...projectArgs,
			},
		},
		async ({ query, limit, recentTools, ...args }) => {
			try {
				requireRead(ctx);
				const project = await projectFor(ctx, args);
				const result = await recall(ctx.env, project, { query, limit, recentTools });
				servedInBackground(
					ctx.env,
					ctx.waitUntil,
					project,
					result.served.map((m) => m.row.id),
				);
				return text({ memories: result.memories, warnings: result.warnings });
			} catch (err) {
				return failure(err);
			}
		},
	);

	server.registerTool(
		"memory_read",
		{
			title: "Read a memory file",
			annotations: { readOnlyHint: true },
			description:
				"Read a memory:// file: memory://root (summary), memory://root/MEMORY.md (index), memory://root/<name>.md, memory://root/team/<name>.md, memory://root/skills/<name>/SKILL.md, memory://root/logs/<YYYY-MM-DD>.md (daily log).",
			inputSchema: { url: MemoryUrlSchema.describe("A memory:// URL"), ...projectArgs },
		},
		async ({ url, ...args }) => {
			try {
				requireRead(ctx);
				return text(await resolveUrl(ctx.env, await projectFor(ctx, args), url));
			} catch (err) {
				return failure(err);
			}
		},
	);

	server.registerTool(
		"memory_write",
		{
			title: "Remember",
			annotations: { readOnlyHint: false },
			description:
				"Save or replace one memory as a topic file. Use for what the user wants kept across sessions: preferences (user), corrections and rules (feedback), facts about the project the code does not say (project), things looked up again and again (reference). Never store secrets, code patterns or task progress.",
			inputSchema: {
				name: MemoryNameSchema.describe("kebab-case topic name, e.g. testing-conventions"),
				type: MemoryTypeSchema.describe("user | feedback | project | reference"),
				description: MemoryDescriptionSchema.describe("One line: when this memory matters"),
				body: MemoryBodySchema.describe("The memory in markdown, with the reason when there is one"),
				cues: MemoryCuesSchema.optional().describe(
					"When it applies: situations and tasks in which an agent needs it, e.g. 'adding or upgrading a dependency' (in its language and in English)",
				),
				scope: MemoryScopeSchema.optional().describe("personal (default) or team"),
				...projectArgs,
			},
		},
		async ({ name, type, description, body, cues, scope, ...args }) => {
			try {
				requireWrite(ctx);
				const project = await projectFor(ctx, args);
				const result = await projectStore(ctx.env, project.projectId).writeMemory(project, {
					scope: scope ?? "personal",
					file: { name, type, description, body },
					...(cues ? { cues } : {}),
					source: "agent",
					sessionId: ctx.sessionId,
				});
				return text({ status: result.status, path: result.memory.path, version: result.memory.version });
			} catch (err) {
				return failure(err);
			}
		},
	);

	server.registerTool(
		"memory_forget",
		{
			title: "Forget",
			annotations: { readOnlyHint: false, destructiveHint: true },
			description: "Delete one memory that is wrong or no longer wanted.",
			inputSchema: {
				name: MemoryNameSchema.describe("The memory's name"),
				scope: MemoryScopeSchema.optional().describe("personal (default) or team"),
				...projectArgs,
			},
		},
		async ({ name, scope, ...args }) => {
			try {
				requireWrite(ctx);
				const project = await projectFor(ctx, args);
				await projectStore(ctx.env, project.projectId).deleteMemory(project, scope ?? "personal", name);
				return text({ status: "deleted", name });
			} catch (err) {
				return failure(err);
			}
		},
	);

	server.registerTool(
		"memory_list",
		{
			title: "List memories",
			annotations: { readOnlyHint: true },
			description: "List the project's memories (personal and team) with their type, description and memory:// path.",
			inputSchema: { type: MemoryTypeSchema.optional().describe("Only this type"), ...projectArgs },
		},
		async ({ type, ...args }) => {
			try {
				requireRead(ctx);
				const project = await projectFor(ctx, args);
				const rows = await projectStore(ctx.env, project.projectId).listMemories(project, { type, limit: 500 });
				return text({
					memories: rows.map((r) => ({
						name: r.name,
						type: r.type,
						scope: r.scope,
						description: r.description,
						path: memoryUrl(r.scope, r.name),
					})),
				});
			} catch (err) {
				return failure(err);
			}
		},
	);

	// memory:// artifacts as resources, for the project named by the X-Cairn-Project header.
	if (ctx.projectId) {
		const read = (uri: URL) =>
			asResourceError(async () => {
				requireRead(ctx);
				const project = await projectFor(ctx, {});
				return { contents: [{ uri: uri.href, mimeType: "text/markdown" as const, text: await resolveUrl(ctx.env, project, uri.href) }] };
			});
		server.registerResource(
			"memory-index",
			"memory://root/MEMORY.md",
			{ title: "MEMORY.md", description: "Index of every topic file", mimeType: "text/markdown" },
			read,
		);
		server.registerResource(
			"memory-summary",
			"memory://root",
			{ title: "memory_summary.md", description: "The compressed summary", mimeType: "text/markdown" },
			read,
		);
		server.registerResource(
			"memory-file",
			new ResourceTemplate("memory://root/{+path}", {
				list: () =>
					asResourceError(async () => {
						requireRead(ctx);
						const project = await projectFor(ctx, {});
						const rows = await projectStore(ctx.env, project.projectId).listMemories(project, { limit: 500 });
						return {
							resources: rows.map((r) => ({
								uri: memoryUrl(r.scope, r.name),
								name: r.name,
								description: r.description,
								mimeType: "text/markdown",
							})),
						};
					}),
			}),
			{ title: "Topic files and skills", mimeType: "text/markdown" },
			async (uri) => {
				if (!MEMORY_URL.test(uri.href)) throw new McpError(ErrorCode.InvalidParams, "invalid_request: unknown memory:// resource");
				return read(uri);
			},
		);
	}
	return server;
}

/** `X-Cairn-Session` when it is a valid session id, else null. */
export const validSession = (value: string | undefined) => (value && SESSION_ID_PATTERN.test(value) ? value : null);
