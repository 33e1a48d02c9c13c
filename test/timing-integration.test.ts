// Where a request's time goes (src/lib/timing.ts): local runs send each response's phases as a
// Server-Timing header — the Worker's own steps and, for calls to the project's object, the phases
// timed inside it — which the load benchmark reads.
import { describe, expect, it } from "vitest";
import { collecting, Timing, timed } from "../src/lib/timing";
import { call, createProject, createTenant, json, putMemory } from "./helpers";

const phases = (res: Response) =>
	new Map(
		(res.headers.get("Server-Timing") ?? "")
			.split(",")
			.map((p) => /^\s*([\w.-]+);dur=([\d.]+)$/.exec(p))
			.filter((m): m is RegExpExecArray => m !== null)
			.map((m) => [m[1] as string, Number(m[2])]),
	);

describe("Server-Timing", () => {
	it("a memory read names the key check, the project, the object's call and the storage inside it", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Tuesdays.");
		const res = await call(`/v1/projects/${projectId}/memories/deploy-window`, {
			token: tenant.token,
			headers: { Accept: "application/json" },
		});
		expect(res.status).toBe(200);
		const got = phases(res);
		expect([...got.keys()]).toEqual(expect.arrayContaining(["auth", "project", "object", "object.total", "object.sql", "total"]));
		// The parts are within the whole.
		expect(got.get("object.total")).toBeLessThanOrEqual((got.get("object") ?? 0) + 0.01);
		expect(got.get("object")).toBeLessThanOrEqual((got.get("total") ?? 0) + 0.01);
	});

	it("a write names the checks it ran", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		const res = await call(`/v1/projects/${projectId}/memories/release-steps`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "project", description: "How a release goes out", body: "Tag, then run the release workflow in src/release/run.ts." },
		});
		expect(res.status).toBe(201);
		expect([...phases(res).keys()]).toEqual(expect.arrayContaining(["object.check.secrets", "object.check.citations", "object.sql"]));
	});

	it("a one-memory read as JSON and a settings read are sent as they are, not compressed; a recall answer is left to compression", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Tuesdays.");
		const gzip = { "Accept-Encoding": "gzip" };
		const memory = await call(`/v1/projects/${projectId}/memories/deploy-window`, {
			token: tenant.token,
			headers: { ...gzip, Accept: "application/json" },
		});
		expect([memory.status, memory.headers.get("Content-Encoding")]).toEqual([200, "identity"]);
		expect((await json(memory)).memory.name).toBe("deploy-window");
		const settings = await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, headers: gzip });
		expect([settings.status, settings.headers.get("Content-Encoding")]).toEqual([200, "identity"]);
		const recall = await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, headers: gzip, json: { query: "deploys" } });
		expect(recall.status).toBe(200);
		expect(recall.headers.get("Content-Encoding")).not.toBe("identity");
	});

	it("a refused request still says where its time went; /health is timed as a whole", async () => {
		const refused = await call("/v1/projects", { token: "not-a-key" });
		expect(refused.status).toBe(401);
		expect(phases(refused).has("total")).toBe(true);
		expect([...phases(await call("/health")).keys()]).toEqual(["total"]);
	});

	it("outside a timed request a phase runs untimed; inside one, sync and async phases add up by name", async () => {
		expect(timed("x", () => 1)).toBe(1);
		const timing = new Timing();
		await collecting(timing, async () => {
			timed("sql", () => 1);
			await timed("sql", async () => 2);
		});
		expect([...timing.phases.keys()]).toEqual(["sql"]);
		expect(timing.header()).toMatch(/^sql;dur=\d+\.\d\d$/);
	});
});
