import { OpenAPIHono, z } from "@hono/zod-openapi";
import { type CodeMark, MAX_CHECKED_PATHS } from "../../memory/code-check";
import { memoryUrl } from "../../memory/paths";
import { MemoryScopeSchema } from "../../memory/schemas";
import { BlobIdSchema, CitedPathSchema } from "../../text/citations";
import { type AppEnv, projectOf } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, ProjectParams } from "../schemas";

export const codeRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("memories");

/** A check of 5,000 paths with blob ids and renames is about 700 KB of JSON. */
export const CODE_CHECK_BODY_LIMIT = 1024 * 1024;

const CitedStampSchema = z.string().regex(/^\d{1,12}\.\d{1,12}\.\d{1,12}$/, "a stamp must be one from GET …/citations");

export const CitedAnswerSchema = z
	.object({
		stamp: z.string(),
		unchanged: z
			.boolean()
			.openapi({ description: "false: memories cite paths this check did not know of — list them again (GET …/citations)" }),
	})
	.openapi("CitedAnswer");

/** What the repository says of the cited paths: paths and git blob ids only, never file contents. */
export const CodeCheckSchema = z
	.object({
		files: z
			.array(
				z
					.object({
						path: CitedPathSchema,
						blob: BlobIdSchema.nullable().openapi({
							description:
								"Its blob id now: the working tree's where the file was edited and not staged, else git's index's; null when git does not track it or it was deleted from the working tree",
						}),
						blobAtWrite: BlobIdSchema.nullable().optional().openapi({
							description: "For a path listed with `since`: its blob id in the last commit before then (null: absent then)",
						}),
						movedTo: CitedPathSchema.optional().openapi({ description: "Where git's rename detection followed a path no longer tracked" }),
						movedBlob: BlobIdSchema.nullable().optional(),
					})
					.strict(),
			)
			.max(MAX_CHECKED_PATHS, `at most ${MAX_CHECKED_PATHS} files`),
		renames: z
			.boolean()
			.optional()
			.openapi({ description: "Whether renames were looked for (a path known to be moved stays moved otherwise)" }),
		stamp: CitedStampSchema.optional().openapi({
			description: "The `stamp` of the cited list checked: the answer's `cited.unchanged` says whether it still names the list",
		}),
	})
	.strict()
	.openapi("CodeCheck");

const CodeMarkSchema = z
	.object({
		name: z.string(),
		scope: MemoryScopeSchema,
		path: z.string().openapi({ description: "The memory's memory:// path" }),
		state: z
			.enum(["changed", "gone"])
			.openapi({ description: "changed: some cited code changed, moved or went; gone: every cited file is gone" }),
		changed: z.array(z.string()),
		moved: z.array(z.object({ from: z.string(), to: z.string() })),
		gone: z.array(z.string()),
	})
	.openapi("CodeMark");

export const toMarkBody = (m: CodeMark) => ({
	name: m.name,
	scope: m.scope,
	path: memoryUrl(m.scope, m.name),
	state: m.state,
	changed: m.changed,
	moved: m.moved,
	gone: m.gone,
});

codeRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/citations",
		scope: "read",
		summary: "The repository paths the caller's memories cite, for a check from the repository",
		description: `At most ${MAX_CHECKED_PATHS}, by path. \`since\`: the blob id the file had in the last commit before then is wanted (a citation read from a memory's text, not checked yet). With \`known\`, the stamp of an earlier answer: when the list is the same, \`unchanged\` and no paths.`,
		request: {
			params: ProjectParams,
			query: z.object({
				known: CitedStampSchema.optional().openapi({
					param: { name: "known", in: "query" },
					description: "The `stamp` of the list the caller has",
				}),
			}),
		},
		responses: {
			200: jsonResponse(
				"The cited paths",
				z.object({
					stamp: z.string().openapi({ description: "Names this list: send it as `known` next time" }),
					unchanged: z.boolean().openapi({ description: "The list is the one `known` names: no paths are sent" }),
					paths: z.array(
						z.object({
							path: z.string(),
							since: z.string().optional().openapi({ description: "Send its blob id in the last commit before then (`blobAtWrite`)" }),
							unchecked: z
								.boolean()
								.optional()
								.openapi({ description: "A citation of it was never checked: send it even when it looks unchanged" }),
						}),
					),
					truncated: z.boolean(),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => c.json(await projectOf(c).store.citedPaths(c.get("projectContext"), c.req.valid("query").known), 200),
);

codeRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/citations/check",
		scope: "read",
		bodyLimit: CODE_CHECK_BODY_LIMIT,
		summary: "Marks the caller's memories by what the repository says of their cited code; returns those whose code changed or went",
		description:
			"Send each cited path's current git blob id (null: not tracked), and for a path gone where git followed it. Paths and ids only. The same check can ride along a session-start or prompt inject (`code`).",
		request: { params: ProjectParams, body: jsonBody(CodeCheckSchema) },
		responses: {
			200: jsonResponse(
				"The memories whose cited code changed or went",
				z.object({ memories: z.array(CodeMarkSchema), cited: CitedAnswerSchema.optional() }),
			),
			...errors(400, 401, 403, 404, 413),
		},
	}),
	async (c) => {
		const { marks, cited } = await projectOf(c).store.checkCode(c.get("projectContext"), c.req.valid("json"));
		return c.json({ memories: marks.map(toMarkBody), ...(cited ? { cited } : {}) }, 200);
	},
);
