import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import { CairnError } from "../errors";
import type { ProjectContext } from "../storage/context";
import { type KeyScope, type McpRequestContext, type ProjectArgs, projectArgs, projectFor, requireScope } from "./context";

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

/** What a tool's handler is given besides its arguments: the caller and the project the call resolved to. */
export interface ToolCall {
	ctx: McpRequestContext;
	project: ProjectContext;
}

export interface ToolSpec<Input extends z.ZodRawShape> {
	name: string;
	title: string;
	description: string;
	/**
	 * The MCP annotations shown in `tools/list`. They also decide the key scope the tool needs:
	 * `readOnlyHint: true` needs `read`, anything else (false or absent) needs `write`.
	 */
	annotations: ToolAnnotations;
	/** The tool's own arguments; `gitRemote` and `rootPath`, which name the project, are added to every tool. */
	input: Input;
	/** Runs once the key's scope is checked and the project resolved; what it returns is the tool's (JSON) text. */
	handler: (args: z.output<z.ZodObject<Input>>, call: ToolCall) => Promise<unknown>;
}

/** A tool as the server lists it: its name, the scope its annotations ask for, and how to register it for one request. */
export interface McpTool {
	readonly name: string;
	readonly annotations: ToolAnnotations;
	readonly scope: KeyScope;
	register(server: McpServer, ctx: McpRequestContext): void;
}

/** The key scope a tool needs, read from its annotations (the same rule REST applies to GET and to writes). */
export const scopeOf = (annotations: ToolAnnotations): KeyScope => (annotations.readOnlyHint === true ? "read" : "write");

/**
 * A tool of Cairn's MCP server. Every call goes the same way: the key's scope is checked against the
 * one the annotations ask for, the project is resolved (X-Cairn-Project, else `gitRemote` / `rootPath`),
 * the handler runs, and any failure becomes a tool error in Cairn's own words.
 */
export function defineTool<Input extends z.ZodRawShape>(spec: ToolSpec<Input>): McpTool {
	const scope = scopeOf(spec.annotations);
	// Widened to any shape: the handler below sees the parsed arguments, typed by `spec.input`.
	const inputSchema: z.ZodRawShape = { ...spec.input, ...projectArgs };
	return {
		name: spec.name,
		annotations: spec.annotations,
		scope,
		register(server, ctx) {
			server.registerTool(
				spec.name,
				{ title: spec.title, annotations: spec.annotations, description: spec.description, inputSchema },
				async (input) => {
					try {
						requireScope(ctx, scope);
						const { gitRemote, rootPath, ...args } = input as ProjectArgs & Record<string, unknown>;
						const project = await projectFor(ctx, { gitRemote, rootPath });
						return text(await spec.handler(args as z.output<z.ZodObject<Input>>, { ctx, project }));
					} catch (err) {
						return failure(err);
					}
				},
			);
		},
	};
}
