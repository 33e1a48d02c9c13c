import { OpenAPIHono, z } from "@hono/zod-openapi";
import { projectStore } from "../../project/client";
import { effectiveSettings, requireFeature } from "../../settings/settings";
import type { ProjectContext } from "../../storage/context";
import { type AppEnv, projectOf } from "../context";
import { notFound } from "../errors";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, markdownResponse, NameParam, ProjectIdParam, ProjectParams } from "../schemas";

export const pipelineRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("pipeline");

const MARKDOWN = "text/markdown; charset=utf-8";

const StatusSchema = z
	.object({
		pipeline: z.object({
			pendingOutputs: z.number().int().openapi({ description: "Stage-1 outputs not yet consolidated" }),
			running: z.boolean(),
			dirty: z.boolean(),
			generation: z.number().int().openapi({ description: "Triggers received by the project's coordinator" }),
			lastRun: z
				.object({
					at: z.string(),
					outcome: z.enum(["succeeded", "nothing to do", "failed"]),
					error: z.string().nullable(),
					changes: z.number().int(),
					outputs: z.number().int(),
				})
				.nullable(),
			deadLetters: z.number().int().openapi({ description: "Sessions whose extraction failed on every attempt" }),
		}),
	})
	.openapi("PipelineStatus");

pipelineRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/consolidate",
		scope: "write",
		summary: "Run consolidation now (the /memory rebuild command); one run per project at a time. The caller's summary is rebuilt at once",
		request: { params: ProjectParams },
		responses: { 202: jsonResponse("Scheduled", StatusSchema), ...errors(401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const settings = await effectiveSettings(c.env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
		requireFeature(settings, "memory", ["memories.enabled"]);
		await projectStore(c.env, ctx.projectId).requestRun(ctx.projectId);
		// Rebuild always rebuilds the caller's summary, pending candidates or not (a run that has some rewrites it again).
		await projectOf(c).store.rebuildSummary(ctx);
		return c.json(await status(c.env, ctx), 202);
	},
);

async function status(env: Env, ctx: ProjectContext) {
	const [state, counts] = await Promise.all([
		projectStore(env, ctx.projectId).status(ctx.projectId),
		projectStore(env, ctx.projectId).pipelineCounts(ctx),
	]);
	return {
		pipeline: {
			pendingOutputs: counts.pendingOutputs,
			running: state.running,
			dirty: state.dirty,
			generation: state.generation,
			lastRun: state.lastRun,
			deadLetters: counts.deadLetters,
		},
	};
}

pipelineRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/status",
		scope: "read",
		summary: "Pipeline state: pending outputs, the coordinator's run state and last run, dead letters",
		request: { params: ProjectParams },
		responses: { 200: jsonResponse("Status", StatusSchema), ...errors(401, 403, 404) },
	}),
	async (c) => c.json(await status(c.env, c.get("projectContext")), 200),
);

pipelineRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/summary",
		scope: "read",
		summary:
			"memory_summary.md: the caller's summary, written by consolidation (also memory://root), with its date; lines citing a memory changed or deleted since are left out (without a model it is rebuilt at once)",
		request: { params: ProjectParams },
		responses: { 200: markdownResponse("The summary"), ...errors(401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const text = await store.summary(ctx);
		if (text === null) throw notFound("memory summary");
		return c.body(text, 200, { "Content-Type": MARKDOWN });
	},
);

pipelineRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/skills",
		scope: "read",
		summary: "Skills learned by consolidation",
		request: { params: ProjectParams },
		responses: {
			200: jsonResponse(
				"Skills",
				z.object({
					skills: z.array(z.object({ name: z.string(), description: z.string(), path: z.string(), updatedAt: z.string() })),
				}),
			),
			...errors(401, 403, 404),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const rows = await store.skills(ctx);
		return c.json(
			{
				skills: rows.map((r) => ({
					name: r.name,
					description: r.description,
					path: `memory://root/skills/${r.name}/SKILL.md`,
					updatedAt: r.updated_at,
				})),
			},
			200,
		);
	},
);

pipelineRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/skills/{name}",
		scope: "read",
		summary: "One skill's SKILL.md",
		request: { params: z.object({ projectId: ProjectIdParam, name: NameParam }) },
		responses: { 200: markdownResponse("SKILL.md"), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const text = await store.skill(ctx, c.req.valid("param").name);
		if (text === null) throw notFound("skill");
		return c.body(text, 200, { "Content-Type": MARKDOWN });
	},
);
