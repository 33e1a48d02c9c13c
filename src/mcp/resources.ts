import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { CairnError } from "../errors";
import { memoryUrl } from "../memory/paths";
import { projectStore } from "../project/client";
import { MEMORY_URL } from "../search/resolve";
import { type McpRequestContext, projectFor, requireScope } from "./context";

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
 * memory:// artifacts as resources, for the project named by the X-Cairn-Project header (resources take
 * no arguments to name one otherwise). Reading them follows REST's GET: the read scope.
 */
export function registerMemoryResources(server: McpServer, ctx: McpRequestContext) {
	if (!ctx.projectId) return;
	const read = (uri: URL) =>
		asResourceError(async () => {
			requireScope(ctx, "read");
			const project = await projectFor(ctx, {});
			const text = await projectStore(ctx.env, project.projectId).resolve(project, uri.href, ctx.sessionId ?? undefined);
			return { contents: [{ uri: uri.href, mimeType: "text/markdown" as const, text }] };
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
					requireScope(ctx, "read");
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
