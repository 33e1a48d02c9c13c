/**
 * Edges declared beside the route (src/api/route.ts): each route's body limit and scopes are what it
 * declares, and what it declares is what the OpenAPI document says.
 */
import { env } from "cloudflare:workers";
import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { beforeAll, describe, expect, it } from "vitest";
import type { AppEnv } from "../src/api/context";
import { CairnError, errorResponse } from "../src/api/errors";
import { assertEdgesDeclared, DEFAULT_BODY_LIMIT, route } from "../src/api/route";
import { ADMIN_TOKEN, call, createProject, createTenant, expectError, json, type Loose, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
const tokens: Record<"read" | "write", string> = { read: "", write: "" };

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	for (const scope of ["read", "write"] as const) {
		const res = await call("/v1/keys", { token: tenant.token, json: { scopes: [scope] } });
		tokens[scope] = (await json(res)).key.token;
	}
});

/** A small app with one declared route, answering errors as the real one does. */
function appWith(declared: Parameters<typeof route>[0]) {
	const app = new OpenAPIHono<AppEnv>();
	app.onError((err, c) => (err instanceof CairnError ? errorResponse(c, err) : c.text(String(err), 500)));
	app.openapi(route(declared), (c) => c.json({ ok: true }, 200));
	return app;
}

describe("a route's declared body limit", () => {
	const ok = { 200: { description: "OK", content: { "application/json": { schema: z.object({ ok: z.boolean() }) } } } };

	it("is enforced for that route alone: the team sync push (200 KB) refuses what an ordinary route (256 KB) reads", async () => {
		const body = JSON.stringify({ entries: [{ path: "a.md", content: "x".repeat(220 * 1024) }] });
		expect(body.length).toBeLessThan(DEFAULT_BODY_LIMIT);
		const push = await call(`/v1/projects/${projectId}/team-memory`, {
			method: "PUT",
			token: tenant.token,
			headers: { "Content-Type": "application/json" },
			body,
		});
		const refused = await expectError(push, 413, "payload_too_large");
		expect(refused.error.message).toContain(String(200 * 1024));
		// The same size at the user settings route is read, and refused for what it says.
		const settings = await call("/v1/settings", {
			method: "PUT",
			token: tenant.token,
			headers: { "Content-Type": "application/json" },
			body,
		});
		await expectError(settings, 400, "invalid_request");
	});

	it("the batch route takes more than the default", async () => {
		const memories = Array.from({ length: 6 }, (_, i) => ({
			name: `edge-${i}`,
			type: "project",
			description: "Edge",
			body: "z".repeat(60_000),
		}));
		expect(JSON.stringify({ memories }).length).toBeGreaterThan(DEFAULT_BODY_LIMIT);
		const res = await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories } });
		expect(res.status).toBe(200);
		expect(((await json(res)).results as Loose[]).map((r) => r.status)).toEqual(Array(6).fill("created"));
	});

	it("is checked before the caller: an oversized body is a 413 with or without a key", async () => {
		const app = appWith({ method: "post", path: "/v1/probe", auth: "operator", bodyLimit: 16, responses: ok });
		const post = (token: string | null) =>
			app.request("/v1/probe", { method: "POST", body: "x".repeat(17), headers: token ? { Authorization: `Bearer ${token}` } : {} }, env);
		await expectError(await post(null), 413, "payload_too_large");
		await expectError(await post(ADMIN_TOKEN), 413, "payload_too_large");
		const small = await app.request(
			"/v1/probe",
			{ method: "POST", body: "x".repeat(16), headers: { Authorization: `Bearer ${ADMIN_TOKEN}` } },
			env,
		);
		expect(small.status).toBe(200);
	});

	it("streamed: only a declared Content-Length is checked up front; the handler counts the rest", async () => {
		const app = appWith({ method: "post", path: "/v1/probe", auth: "operator", bodyLimit: 16, streamed: true, responses: ok });
		const headers = { Authorization: `Bearer ${ADMIN_TOKEN}`, "Content-Type": "application/x-ndjson" };
		const declared = await app.request(
			"/v1/probe",
			{ method: "POST", body: "x".repeat(17), headers: { ...headers, "Content-Length": "17" } },
			env,
		);
		await expectError(declared, 413, "payload_too_large");
		const unread = new ReadableStream({
			start(controller) {
				controller.enqueue(new TextEncoder().encode("x".repeat(64)));
				controller.close();
			},
		});
		// No length declared: the route is reached (its handler does the counting).
		const chunked = await app.request("/v1/probe", { method: "POST", body: unread, headers, duplex: "half" } as RequestInit, env);
		expect(chunked.status).toBe(200);
	});
});

describe("a route's declared scopes", () => {
	it("read-only POSTs (recall, inject) take a read key; a write key is refused them", async () => {
		for (const path of ["recall", "inject"]) {
			const res = await call(`/v1/projects/${projectId}/${path}`, { token: tokens.read, json: { query: "anything at all" } });
			expect(res.status, path).toBe(200);
			await expectError(
				await call(`/v1/projects/${projectId}/${path}`, { token: tokens.write, json: { query: "anything at all" } }),
				403,
				"forbidden",
			);
		}
	});

	it("a write route refuses a read key, naming the scope", async () => {
		const batch = await call(`/v1/projects/${projectId}/memories/batch`, {
			token: tokens.read,
			json: { memories: [{ name: "by-reader", type: "project", description: "d", body: "b" }] },
		});
		const refused = await expectError(batch, 403, "forbidden");
		expect(refused.error.message).toBe('this API key lacks the "write" scope');
		await expectError(await call(`/v1/projects/${projectId}/embeddings/backfill`, { token: tokens.read, json: {} }), 403, "forbidden");
		await expectError(
			await call(`/v1/projects/${projectId}/memories/by-reader`, { token: tokens.read, method: "DELETE" }),
			403,
			"forbidden",
		);
	});

	it("several declared scopes are all needed: clearing memory needs admin and write", async () => {
		const admin = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["admin"] } }))).key.token;
		const clear = (token: string) => call(`/v1/projects/${projectId}/memory?confirm=${projectId}`, { token, method: "DELETE" });
		expect((await expectError(await clear(admin), 403, "forbidden")).error.message).toContain('"write"');
		expect((await expectError(await clear(tokens.write), 403, "forbidden")).error.message).toContain('"admin"');
	});

	it("the document states each declaration as the operation's security", async () => {
		const doc = await json(await call("/openapi.json"));
		expect(doc.components.securitySchemes.operatorToken).toMatchObject({ type: "http", scheme: "bearer" });
		const security = (path: string, method: string) => doc.paths[path][method].security;
		expect(security("/v1/projects/{projectId}/recall", "post")).toEqual([{ apiKey: ["read"] }]);
		expect(security("/v1/projects/{projectId}/memories/batch", "post")).toEqual([{ apiKey: ["write"] }]);
		expect(security("/v1/projects/{projectId}/memory", "delete")).toEqual([{ apiKey: ["admin", "write"] }]);
		expect(security("/v1/admin/policy", "put")).toEqual([{ apiKey: ["admin"] }]);
		expect(doc.paths["/v1/admin/policy"].put["x-cairn-tenant-wide"]).toBe(true);
		expect(security("/v1/operator/storage/move", "post")).toEqual([{ operatorToken: [] }]);
	});

	it("an operation made without a declaration keeps the app from starting", () => {
		const app = new OpenAPIHono<AppEnv>();
		app.openapi(createRoute({ method: "get", path: "/v1/undeclared", responses: { 204: { description: "Nothing" } } }), (c) =>
			c.body(null, 204),
		);
		expect(() => assertEdgesDeclared(app)).toThrow("GET /v1/undeclared declares no caller");
	});
});
