import { OpenAPIHono, z } from "@hono/zod-openapi";
import { SCOPES } from "../../auth/keys";
import { issueApiKey, listApiKeys, revokeApiKey } from "../../registry/registry";
import type { AppEnv } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, KeySchema } from "../schemas";

export const keyRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("keys");

const CreateKeySchema = z.object({
	name: z.string().trim().min(1).max(120).optional(),
	scopes: z.array(z.enum(SCOPES)).min(1).max(3),
	projectId: z.string().min(1).max(64).optional(),
	user: z
		.string()
		.trim()
		.min(1)
		.max(120)
		.optional()
		.openapi({ description: "User name in the tenant; created if new. Defaults to the caller." }),
});

keyRoutes.openapi(
	route({
		method: "post",
		path: "/v1/keys",
		scope: "admin",
		summary: "Issue an API key (admin scope); the token is shown only in this response",
		request: { body: jsonBody(CreateKeySchema) },
		responses: {
			201: jsonResponse(
				"Issued",
				z.object({
					key: z.object({
						id: z.string(),
						token: z.string(),
						scopes: z.array(z.string()),
						projectId: z.string().nullable(),
						userId: z.string(),
					}),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		return c.json({ key: await issueApiKey(c.env.DB, c.get("auth"), c.req.valid("json")) }, 201);
	},
);

keyRoutes.openapi(
	route({
		method: "get",
		path: "/v1/keys",
		scope: "admin",
		summary: "List the tenant's keys (never their tokens); a project-limited key sees its own user's keys of its project",
		responses: { 200: jsonResponse("Keys", z.object({ keys: z.array(KeySchema) })), ...errors(401, 403) },
	}),
	async (c) => {
		return c.json({ keys: await listApiKeys(c.env.DB, c.get("auth")) }, 200);
	},
);

keyRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/keys/{id}",
		scope: "admin",
		summary:
			"Revoke a key: refused from the next request where it was revoked, and everywhere within 10 seconds (the isolate cache's bound)",
		request: { params: z.object({ id: z.string().min(1).max(64) }) },
		responses: { 204: { description: "Revoked" }, ...errors(401, 403, 404) },
	}),
	async (c) => {
		await revokeApiKey(c.env.DB, c.get("auth"), c.req.valid("param").id);
		return c.body(null, 204);
	},
);
