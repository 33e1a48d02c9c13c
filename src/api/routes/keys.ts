import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { issueKey, SCOPES } from "../../auth/keys";
import { newId } from "../../lib/ids";
import { requireScope } from "../auth";
import type { AppEnv } from "../context";
import { badRequest, CairnError } from "../errors";
import { errors, KeySchema } from "../schemas";

export const keyRoutes = new OpenAPIHono<AppEnv>();

interface KeyListRow {
	id: string;
	name: string;
	scopes: string;
	project_id: string | null;
	user_id: string;
	created_at: string;
}

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
	createRoute({
		method: "post",
		path: "/v1/keys",
		tags: ["keys"],
		summary: "Issue an API key (admin scope); the token is shown only in this response",
		middleware: [requireScope("admin")] as const,
		request: { body: { required: true, content: { "application/json": { schema: CreateKeySchema } } } },
		responses: {
			201: {
				description: "Issued",
				content: {
					"application/json": {
						schema: z.object({
							key: z.object({
								id: z.string(),
								token: z.string(),
								scopes: z.array(z.string()),
								projectId: z.string().nullable(),
								userId: z.string(),
							}),
						}),
					},
				},
			},
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const auth = c.get("auth");
		const body = c.req.valid("json");
		const scopes = [...new Set(body.scopes)];
		const projectId = body.projectId ?? auth.projectId;
		if (auth.projectId && projectId !== auth.projectId) {
			throw new CairnError("forbidden", "a project-limited key can only issue keys for its own project");
		}
		if (projectId) {
			const project = await c.env.DB.prepare("SELECT id FROM projects WHERE id = ? AND tenant_id = ?")
				.bind(projectId, auth.tenantId)
				.first();
			if (!project) throw new CairnError("not_found", "project not found");
		}
		let userId = auth.userId;
		if (body.user) {
			await c.env.DB.prepare("INSERT INTO users (id, tenant_id, name) VALUES (?, ?, ?) ON CONFLICT (tenant_id, name) DO NOTHING")
				.bind(newId("usr"), auth.tenantId, body.user)
				.run();
			const user = await c.env.DB.prepare("SELECT id FROM users WHERE tenant_id = ? AND name = ?")
				.bind(auth.tenantId, body.user)
				.first<{ id: string }>();
			if (!user) throw badRequest("user could not be created", { field: "user" });
			userId = user.id;
		}
		const key = await issueKey();
		await c.env.DB.prepare("INSERT INTO api_keys (id, tenant_id, user_id, name, digest, scopes, project_id) VALUES (?, ?, ?, ?, ?, ?, ?)")
			.bind(key.id, auth.tenantId, userId, body.name ?? "api key", key.digest, JSON.stringify(scopes), projectId ?? null)
			.run();
		return c.json({ key: { id: key.id, token: key.token, scopes, projectId: projectId ?? null, userId } }, 201);
	},
);

keyRoutes.openapi(
	createRoute({
		method: "get",
		path: "/v1/keys",
		tags: ["keys"],
		summary: "List the tenant's keys (never their tokens)",
		middleware: [requireScope("admin")] as const,
		responses: {
			200: { description: "Keys", content: { "application/json": { schema: z.object({ keys: z.array(KeySchema) }) } } },
			...errors(401, 403),
		},
	}),
	async (c) => {
		const auth = c.get("auth");
		const { results } = await c.env.DB.prepare(
			"SELECT id, name, scopes, project_id, user_id, created_at FROM api_keys WHERE tenant_id = ? AND (?2 IS NULL OR project_id = ?2) ORDER BY created_at",
		)
			.bind(auth.tenantId, auth.projectId)
			.all<KeyListRow>();
		const keys = results.map((k) => ({
			id: k.id,
			name: k.name,
			scopes: JSON.parse(k.scopes) as (typeof SCOPES)[number][],
			projectId: k.project_id,
			userId: k.user_id,
			createdAt: k.created_at,
		}));
		return c.json({ keys }, 200);
	},
);

keyRoutes.openapi(
	createRoute({
		method: "delete",
		path: "/v1/keys/{id}",
		tags: ["keys"],
		summary: "Revoke a key; effective on the next request",
		middleware: [requireScope("admin")] as const,
		request: { params: z.object({ id: z.string().min(1).max(64) }) },
		responses: { 204: { description: "Revoked" }, ...errors(401, 403, 404) },
	}),
	async (c) => {
		const auth = c.get("auth");
		const { id } = c.req.valid("param");
		const result = await c.env.DB.prepare("DELETE FROM api_keys WHERE id = ? AND tenant_id = ? AND (?3 IS NULL OR project_id = ?3)")
			.bind(id, auth.tenantId, auth.projectId)
			.run();
		if (result.meta.changes === 0) throw new CairnError("not_found", "key not found");
		return c.body(null, 204);
	},
);
