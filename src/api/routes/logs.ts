import { OpenAPIHono, z } from "@hono/zod-openapi";
import { appendDailyLog, listDailyLogs, readDailyLog } from "../../memory/daily-log";
import { effectiveSettings, requireFeature } from "../../settings/settings";
import type { AppEnv } from "../context";
import { notFound } from "../errors";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, markdownResponse, ProjectIdParam, ProjectParams } from "../schemas";

export const logRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("logs");

const DateParam = z
	.string()
	.max(10)
	.openapi({ param: { name: "date", in: "path" }, example: "2026-11-29" });

logRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/logs/{date}",
		scope: "write",
		summary: "Append an entry to the caller's daily log under a section",
		request: {
			params: z.object({ projectId: ProjectIdParam, date: DateParam }),
			body: {
				required: true,
				content: {
					"application/json": {
						schema: z.object({
							entry: z.string().max(16_384),
							section: z.string().max(40).optional().openapi({ example: "In progress" }),
						}),
					},
				},
			},
		},
		responses: {
			201: jsonResponse("Appended", z.object({ date: z.string(), path: z.string(), bytes: z.number() })),
			...errors(400, 401, 403, 404, 412, 413, 422),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const settings = await effectiveSettings(c.env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
		requireFeature(settings, "daily logging", ["memories.assistantLog"]);
		const { date } = c.req.valid("param");
		const { entry, section } = c.req.valid("json");
		const text = await appendDailyLog(c.env, ctx, date, entry, section);
		return c.json({ date, path: `memory://root/logs/${date}.md`, bytes: new TextEncoder().encode(text).byteLength }, 201);
	},
);

logRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/logs/{date}",
		scope: "read",
		summary: "The caller's daily log for a date, as markdown",
		request: { params: z.object({ projectId: ProjectIdParam, date: DateParam }) },
		responses: { 200: markdownResponse("The log"), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const text = await readDailyLog(c.env, c.get("projectContext"), c.req.valid("param").date);
		if (text === null) throw notFound("log");
		return c.body(text, 200, { "Content-Type": "text/markdown; charset=utf-8" });
	},
);

logRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/logs",
		scope: "read",
		summary: "The caller's daily logs between two dates, newest first",
		request: {
			params: ProjectParams,
			query: z.object({ from: z.string().max(10).optional(), to: z.string().max(10).optional() }),
		},
		responses: {
			200: {
				description: "Logs",
				content: {
					"application/json": { schema: z.object({ logs: z.array(z.object({ date: z.string(), path: z.string(), bytes: z.number() })) }) },
				},
			},
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { from, to } = c.req.valid("query");
		return c.json({ logs: await listDailyLogs(c.env, c.get("projectContext"), from, to) }, 200);
	},
);
