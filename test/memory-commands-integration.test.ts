import { runDurableObjectAlarm } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, type Loose, putMemory, type Tenant } from "./helpers";

async function populated(tenant: Tenant, remote?: string) {
	const projectId = await createProject(tenant.token, remote);
	const token = tenant.token;
	await call(`/v1/projects/${projectId}/settings`, { token, method: "PUT", json: { "memories.enabled": true } });
	expect((await putMemory(token, projectId, "testing", "Use the real database for integration tests.")).status).toBe(201);
	expect((await putMemory(token, projectId, "deploys", "No deploys on Fridays.", { scope: "team" })).status).toBe(201);
	await call(`/v1/projects/${projectId}/memories/testing`, {
		token,
		method: "PUT",
		headers: { "If-Match": '"1"' },
		json: { type: "feedback", description: "Integration tests use the real database", body: "Real DB, always." },
	});
	await call(`/v1/projects/${projectId}/logs/2026-11-28`, { token, json: { entry: "Worked on the release." } });
	await call(`/v1/projects/${projectId}/sessions/s1/transcript`, {
		token,
		headers: { "Content-Type": "application/x-ndjson" },
		body: [
			JSON.stringify({ id: "1", role: "user", content: "From now on always use pnpm, never npm.", ts: new Date().toISOString() }),
			JSON.stringify({
				id: "2",
				role: "user",
				content: "Here's how to cut a release:\n1. bump\n2. tag\n3. push",
				ts: new Date().toISOString(),
			}),
		].join("\n"),
	});
	await call(`/v1/projects/${projectId}/sessions/s1/memory`, { token });
	await call(`/v1/projects/${projectId}/sessions/s1/end`, { token, method: "POST" });
	// Wait for the queue consumer, then consolidate: summary, skills, consolidated memories.
	for (let i = 0; i < 100; i++) {
		const s = (await json(await call(`/v1/projects/${projectId}/sessions/s1`, { token }))).session;
		if (s.cursor === s.turns) break;
		await new Promise((r) => setTimeout(r, 200));
	}
	await env.PROJECT_COORDINATOR.getByName(projectId).requestRun(projectId);
	await runDurableObjectAlarm(env.PROJECT_COORDINATOR.getByName(projectId));
	return projectId;
}

describe("memory commands", () => {
	it("view is the inject payload for an empty query", async () => {
		const tenant = await createTenant();
		const projectId = await populated(tenant);
		const view = await json(await call(`/v1/projects/${projectId}/view`, { token: tenant.token }));
		const inject = await json(await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: {} }));
		expect(view).toEqual(inject);
		expect(view.parts.summary).toContain("memory://root/");
		expect(view.parts.index).toContain("testing");
	}, 30_000);

	it("clear needs the right confirmation; then every artifact is gone and another project is untouched", async () => {
		const tenant = await createTenant();
		const projectId = await populated(tenant);
		const other = await populated(tenant);
		const token = tenant.token;
		const r2 = async (id: string) => (await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${id}/` })).objects.length;
		expect(await r2(projectId)).toBeGreaterThan(5);
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token }))).skills.length).toBe(1);
		const otherBefore = {
			objects: await r2(other),
			memories: (await json(await call(`/v1/projects/${other}/memories`, { token }))).memories,
		};

		await expectError(await call(`/v1/projects/${projectId}/memory`, { token, method: "DELETE" }), 400, "confirmation_required");
		await expectError(
			await call(`/v1/projects/${projectId}/memory?confirm=${other}`, { token, method: "DELETE" }),
			400,
			"confirmation_required",
		);
		const writer = (await json(await call("/v1/keys", { token, json: { scopes: ["read", "write"] } }))).key.token;
		await expectError(
			await call(`/v1/projects/${projectId}/memory?confirm=${projectId}`, { token: writer, method: "DELETE" }),
			403,
			"forbidden",
		);

		const res = await call(`/v1/projects/${projectId}/memory?confirm=${projectId}`, { token, method: "DELETE" });
		expect(res.status).toBe(204);
		expect(await r2(projectId)).toBe(0);
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token }))).memories).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/memories?scope=team`, { token }))).memories).toEqual([]);
		const index = await (await call(`/v1/projects/${projectId}/index`, { token })).text();
		expect(index).not.toContain("testing");
		await expectError(await call(`/v1/projects/${projectId}/summary`, { token }), 404, "not_found");
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token }))).skills).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/logs`, { token }))).logs).toEqual([]);
		expect(
			(await json(await call(`/v1/projects/${projectId}/recall`, { token, json: { query: "database integration tests deploys" } })))
				.memories,
		).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/candidates`, { token }))).outputs).toEqual([]);
		expect((await json(await call(`/v1/projects/${projectId}/sessions`, { token }))).sessions).toEqual([]);
		for (const table of [
			"memories",
			"memory_versions",
			"memory_visibility",
			"stage1_outputs",
			"skills",
			"sessions",
			"session_records",
			"session_chunks",
		]) {
			const row = await env.DB.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?`).bind(projectId).first<{ n: number }>();
			expect(row?.n, table).toBe(0);
		}
		// No search row outlives its memory.
		const fts = await env.DB.prepare("SELECT count(*) AS n FROM memories_fts WHERE rowid NOT IN (SELECT id FROM memories)").first<{
			n: number;
		}>();
		expect(fts?.n).toBe(0);

		// The project, its settings and keys stay; the other project is untouched.
		expect((await call(`/v1/projects/${projectId}`, { token })).status).toBe(200);
		const settings = await json(await call(`/v1/projects/${projectId}/settings/effective`, { token }));
		expect(settings.settings["memories.enabled"]).toEqual({ value: true, source: "project" });
		expect(await r2(other)).toBe(otherBefore.objects);
		expect((await json(await call(`/v1/projects/${other}/memories`, { token }))).memories).toEqual(otherBefore.memories);
		// Writing again works after a clear.
		expect((await putMemory(token, projectId, "fresh", "Starting over.")).status).toBe(201);
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token }))).memories.map((m: Loose) => m.name)).toEqual(["fresh"]);
	}, 60_000);
});
