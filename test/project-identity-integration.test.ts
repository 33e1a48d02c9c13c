import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, json } from "./helpers";

const register = (token: string, body: Record<string, unknown>) => call("/v1/projects", { token, json: { name: "tool", ...body } });
const storedRow = (id: string) =>
	env.DB.prepare("SELECT canonical_key, git_remote, root_path FROM projects WHERE id = ?")
		.bind(id)
		.first<{ canonical_key: string; git_remote: string | null; root_path: string | null }>();

describe("POST /v1/projects with a local or relative remote", () => {
	it("registers an absolute local-path remote, and every spelling of it maps to the same project", async () => {
		const tenant = await createTenant();
		const first = await register(tenant.token, { gitRemote: "/srv/git/tool.git" });
		expect(first.status).toBe(201);
		const { project } = await json(first);
		expect(project.canonicalKey).toBe("path:/srv/git/tool");
		// Only the key is stored from a remote; a local remote is no root path.
		expect(await storedRow(project.id)).toEqual({ canonical_key: "path:/srv/git/tool", git_remote: null, root_path: null });
		for (const remote of ["file:///srv/git/tool.git", "/srv/git/tool", "/srv/git/./tool.git/", "file://localhost/srv/git/tool.git"]) {
			const res = await register(tenant.token, { gitRemote: remote });
			expect(res.status, remote).toBe(200);
			expect((await json(res)).project.id, remote).toBe(project.id);
		}
	});

	it("registers a Windows drive and UNC remote", async () => {
		const tenant = await createTenant();
		const drive = await json(await register(tenant.token, { gitRemote: "C:\\repos\\tool.git" }));
		expect(drive.project.canonicalKey).toBe("path:/C:/repos/tool");
		const same = await register(tenant.token, { gitRemote: "file:///C:/repos/tool.git" });
		expect(same.status).toBe(200);
		expect((await json(same)).project.id).toBe(drive.project.id);
		const unc = await json(await register(tenant.token, { gitRemote: "\\\\server\\share\\tool.git" }));
		expect(unc.project.canonicalKey).toBe("path:/server/share/tool");
	});

	it("a clone of a working tree joins the project its origin registered by root path", async () => {
		const tenant = await createTenant();
		const origin = await json(await register(tenant.token, { rootPath: "/home/dev/app" }));
		const clone = await register(tenant.token, { gitRemote: "/home/dev/app/.git" });
		expect(clone.status).toBe(200);
		expect((await json(clone)).project.id).toBe(origin.project.id);
	});

	it("refuses a relative remote with a 400 that says what to send, and uses rootPath when it is sent too", async () => {
		const tenant = await createTenant();
		const refused = await expectError(await register(tenant.token, { gitRemote: "../tool.git" }), 400, "invalid_request");
		expect(refused.error.message).toMatch(/relative path.*send rootPath/);
		expect(refused.error.message).not.toContain("../tool.git");
		expect(refused.error.details).toEqual({ field: "gitRemote" });

		const fallback = await register(tenant.token, { gitRemote: "../tool.git", rootPath: "/home/dev/tool" });
		expect(fallback.status).toBe(201);
		const { project } = await json(fallback);
		expect(project.canonicalKey).toBe("path:/home/dev/tool");
		expect((await storedRow(project.id))?.root_path).toBe("/home/dev/tool");
	});

	it("keeps refusing what is no remote at all, naming the field and what to send", async () => {
		const tenant = await createTenant();
		const bad = await expectError(await register(tenant.token, { gitRemote: "https://github.com" }), 400, "invalid_request");
		expect(bad.error.details).toEqual({ field: "gitRemote" });
		expect(bad.error.message).toContain("rootPath");
		const path = await expectError(await register(tenant.token, { rootPath: "relative/dir" }), 400, "invalid_request");
		expect(path.error.details).toEqual({ field: "rootPath" });
	});
});
