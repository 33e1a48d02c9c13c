import { StreamableHTTPTransport } from "@hono/mcp";
import type { Context } from "hono";
import type { AppEnv } from "../api/context";
import { buildMcpServer, validSession } from "./server";

/**
 * `/mcp`: MCP over Streamable HTTP, stateless (no session ids; every request carries its Bearer key),
 * JSON responses. The key was checked by the same middleware as the REST API; the project comes from
 * `X-Cairn-Project` or a tool's `gitRemote` argument.
 */
export async function mcpRoute(c: Context<AppEnv>) {
	const server = buildMcpServer({
		env: c.env,
		auth: c.get("auth"),
		projectId: c.req.header("X-Cairn-Project")?.slice(0, 64) || null,
		sessionId: validSession(c.req.header("X-Cairn-Session")),
		waitUntil: (p) => c.executionCtx.waitUntil(p),
	});
	const transport = new StreamableHTTPTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
	await server.connect(transport);
	const response = await transport.handleRequest(c);
	return response ?? c.body(null, 202);
}
