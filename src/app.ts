import { OpenAPIHono } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { loadProject, requireKey, requireMethodScope } from "./api/auth";
import type { AppEnv } from "./api/context";
import { CairnError, errorResponse } from "./api/errors";
import { adminRoutes } from "./api/routes/admin";
import { keyRoutes } from "./api/routes/keys";
import { logRoutes } from "./api/routes/logs";
import { memoryRoutes } from "./api/routes/memories";
import { operatorRoutes } from "./api/routes/operator";
import { pipelineRoutes } from "./api/routes/pipeline";
import { projectRoutes } from "./api/routes/projects";
import { recallRoutes } from "./api/routes/recall";
import { reviewRoutes } from "./api/routes/reviews";
import { sessionRoutes, TRANSCRIPT_BODY_LIMIT } from "./api/routes/sessions";
import { settingsRoutes } from "./api/routes/settings";
import { TEAM_SYNC_BODY_LIMIT, teamMemoryRoutes } from "./api/routes/team-memory";
import { BatchItemSchema } from "./api/schemas";
import { consoleRoutes } from "./console";
import { bearerChallenge, mcpPostOnly, mcpRoute } from "./mcp/route";

/** Request bodies: a topic file is ≤ 64 KB; a batch of 100 needs more room. */
const BODY_LIMIT = 256 * 1024;
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

/**
 * Zod validation failures become 400s that name the field. A bad memory name in the path is
 * `invalid_name`. Values are never echoed: they may be untrusted text.
 */
export const validationHook = (
	result: { success: boolean; target?: string; error?: { issues: { path: PropertyKey[]; message: string }[] } },
	c: Parameters<typeof errorResponse>[0],
) => {
	if (result.success) return;
	const issue = result.error?.issues[0];
	const field = issue?.path.map(String).join(".") || String(result.target ?? "body");
	if (result.target === "param" && field === "name") {
		return errorResponse(
			c,
			new CairnError(
				"invalid_name",
				"memory name must be 1-64 characters of lowercase letters, digits and '-', starting with a letter or digit",
			),
		);
	}
	return errorResponse(
		c,
		new CairnError("invalid_request", `invalid ${result.target ?? "request"} field "${field}": ${issue?.message ?? "invalid"}`, {
			field,
		}),
	);
};

export function createApp() {
	const app = new OpenAPIHono<AppEnv>({ defaultHook: validationHook });

	app.onError((err, c) => {
		if (err instanceof CairnError) return errorResponse(c, err);
		if (err instanceof HTTPException) {
			const code = err.status === 413 ? "payload_too_large" : err.status === 415 ? "unsupported_media_type" : "invalid_request";
			return errorResponse(c, new CairnError(code, code === "invalid_request" ? "the request could not be read" : err.message));
		}
		// Internal detail goes to the log only; callers get a message Cairn controls.
		console.error("unhandled error", err instanceof Error ? err.stack : String(err));
		return errorResponse(c, new CairnError("internal_error", "internal error"));
	});
	app.notFound((c) => errorResponse(c, new CairnError("not_found", "no such route")));

	app.get("/health", (c) => c.json({ status: "ok" }));

	const tooLarge = (limit: number) => () => {
		throw new CairnError("payload_too_large", `request body exceeds ${limit} bytes`);
	};
	// Body limits belong to routes (method and full path), never to a path suffix: `PUT …/memories/transcript`
	// is a memory named "transcript" and gets the ordinary limit.
	// A streamed route reads its body as it arrives and counts it there: only a declared length is checked up front.
	const largeBodies: { method: string; path: RegExp; limit: number; streamed?: true }[] = [
		{ method: "POST", path: /^\/v1\/projects\/[^/]+\/memories\/batch$/, limit: BATCH_BODY_LIMIT },
		{ method: "POST", path: /^\/v1\/projects\/[^/]+\/sessions\/[^/]+\/transcript$/, limit: TRANSCRIPT_BODY_LIMIT, streamed: true },
		{ method: "PUT", path: /^\/v1\/projects\/[^/]+\/team-memory$/, limit: TEAM_SYNC_BODY_LIMIT },
	];
	const limiters = new Map(
		[BODY_LIMIT, ...largeBodies.map((r) => r.limit)].map((limit) => [limit, bodyLimit({ maxSize: limit, onError: tooLarge(limit) })]),
	);
	app.use("/v1/*", async (c, next) => {
		const route = largeBodies.find((r) => r.method === c.req.method && r.path.test(c.req.path));
		if (route?.streamed) {
			if (Number(c.req.header("content-length") ?? 0) > route.limit) tooLarge(route.limit)();
			return next();
		}
		return (limiters.get(route?.limit ?? BODY_LIMIT) as MiddlewareHandler)(c, next);
	});

	// Tenant creation and /v1/operator/* use the operator token; every other /v1 route uses an API key.
	const keyAuth = requireKey();
	app.use("/v1/*", async (c, next) =>
		c.req.path === "/v1/admin/tenants" || c.req.path.startsWith("/v1/operator/") ? next() : keyAuth(c, next),
	);
	// /mcp: POST only (405 before anything else), then the same key check as /v1, answering 401 with a Bearer challenge.
	app.use("/mcp", mcpPostOnly, bearerChallenge, bodyLimit({ maxSize: BODY_LIMIT, onError: tooLarge(BODY_LIMIT) }), keyAuth);
	app.post("/mcp", mcpRoute);
	app.use("/v1/projects/:projectId", loadProject());
	app.use("/v1/projects/:projectId/*", loadProject(), requireMethodScope());
	app.use("/v1/settings", requireMethodScope());

	// An empty memory name ("/memories/") would otherwise fall through to "no such route".
	app.all("/v1/projects/:projectId/memories/", () => {
		throw new CairnError("invalid_name", "memory name must not be empty");
	});

	app.route("/", adminRoutes);
	app.route("/", operatorRoutes);
	app.route("/", keyRoutes);
	app.route("/", projectRoutes);
	app.route("/", memoryRoutes);
	app.route("/", settingsRoutes);
	app.route("/", recallRoutes);
	app.route("/", logRoutes);
	app.route("/", sessionRoutes);
	app.route("/", pipelineRoutes);
	app.route("/", teamMemoryRoutes);
	app.route("/", reviewRoutes);

	// The web console: its own session cookie, honoured only under /console; it calls the routes above.
	app.route(
		"/console",
		consoleRoutes((request, env, ctx) => app.fetch(request, env, ctx)),
	);

	app.openAPIRegistry.register("BatchMemoryInput", BatchItemSchema);
	app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
		type: "http",
		scheme: "bearer",
		description: "cairn_<id>_<secret>",
	});
	app.doc31("/openapi.json", {
		openapi: "3.1.0",
		info: {
			title: "Cairn",
			version: "0.1.0",
			description: 'Long-term memory for coding agents. Errors are always {"error":{"code","message","details"?}}.',
		},
		security: [{ apiKey: [] }],
	});
	return app;
}
