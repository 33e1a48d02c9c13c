import { OpenAPIHono, z } from "@hono/zod-openapi";
import { deleteProject, deleteTenant } from "../../worker/lifecycle";
import { moveStorage } from "../../worker/mover";
import type { AppEnv } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonResponse } from "../schemas";

/** Operator routes: the deployment's own token (`CAIRN_ADMIN_TOKEN`), never an API key. */
export const operatorRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("operator");

const IdParam = (name: string) =>
	z
		.string()
		.regex(/^[a-z]{3}_[A-Za-z0-9]{1,64}$/)
		.openapi({ param: { name, in: "path" } });

operatorRoutes.openapi(
	route({
		method: "post",
		path: "/v1/operator/storage/move",
		auth: "operator",
		summary: "Move the old shared D1 layout into per-project objects; resumable, safe to repeat",
		request: {
			body: {
				required: false,
				content: {
					"application/json": {
						schema: z.object({
							maxRows: z
								.number()
								.int()
								.min(1)
								.max(1_000_000)
								.optional()
								.openapi({ description: "Stop after copying about this many rows" }),
						}),
					},
				},
			},
		},
		responses: {
			200: {
				description: "Progress; call again while `done` is false",
				content: {
					"application/json": { schema: z.object({ moved: z.number().int(), rows: z.number().int(), done: z.boolean() }) },
				},
			},
			...errors(400, 401),
		},
	}),
	async (c) => {
		const body = c.req.header("Content-Type")?.includes("application/json") ? c.req.valid("json") : {};
		return c.json(await moveStorage(c.env, { maxRows: body?.maxRows ?? 50_000 }), 200);
	},
);

operatorRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/operator/projects/{projectId}",
		auth: "operator",
		summary: "Delete a project and everything it holds: its object, its files, its keys and settings",
		request: { params: z.object({ projectId: IdParam("projectId") }) },
		responses: { 200: jsonResponse("Deleted", z.object({ projectId: z.string(), objects: z.number().int() })), ...errors(400, 401, 404) },
	}),
	async (c) => c.json(await deleteProject(c.env, c.req.valid("param").projectId), 200),
);

operatorRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/operator/tenants/{tenantId}",
		auth: "operator",
		summary: "Delete a tenant: every project (objects, files), users, keys, settings and policy",
		request: { params: z.object({ tenantId: IdParam("tenantId") }) },
		responses: {
			200: jsonResponse("Deleted", z.object({ projects: z.array(z.object({ projectId: z.string(), objects: z.number().int() })) })),
			...errors(400, 401, 404),
		},
	}),
	async (c) => c.json(await deleteTenant(c.env, c.req.valid("param").tenantId), 200),
);
