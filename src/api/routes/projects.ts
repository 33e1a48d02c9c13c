import { OpenAPIHono, z } from "@hono/zod-openapi";
import { GitRemoteSchema, ProjectNameSchema, RootPathSchema } from "../../registry/identity";
import { listProjects, registerProject } from "../../registry/registry";
import type { AppEnv, ProjectRecord } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, ProjectParams, ProjectSchema } from "../schemas";

export const projectRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("projects");

const toProject = (p: ProjectRecord) => ({ id: p.id, name: p.name, canonicalKey: p.canonical_key, createdAt: p.created_at });
const ProjectBodySchema = z.object({ project: ProjectSchema });

projectRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects",
		scope: "write",
		summary: "Register a project by git remote (or root path); every clone and worktree maps to one project",
		request: {
			body: {
				required: true,
				content: {
					"application/json": {
						schema: z.object({
							name: ProjectNameSchema,
							gitRemote: GitRemoteSchema.optional().openapi({ example: "git@github.com:acme/api.git" }),
							rootPath: RootPathSchema.optional().openapi({ example: "/home/dev/api" }),
						}),
					},
				},
			},
		},
		responses: {
			201: jsonResponse("Created", ProjectBodySchema),
			200: jsonResponse("Already registered", ProjectBodySchema),
			...errors(400, 401, 403),
		},
	}),
	async (c) => {
		const { project, created } = await registerProject(c.env.DB, c.get("auth"), c.req.valid("json"));
		return c.json({ project: toProject(project) }, created ? 201 : 200);
	},
);

projectRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects",
		scope: "read",
		summary: "List the tenant's projects (only its own for a project-limited key)",
		responses: { 200: jsonResponse("Projects", z.object({ projects: z.array(ProjectSchema) })), ...errors(401, 403) },
	}),
	async (c) => {
		const results = await listProjects(c.env.DB, c.get("auth"));
		return c.json({ projects: results.map(toProject) }, 200);
	},
);

projectRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}",
		scope: "read",
		summary: "One project",
		request: { params: ProjectParams },
		responses: { 200: jsonResponse("Project", ProjectBodySchema), ...errors(401, 403, 404) },
	}),
	(c) => c.json({ project: toProject(c.get("project")) }, 200),
);
