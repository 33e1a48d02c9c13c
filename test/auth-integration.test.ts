import { describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, createProject, createTenant, expectError, json } from "./helpers";

describe("health and tenants", () => {
	it("reports health without auth", async () => {
		const res = await call("/health");
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({ status: "ok" });
	});

	it("creates a tenant with an all-scopes key shown once", async () => {
		const res = await call("/v1/admin/tenants", { token: ADMIN_TOKEN, json: { name: "Acme", user: "ada" } });
		expect(res.status).toBe(201);
		const body = await json(res);
		expect(body.tenant).toMatchObject({ name: "Acme" });
		expect(body.user).toMatchObject({ name: "ada" });
		expect(body.key.token).toMatch(/^cairn_[a-z0-9]{16}_[A-Za-z0-9]{40}$/);
		expect(body.key.scopes).toEqual(["read", "write", "admin"]);
		const keys = await json(await call("/v1/keys", { token: body.key.token }));
		expect(JSON.stringify(keys)).not.toContain(body.key.token);
		expect(keys.keys).toHaveLength(1);
	});

	it("refuses tenant creation without the operator token", async () => {
		await expectError(await call("/v1/admin/tenants", { json: { name: "x", user: "y" } }), 401, "unauthorized");
		await expectError(await call("/v1/admin/tenants", { token: "wrong", json: { name: "x", user: "y" } }), 401, "unauthorized");
		const tenant = await createTenant();
		await expectError(await call("/v1/admin/tenants", { token: tenant.token, json: { name: "x", user: "y" } }), 401, "unauthorized");
		// Every 401 names the scheme to use (RFC 6750), on REST as on /mcp.
		const noKey = await call("/v1/projects");
		expect(noKey.status).toBe(401);
		expect(noKey.headers.get("WWW-Authenticate")).toMatch(/^Bearer/);
	});

	it("rejects bad tenant bodies with a named field", async () => {
		const missing = await expectError(await call("/v1/admin/tenants", { token: ADMIN_TOKEN, json: { name: "x" } }), 400, "invalid_request");
		expect(missing.error.message).toContain("user");
		await expectError(
			await call("/v1/admin/tenants", {
				token: ADMIN_TOKEN,
				body: "{not json",
				headers: { "Content-Type": "application/json" },
				method: "POST",
			}),
			400,
			"invalid_request",
		);
	});
});

describe("API keys", () => {
	it("requires a valid bearer key", async () => {
		await expectError(await call("/v1/projects"), 401, "unauthorized");
		await expectError(await call("/v1/projects", { token: `cairn_0000000000000000_${"a".repeat(40)}` }), 401, "unauthorized");
		await expectError(await call("/v1/projects", { token: "not-a-key" }), 401, "unauthorized");
	});

	it("issues scoped keys, lists them without tokens, and revokes them at once", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		const created = await call("/v1/keys", { token: tenant.token, json: { name: "ci", scopes: ["read"], projectId } });
		expect(created.status).toBe(201);
		const { key } = await json(created);
		expect(key).toMatchObject({ scopes: ["read"], projectId });

		expect((await call(`/v1/projects/${projectId}/memories`, { token: key.token })).status).toBe(200);
		await expectError(
			await call(`/v1/projects/${projectId}/memories/x`, {
				token: key.token,
				method: "PUT",
				json: { type: "user", description: "d", body: "b" },
			}),
			403,
			"forbidden",
		);
		await expectError(await call("/v1/keys", { token: key.token }), 403, "forbidden");

		const list = await json(await call("/v1/keys", { token: tenant.token }));
		expect(list.keys.map((k: { id: string }) => k.id)).toContain(key.id);
		expect(JSON.stringify(list)).not.toContain(key.token);

		expect((await call(`/v1/keys/${key.id}`, { token: tenant.token, method: "DELETE" })).status).toBe(204);
		await expectError(await call(`/v1/projects/${projectId}/memories`, { token: key.token }), 401, "unauthorized");
		await expectError(await call(`/v1/keys/${key.id}`, { token: tenant.token, method: "DELETE" }), 404, "not_found");
	});

	it("issues keys for another user of the tenant", async () => {
		const tenant = await createTenant();
		const res = await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "grace" } });
		expect(res.status).toBe(201);
		expect((await json(res)).key.userId).not.toBe(tenant.userId);
	});

	it("rejects bad key requests", async () => {
		const tenant = await createTenant();
		await expectError(await call("/v1/keys", { token: tenant.token, json: { scopes: ["root"] } }), 400, "invalid_request");
		await expectError(await call("/v1/keys", { token: tenant.token, json: { scopes: [] } }), 400, "invalid_request");
		await expectError(
			await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"], projectId: "prj_missing" } }),
			404,
			"not_found",
		);
	});
});

describe("projects", () => {
	it("maps every form of one git remote to one project", async () => {
		const tenant = await createTenant();
		const first = await call("/v1/projects", { token: tenant.token, json: { name: "api", gitRemote: "git@github.com:Acme/API.git" } });
		expect(first.status).toBe(201);
		const project = (await json(first)).project;
		expect(project.canonicalKey).toBe("git:github.com/acme/api");
		for (const remote of [
			"https://github.com/acme/api",
			"https://github.com/acme/api.git/",
			"ssh://git@github.com/acme/api.git",
			"ssh://git@github.com:22/acme/api",
			"https://someone:ghp_secret@github.com/acme/api.git",
		]) {
			const res = await call("/v1/projects", { token: tenant.token, json: { name: "clone", gitRemote: remote } });
			expect(res.status, remote).toBe(200);
			expect((await json(res)).project.id).toBe(project.id);
		}
		const other = await call("/v1/projects", { token: tenant.token, json: { name: "web", gitRemote: "git@github.com:acme/web.git" } });
		expect((await json(other)).project.id).not.toBe(project.id);
	});

	it("registers projects without a remote by root path and lists and gets them", async () => {
		const tenant = await createTenant();
		const res = await call("/v1/projects", { token: tenant.token, json: { name: "scratch", rootPath: "/home/dev/scratch/" } });
		expect(res.status).toBe(201);
		const { project } = await json(res);
		expect(project.canonicalKey).toBe("path:/home/dev/scratch");
		const again = await call("/v1/projects", { token: tenant.token, json: { name: "scratch", rootPath: "/home/dev/./scratch" } });
		expect(again.status).toBe(200);
		const list = await json(await call("/v1/projects", { token: tenant.token }));
		expect(list.projects.map((p: { id: string }) => p.id)).toEqual([project.id]);
		expect((await json(await call(`/v1/projects/${project.id}`, { token: tenant.token }))).project.id).toBe(project.id);
	});

	it("rejects bad project input", async () => {
		const tenant = await createTenant();
		await expectError(await call("/v1/projects", { token: tenant.token, json: { name: "x" } }), 400, "invalid_request");
		await expectError(
			await call("/v1/projects", { token: tenant.token, json: { name: "x", gitRemote: "not a remote" } }),
			400,
			"invalid_request",
		);
		await expectError(
			await call("/v1/projects", { token: tenant.token, json: { name: "x", rootPath: "relative/path" } }),
			400,
			"invalid_request",
		);
		await expectError(
			await call("/v1/projects", { token: tenant.token, json: { gitRemote: "git@github.com:a/b.git" } }),
			400,
			"invalid_request",
		);
		await expectError(await call("/v1/projects/prj_nope", { token: tenant.token }), 404, "not_found");
	});
});

describe("malformed paths", () => {
	it("answers a broken percent-encoding in a project path with a 4xx", async () => {
		const tenant = await createTenant();
		const res = await call("/v1/projects/%E0%A4%A/memories", { token: tenant.token });
		expect(res.status).toBeGreaterThanOrEqual(400);
		expect(res.status).toBeLessThan(500);
	});
});
