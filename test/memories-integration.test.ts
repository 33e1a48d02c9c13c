import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, projectDb, putMemory, type Tenant, topicFile } from "./helpers";

let tenant: Tenant;
let projectId: string;
const path = (name: string, suffix = "") => `/v1/projects/${projectId}/memories/${name}${suffix}`;

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
});

describe("writing and reading topic files", () => {
	it("creates from markdown, returns metadata and an ETag, and reads it back", async () => {
		const res = await putMemory(tenant.token, projectId, "testing-conventions", "Use the real DB by default.");
		expect(res.status).toBe(201);
		expect(res.headers.get("ETag")).toBe('"1"');
		const { memory } = await json(res);
		expect(memory).toMatchObject({
			name: "testing-conventions",
			type: "feedback",
			description: "About testing-conventions",
			scope: "personal",
			path: "memory://root/testing-conventions.md",
			version: 1,
			source: "user",
		});
		expect(Date.parse(memory.createdAt)).not.toBeNaN();

		const read = await call(path("testing-conventions"), { token: tenant.token });
		expect(read.status).toBe(200);
		expect(read.headers.get("Content-Type")).toContain("text/markdown");
		expect(read.headers.get("ETag")).toBe('"1"');
		const text = await read.text();
		expect(text).toMatch(/^---\nname: testing-conventions\ndescription: About testing-conventions\ntype: feedback\n---\n/);
		expect(text).toContain("Use the real DB by default.");

		const asJson = await json(await call(path("testing-conventions"), { token: tenant.token, headers: { Accept: "application/json" } }));
		expect(asJson.memory).toMatchObject({ name: "testing-conventions", version: 1 });
		expect(asJson.memory.body.trim()).toBe("Use the real DB by default.");
	});

	it("accepts the JSON form, updates, and reports unchanged writes", async () => {
		const body = { type: "project", description: "Monorepo: api/ and web/ deploy separately", body: "Deploy api first." };
		const created = await call(path("layout"), { token: tenant.token, method: "PUT", json: body });
		expect(created.status).toBe(201);
		const same = await call(path("layout"), { token: tenant.token, method: "PUT", json: body });
		expect(same.status).toBe(200);
		expect((await json(same)).memory.version).toBe(1);
		const updated = await call(path("layout"), { token: tenant.token, method: "PUT", json: { ...body, body: "Deploy web first." } });
		expect(updated.status).toBe(200);
		expect((await json(updated)).memory.version).toBe(2);
		expect(updated.headers.get("ETag")).toBe('"2"');
	});

	it("records agent writes with their session", async () => {
		const res = await putMemory(tenant.token, projectId, "agent-note", "The agent wrote this.", {
			headers: { "X-Cairn-Session": "sess-42" },
		});
		expect((await json(res)).memory).toMatchObject({ source: "agent", sessionId: "sess-42" });
		await expectError(
			await putMemory(tenant.token, projectId, "agent-note", "x", { headers: { "X-Cairn-Session": "bad session!" } }),
			400,
			"invalid_request",
		);
	});

	it("honours If-Match and refuses stale versions", async () => {
		await putMemory(tenant.token, projectId, "deploy-freeze", "Freeze on Fridays.");
		const ok = await putMemory(tenant.token, projectId, "deploy-freeze", "Freeze on Thursdays.", { headers: { "If-Match": '"1"' } });
		expect(ok.status).toBe(200);
		const stale = await putMemory(tenant.token, projectId, "deploy-freeze", "Freeze never.", { headers: { "If-Match": '"1"' } });
		const err = await expectError(stale, 412, "version_conflict");
		expect(err.error.details.currentVersion).toBe(2);
		await expectError(
			await putMemory(tenant.token, projectId, "brand-new", "x", { headers: { "If-Match": "*" } }),
			412,
			"version_conflict",
		);
		await expectError(
			await putMemory(tenant.token, projectId, "deploy-freeze", "x", { headers: { "If-Match": "yesterday" } }),
			400,
			"invalid_request",
		);
		expect(await (await call(path("deploy-freeze"), { token: tenant.token })).text()).toContain("Thursdays");
	});

	it("keeps versions and serves each one", async () => {
		await putMemory(tenant.token, projectId, "endpoints", "Staging is at staging.internal.");
		await putMemory(tenant.token, projectId, "endpoints", "Staging moved to stage2.internal.", { headers: { "X-Cairn-Session": "s-1" } });
		const history = await json(await call(path("endpoints", "/history"), { token: tenant.token }));
		expect(history.versions.map((v: { version: number }) => v.version)).toEqual([2, 1]);
		expect(history.versions[0]).toMatchObject({ source: "agent", sessionId: "s-1" });
		const v1 = await call(path("endpoints", "/history/1"), { token: tenant.token });
		expect(v1.headers.get("Content-Type")).toContain("text/markdown");
		expect(await v1.text()).toContain("staging.internal");
		await expectError(await call(path("endpoints", "/history/9"), { token: tenant.token }), 404, "not_found");
		await expectError(await call(path("endpoints", "/history/zero"), { token: tenant.token }), 400, "invalid_request");
		await expectError(await call(path("missing", "/history"), { token: tenant.token }), 404, "not_found");
	});

	it("lists with scope and type filters and pages by cursor", async () => {
		const p = await createProject(tenant.token);
		for (const [name, type] of [
			["a-pref", "user"],
			["b-rule", "feedback"],
			["c-link", "reference"],
		]) {
			await call(`/v1/projects/${p}/memories/${name}`, {
				token: tenant.token,
				method: "PUT",
				json: { type, description: `d ${name}`, body: "b" },
			});
		}
		await call(`/v1/projects/${p}/memories/d-team?scope=team`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "project", description: "team fact", body: "b" },
		});
		const all = await json(await call(`/v1/projects/${p}/memories`, { token: tenant.token }));
		expect(all.memories.map((m: { name: string }) => m.name)).toEqual(["a-pref", "b-rule", "c-link", "d-team"]);
		const team = await json(await call(`/v1/projects/${p}/memories?scope=team`, { token: tenant.token }));
		expect(team.memories).toHaveLength(1);
		expect(team.memories[0]).toMatchObject({ scope: "team", path: "memory://root/team/d-team.md" });
		const refs = await json(await call(`/v1/projects/${p}/memories?type=reference`, { token: tenant.token }));
		expect(refs.memories.map((m: { name: string }) => m.name)).toEqual(["c-link"]);
		const page1 = await json(await call(`/v1/projects/${p}/memories?limit=2`, { token: tenant.token }));
		expect(page1.memories).toHaveLength(2);
		const page2 = await json(await call(`/v1/projects/${p}/memories?limit=2&cursor=${page1.nextCursor}`, { token: tenant.token }));
		expect(page2.memories.map((m: { name: string }) => m.name)).toEqual(["c-link", "d-team"]);
		await expectError(await call(`/v1/projects/${p}/memories?type=secret`, { token: tenant.token }), 400, "invalid_request");
		await expectError(await call(`/v1/projects/${p}/memories?cursor=..%2F`, { token: tenant.token }), 400, "invalid_request");
	});

	it("deletes a memory, its history and its search row", async () => {
		await putMemory(tenant.token, projectId, "to-delete", "gone soon");
		const row = await projectDb(projectId)
			.prepare("SELECT id FROM memories WHERE project_id = ? AND name = 'to-delete'")
			.bind(projectId)
			.first<{ id: number }>();
		expect(row).not.toBeNull();
		expect((await call(path("to-delete"), { token: tenant.token, method: "DELETE" })).status).toBe(204);
		await expectError(await call(path("to-delete"), { token: tenant.token }), 404, "not_found");
		await expectError(await call(path("to-delete"), { token: tenant.token, method: "DELETE" }), 404, "not_found");
		const fts = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE rowid = ?")
			.bind(row?.id)
			.first<{ n: number }>();
		const versions = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM memory_versions WHERE memory_id = ?")
			.bind(row?.id)
			.first<{ n: number }>();
		const visibility = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM memory_visibility WHERE memory_id = ?")
			.bind(row?.id)
			.first<{ n: number }>();
		expect(fts?.n).toBe(0);
		expect(versions?.n).toBe(0);
		expect(visibility?.n).toBe(0);
	});

	it("keeps the FTS index in step with the current version", async () => {
		await putMemory(tenant.token, projectId, "search-me", "The flamingo dashboard lives at grafana.");
		await putMemory(tenant.token, projectId, "search-me", "The pelican dashboard lives at grafana.");
		const hit = (word: string) =>
			projectDb(projectId)
				.prepare(
					"SELECT COUNT(*) AS n FROM memories_fts JOIN memories m ON m.id = memories_fts.rowid WHERE memories_fts MATCH ? AND m.project_id = ?",
				)
				.bind(word, projectId)
				.first<{ n: number }>();
		expect((await hit("pelican"))?.n).toBe(1);
		expect((await hit("flamingo"))?.n).toBe(0);
	});
});

describe("bad input never gets a 5xx", () => {
	const badNames = ["..%2F..%2Fx", "%00", "a%00b", "Uppercase", "a".repeat(65), "-leading", "has_underscore", "dots.md", "%20space"];
	for (const name of badNames) {
		it(`refuses the name ${JSON.stringify(name.slice(0, 20))}`, async () => {
			for (const method of ["PUT", "GET", "DELETE"]) {
				const res = await call(path(name), {
					token: tenant.token,
					method,
					headers: { "Content-Type": "text/markdown" },
					body: method === "PUT" ? topicFile("x", "d", "user", "b") : undefined,
				});
				await expectError(res, 400, "invalid_name");
			}
			await expectError(await call(path(name, "/history"), { token: tenant.token }), 400, "invalid_name");
		});
	}

	it("refuses an empty name", async () => {
		for (const method of ["PUT", "GET", "DELETE"]) {
			await expectError(
				await call(`/v1/projects/${projectId}/memories/`, { token: tenant.token, method, body: method === "PUT" ? "x" : undefined }),
				400,
				"invalid_name",
			);
		}
	});

	it("refuses a bad type, missing fields and a name mismatch, naming the field", async () => {
		const cases: [string, string][] = [
			[topicFile("n1", "d", "opinion", "b"), "type"],
			["---\nname: n1\ntype: user\n---\nbody\n", "description"],
			["---\nname: n1\ndescription: d\n---\nbody\n", "type"],
			["---\ndescription: d\ntype: user\n---\nbody\n", "name"],
			[topicFile("other-name", "d", "user", "b"), "name"],
			["no frontmatter at all", "frontmatter"],
			["---\n: [unclosed\n---\nbody", "frontmatter"],
			["---\nname: n1\ndescription: d\ntype: user\nextra: 1\n---\nbody", "frontmatter"],
		];
		for (const [body, field] of cases) {
			const res = await call(path("n1"), { token: tenant.token, method: "PUT", headers: { "Content-Type": "text/markdown" }, body });
			const err = await expectError(res, 400, "invalid_request");
			expect(err.error.details.field, body).toBe(field);
		}
		const jsonCases: [unknown, string][] = [
			[{ type: "opinion", description: "d", body: "b" }, "type"],
			[{ type: "user", body: "b" }, "description"],
			[{ type: "user", description: "d" }, "body"],
			[{ type: "user", description: "two\nlines", body: "b" }, "description"],
		];
		for (const [body, field] of jsonCases) {
			const err = await expectError(await call(path("n1"), { token: tenant.token, method: "PUT", json: body }), 400, "invalid_request");
			expect(err.error.message).toContain(field);
		}
		await expectError(
			await call(path("n1"), { token: tenant.token, method: "PUT", body: "{", headers: { "Content-Type": "application/json" } }),
			400,
			"invalid_request",
		);
		await expectError(
			await call(path("n1"), { token: tenant.token, method: "PUT", body: "x", headers: { "Content-Type": "image/png" } }),
			415,
			"unsupported_media_type",
		);
	});

	it("refuses oversized bodies with 413 and leaves the stored memory intact", async () => {
		await putMemory(tenant.token, projectId, "big", "small and fine");
		const big = "x ".repeat(40_000);
		await expectError(await putMemory(tenant.token, projectId, "big", big), 413, "payload_too_large");
		const huge = "y".repeat(300_000);
		await expectError(await putMemory(tenant.token, projectId, "big", huge), 413, "payload_too_large");
		expect(await (await call(path("big"), { token: tenant.token })).text()).toContain("small and fine");
	});

	it("does not echo untrusted text in errors", async () => {
		const marker = "<script>alert(1)</script>";
		const res = await call(path("n1"), { token: tenant.token, method: "PUT", json: { type: marker, description: "d", body: "b" } });
		expect(res.status).toBe(400);
		expect(await res.text()).not.toContain(marker);
	});
});

describe("secrets", () => {
	const secrets: Record<string, string> = {
		aws: "aws_access_key_id = AKIAZ7VRSQ4TLXW3MQ5B\naws_secret_access_key = 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",
		github: "Use token ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq to push.",
		privateKey:
			"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA3Tz2mr7SZiAMfQyuvBjM9Oi4ETU3nqS2HkXc7pJd2Lw8FvGq\nR5tYbN1kE0uXs3oPz8WcVh6JmQ4aLdT9fKr2BxC7nHgY1eSvUiO5pMwZ3qAtLx==\n-----END RSA PRIVATE KEY-----",
	};
	for (const [kind, secret] of Object.entries(secrets)) {
		it(`refuses a memory holding a ${kind} secret and stores nothing of it`, async () => {
			const name = `secret-${kind.toLowerCase()}`;
			const before = await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/objects/` });
			const res = await putMemory(tenant.token, projectId, name, `Notes.\n${secret}\n`);
			const text = await res.clone().text();
			const err = await expectError(res, 422, "secret_detected");
			expect(err.error.details.rules.length).toBeGreaterThan(0);
			for (const line of secret.split("\n")) expect(text).not.toContain(line.slice(-20));
			const after = await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/objects/` });
			expect(after.objects.length).toBe(before.objects.length);
			const row = await projectDb(projectId).prepare("SELECT COUNT(*) AS n FROM memories WHERE name = ?").bind(name).first<{ n: number }>();
			expect(row?.n).toBe(0);
			const fts = await projectDb(projectId)
				.prepare("SELECT COUNT(*) AS n FROM memories_fts WHERE body LIKE ?")
				.bind("%Notes.%")
				.first<{ n: number }>();
			expect(fts?.n).toBe(0);
		});
	}

	it("refuses a secret in the description too", async () => {
		const res = await call(path("desc-secret"), {
			token: tenant.token,
			method: "PUT",
			json: { type: "reference", description: "key ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq", body: "b" },
		});
		await expectError(res, 422, "secret_detected");
	});

	it("does not refuse ordinary engineering notes", async () => {
		const res = await putMemory(
			tenant.token,
			projectId,
			"ordinary",
			"Run `npm test` before pushing. The API key lives in 1Password under 'Cairn prod'; never paste it. Use process.env.API_KEY.",
		);
		expect(res.status).toBe(201);
	});
});
