import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, putMemory, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
});

const effective = async (pid = projectId, token = tenant.token) =>
	(await json(await call(`/v1/projects/${pid}/settings/effective`, { token }))).settings;

describe("settings", () => {
	it("starts from the spec defaults with memories off for a new project", async () => {
		const s = await effective();
		expect(s["memories.enabled"]).toEqual({ value: false, source: "default" });
		expect(s["memories.maxRolloutAgeDays"]).toEqual({ value: 30, source: "default" });
		expect(s["memories.minRolloutIdleHours"]).toEqual({ value: 12, source: "default" });
		expect(s["memories.maxRolloutsPerStartup"]).toEqual({ value: 64, source: "default" });
		expect(s["memories.summaryInjectionTokenLimit"]).toEqual({ value: 5000, source: "default" });
		expect(s["memories.recallLimit"]).toEqual({ value: 5, source: "default" });
	});

	it("applies policy over project over user and names each source", async () => {
		const user = await call("/v1/settings", {
			token: tenant.token,
			method: "PUT",
			json: { "memories.enabled": true, "memories.recallLimit": 3, "memories.minRolloutIdleHours": 2 },
		});
		expect(user.status).toBe(200);
		expect((await json(user)).settings).toEqual({ "memories.enabled": true, "memories.recallLimit": 3, "memories.minRolloutIdleHours": 2 });
		await call(`/v1/projects/${projectId}/settings`, {
			token: tenant.token,
			method: "PUT",
			json: { "memories.recallLimit": 7, "memories.minRolloutIdleHours": 6 },
		});
		await call("/v1/admin/policy", { token: tenant.token, method: "PUT", json: { "memories.minRolloutIdleHours": 24 } });
		const s = await effective();
		expect(s["memories.enabled"]).toEqual({ value: true, source: "user" });
		expect(s["memories.recallLimit"]).toEqual({ value: 7, source: "project" });
		expect(s["memories.minRolloutIdleHours"]).toEqual({ value: 24, source: "policy" });
		expect((await json(await call("/v1/settings", { token: tenant.token }))).settings["memories.recallLimit"]).toBe(3);
		expect((await json(await call(`/v1/projects/${projectId}/settings`, { token: tenant.token }))).settings).toEqual({
			"memories.recallLimit": 7,
			"memories.minRolloutIdleHours": 6,
		});
		expect((await json(await call("/v1/admin/policy", { token: tenant.token }))).policy).toEqual({ "memories.minRolloutIdleHours": 24 });

		// null clears a key at that level, so the next level shows through.
		await call("/v1/admin/policy", { token: tenant.token, method: "PUT", json: { "memories.minRolloutIdleHours": null } });
		expect((await effective())["memories.minRolloutIdleHours"]).toEqual({ value: 6, source: "project" });
	});

	it("rejects unknown keys (by position, never echoing them) and wrongly typed values (naming the known key)", async () => {
		const unknown = await expectError(
			await call("/v1/settings", { token: tenant.token, method: "PUT", json: { "memories.colour": "blue" } }),
			400,
			"invalid_request",
		);
		expect(JSON.stringify(unknown)).not.toContain("colour");
		expect(unknown.error.message).toContain("key number 1");
		expect(unknown.error.details.known).toContain("memories.enabled");
		const typed = await expectError(
			await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": "yes" } }),
			400,
			"invalid_request",
		);
		expect(typed.error.message).toContain("memories.enabled");
		await expectError(
			await call("/v1/admin/policy", { token: tenant.token, method: "PUT", json: { "memories.recallLimit": 1.5 } }),
			400,
			"invalid_request",
		);
		await expectError(
			await call("/v1/settings", { token: tenant.token, method: "PUT", json: ["memories.enabled"] }),
			400,
			"invalid_request",
		);
		await expectError(
			await call("/v1/settings", { token: tenant.token, method: "PUT", body: "{", headers: { "Content-Type": "application/json" } }),
			400,
			"invalid_request",
		);
	});

	it("keeps policy for admin keys and project settings for writers", async () => {
		const { key } = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"] } }));
		await expectError(await call("/v1/admin/policy", { token: key.token }), 403, "forbidden");
		await expectError(
			await call("/v1/admin/policy", { token: key.token, method: "PUT", json: { "memories.enabled": false } }),
			403,
			"forbidden",
		);
		expect(
			(await call(`/v1/projects/${projectId}/settings`, { token: key.token, method: "PUT", json: { "memories.enabled": true } })).status,
		).toBe(200);
		const { key: reader } = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }));
		await expectError(
			await call("/v1/settings", { token: reader.token, method: "PUT", json: { "memories.enabled": true } }),
			403,
			"forbidden",
		);
		expect((await call("/v1/settings", { token: reader.token })).status).toBe(200);
	});

	it("lets managed policy switch team memory off, and personal memory keeps working", async () => {
		const other = await createTenant();
		const pid = await createProject(other.token);
		await call(`/v1/projects/${pid}/settings`, { token: other.token, method: "PUT", json: { "memories.teamMemory": true } });
		await call("/v1/admin/policy", { token: other.token, method: "PUT", json: { "memories.teamMemory": false } });
		const err = await expectError(await putMemory(other.token, pid, "shared-rule", "x", { scope: "team" }), 403, "feature_disabled");
		expect(err.error.message).toContain("policy");
		expect((await putMemory(other.token, pid, "my-rule", "x")).status).toBe(201);
	});
});
