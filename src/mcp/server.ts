import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { SESSION_ID_PATTERN } from "../sessions/turns";
import type { McpRequestContext } from "./context";
import { registerMemoryResources } from "./resources";
import type { McpTool } from "./tool";
import { memoryForget } from "./tools/memory-forget";
import { memoryList } from "./tools/memory-list";
import { memoryRead } from "./tools/memory-read";
import { memoryRecall } from "./tools/memory-recall";
import { memoryWrite } from "./tools/memory-write";

/**
 * Cairn's MCP tools, one file each under tools/, in the order `tools/list` shows them. A tool made with
 * `defineTool` needs nothing else: its scope, project resolution and error mapping come with it.
 */
export const MCP_TOOLS: readonly McpTool[] = [memoryRecall, memoryRead, memoryWrite, memoryForget, memoryList];

/** Every tool `buildMcpServer` registers; a call naming anything else is refused before the SDK looks it up. */
export const MCP_TOOL_NAMES: ReadonlySet<string> = new Set(MCP_TOOLS.map((tool) => tool.name));

/**
 * The MCP server for one request: tools and memory:// resources, closed over the caller's key and
 * project. Built per request because every tool acts for that caller (stateless Streamable HTTP).
 */
export function buildMcpServer(ctx: McpRequestContext): McpServer {
	const server = new McpServer(
		{ name: "cairn", version: "0.1.0" },
		{
			instructions:
				"Long-term memory for this project: recall before you start, read memory:// files, remember what the user asks you to keep, forget what is wrong.",
		},
	);
	for (const tool of MCP_TOOLS) tool.register(server, ctx);
	registerMemoryResources(server, ctx);
	return server;
}

/** `X-Cairn-Session` when it is a valid session id, else null. */
export const validSession = (value: string | undefined) => (value && SESSION_ID_PATTERN.test(value) ? value : null);
