// The isolate cache of verified keys, project rows and effective settings (src/lib/isolate-cache.ts):
// a warm hook call makes no D1 query; a change made in this isolate takes effect at once; one made
// elsewhere (written straight to D1 here, as another isolate would) takes effect within the bound.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createApp } from "../src/app";
import { ISOLATE_CACHE_SECONDS } from "../src/lib/isolate-cache";
import { call, createProject, createTenant, json, putMemory, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

/** The Worker with a D1 binding that counts the statements it is asked to prepare and the round trips. */
function countingWorker() {
	const counts = { statements: 0, roundTrips: 0 };
	const log: string[] = [];
	const unwrap = new WeakMap<object, D1PreparedStatement>();
	const wrap = (statement: D1PreparedStatement): D1PreparedStatement => {
		const proxy = new Proxy(statement, {
			get(s, p) {
				const v = Reflect.get(s, p, s);
				if (typeof v !== "function") return v;
				return (...a: unknown[]) => {
					log.push(`.${String(p)}`);
					if (p === "first" || p === "all" || p === "run" || p === "raw") counts.roundTrips++;
					const out = v.apply(s, a);
					return p === "bind" ? wrap(out as D1PreparedStatement) : out;
				};
			},
		});
		unwrap.set(proxy, statement);
		return proxy;
	};
	const db = new Proxy(env.DB, {
		get(target, prop) {
			const value = Reflect.get(target, prop, target);
			if (typeof value !== "function") return value;
			return (...args: unknown[]) => {
				log.push(String(prop));
				if (prop === "prepare") {
					counts.statements++;
					return wrap(value.apply(target, args) as D1PreparedStatement);
				}
				if (prop === "batch") {
					counts.roundTrips++;
					const statements = (args[0] as D1PreparedStatement[]).map((x) => unwrap.get(x) ?? x);
					return value.call(target, statements);
				}
				if (prop === "exec") counts.roundTrips++;
				return value.apply(target, args);
			};
		},
	});
	const app = createApp();
	const fetch = async (path: string, init: RequestInit & { token?: string } = {}) => {
		const headers = new Headers(init.headers);
		if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
		const ctx = createExecutionContext();
		const res = await app.fetch(new Request(`https://cairn.test${path}`, { ...init, headers }), { ...env, DB: db } as Env, ctx);
		await res.arrayBuffer();
		await waitOnExecutionContext(ctx);
		return res;
	};
	return { counts, fetch, log };
}

const later = (seconds: number) => {
	const now = Date.now();
	vi.spyOn(Date, "now").mockReturnValue(now + seconds * 1000);
};

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	await putMemory(tenant.token, projectId, "pnpm-only", "pnpm install; pnpm test.", { description: "Use pnpm, never npm" });
});

afterEach(() => {
	vi.restoreAllMocks();
});

describe("warm requests", () => {
	it("a warm inject and a warm effective-settings read make no D1 query", async () => {
		later(ISOLATE_CACHE_SECONDS + 1);
		const worker = countingWorker();
		const inject = () =>
			worker.fetch(`/v1/projects/${projectId}/inject`, {
				method: "POST",
				token: tenant.token,
				headers: { "Content-Type": "application/json" },
				body: JSON.stringify({ query: "install with npm or pnpm?", sessionId: "warm-1" }),
			});
		expect((await inject()).status).toBe(200);
		expect(worker.counts.statements).toBeGreaterThan(0);
		worker.counts.statements = 0;
		worker.counts.roundTrips = 0;
		for (let i = 0; i < 3; i++) expect((await inject()).status).toBe(200);
		const effective = await worker.fetch(`/v1/projects/${projectId}/settings/effective`, { token: tenant.token });
		expect(effective.status).toBe(200);
		expect(worker.counts).toEqual({ statements: 0, roundTrips: 0 });
	});

	it("a cold request still reads the key and the project in one round trip", async () => {
		later(ISOLATE_CACHE_SECONDS + 1);
		const worker = countingWorker();
		const res = await worker.fetch(`/v1/projects/${projectId}/settings/effective`, { token: tenant.token });
		expect(res.status).toBe(200);
		// The key with its project (one batch), then the settings (one query).
		expect(worker.counts.roundTrips).toBe(2);
	});
});

describe("changes", () => {
	const effective = async () => (await json(await call(`/v1/projects/${projectId}/settings/effective`, { token: tenant.token }))).settings;

	it("a key revoked through the API is refused on the next request in this isolate", async () => {
		const extra = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key;
		expect((await call(`/v1/projects/${projectId}/memories`, { token: extra.token })).status).toBe(200);
		expect((await call(`/v1/keys/${extra.id}`, { method: "DELETE", token: tenant.token })).status).toBe(204);
		expect((await call(`/v1/projects/${projectId}/memories`, { token: extra.token })).status).toBe(401);
	});

	it("a key revoked elsewhere is refused here within the bound", async () => {
		const extra = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key;
		expect((await call(`/v1/projects/${projectId}/memories`, { token: extra.token })).status).toBe(200);
		// Another isolate's revocation: the row goes, this isolate is not told.
		await env.DB.prepare("DELETE FROM api_keys WHERE id = ?").bind(extra.id).run();
		expect((await call(`/v1/projects/${projectId}/memories`, { token: extra.token })).status).toBe(200);
		later(ISOLATE_CACHE_SECONDS);
		expect((await call(`/v1/projects/${projectId}/memories`, { token: extra.token })).status).toBe(401);
	});

	it("settings changed through the API apply at once; changed elsewhere, within the bound", async () => {
		expect((await effective())["memories.recallLimit"]).toEqual({ value: 5, source: "default" });
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.recallLimit": 7 } });
		expect((await effective())["memories.recallLimit"]).toEqual({ value: 7, source: "project" });
		await env.DB.prepare("UPDATE settings SET values_json = json_set(values_json, '$.\"memories.recallLimit\"', 9) WHERE subject_id = ?")
			.bind(projectId)
			.run();
		expect((await effective())["memories.recallLimit"]).toEqual({ value: 7, source: "project" });
		later(ISOLATE_CACHE_SECONDS);
		expect((await effective())["memories.recallLimit"]).toEqual({ value: 9, source: "project" });
	});

	it("a deleted project is gone at once in this isolate", async () => {
		const extra = await createProject(tenant.token, "git@github.com:acme/doomed-cache.git");
		expect((await call(`/v1/projects/${extra}/memories`, { token: tenant.token })).status).toBe(200);
		const gone = await call(`/v1/operator/projects/${extra}`, { method: "DELETE", token: "test-admin-token" });
		expect(gone.status).toBe(200);
		expect((await call(`/v1/projects/${extra}/memories`, { token: tenant.token })).status).toBe(404);
	});
});
