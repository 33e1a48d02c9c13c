import { OpenAPIHono } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "./api/context";
import { CairnError, errorResponse } from "./api/errors";
import { assertEdgesDeclared } from "./api/route";
import { adminRoutes } from "./api/routes/admin";
import { codeRoutes } from "./api/routes/code";
import { heldRoutes } from "./api/routes/held";
import { homeRoutes } from "./api/routes/home";
import { keyRoutes } from "./api/routes/keys";
import { logRoutes } from "./api/routes/logs";
import { memoryRoutes } from "./api/routes/memories";
import { operatorRoutes } from "./api/routes/operator";
import { pipelineRoutes } from "./api/routes/pipeline";
import { projectRoutes } from "./api/routes/projects";
import { recallRoutes } from "./api/routes/recall";
import { reviewRoutes } from "./api/routes/reviews";
import { sessionRoutes } from "./api/routes/sessions";
import { settingsRoutes } from "./api/routes/settings";
import { teamMemoryRoutes } from "./api/routes/team-memory";
import { BatchItemSchema } from "./api/schemas";
import { sessionKeyRecorder } from "./api/session-keys";
import { consoleRoutes } from "./console";
import { collecting, Timing } from "./lib/timing";
import { mcpEndpoint } from "./mcp/route";

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

	// Each response's phases as Server-Timing, where the environment asks for it (local runs; src/lib/timing.ts).
	app.use("*", async (c, next) => {
		if (!c.env.CAIRN_SERVER_TIMING) return next();
		const timing = new Timing();
		const started = performance.now();
		await collecting(timing, next);
		timing.add("total", performance.now() - started);
		try {
			c.res.headers.set("Server-Timing", timing.header());
		} catch {
			// A response with immutable headers (a fetched or streamed one) is copied to carry it.
			c.res = new Response(c.res.body, c.res);
			c.res.headers.set("Server-Timing", timing.header());
		}
	});

	app.get("/health", (c) => c.json({ status: "ok" }));

	// A key an agent session uses is marked in the project: it never vouches or approves there (src/trust/vouch.ts).
	app.use("/v1/projects/*", sessionKeyRecorder());

	// Every route declares its own body limit, caller and scopes beside its path (src/api/route.ts); /mcp
	// declares its chain in src/mcp/route.ts.
	app.all("/mcp", ...mcpEndpoint);

	app.route("/", homeRoutes);
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
	app.route("/", codeRoutes);
	app.route("/", heldRoutes);

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
	app.openAPIRegistry.registerComponent("securitySchemes", "operatorToken", {
		type: "http",
		scheme: "bearer",
		description: "The deployment's operator token (CAIRN_ADMIN_TOKEN)",
	});
	assertEdgesDeclared(app);
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
