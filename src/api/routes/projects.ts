import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import { newId, nowIso } from "../../lib/ids";
import { canonicalKeyFromPath, canonicalKeyFromRemote } from "../../projects/identity";
import { requireScope } from "../auth";
import type { AppEnv, ProjectRecord } from "../context";
import { badRequest, CairnError } from "../errors";
import { errors, ProjectIdParam, ProjectSchema } from "../schemas";

export const projectRoutes = new OpenAPIHono<AppEnv>();

const toProject = (p: ProjectRecord) => ({ id: p.id, name: p.name, canonicalKey: p.canonical_key, createdAt: p.created_at });
const projectResponse = { "application/json": { schema: z.object({ project: ProjectSchema }) } };
const SELECT_PROJECT = "SELECT id, tenant_id, name, canonical_key, git_remote, root_path, created_at FROM projects";

projectRoutes.openapi(
	createRoute({
		method: "post",
		path: "/v1/projects",
		tags: ["projects"],
		summary: "Register a project by git remote (or root path); every clone and worktree maps to one project",
		middleware: [requireScope("write")] as const,
		request: {
			body: {
				required: true,
				content: {
					"application/json": {
						schema: z.object({
							name: z.string().trim().min(1).max(200),
							gitRemote: z.string().max(2048).optional().openapi({ example: "git@github.com:acme/api.git" }),
							rootPath: z.string().max(1024).optional().openapi({ example: "/home/dev/api" }),
						}),
					},
				},
			},
		},
		responses: {
			201: { description: "Created", content: projectResponse },
			200: { description: "Already registered", content: projectResponse },
			...errors(400, 401, 403),
		},
	}),
	async (c) => {
		const auth = c.get("auth");
		const body = c.req.valid("json");
		if (!body.gitRemote && !body.rootPath) throw badRequest("gitRemote or rootPath is required", { field: "gitRemote" });
		const canonicalKey = body.gitRemote ? canonicalKeyFromRemote(body.gitRemote) : canonicalKeyFromPath(body.rootPath ?? "");
		if (!canonicalKey) {
			throw badRequest(body.gitRemote ? "gitRemote is not a recognisable git remote URL" : "rootPath must be an absolute path", {
				field: body.gitRemote ? "gitRemote" : "rootPath",
			});
		}
		const existing = await c.env.DB.prepare(`${SELECT_PROJECT} WHERE tenant_id = ? AND canonical_key = ?`)
			.bind(auth.tenantId, canonicalKey)
			.first<ProjectRecord>();
		if (auth.projectId && existing?.id !== auth.projectId) {
			throw new CairnError("forbidden", "this API key is limited to another project");
		}
		if (existing) return c.json({ project: toProject(existing) }, 200);
		// Only the canonical key is stored from the remote: a remote URL may carry credentials.
		const inserted = await c.env.DB.prepare(
			// A new project starts in the per-project layout: the storage mover has nothing to move for it.
			`INSERT INTO projects (id, tenant_id, name, canonical_key, root_path, storage_moved_at) VALUES (?, ?, ?, ?, ?, ?)
			 ON CONFLICT (tenant_id, canonical_key) DO NOTHING`,
		)
			.bind(newId("prj"), auth.tenantId, body.name, canonicalKey, body.gitRemote ? null : canonicalKey.slice("path:".length), nowIso())
			.run();
		const project = await c.env.DB.prepare(`${SELECT_PROJECT} WHERE tenant_id = ? AND canonical_key = ?`)
			.bind(auth.tenantId, canonicalKey)
			.first<ProjectRecord>();
		if (!project) throw new CairnError("internal_error", "project could not be registered");
		return c.json({ project: toProject(project) }, inserted.meta.changes > 0 ? 201 : 200);
	},
);

projectRoutes.openapi(
	createRoute({
		method: "get",
		path: "/v1/projects",
		tags: ["projects"],
		summary: "List the tenant's projects (only its own for a project-limited key)",
		middleware: [requireScope("read")] as const,
		responses: {
			200: { description: "Projects", content: { "application/json": { schema: z.object({ projects: z.array(ProjectSchema) }) } } },
			...errors(401, 403),
		},
	}),
	async (c) => {
		const auth = c.get("auth");
		const { results } = await c.env.DB.prepare(
			`${SELECT_PROJECT} WHERE tenant_id = ? AND (?2 IS NULL OR id = ?2) ORDER BY created_at, id LIMIT 1000`,
		)
			.bind(auth.tenantId, auth.projectId)
			.all<ProjectRecord>();
		return c.json({ projects: results.map(toProject) }, 200);
	},
);

projectRoutes.openapi(
	createRoute({
		method: "get",
		path: "/v1/projects/{projectId}",
		tags: ["projects"],
		summary: "One project",
		middleware: [requireScope("read")] as const,
		request: { params: z.object({ projectId: ProjectIdParam }) },
		responses: { 200: { description: "Project", content: projectResponse }, ...errors(401, 403, 404) },
	}),
	(c) => c.json({ project: toProject(c.get("project")) }, 200),
);
