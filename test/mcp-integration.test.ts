import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeEach, describe, expect, it } from "vitest";
import { call, createProject, createTenant, json, type Loose, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
const REMOTE = "git@github.com:acme/mcp-demo.git";

/** An MCP SDK client talking to the Worker's own fetch entry point. */
async function connect(headers: Record<string, string>) {
	const transport = new StreamableHTTPClientTransport(new URL("https://cairn.test/mcp"), {
		fetch: (url, init) => exports.default.fetch(new Request(url, init)),
		requestInit: { headers },
	});
	const client = new Client({ name: "cairn-test", version: "1.0.0" });
	await client.connect(transport);
	return client;
}
const textOf = (result: Loose) => (result.content as { type: string; text: string }[]).map((c) => c.text).join("");

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token, REMOTE);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("MCP endpoint", () => {
	it("lists the five tools and calls each; writes mark the session; resources expose memory:// files", async () => {
		const client = await connect({ Authorization: `Bearer ${tenant.token}`, "X-Cairn-Project": projectId, "X-Cairn-Session": "mcp-s1" });
		const { tools } = await client.listTools();
		expect(tools.map((t) => t.name).sort()).toEqual(["memory_forget", "memory_list", "memory_read", "memory_recall", "memory_write"]);
		const write = tools.find((t) => t.name === "memory_write");
		expect(write?.description).toContain("preferences");
		expect(Object.keys((write?.inputSchema ?? {}) as Loose).length).toBeGreaterThan(0);
		expect(Object.keys(((write?.inputSchema ?? {}) as Loose).properties ?? {})).toEqual(
			expect.arrayContaining(["name", "type", "description", "body"]),
		);

		const written = await client.callTool({
			name: "memory_write",
			arguments: {
				name: "testing",
				type: "feedback",
				description: "Integration tests use the real database",
				body: "Real DB; mocks hid a migration bug.",
			},
		});
		expect(written.isError).toBeFalsy();
		expect(JSON.parse(textOf(written))).toEqual({ status: "created", path: "memory://root/testing.md", version: 1 });
		const history = await json(await call(`/v1/projects/${projectId}/memories/testing/history`, { token: tenant.token }));
		expect(history.versions[0]).toMatchObject({ source: "agent", sessionId: "mcp-s1" });

		const recalled = JSON.parse(
			textOf(await client.callTool({ name: "memory_recall", arguments: { query: "should integration tests mock the database" } })),
		);
		expect(recalled.memories.map((m: Loose) => m.name)).toEqual(["testing"]);

		const read = await client.callTool({ name: "memory_read", arguments: { url: "memory://root/testing.md" } });
		expect(textOf(read)).toContain("Real DB; mocks hid a migration bug.");

		const listed = JSON.parse(textOf(await client.callTool({ name: "memory_list", arguments: { type: "feedback" } })));
		expect(listed.memories).toEqual([
			{
				name: "testing",
				type: "feedback",
				scope: "personal",
				description: "Integration tests use the real database",
				path: "memory://root/testing.md",
			},
		]);

		const resources = await client.listResources();
		expect(resources.resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["memory://root/MEMORY.md", "memory://root/testing.md"]));
		const index = await client.readResource({ uri: "memory://root/MEMORY.md" });
		expect(JSON.stringify(index.contents)).toContain("testing");
		const file = await client.readResource({ uri: "memory://root/testing.md" });
		expect(JSON.stringify(file.contents)).toContain("Real DB");

		const forgot = await client.callTool({ name: "memory_forget", arguments: { name: "testing" } });
		expect(JSON.parse(textOf(forgot))).toEqual({ status: "deleted", name: "testing" });
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token: tenant.token }))).memories).toEqual([]);
		await client.close();
	});

	it("finds the project from a gitRemote argument when no header names it", async () => {
		const client = await connect({ Authorization: `Bearer ${tenant.token}` });
		const written = await client.callTool({
			name: "memory_write",
			arguments: {
				name: "deploys",
				type: "project",
				description: "No deploys on Fridays",
				body: "Freeze.",
				gitRemote: "https://github.com/acme/mcp-demo",
			},
		});
		expect(written.isError).toBeFalsy();
		const missing = await client.callTool({ name: "memory_list", arguments: {} });
		expect(missing.isError).toBe(true);
		expect(textOf(missing)).toBe("invalid_request: name the project: set the X-Cairn-Project header or pass gitRemote (or rootPath)");
		const unknown = await client.callTool({ name: "memory_list", arguments: { gitRemote: "git@github.com:acme/other.git" } });
		expect(textOf(unknown)).toContain("not_found: no project is registered for this git remote");
	});

	it("finds the project from rootPath or a local-path remote, resolved as registration resolves them", async () => {
		const byPath = (
			await json(await call("/v1/projects", { token: tenant.token, json: { name: "scratch", rootPath: "/home/dev/scratch" } }))
		).project.id;
		const byLocalRemote = (
			await json(await call("/v1/projects", { token: tenant.token, json: { name: "tool", gitRemote: "/srv/git/tool.git" } }))
		).project.id;
		for (const id of [byPath, byLocalRemote]) {
			await call(`/v1/projects/${id}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		}
		const client = await connect({ Authorization: `Bearer ${tenant.token}` });
		const { tools } = await client.listTools();
		for (const tool of tools) {
			expect(Object.keys((tool.inputSchema as Loose).properties ?? {}), tool.name).toEqual(
				expect.arrayContaining(["gitRemote", "rootPath"]),
			);
		}

		const note = { name: "scratch-notes", type: "project", description: "Scratch space", body: "Nothing ships from here." };
		const written = await client.callTool({ name: "memory_write", arguments: { ...note, rootPath: "/home/dev/./scratch/" } });
		expect(written.isError).toBeFalsy();
		expect((await json(await call(`/v1/projects/${byPath}/memories`, { token: tenant.token }))).memories.map((m: Loose) => m.name)).toEqual(
			["scratch-notes"],
		);
		// A relative remote cannot name a project on the server; with rootPath it falls back to it.
		const listed = await client.callTool({
			name: "memory_list",
			arguments: { gitRemote: "../scratch.git", rootPath: "/home/dev/scratch" },
		});
		expect(JSON.parse(textOf(listed)).memories.map((m: Loose) => m.name)).toEqual(["scratch-notes"]);
		// Sent both, an unregistered remote still finds the project registered by that root path.
		const both = await client.callTool({
			name: "memory_list",
			arguments: { gitRemote: "/srv/git/scratch.git", rootPath: "/home/dev/scratch" },
		});
		expect(JSON.parse(textOf(both)).memories.map((m: Loose) => m.name)).toEqual(["scratch-notes"]);
		const relative = await client.callTool({ name: "memory_list", arguments: { gitRemote: "../scratch.git" } });
		expect(relative.isError).toBe(true);
		expect(textOf(relative)).toMatch(/^invalid_request: gitRemote is a relative path.*send rootPath/);

		for (const gitRemote of ["/srv/git/tool.git", "file:///srv/git/tool", "C:/not/registered.git"]) {
			const res = await client.callTool({ name: "memory_list", arguments: { gitRemote } });
			if (gitRemote.startsWith("C:")) expect(textOf(res)).toContain("not_found: no project is registered for this git remote");
			else expect(JSON.parse(textOf(res)).memories, gitRemote).toEqual([]);
		}
		const unknownPath = await client.callTool({ name: "memory_list", arguments: { rootPath: "/home/dev/elsewhere" } });
		expect(textOf(unknownPath)).toContain("not_found: no project is registered for this root path");
		const badPath = await client.callTool({ name: "memory_list", arguments: { rootPath: "relative/dir" } });
		expect(textOf(badPath)).toBe("invalid_request: rootPath must be an absolute path");

		// A key limited to one project cannot reach another through rootPath.
		const limited = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], projectId } }))).key.token;
		const narrow = await connect({ Authorization: `Bearer ${limited}` });
		const refused = await narrow.callTool({ name: "memory_list", arguments: { rootPath: "/home/dev/scratch" } });
		expect(textOf(refused)).toBe("forbidden: this API key is limited to another project");
		await client.close();
		await narrow.close();
	});

	it("takes POST only: GET (no idle SSE stream) and DELETE answer 405 with Allow: POST", async () => {
		for (const method of ["GET", "DELETE", "PUT"]) {
			const res = await call("/mcp", {
				method,
				token: tenant.token,
				headers: { Accept: "text/event-stream", "X-Cairn-Project": projectId },
			});
			expect(res.status, method).toBe(405);
			expect(res.headers.get("Allow"), method).toBe("POST");
			expect(res.headers.get("Content-Type"), method).toContain("application/json");
			const body = await json(res);
			expect(body.error.code, method).toBe("method_not_allowed");
			expect(typeof body.error.message).toBe("string");
		}
		// Without a key as well: the method is refused before anything else.
		const anonymous = await call("/mcp", { headers: { Accept: "text/event-stream" } });
		expect(anonymous.status).toBe(405);
	});

	it("errors are tool errors in the service's own words, never stack traces or echoed input", async () => {
		const client = await connect({ Authorization: `Bearer ${tenant.token}`, "X-Cairn-Project": projectId });
		const secret = `ghp_${"R8xk2LmQ9v".repeat(3)}Wz4Tb7`;
		const leak = await client.callTool({
			name: "memory_write",
			arguments: { name: "leak", type: "reference", description: "CI token", body: `token ${secret}` },
		});
		expect(leak.isError).toBe(true);
		expect(textOf(leak)).toMatch(/^secret_detected: /);
		expect(textOf(leak)).not.toContain(secret);
		const missing = await client.callTool({ name: "memory_read", arguments: { url: "memory://root/nothing.md" } });
		expect(textOf(missing)).toBe("not_found: memory not found");
		const badUrl = await client.callTool({ name: "memory_read", arguments: { url: "file:///etc/passwd" } });
		expect(textOf(badUrl)).toMatch(/^invalid_request: url must be memory:\/\/root/);
		expect(textOf(badUrl)).not.toContain("/etc/passwd");
		const badName = await client.callTool({ name: "memory_forget", arguments: { name: "../x" } });
		expect(badName.isError).toBe(true);
		expect(textOf(badName)).not.toMatch(/at .*\.ts:\d+/);

		const readOnly = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key.token;
		const reader = await connect({ Authorization: `Bearer ${readOnly}`, "X-Cairn-Project": projectId });
		const refused = await reader.callTool({ name: "memory_write", arguments: { name: "x", type: "user", description: "d", body: "b" } });
		expect(textOf(refused)).toBe("forbidden: this API key lacks the write scope");
		const other = await createTenant();
		const stranger = await connect({ Authorization: `Bearer ${other.token}`, "X-Cairn-Project": projectId });
		expect(textOf(await stranger.callTool({ name: "memory_list", arguments: {} }))).toBe("not_found: project not found (X-Cairn-Project)");
	});

	it("an unauthenticated call is refused with 401 and a Bearer challenge", async () => {
		const res = await call("/mcp", {
			json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
			headers: { Accept: "application/json, text/event-stream" },
		});
		expect(res.status).toBe(401);
		expect(res.headers.get("WWW-Authenticate")).toBe('Bearer realm="cairn"');
		expect((await json(res)).error.code).toBe("unauthorized");
		for (const token of ["cairn_nope_nope", `cairn_0000000000000000_${"a".repeat(40)}`]) {
			const bad = await call("/mcp", {
				token,
				json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
				headers: { Accept: "application/json, text/event-stream" },
			});
			expect(bad.status, token).toBe(401);
			expect(bad.headers.get("WWW-Authenticate"), token).toBe('Bearer realm="cairn", error="invalid_token"');
			expect((await json(bad)).error.code).toBe("unauthorized");
		}
		await expect(connect({ Authorization: "Bearer cairn_nope_nope" })).rejects.toThrow();
	});

	it("an authenticated POST carries no challenge", async () => {
		const ok = await call("/mcp", {
			token: tenant.token,
			json: { jsonrpc: "2.0", id: 1, method: "tools/list" },
			headers: { Accept: "application/json, text/event-stream", "X-Cairn-Project": projectId },
		});
		expect(ok.status).toBe(200);
		expect(ok.headers.get("WWW-Authenticate")).toBeNull();
	});
});
