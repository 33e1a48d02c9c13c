import { createExecutionContext, createMessageBatch, getQueueResult } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { projectStore } from "../src/project/client";
import { call, createProject, createTenant, json } from "./helpers";

describe("OpenAPI document", () => {
	it("is generated from the request schemas and covers the routes", async () => {
		const res = await call("/openapi.json");
		expect(res.status).toBe(200);
		const doc = await json(res);
		expect(doc.openapi).toBe("3.1.0");
		for (const path of [
			"/v1/admin/tenants",
			"/v1/keys",
			"/v1/keys/{id}",
			"/v1/projects",
			"/v1/projects/{projectId}",
			"/v1/projects/{projectId}/memories",
			"/v1/projects/{projectId}/memories/{name}",
			"/v1/projects/{projectId}/memories/batch",
			"/v1/projects/{projectId}/memories/{name}/history",
			"/v1/projects/{projectId}/memories/{name}/history/{version}",
			"/v1/projects/{projectId}/index",
			"/v1/projects/{projectId}/resolve",
			"/v1/settings",
			"/v1/projects/{projectId}/settings",
			"/v1/projects/{projectId}/settings/effective",
			"/v1/admin/policy",
			"/v1/projects/{projectId}/sessions",
			"/v1/projects/{projectId}/sessions/{sessionId}",
			"/v1/projects/{projectId}/sessions/{sessionId}/transcript",
			"/v1/projects/{projectId}/sessions/{sessionId}/end",
			"/v1/projects/{projectId}/sessions/{sessionId}/memory",
			"/v1/projects/{projectId}/sessions/{sessionId}/memory/compact",
			"/v1/projects/{projectId}/extract",
			"/v1/projects/{projectId}/candidates",
			"/v1/projects/{projectId}/consolidate",
			"/v1/projects/{projectId}/status",
			"/v1/projects/{projectId}/summary",
			"/v1/projects/{projectId}/skills",
			"/v1/projects/{projectId}/skills/{name}",
			"/v1/projects/{projectId}/team-memory",
			"/v1/projects/{projectId}/team-memory/{path}",
			"/v1/projects/{projectId}/view",
			"/v1/projects/{projectId}/memory",
		]) {
			expect(doc.paths[path], path).toBeDefined();
		}
		const put = doc.paths["/v1/projects/{projectId}/memories/{name}"].put;
		expect(Object.keys(put.requestBody.content)).toEqual(["text/markdown", "application/json"]);
		expect(put.responses["412"]).toBeDefined();
		expect(doc.components.schemas.MemoryInput.properties.type.enum).toEqual(["user", "feedback", "project", "reference"]);
	});

	it("answers unknown routes with the error shape", async () => {
		const res = await call("/nope");
		expect(res.status).toBe(404);
		expect((await json(res)).error.code).toBe("not_found");
	});
});

describe("queue consumer and project coordinator", () => {
	it("the Worker's queue handler extracts a range, tells the project's coordinator, and drops malformed messages", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		await call(`/v1/projects/${projectId}/sessions/s-1/transcript`, {
			token: tenant.token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: JSON.stringify({ id: "1", role: "user", content: "Never push to main without a review." }),
		});
		const batch = createMessageBatch("cairn-extract", [
			{ id: "m1", timestamp: new Date(), attempts: 1, body: { projectId, sessionId: "s-1", fromSeq: 0, toSeq: 0 } },
			{ id: "m2", timestamp: new Date(), attempts: 1, body: { projectId, note: "no range" } },
		]);
		const ctx = createExecutionContext();
		await worker.queue(batch, env, ctx);
		const result = await getQueueResult(batch, ctx);
		expect(result.explicitAcks.sort()).toEqual(["m1", "m2"]);
		const session = await json(await call(`/v1/projects/${projectId}/sessions/s-1`, { token: tenant.token }));
		expect(session.session.cursor).toBe(1);
		expect(await projectStore(env, projectId).status(projectId)).toMatchObject({ dirty: true });
	});
});
