import { OpenAPIHono, z } from "@hono/zod-openapi";
import { buildInjection } from "../../inject/inject";
import { deleteTeamFile, pushTeamMemory, TEAM_FILE_PATH, teamFiles, teamHashes } from "../../memory/team-sync";
import { type AppEnv, projectOf } from "../context";
import { CairnError } from "../errors";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, ProjectIdParam, ProjectParams } from "../schemas";
import { InjectResultSchema } from "./recall";

export const teamMemoryRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("team memory");

/** A team sync push carries at most this much. */
export const TEAM_SYNC_BODY_LIMIT = 200 * 1024;
const PathSchema = z.string().regex(TEAM_FILE_PATH).openapi({ example: "testing-conventions.md" });
const Sha = z.string().regex(/^[0-9a-f]{64}$/);

teamMemoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/team-memory",
		scope: "read",
		summary: "Team memory for sync: `?view=hashes` → path → sha256; otherwise every file with its content",
		description:
			"The files a person vouched for, and the caller's own proposals (docs/memory-trust.md): a teammate's proposal is not pulled until it is approved.",
		request: {
			params: ProjectParams,
			query: z.object({
				view: z
					.enum(["hashes", "full"])
					.default("full")
					.openapi({ param: { name: "view", in: "query" } }),
			}),
		},
		responses: {
			200: jsonResponse(
				"Entries keyed by path (`<name>.md`)",
				z.object({ entries: z.record(z.string(), z.union([Sha, z.object({ content: z.string(), sha256: Sha })])) }),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const entries = c.req.valid("query").view === "hashes" ? await teamHashes(c.env, store, ctx) : await teamFiles(c.env, store, ctx);
		return c.json({ entries }, 200);
	},
);

const PushSchema = z.object({
	entries: z
		.array(
			z.object({
				path: PathSchema,
				content: z.string().max(TEAM_SYNC_BODY_LIMIT),
				baseSha256: Sha.optional().openapi({ description: "The server hash this edit started from; omit for a new file" }),
			}),
		)
		.min(1)
		.max(200),
});

teamMemoryRoutes.openapi(
	route({
		method: "put",
		path: "/v1/projects/{projectId}/team-memory",
		scope: "write",
		bodyLimit: TEAM_SYNC_BODY_LIMIT,
		summary: "Push changed team files (≤ 200 KB). Each entry names the hash it was edited from; stale → 412, secret → 422",
		description:
			"All entries are checked before any is written: a stale or missing base (412 version_conflict, details.conflicts), " +
			"a secret (422 secret_detected, details.paths with rule names), or a malformed file (400) refuses the whole push. " +
			"Files absent from the push are left alone: deleting a file locally deletes nothing here. " +
			"The team folder is an agent's channel: a file whose text the trust gate holds (docs/memory-trust.md) is reported `held` and not written; a project admin approves it. " +
			"Every other file written is a team proposal: pulled by its writer only, served to teammates once a person vouches for it (`vouch` review items). " +
			"A file whose newer text awaits review is a conflict entry with `awaitingReview: true` and no hash, for anyone but its writer.",
		request: { params: ProjectParams, body: jsonBody(PushSchema) },
		responses: {
			200: jsonResponse(
				"Per-entry results",
				z.object({
					results: z.array(
						z.object({
							path: z.string(),
							status: z.enum(["created", "updated", "unchanged", "held"]),
							sha256: Sha,
							awaitingReview: z.literal(true).optional().openapi({
								description: "A team proposal: pulled by its writer only until a person approves it",
							}),
						}),
					),
				}),
			),
			...errors(400, 401, 403, 404, 412, 413, 422),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json({ results: await pushTeamMemory(c.env, store, ctx, c.req.valid("json").entries) }, 200);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/projects/{projectId}/team-memory/{path}",
		scope: "write",
		summary: "Delete one team file explicitly (the only way a team file is removed)",
		request: { params: z.object({ projectId: ProjectIdParam, path: PathSchema.openapi({ param: { name: "path", in: "path" } }) }) },
		responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		await deleteTeamFile(c.env, store, ctx, c.req.valid("param").path);
		return c.body(null, 204);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/view",
		scope: "read",
		tags: ["memory commands"],
		summary: "/memory view: the current inject payload for an empty query",
		request: { params: ProjectParams },
		responses: { 200: jsonResponse("The inject payload", InjectResultSchema), ...errors(401, 403, 404) },
	}),
	async (c) => {
		const { servedIds: _ids, listedIds: _listed, topicKeys: _topics, ...body } = await buildInjection(c.env, c.get("projectContext"), {});
		return c.json(body, 200);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/projects/{projectId}/memory",
		scope: ["admin", "write"],
		tags: ["memory commands"],
		summary: "/memory clear: delete every memory artifact of the project (confirm with ?confirm=<projectId>)",
		description:
			"Removes personal and team topic files with their versions and search rows, stage-1 outputs, summaries, skills, " +
			"daily logs, sessions with their transcripts and session memories, and audit events — in the project's object and R2. " +
			"The project, its keys and its settings stay. Needs the admin scope.",
		request: {
			params: ProjectParams,
			query: z.object({
				confirm: z
					.string()
					.max(64)
					.optional()
					.openapi({ param: { name: "confirm", in: "query" } }),
			}),
		},
		responses: { 204: { description: "Cleared" }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		if (c.req.valid("query").confirm !== ctx.projectId) {
			throw new CairnError("confirmation_required", "clearing memory needs ?confirm=<projectId> with this project's id");
		}
		await store.clear(ctx);
		return c.body(null, 204);
	},
);
