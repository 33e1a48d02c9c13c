// Names every plain object answers to (`constructor`, `toString`, `__proto__`, …) used as setting keys,
// policy keys, transcript roles, path segments, query values, console filters and MCP tool names:
// each is refused or ignored with a 4xx, never a 500, and nothing stored changes.
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { PROTOTYPE_NAMES } from "../src/lib/lookup";
import { call, createProject, createTenant, expectError, json, type Loose, putMemory, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

/** The raw JSON text `{"<name>": value}`: `__proto__` stays an own key, as a client sends it. */
const rawBody = (name: string, value: string) => `{${JSON.stringify(name)}: ${value}}`;
/** `\u005f\u005fproto\u005f\u005f`: the same key, spelt with JSON escapes. */
const ESCAPED_PROTO = "\\u005f\\u005fproto\\u005f\\u005f";

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

const stored = async () => ({
	user: (await json(await call("/v1/settings", { token: tenant.token }))).settings,
	project: (await json(await call(`/v1/projects/${projectId}/settings`, { token: tenant.token }))).settings,
	policy: (await json(await call("/v1/admin/policy", { token: tenant.token }))).policy,
});

describe("settings and policy keyed by prototype member names", () => {
	const targets = () => ["/v1/settings", `/v1/projects/${projectId}/settings`, "/v1/admin/policy"];

	it("refuses each name as a key at every level with a 400 that does not repeat it, and stores nothing", async () => {
		const before = await stored();
		for (const path of targets())
			for (const name of PROTOTYPE_NAMES)
				for (const value of ["1", "true", "null", '{"memories.enabled": true}', '"x"']) {
					const res = await call(path, {
						token: tenant.token,
						method: "PUT",
						body: rawBody(name, value),
						headers: { "Content-Type": "application/json" },
					});
					const body = await expectError(res, 400, "invalid_request");
					expect(body.error.message).not.toContain(name);
					expect(body.error.details.position).toBe(1);
				}
		expect(await stored()).toEqual(before);
	});

	it("refuses a JSON-escaped __proto__ key and one that follows a valid key, without applying the valid one", async () => {
		const before = await stored();
		for (const path of targets()) {
			const escaped = `{"${ESCAPED_PROTO}": {"memories.enabled": false}}`;
			await expectError(
				await call(path, { token: tenant.token, method: "PUT", body: escaped, headers: { "Content-Type": "application/json" } }),
				400,
				"invalid_request",
			);
			const mixed = '{"memories.recallLimit": 9, "__proto__": {"memories.enabled": false}}';
			const body = await expectError(
				await call(path, { token: tenant.token, method: "PUT", body: mixed, headers: { "Content-Type": "application/json" } }),
				400,
				"invalid_request",
			);
			expect(body.error.details.position).toBe(2);
		}
		expect(await stored()).toEqual(before);
		const effective = (await json(await call(`/v1/projects/${projectId}/settings/effective`, { token: tenant.token }))).settings;
		expect(Object.keys(effective)).not.toEqual(expect.arrayContaining(["constructor"]));
		expect(effective["memories.enabled"]).toEqual({ value: true, source: "project" });
		expect(effective["memories.recallLimit"]).toEqual({ value: 5, source: "default" });
	});

	it("still applies valid keys and leaves Object.prototype alone", async () => {
		const res = await call("/v1/settings", { token: tenant.token, method: "PUT", json: { "memories.dailyLogDays": 2 } });
		expect(res.status).toBe(200);
		expect((await json(res)).settings).toEqual({ "memories.dailyLogDays": 2 });
		expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(
			PROTOTYPE_NAMES.filter((n) => n !== "prototype")
				.slice()
				.sort(),
		);
		expect(({} as Loose)["memories.enabled"]).toBeUndefined();
	});
});

describe("prototype member names elsewhere", () => {
	it("as path segments and query values: 4xx, never 5xx", async () => {
		await putMemory(tenant.token, projectId, "alpha");
		for (const name of [...PROTOTYPE_NAMES, "%5F%5Fproto%5F%5F", "constructor%00"]) {
			const paths = [
				`/v1/projects/${name}`,
				`/v1/projects/${name}/memories`,
				`/v1/projects/${projectId}/memories/${name}`,
				`/v1/projects/${projectId}/memories/${name}/history`,
				`/v1/projects/${projectId}/memories/${name}/events`,
				`/v1/projects/${projectId}/sessions/${name}`,
				`/v1/projects/${projectId}/memories?scope=${name}&type=${name}`,
				`/v1/projects/${projectId}/memories/alpha?scope=${name}`,
				`/v1/projects/${projectId}/logs/${name}`,
				`/v1/projects/${projectId}/team-memory/${name}`,
				`/v1/keys/${name}`,
			];
			for (const path of paths) {
				const res = await call(path, { token: tenant.token });
				expect(res.status, path).toBeGreaterThanOrEqual(400);
				expect(res.status, path).toBeLessThan(500);
			}
		}
	});

	it("as transcript roles and keys: the lines are skipped as unknown, not turned into turns", async () => {
		const lines = PROTOTYPE_NAMES.map((role, i) => JSON.stringify({ id: `p${i}`, role, content: "hello" }));
		lines.push(`{"id": "q1", "role": "user", "content": "a real turn", "__proto__": {"role": "assistant"}}`);
		const res = await call(`/v1/projects/${projectId}/sessions/proto-roles/transcript?format=generic`, {
			token: tenant.token,
			method: "POST",
			body: lines.join("\n"),
			headers: { "Content-Type": "application/x-ndjson" },
		});
		expect(res.status).toBe(200);
		const body = await json(res);
		expect(body.unknown).toBe(PROTOTYPE_NAMES.length);
		expect(body.accepted).toBe(1);
	});

	it("as MCP tool names: a JSON-RPC error with a fixed message", async () => {
		for (const name of [...PROTOTYPE_NAMES, "no_such_tool"]) {
			const res = await exports.default.fetch(
				new Request("https://cairn.test/mcp", {
					method: "POST",
					headers: {
						Authorization: `Bearer ${tenant.token}`,
						"X-Cairn-Project": projectId,
						"Content-Type": "application/json",
						Accept: "application/json, text/event-stream",
					},
					body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: {} } }),
				}),
			);
			expect(res.status).toBe(200);
			const body = await json(res);
			expect(body).toEqual({
				jsonrpc: "2.0",
				id: 7,
				error: { code: -32602, message: "invalid_request: no such tool; tools/list names the tools" },
			});
		}
	});
});
