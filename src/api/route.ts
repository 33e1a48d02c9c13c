import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { Scope } from "../auth/keys";
import { loadProject, requireAdminToken, requireKey, requireScope, requireTenantWideKey } from "./auth";
import type { AppEnv } from "./context";
import { CairnError } from "./errors";

/** Request bodies unless a route declares otherwise: a topic file is ≤ 64 KB. */
export const DEFAULT_BODY_LIMIT = 256 * 1024;

/**
 * What a route states at its edge, beside its path: who may call it and how large a body it takes.
 *
 * - `scope`: an API key with this scope (or every one of these scopes, checked in order) is required.
 *   A path under `/v1/projects/{projectId}` also loads that project for the key's tenant first.
 *   `tenantWide`: a key limited to one project is refused whatever its scopes (tenant policy).
 * - `auth: "operator"`: the deployment's operator token (`CAIRN_ADMIN_TOKEN`) and never an API key.
 * - `auth: "public"`: no caller check at all (the service's front page); the document says so with an
 *   empty `security` and `"x-cairn-public": true`.
 * - `bodyLimit`: the largest body in bytes (default {@link DEFAULT_BODY_LIMIT}); over it is a 413
 *   `payload_too_large`. `streamed`: the handler reads the body as it arrives and counts it there, so
 *   only a declared Content-Length is checked up front.
 */
export type Edge = { bodyLimit?: number; streamed?: true } & (
	| { auth: "operator"; scope?: never; tenantWide?: never }
	| { auth: "public"; scope?: never; tenantWide?: never }
	| { auth?: never; scope: Scope | readonly [Scope, ...Scope[]]; tenantWide?: true }
);

const tooLarge = (limit: number) => {
	throw new CairnError("payload_too_large", `request body exceeds ${limit} bytes`);
};

/** A 413 past `limit` bytes: from the declared length, or while the body is read. */
export function limitBody(limit = DEFAULT_BODY_LIMIT, streamed = false): MiddlewareHandler<AppEnv> {
	if (streamed) {
		return async function limitStreamedBody(c, next) {
			if (Number(c.req.header("content-length") ?? 0) > limit) tooLarge(limit);
			await next();
		};
	}
	return bodyLimit({ maxSize: limit, onError: () => tooLarge(limit) });
}

/**
 * The middleware an edge declaration stands for, in the order the checks answer: body size first (a
 * 413 needs no lookup), then the caller (401), the project (404 for another tenant's, 403 for a key
 * limited to another), then the scopes (403).
 */
export function edgeMiddleware(path: string, edge: Edge): MiddlewareHandler<AppEnv>[] {
	const chain = [limitBody(edge.bodyLimit, edge.streamed)];
	if (edge.auth === "public") return chain;
	if (edge.auth === "operator") return [...chain, requireAdminToken()];
	chain.push(requireKey());
	if (path.startsWith("/v1/projects/{projectId}")) chain.push(loadProject());
	for (const scope of typeof edge.scope === "string" ? [edge.scope] : edge.scope) chain.push(requireScope(scope));
	if (edge.tenantWide) chain.push(requireTenantWideKey());
	return chain;
}

/** What the OpenAPI operation says of an edge: its security requirement (the scheme and the scopes it needs). */
function edgeDocument(edge: Edge) {
	if (edge.auth === "public") return { security: [], "x-cairn-public": true as const };
	if (edge.auth === "operator") return { security: [{ operatorToken: [] }] };
	const scopes: Scope[] = typeof edge.scope === "string" ? [edge.scope] : [...edge.scope];
	return {
		security: [{ apiKey: scopes }],
		...(scopes.includes("admin") ? { "x-cairn-scope": "admin" as const } : {}),
		...(edge.tenantWide ? { "x-cairn-tenant-wide": true as const } : {}),
	};
}

/**
 * `createRoute` with the route's edge declared beside its path:
 *
 * ```ts
 * route({ method: "post", path: "/v1/projects/{projectId}/memories/batch", scope: "write", bodyLimit: BATCH_BODY_LIMIT, … })
 * ```
 *
 * The declaration becomes the route's middleware and its OpenAPI `security`, so what is enforced and
 * what the document says cannot drift apart (test/authorization-integration.test.ts reads the latter).
 */
export function route<const P extends string, R extends Omit<RouteConfig, "path" | "middleware" | "security"> & { path: P }>(
	declared: R & Edge,
) {
	const { scope, auth, tenantWide, bodyLimit: limit, streamed, ...config } = declared;
	const edge = { scope, auth, tenantWide, bodyLimit: limit, streamed } as Edge;
	return createRoute({ ...config, ...edgeDocument(edge), middleware: edgeMiddleware(config.path, edge) });
}

/**
 * Every operation must have been declared with {@link route}: one made with a bare `createRoute` would
 * carry no caller check at all, so the app refuses to start with it.
 */
export function assertEdgesDeclared(app: OpenAPIHono<AppEnv>) {
	for (const def of app.openAPIRegistry.definitions) {
		if (def.type === "route" && !def.route.security?.length && (def.route as { "x-cairn-public"?: true })["x-cairn-public"] !== true) {
			throw new Error(`${def.route.method.toUpperCase()} ${def.route.path} declares no caller: make it with route() from src/api/route.ts`);
		}
	}
}

/**
 * {@link route} for a file whose routes share an OpenAPI tag, named once at its top; a route may still
 * name its own `tags`.
 */
export const taggedRoutes =
	(tag: string) =>
	<const P extends string, R extends Omit<RouteConfig, "path" | "middleware" | "security"> & { path: P }>(declared: R & Edge) =>
		route<P, R>({ tags: [tag], ...declared });
