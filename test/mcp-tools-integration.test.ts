// MCP tools declare their scope through their annotations (`defineTool`): a read-only tool needs the
// read scope, any other the write scope, checked before the project is resolved or the tool runs. The
// first tests go through /mcp with real keys; the last define tools here, as a new tool would be, and
// show that the check, the project and the error mapping come with `defineTool` alone.
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthContext } from "../src/auth/keys";
import { CairnError } from "../src/errors";
import type { McpRequestContext } from "../src/mcp/context";
import { MCP_TOOL_NAMES, MCP_TOOLS } from "../src/mcp/server";
import { defineTool } from "../src/mcp/tool";
import { call, createProject, createTenant, json, type Loose, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
let otherProjectId: string;
const keys: Record<"read" | "write", string> = { read: "", write: "" };

const textOf = (result: Loose) => ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");

async function connect(token: string) {
	const transport = new StreamableHTTPClientTransport(new URL("https://cairn.test/mcp"), {
		fetch: (url, init) => exports.default.fetch(new Request(url, init)),
		requestInit: { headers: { Authorization: `Bearer ${token}`, "X-Cairn-Project": projectId } },
	});
	const client = new Client({ name: "cairn-tools-test", version: "1.0.0" });
	await client.connect(transport);
	return client;
}

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token, "git@github.com:acme/mcp-tools.git");
	otherProjectId = await createProject(tenant.token, "git@github.com:acme/mcp-tools-other.git");
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const scope of ["read", "write"] as const) {
		const res = await call("/v1/keys", { token: tenant.token, json: { scopes: [scope], name: `${scope} only` } });
		expect(res.status).toBe(201);
		keys[scope] = (await json(res)).key.token;
	}
});

describe("the server's tools", () => {
	it("each needs the scope its readOnlyHint names, and tools/list shows the annotations the scope came from", async () => {
		const client = await connect(tenant.token);
		const { tools } = await client.listTools();
		await client.close();
		expect(tools.map((t) => t.name)).toEqual(MCP_TOOLS.map((t) => t.name));
		expect([...MCP_TOOL_NAMES]).toEqual(MCP_TOOLS.map((t) => t.name));
		for (const tool of MCP_TOOLS) {
			const listed = tools.find((t) => t.name === tool.name);
			expect(listed?.annotations, tool.name).toEqual(tool.annotations);
			expect(tool.scope, tool.name).toBe(listed?.annotations?.readOnlyHint === true ? "read" : "write");
		}
		expect(Object.fromEntries(MCP_TOOLS.map((t) => [t.name, t.scope]))).toEqual({
			memory_recall: "read",
			memory_read: "read",
			memory_write: "write",
			memory_forget: "write",
			memory_list: "read",
		});
	});

	it("a read-only key cannot call a write tool (and nothing is written); it can call the read tools", async () => {
		const reader = await connect(keys.read);
		const refused = await reader.callTool({
			name: "memory_write",
			arguments: { name: "read-key-write", type: "user", description: "Should not be stored", body: "No." },
		});
		expect(refused.isError).toBe(true);
		expect(textOf(refused)).toBe("forbidden: this API key lacks the write scope");
		const forget = await reader.callTool({ name: "memory_forget", arguments: { name: "read-key-write" } });
		expect(textOf(forget)).toBe("forbidden: this API key lacks the write scope");

		const listed = await reader.callTool({ name: "memory_list", arguments: {} });
		expect(listed.isError).toBeFalsy();
		expect(JSON.parse(textOf(listed))).toEqual({ memories: [] });
		const recalled = await reader.callTool({ name: "memory_recall", arguments: { query: "what is stored" } });
		expect(recalled.isError).toBeFalsy();
		await reader.close();

		const stored = await call(`/v1/projects/${projectId}/memories/read-key-write`, { token: tenant.token });
		expect(stored.status).toBe(404);
	});

	it("a write-only key writes and forgets but cannot read", async () => {
		const writer = await connect(keys.write);
		const written = await writer.callTool({
			name: "memory_write",
			arguments: { name: "write-key-note", type: "user", description: "Written by a write-only key", body: "Yes." },
		});
		expect(written.isError).toBeFalsy();
		const listed = await writer.callTool({ name: "memory_list", arguments: {} });
		expect(textOf(listed)).toBe("forbidden: this API key lacks the read scope");
		const forgotten = await writer.callTool({ name: "memory_forget", arguments: { name: "write-key-note" } });
		expect(JSON.parse(textOf(forgotten))).toEqual({ status: "deleted", name: "write-key-note" });
		await writer.close();
	});
});

describe("defineTool", () => {
	const auth = (scopes: AuthContext["scopes"], limitedTo: string | null = null): AuthContext => ({
		tenantId: tenant.tenantId,
		userId: tenant.userId,
		keyId: "test-key",
		scopes,
		projectId: limitedTo,
	});
	const context = (a: AuthContext, project: string | null = projectId): McpRequestContext => ({
		env,
		auth: a,
		projectId: project,
		sessionId: null,
		waitUntil: () => {},
	});

	/** Tools defined as a new one would be: no scope check, no project lookup, no try/catch of their own. */
	function probeTools() {
		const ran: { tool: string; args: Loose; projectId: string }[] = [];
		const probe = (name: string, annotations: { readOnlyHint?: boolean }) =>
			defineTool({
				name,
				title: name,
				description: `A ${name} tool`,
				annotations,
				input: { word: z.string().max(20) },
				handler: async (args, { project }) => {
					ran.push({ tool: name, args, projectId: project.projectId });
					if (args.word === "refuse") throw new CairnError("conflict", "the probe refuses");
					if (args.word === "crash") throw new Error("secret stack detail");
					return { echoed: args.word };
				},
			});
		return {
			ran,
			tools: [probe("probe_read", { readOnlyHint: true }), probe("probe_write", { readOnlyHint: false }), probe("probe_unmarked", {})],
		};
	}

	async function serve(ctx: McpRequestContext, tools: ReturnType<typeof probeTools>["tools"]) {
		const server = new McpServer({ name: "probe", version: "0.0.0" });
		for (const tool of tools) tool.register(server, ctx);
		const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
		await server.connect(serverSide);
		const client = new Client({ name: "probe-client", version: "0.0.0" });
		await client.connect(clientSide);
		return client;
	}

	it("takes the scope from the annotations: readOnlyHint true needs read, false or absent needs write", async () => {
		const { ran, tools } = probeTools();
		expect(tools.map((t) => t.scope)).toEqual(["read", "write", "write"]);

		const reader = await serve(context(auth(["read"])), tools);
		const read = await reader.callTool({ name: "probe_read", arguments: { word: "hello" } });
		expect(read.isError).toBeFalsy();
		expect(JSON.parse(textOf(read))).toEqual({ echoed: "hello" });
		for (const name of ["probe_write", "probe_unmarked"]) {
			const refused = await reader.callTool({ name, arguments: { word: "hello" } });
			expect(refused.isError, name).toBe(true);
			expect(textOf(refused)).toBe("forbidden: this API key lacks the write scope");
		}
		expect(ran).toEqual([{ tool: "probe_read", args: { word: "hello" }, projectId }]);

		const writer = await serve(context(auth(["write"])), tools);
		expect(textOf(await writer.callTool({ name: "probe_read", arguments: { word: "x" } }))).toBe(
			"forbidden: this API key lacks the read scope",
		);
		expect((await writer.callTool({ name: "probe_write", arguments: { word: "x" } })).isError).toBeFalsy();
		expect((await writer.callTool({ name: "probe_unmarked", arguments: { word: "x" } })).isError).toBeFalsy();
		expect(ran.map((r) => r.tool)).toEqual(["probe_read", "probe_write", "probe_unmarked"]);
	});

	it("adds the project arguments, resolves the project and keeps a limited key to its own", async () => {
		const { ran, tools } = probeTools();
		const byRemote = await serve(context(auth(["read"]), null), tools);
		const { tools: listed } = await byRemote.listTools();
		expect(Object.keys(((listed[0]?.inputSchema ?? {}) as Loose).properties ?? {})).toEqual(["word", "gitRemote", "rootPath"]);
		const found = await byRemote.callTool({
			name: "probe_read",
			arguments: { word: "a", gitRemote: "git@github.com:acme/mcp-tools-other.git" },
		});
		expect(found.isError).toBeFalsy();
		expect(ran.at(-1)).toEqual({ tool: "probe_read", args: { word: "a" }, projectId: otherProjectId });
		expect(textOf(await byRemote.callTool({ name: "probe_read", arguments: { word: "a" } }))).toMatch(/^invalid_request: name the project/);

		const limited = await serve(context(auth(["read", "write"], otherProjectId)), tools);
		expect(textOf(await limited.callTool({ name: "probe_write", arguments: { word: "a" } }))).toBe(
			"forbidden: this API key is limited to another project",
		);
		expect(ran).toHaveLength(1);
	});

	it("maps failures the one way: Cairn's code and message, never a stack", async () => {
		const { tools } = probeTools();
		const client = await serve(context(auth(["read", "write"])), tools);
		const refused = await client.callTool({ name: "probe_write", arguments: { word: "refuse" } });
		expect(refused).toEqual({ isError: true, content: [{ type: "text", text: "conflict: the probe refuses" }] });
		const crashed = await client.callTool({ name: "probe_write", arguments: { word: "crash" } });
		expect(crashed).toEqual({ isError: true, content: [{ type: "text", text: "internal_error: the memory service failed; try again" }] });
	});
});
