import { OpenAPIHono, z } from "@hono/zod-openapi";
import { createTenant } from "../../registry/registry";
import { parseSettingsPatch, readLevel, writeLevel } from "../../settings/settings";
import type { AppEnv } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, SettingsPatchSchema } from "../schemas";

export const adminRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("settings");

const createTenantRoute = route({
	method: "post",
	path: "/v1/admin/tenants",
	auth: "operator",
	tags: ["admin"],
	summary: "Create a tenant, its first user and an all-scopes key (operator token)",
	request: {
		body: {
			required: true,
			content: {
				"application/json": {
					schema: z.object({ name: z.string().trim().min(1).max(120), user: z.string().trim().min(1).max(120) }),
				},
			},
		},
	},
	responses: {
		201: jsonResponse(
			"Created; the key's token is shown only here",
			z.object({
				tenant: z.object({ id: z.string(), name: z.string() }),
				user: z.object({ id: z.string(), name: z.string() }),
				key: z.object({ id: z.string(), token: z.string(), scopes: z.array(z.string()) }),
			}),
		),
		...errors(400, 401),
	},
});

adminRoutes.openapi(createTenantRoute, async (c) => {
	const { name, user } = c.req.valid("json");
	return c.json(await createTenant(c.env.DB, name, user), 201);
});

const PolicySchema = z.object({ policy: z.record(z.string(), z.unknown()) });

adminRoutes.openapi(
	route({
		method: "get",
		path: "/v1/admin/policy",
		scope: "admin",
		tenantWide: true,
		summary: "The tenant's managed policy (wins over project and user settings)",
		responses: { 200: jsonResponse("Policy", PolicySchema), ...errors(401, 403) },
	}),
	async (c) => {
		const { tenantId } = c.get("auth");
		return c.json({ policy: await readLevel(c.env.DB, tenantId, "policy", tenantId) }, 200);
	},
);

adminRoutes.openapi(
	route({
		method: "put",
		path: "/v1/admin/policy",
		scope: "admin",
		tenantWide: true,
		summary: "Patch the tenant's managed policy; null clears a key",
		request: { body: jsonBody(SettingsPatchSchema) },
		responses: { 200: jsonResponse("Policy", PolicySchema), ...errors(400, 401, 403) },
	}),
	async (c) => {
		const { tenantId } = c.get("auth");
		const patch = parseSettingsPatch(c.req.valid("json"));
		return c.json({ policy: await writeLevel(c.env.DB, tenantId, "policy", tenantId, patch) }, 200);
	},
);
