import { StreamableHTTPTransport } from "@hono/mcp";
import type { Context, MiddlewareHandler } from "hono";
import { requireKey } from "../api/auth";
import type { AppEnv } from "../api/context";
import { CairnError, errorResponse } from "../api/errors";
import { limitBody } from "../api/route";
import { buildMcpServer, MCP_TOOL_NAMES, validSession } from "./server";

/**
 * `/mcp` takes POST only. The server is stateless: it has no stream to offer on GET (a 405 there is
 * the spec's way to say so, and clients carry on without one; an open SSE stream would only idle)
 * and no session to end on DELETE.
 */
export const mcpPostOnly: MiddlewareHandler<AppEnv> = async (c, next) => {
	if (c.req.method === "POST") return next();
	c.header("Allow", "POST");
	return errorResponse(
		c,
		new CairnError("method_not_allowed", "/mcp accepts POST only: this MCP server is stateless and opens no SSE stream"),
	);
};

/**
 * A 401 on /mcp carries `WWW-Authenticate: Bearer` (RFC 6750), so an MCP client knows to send a
 * Bearer key; `error="invalid_token"` when a key was sent but is not valid.
 */
export const bearerChallenge: MiddlewareHandler<AppEnv> = async (c, next) => {
	await next();
	if (c.res.status !== 401) return;
	const sent = Boolean(c.req.header("Authorization"));
	c.header("WWW-Authenticate", sent ? 'Bearer realm="cairn", error="invalid_token"' : 'Bearer realm="cairn"');
};

/**
 * `/mcp`: MCP over Streamable HTTP, stateless (no session ids; every request carries its Bearer key),
 * JSON responses. The key was checked by the same middleware as the REST API; the project comes from
 * `X-Cairn-Project` or a tool's `gitRemote` / `rootPath` argument.
 */
export async function mcpRoute(c: Context<AppEnv>) {
	const refused = await unknownToolCall(c);
	if (refused) return refused;
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

/**
 * `/mcp`'s edge: POST only (405 before anything else), the ordinary body limit, and the same key
 * check as /v1, answering 401 with a Bearer challenge. Each tool checks the scope it needs
 * (src/mcp/tool.ts).
 */
export const mcpEndpoint = [mcpPostOnly, bearerChallenge, limitBody(), requireKey(), mcpRoute] as const;

/**
 * The SDK finds a called tool by indexing a plain object, so a call named `constructor` or `__proto__`
 * would reach an inherited member, and its "not found" message repeats the caller's name. Calls whose
 * name is not one of Cairn's tools are answered here with a fixed message. A body that is not JSON is
 * left to the transport, which answers it with a JSON-RPC parse error (Hono keeps the parsed body, so
 * it is read once).
 */
async function unknownToolCall(c: Context<AppEnv>): Promise<Response | null> {
	if (!c.req.header("Content-Type")?.includes("application/json")) return null;
	let body: unknown;
	try {
		body = await c.req.json();
	} catch {
		return null;
	}
	for (const message of Array.isArray(body) ? body : [body]) {
		if (!message || typeof message !== "object" || (message as { method?: unknown }).method !== "tools/call") continue;
		const params = (message as { params?: unknown }).params;
		const name = params && typeof params === "object" ? (params as { name?: unknown }).name : undefined;
		if (typeof name === "string" && MCP_TOOL_NAMES.has(name)) continue;
		const id = (message as { id?: unknown }).id;
		return c.json({
			jsonrpc: "2.0",
			id: typeof id === "string" || typeof id === "number" ? id : null,
			error: { code: -32602, message: "invalid_request: no such tool; tools/list names the tools" },
		});
	}
	return null;
}
