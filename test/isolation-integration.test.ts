import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { call, createProject, createTenant, json, putMemory, type Tenant } from "./helpers";

let a: Tenant;
let b: Tenant;
const bProjects: string[] = [];
const bNames = ["secret-plan", "team-rule", "deploy-notes"];

beforeAll(async () => {
	a = await createTenant();
	b = await createTenant();
	for (let i = 0; i < 2; i++) {
		const pid = await createProject(b.token, `git@github.com:bcorp/repo-${i}.git`);
		bProjects.push(pid);
		for (const name of bNames)
			await putMemory(b.token, pid, name, `tenant B only ${name}`, { scope: name === "team-rule" ? "team" : undefined });
	}
	// Tenant A registers the same remote: it must get its own project, not B's.
	await createProject(a.token, "git@github.com:bcorp/repo-0.git");
});

type Op = { method: string; suffix: string; body?: string; json?: unknown };

const opArb: fc.Arbitrary<Op> = fc.oneof(
	fc.constant({ method: "GET", suffix: "" }),
	fc.constant({ method: "GET", suffix: "/memories" }),
	fc.constant({ method: "GET", suffix: "/index" }),
	fc.constant({ method: "GET", suffix: "/settings" }),
	fc.constant({ method: "GET", suffix: "/settings/effective" }),
	fc.constant({ method: "PUT", suffix: "/settings", json: { "memories.enabled": true } }),
	fc.constantFrom(...bNames).map((n) => ({ method: "GET", suffix: `/memories/${n}` })),
	fc.constantFrom(...bNames).map((n) => ({ method: "GET", suffix: `/memories/${n}?scope=team` })),
	fc.constantFrom(...bNames).map((n) => ({ method: "GET", suffix: `/memories/${n}/history` })),
	fc.constantFrom(...bNames).map((n) => ({ method: "GET", suffix: `/memories/${n}/history/1` })),
	fc.constantFrom(...bNames).map((n) => ({ method: "DELETE", suffix: `/memories/${n}` })),
	fc
		.constantFrom(...bNames)
		.map((n) => ({ method: "PUT", suffix: `/memories/${n}`, json: { type: "user", description: "overwrite", body: "pwned" } })),
	fc.constantFrom(...bNames).map((n) => ({ method: "GET", suffix: `/resolve?url=${encodeURIComponent(`memory://root/${n}.md`)}` })),
	fc.constant({
		method: "POST",
		suffix: "/memories/batch",
		json: { memories: [{ name: "x", type: "user", description: "d", body: "b" }] },
	}),
);

describe("tenant isolation", () => {
	it("a key of tenant A gets 404 for every project and memory of tenant B", async () => {
		await fc.assert(
			fc.asyncProperty(fc.constantFrom(...bProjects), opArb, async (pid, op) => {
				const res = await call(`/v1/projects/${pid}${op.suffix}`, { token: a.token, method: op.method, json: op.json });
				const body = await res.text();
				expect(res.status, `${op.method} ${op.suffix}`).toBe(404);
				expect(JSON.parse(body).error.code).toBe("not_found");
				expect(body).not.toContain("tenant B only");
			}),
			{ numRuns: 60 },
		);
		// And nothing of B's changed.
		for (const pid of bProjects) {
			const list = await json(await call(`/v1/projects/${pid}/memories`, { token: b.token }));
			expect(list.memories.map((m: { name: string; version: number }) => [m.name, m.version]).sort()).toEqual(
				bNames.map((n) => [n, 1]).sort(),
			);
		}
		const aProjects = await json(await call("/v1/projects", { token: a.token }));
		expect(aProjects.projects.some((p: { id: string }) => bProjects.includes(p.id))).toBe(false);
	});

	it("a project-limited key cannot touch another project of its own tenant", async () => {
		const { key } = await json(await call("/v1/keys", { token: b.token, json: { scopes: ["read", "write"], projectId: bProjects[0] } }));
		const own = bProjects[0] as string;
		const other = bProjects[1] as string;
		expect((await call(`/v1/projects/${own}/memories`, { token: key.token })).status).toBe(200);
		await fc.assert(
			fc.asyncProperty(opArb, async (op) => {
				const res = await call(`/v1/projects/${other}${op.suffix}`, { token: key.token, method: op.method, json: op.json });
				expect(res.status, `${op.method} ${op.suffix}`).toBe(403);
				expect(await res.text()).not.toContain("tenant B only");
			}),
			{ numRuns: 40 },
		);
		const listed = await json(await call("/v1/projects", { token: key.token }));
		expect(listed.projects.map((p: { id: string }) => p.id)).toEqual([own]);
		const register = await call("/v1/projects", { token: key.token, json: { name: "n", gitRemote: "git@github.com:bcorp/repo-1.git" } });
		expect(register.status).toBe(403);
		const otherList = await json(await call(`/v1/projects/${other}/memories`, { token: b.token }));
		expect(otherList.memories.map((m: { version: number }) => m.version)).toEqual(bNames.map(() => 1));
	});
});

describe("one object per project", () => {
	it("each project's object holds only that project's rows and refuses calls for any other project", async () => {
		const { results: aProjects } = await env.DB.prepare("SELECT id FROM projects WHERE tenant_id = ?")
			.bind(a.tenantId)
			.all<{ id: string }>();
		const all = [...bProjects, ...aProjects.map((p) => p.id)];
		for (const pid of all) {
			const stub = env.PROJECT_COORDINATOR.getByName(pid);
			const held = await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
				const ids = new Set<string>();
				for (const table of ["memories", "memory_versions", "memory_visibility", "sessions", "stage1_outputs"]) {
					const rows = (await instance.db.prepare(`SELECT DISTINCT project_id FROM ${table}`).all<{ project_id: string }>()).results;
					for (const r of rows) ids.add(r.project_id);
				}
				const bound = await instance.boundTo();
				return { bound: bound.ok ? bound.value : null, ids: [...ids] };
			});
			// Only this project's rows, whoever reached the object; and B's projects, which hold memories, are bound to themselves.
			expect(
				held.ids.filter((id) => id !== pid),
				pid,
			).toEqual([]);
			if (bProjects.includes(pid)) expect(held, pid).toEqual({ bound: pid, ids: [pid] });
			else expect([null, pid]).toContain(held.bound);
		}
		// B's first project's object, asked for B's second project (even with the right tenant and user), refuses.
		const [first, second] = bProjects as [string, string];
		const stub = env.PROJECT_COORDINATOR.getByName(first);
		const refused = await stub.listMemories({ tenantId: b.tenantId, userId: b.userId, projectId: second }, { limit: 10 });
		expect(refused).toMatchObject({ ok: false, error: { code: "forbidden" } });
		// Reached the right way, the second project still holds its own memories, untouched.
		const list = await json(await call(`/v1/projects/${second}/memories`, { token: b.token }));
		expect(list.memories).toHaveLength(bNames.length);
	});
});
