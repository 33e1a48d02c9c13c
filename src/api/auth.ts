import type { MiddlewareHandler } from "hono";
import { digestsEqual, parseToken, type Scope, secretMatches } from "../auth/keys";
import { sha256Hex } from "../lib/ids";
import { currentTiming } from "../lib/timing";
import { projectCacheKey, projectRows, verifiedKeys } from "../registry/cache";
import { keyWithProject, tenantProject } from "../registry/projects";
import type { AppEnv } from "./context";
import { CairnError } from "./errors";

const bearer = (header: string | undefined) => /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1] ?? null;

/**
 * Resolves the Bearer API key to tenant, user and scopes. A verified key (and the project row read
 * with it) is kept in the isolate for ISOLATE_CACHE_SECONDS (src/lib/isolate-cache.ts): a warm request
 * makes no D1 round trip, and a key revoked in another isolate stops working here within that bound
 * (in the isolate that revoked it, on the next request).
 */
export function requireKey(): MiddlewareHandler<AppEnv> {
	return async function requireKey(c, next) {
		const started = performance.now();
		const token = bearer(c.req.header("Authorization"));
		const parsed = token ? parseToken(token) : null;
		if (!token || !parsed) throw new CairnError("unauthorized", "a valid API key is required (Authorization: Bearer cairn_…)");
		const digest = await sha256Hex(token);
		// A route under /v1/projects/{projectId} names its project: read with the key, checked by loadProject.
		const projectId = c.req.param("projectId");
		const known = verifiedKeys.get(digest);
		if (known) {
			c.set("auth", known);
			if (projectId) {
				const row = projectRows.get(projectCacheKey(known.tenantId, projectId));
				// Not cached: loadProject reads it (prefetched stays unset).
				if (row) c.set("prefetchedProject", row);
			}
			currentTiming()?.add("auth", performance.now() - started);
			return next();
		}
		// Project routes read the project in the same round trip, scoped to the key's tenant; it is used
		// only once the key has been verified below.
		const { key: row, project: prefetched } = await keyWithProject(c.env.DB, parsed.id, projectId || null);
		// Compare against a dummy digest when the id is unknown, so timing does not reveal which ids exist.
		const ok = digestsEqual(digest, row?.digest ?? "0".repeat(64));
		if (!ok || !row) throw new CairnError("unauthorized", "the API key is not valid");
		const auth = Object.freeze({
			tenantId: row.tenant_id,
			userId: row.user_id,
			keyId: row.id,
			scopes: Object.freeze(JSON.parse(row.scopes) as Scope[]) as Scope[],
			projectId: row.project_id,
		});
		verifiedKeys.set(digest, auth);
		c.set("auth", auth);
		if (projectId) {
			if (prefetched) projectRows.set(projectCacheKey(auth.tenantId, prefetched.id), prefetched);
			c.set("prefetchedProject", prefetched);
		}
		currentTiming()?.add("auth", performance.now() - started);
		await next();
	};
}

/** The key must carry `scope`; routes declare it beside their path (src/api/route.ts). */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
	return async function requireScope(c, next) {
		if (!c.get("auth").scopes.includes(scope)) {
			throw new CairnError("forbidden", `this API key lacks the "${scope}" scope`);
		}
		await next();
	};
}

/** Tenant-wide acts (policy) are refused to keys limited to one project, whatever their scopes. */
export function requireTenantWideKey(): MiddlewareHandler<AppEnv> {
	return async function requireTenantWideKey(c, next) {
		if (c.get("auth").projectId) {
			throw new CairnError("forbidden", "this API key is limited to one project; tenant policy needs a tenant-wide admin key");
		}
		await next();
	};
}

/**
 * Loads `:projectId` within the key's tenant. Another tenant's project is indistinguishable from a
 * missing one (404); a project-limited key reaching for another project of its tenant gets 403.
 */
export function loadProject(): MiddlewareHandler<AppEnv> {
	return async function loadProject(c, next) {
		const started = performance.now();
		const auth = c.get("auth");
		const projectId = c.req.param("projectId") ?? "";
		const prefetched = c.get("prefetchedProject");
		const project =
			prefetched !== undefined
				? prefetched?.id === projectId
					? prefetched
					: null
				: await tenantProject(c.env.DB, auth.tenantId, projectId);
		if (!project) throw new CairnError("not_found", "project not found");
		if (prefetched === undefined) projectRows.set(projectCacheKey(auth.tenantId, project.id), project);
		if (auth.projectId && auth.projectId !== project.id) {
			throw new CairnError("forbidden", "this API key is limited to another project");
		}
		c.set("project", project);
		c.set("projectContext", { tenantId: auth.tenantId, userId: auth.userId, projectId: project.id });
		currentTiming()?.add("project", performance.now() - started);
		await next();
	};
}

/** The operator's token (`CAIRN_ADMIN_TOKEN`), used only to create tenants. */
export function requireAdminToken(): MiddlewareHandler<AppEnv> {
	return async function requireAdminToken(c, next) {
		const token = bearer(c.req.header("Authorization"));
		if (!token || !(await secretMatches(token, c.env.CAIRN_ADMIN_TOKEN ?? ""))) {
			throw new CairnError("unauthorized", "the operator token (CAIRN_ADMIN_TOKEN) is required");
		}
		await next();
	};
}
