import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { BATCH_LIMIT } from "../../memory/batch";
import { type MemorySource, readMemoryContent, toMetadata } from "../../memory/store";
import {
	canonicalBody,
	type MemoryScope,
	MemoryTypeSchema,
	NAME_PATTERN,
	parseTopicFile,
	type TopicFile,
	validateCues,
	validateFields,
} from "../../memory/topic-file";
import { valueTimeline } from "../../memory/value-history";
import { clientSessionId, SESSION_ID_PATTERN } from "../../sessions/turns";
import { type Citation, validateCitations } from "../../text/citations";
import { type AppEnv, projectOf } from "../context";
import { badRequest, CairnError, notFound } from "../errors";
import { edgeMiddleware, taggedRoutes } from "../route";
import {
	errors,
	jsonResponse,
	MemoryJsonBodySchema,
	MemoryMetadataSchema,
	markdownResponse,
	NameParam,
	ProjectIdParam,
	ProjectParams,
	ScopeQuery,
	UNCOMPRESSED,
} from "../schemas";
import { requestTrust } from "../write-trust";

export const memoryRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("memories");

const MARKDOWN = "text/markdown; charset=utf-8";
/** A batch of up to BATCH_LIMIT topic files (each ≤ 64 KB) needs more room than one write. */
const BATCH_BODY_LIMIT = 8 * 1024 * 1024;

const memoryParams = z.object({ projectId: ProjectIdParam, name: NameParam });
const MemoryBodySchema = z.object({ memory: MemoryMetadataSchema });
const HeldErrorSchema = z
	.object({
		error: z.object({
			code: z.literal("held_for_review"),
			message: z.string(),
			details: z.object({ reviewId: z.string(), classes: z.array(z.string()), reasons: z.array(z.string()) }),
		}),
	})
	.openapi("HeldForReview");

/** `X-Cairn-Session` marks an explicit write by an agent; extraction skips what the agent wrote itself. */
function writeSource(c: Context<AppEnv>): { source: MemorySource; sessionId: string | null } {
	const session = c.req.header("X-Cairn-Session");
	if (session === undefined) return { source: c.req.query("source") === "agent" ? "agent" : "user", sessionId: null };
	if (!SESSION_ID_PATTERN.test(session))
		throw badRequest("X-Cairn-Session must be 1-128 characters of letters, digits, '.', '_', ':' or '-'", { field: "X-Cairn-Session" });
	return { source: "agent", sessionId: session };
}

function parseIfMatch(header: string | undefined): number | "*" | undefined {
	if (header === undefined) return undefined;
	const value = header.trim();
	if (value === "*") return "*";
	const m = /^(?:W\/)?"?(\d{1,9})"?$/.exec(value);
	if (!m?.[1]) throw badRequest('If-Match must be a version ETag such as "3"', { field: "If-Match" });
	return Number(m[1]);
}

/** Finds a memory: the given scope, or personal first and then team when no scope is given. */

const store = (c: Context<AppEnv>) => projectOf(c).store;

async function readBody(c: Context<AppEnv>, name: string): Promise<{ file: TopicFile; cues?: string[]; citations?: Citation[] }> {
	const contentType = (c.req.header("Content-Type") ?? "").toLowerCase();
	const raw = await c.req.text();
	if (contentType.startsWith("text/markdown") || contentType.startsWith("text/plain")) {
		const file = parseTopicFile(raw);
		if (file.name !== name) throw badRequest("frontmatter name must equal the name in the path", { field: "name" });
		return { file };
	}
	if (contentType.startsWith("application/json")) {
		let json: unknown;
		try {
			json = JSON.parse(raw);
		} catch {
			throw badRequest("body is not valid JSON", { field: "body" });
		}
		if (!json || typeof json !== "object" || Array.isArray(json)) throw badRequest("body must be a JSON object", { field: "body" });
		const fields = json as Record<string, unknown>;
		const { type, description } = validateFields(fields);
		if (typeof fields.body !== "string") throw badRequest("body must be a string", { field: "body" });
		return {
			file: { name, type, description, body: fields.body },
			...(fields.cues !== undefined ? { cues: validateCues(fields.cues) } : {}),
			...(fields.citations !== undefined ? { citations: validateCitations(fields.citations) } : {}),
		};
	}
	throw new CairnError("unsupported_media_type", "send text/markdown (a topic file) or application/json");
}

memoryRoutes.openapi(
	route({
		method: "put",
		path: "/v1/projects/{projectId}/memories/{name}",
		scope: "write",
		summary: "Create or update a topic file (explicit write)",
		request: {
			params: memoryParams,
			query: z.object({
				scope: ScopeQuery,
				source: z
					.enum(["user", "agent"])
					.optional()
					.openapi({ param: { name: "source", in: "query" }, description: "agent: written by an agent (implied by X-Cairn-Session)" }),
			}),
			headers: z.object({
				"if-match": z.string().optional().openapi({ description: 'Expected version, e.g. "3"; "*" requires that it exists' }),
				"x-cairn-session": z.string().optional().openapi({ description: "Agent session id; marks the write as the agent's own" }),
			}),
			body: {
				// Not `required`: the JSON schema is then applied only to JSON bodies, and markdown passes to readBody.
				required: false,
				content: {
					"text/markdown": {
						schema: z.string().openapi({
							example:
								"---\nname: testing-conventions\ndescription: Use the real database in integration tests.\ntype: feedback\n---\n\nUse the real DB by default.\n",
						}),
					},
					"application/json": { schema: MemoryJsonBodySchema },
				},
			},
		},
		responses: {
			201: jsonResponse(
				"Created. In team scope, unless the writer may vouch (an admin key, no agent session, a key no agent session used) or the project publishes team writes at once, it is a proposal (`memory.awaitingReview`): served to the writer only until a person approves it",
				MemoryBodySchema,
			),
			200: jsonResponse("Updated or unchanged (a new team version is a proposal on the same terms as a new team memory)", MemoryBodySchema),
			202: {
				description:
					"Held for review (`held_for_review`): the text asks for what a planted instruction would (docs/memory-trust.md); nothing was stored, and a project admin approves or rejects it (`details.reviewId`, `details.classes`)",
				content: { "application/json": { schema: HeldErrorSchema } },
			},
			...errors(400, 401, 403, 404, 412, 413, 415, 422),
		},
	}),
	async (c) => {
		const { name } = c.req.valid("param");
		const scope = c.req.valid("query").scope ?? "personal";
		const ifMatch = parseIfMatch(c.req.header("If-Match"));
		const origin = writeSource(c);
		const { file, cues, citations } = await readBody(c, name);
		const result = await store(c).writeMemory(c.get("projectContext"), {
			scope,
			file,
			ifMatch,
			...origin,
			trust: requestTrust(c, origin.source),
			...(cues ? { cues } : {}),
			...(citations ? { citations } : {}),
		});
		c.header("ETag", `"${result.memory.version}"`);
		return c.json({ memory: result.memory }, result.status === "created" ? 201 : 200);
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/memories/{name}",
		scope: "read",
		summary: "Read a topic file (markdown, or JSON with Accept: application/json)",
		request: { params: memoryParams, query: z.object({ scope: ScopeQuery }) },
		responses: {
			200: {
				description: "The file",
				content: {
					"text/markdown": { schema: z.string() },
					"application/json": { schema: z.object({ memory: MemoryMetadataSchema.extend({ body: z.string() }) }) },
				},
			},
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { name } = c.req.valid("param");
		const { row, content } = await store(c).readMemory(c.get("projectContext"), name, c.req.valid("query").scope);
		c.header("ETag", `"${row.version}"`);
		if ((c.req.header("Accept") ?? "").includes("application/json")) {
			return c.json({ memory: { ...toMetadata(row), body: canonicalBody(content) } }, 200, UNCOMPRESSED);
		}
		return c.body(content, 200, { "Content-Type": MARKDOWN });
	},
);

memoryRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/projects/{projectId}/memories/{name}",
		scope: "write",
		summary: "Delete a topic file and its history",
		request: { params: memoryParams, query: z.object({ scope: ScopeQuery }) },
		responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { name } = c.req.valid("param");
		await store(c).deleteMemory(c.get("projectContext"), c.req.valid("query").scope ?? "personal", name);
		return c.body(null, 204);
	},
);

memoryRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/memories/{name}/restore",
		scope: "write",
		summary: "Serve an archived topic file again",
		description:
			"An archived memory (approved from an `archive` review item) is no longer served; this serves it again, as a new version " +
			"would. A memory not archived is returned unchanged. Restoring a team memory needs what a team write needs.",
		request: { params: memoryParams, query: z.object({ scope: ScopeQuery }) },
		responses: { 200: jsonResponse("The memory as it is now", MemoryBodySchema), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { name } = c.req.valid("param");
		const memory = await store(c).restoreMemory(c.get("projectContext"), c.req.valid("query").scope ?? "personal", name);
		return c.json({ memory }, 200);
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/memories",
		scope: "read",
		summary: "List memory metadata (personal and team), optionally filtered",
		request: {
			params: ProjectParams,
			query: z.object({
				scope: ScopeQuery,
				type: MemoryTypeSchema.optional(),
				limit: z.coerce.number().int().min(1).max(1000).optional(),
				cursor: z.string().max(200).optional(),
			}),
		},
		responses: {
			200: {
				description: "Memories, by name",
				content: {
					"application/json": { schema: z.object({ memories: z.array(MemoryMetadataSchema), nextCursor: z.string().nullable() }) },
				},
			},
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { scope, type, limit = 1000, cursor } = c.req.valid("query");
		let after: { name: string; scope: MemoryScope } | undefined;
		if (cursor) {
			const [n, s] = cursor.split(":");
			if (!n || !NAME_PATTERN.test(n) || (s !== "personal" && s !== "team")) throw badRequest("cursor is not valid", { field: "cursor" });
			after = { name: n, scope: s };
		}
		const rows = await store(c).listMemories(c.get("projectContext"), { scope, type, limit, after });
		const last = rows.at(-1);
		return c.json({ memories: rows.map(toMetadata), nextCursor: rows.length === limit && last ? `${last.name}:${last.scope}` : null }, 200);
	},
);

memoryRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/memories/batch",
		scope: "write",
		bodyLimit: BATCH_BODY_LIMIT,
		summary: `Write up to ${BATCH_LIMIT} memories; one bad item does not sink the others`,
		request: {
			params: ProjectParams,
			query: z.object({
				scope: ScopeQuery,
				source: z
					.enum(["import"])
					.optional()
					.openapi({ param: { name: "source", in: "query" }, description: "`import` records the batch as moved in from elsewhere" }),
			}),
			// Items are checked one by one in the handler so that one bad item fails alone.
			body: {
				required: true,
				content: {
					"application/json": {
						schema: z.object({
							memories: z.array(z.unknown().openapi({ description: "A BatchMemoryInput: {name, type, description, body}" })),
						}),
					},
				},
			},
		},
		responses: {
			200: jsonResponse(
				"Per-item results, in request order",
				z.object({
					results: z.array(
						z.object({
							name: z.string(),
							status: z.enum(["created", "updated", "unchanged", "error"]),
							error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }).optional(),
						}),
					),
				}),
			),
			...errors(400, 401, 403, 404, 413),
		},
	}),
	async (c) => {
		const { scope = "personal", source } = c.req.valid("query");
		const origin = source === "import" ? { source: "import" as const, sessionId: null } : writeSource(c);
		const items = c.req.valid("json").memories;
		const results = await store(c).writeMemories(c.get("projectContext"), {
			scope,
			...origin,
			trust: requestTrust(c, origin.source),
			items,
		});
		return c.json({ results }, 200);
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/memories/{name}/history",
		scope: "read",
		summary: "Versions of a topic file, newest first, and every value it has held with its session and day",
		request: { params: memoryParams, query: z.object({ scope: ScopeQuery }) },
		responses: {
			200: jsonResponse(
				"Versions",
				z.object({
					versions: z.array(
						z.object({
							version: z.number().int(),
							updatedAt: z.string(),
							source: z.string(),
							sessionId: z.string().nullable(),
							runId: z.string().nullable().openapi({ description: "The consolidation run that wrote this version" }),
							evidence: z
								.array(z.object({ session: z.string(), turns: z.array(z.string()) }))
								.openapi({ description: "The sessions and turns (t<seq>) of the candidates this version rests on" }),
							vouchedBy: z.string().nullable().openapi({
								description:
									"Team scope: who let this version reach teammates (docs/memory-trust.md) — a person's user id, `cairn:setting` (published at once by the project's setting) or `cairn:upgrade` (served before vouching existed); null: a proposal, or a personal memory",
							}),
							reviewedBy: z.string().nullable().openapi({ description: "The admin who reviewed this version's text, if any" }),
						}),
					),
					values: z
						.array(
							z.object({
								value: z.string(),
								session: z.string().nullable().openapi({ description: "The session that stated the value" }),
								since: z.string().nullable().openapi({ description: "The day (YYYY-MM-DD) it was stated or took over, when known" }),
								until: z.string().nullable().openapi({ description: "The day a newer statement replaced it; null for the current value" }),
								current: z.boolean(),
							}),
						)
						.openapi({
							description:
								"Every value the memory has held, oldest first and the current one last: a newer statement about the same subject replaces the value in place and keeps the old one here",
						}),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { row, versions } = await store(c).history(c.get("projectContext"), c.req.valid("param").name, c.req.valid("query").scope);
		const body = parseTopicFile(await readMemoryContent(c.env, c.get("projectContext"), row)).body;
		return c.json(
			{
				values: valueTimeline(row.description, body, {
					session: row.session_id === null ? null : clientSessionId(row.session_id),
					updatedAt: row.updated_at,
				}),
				versions: versions.map((v) => ({
					version: v.version,
					updatedAt: v.created_at,
					source: v.source,
					sessionId: v.session_id === null ? null : clientSessionId(v.session_id),
					runId: v.run_id,
					evidence: (JSON.parse(v.evidence_json || "[]") as { session: string; turns: string[] }[]).map((e) => ({
						...e,
						session: clientSessionId(e.session),
					})),
					vouchedBy: v.vouched_by ?? null,
					reviewedBy: v.reviewed_by ?? null,
				})),
			},
			200,
		);
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/memories/{name}/events",
		scope: "read",
		summary: "What consolidation did to a topic file, newest first: each change, its reason and the sessions it rests on",
		request: { params: memoryParams, query: z.object({ scope: ScopeQuery }) },
		responses: {
			200: jsonResponse(
				"Change events",
				z.object({
					events: z.array(
						z
							.object({
								runId: z.string(),
								op: z.string().openapi({ example: "update" }),
								outcome: z.enum(["applied", "unchanged", "skipped", "refused"]).or(z.string()),
								reason: z.string(),
								sessions: z.array(z.string()),
								createdAt: z.string(),
							})
							.openapi("MemoryChangeEvent"),
					),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const events = await store(c).memoryEvents(c.get("projectContext"), c.req.valid("param").name, c.req.valid("query").scope);
		return c.json({ events }, 200);
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/memories/{name}/history/{version}",
		scope: "read",
		summary: "One version's markdown",
		request: {
			params: memoryParams.extend({
				version: z.coerce
					.number()
					.int()
					.min(1)
					.max(999_999_999)
					.openapi({ param: { name: "version", in: "path" } }),
			}),
			query: z.object({ scope: ScopeQuery }),
		},
		responses: { 200: markdownResponse("That version"), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { name, version } = c.req.valid("param");
		const { version: v } = await store(c).version(c.get("projectContext"), name, c.req.valid("query").scope, version);
		if (!v) throw notFound("version");
		const content = await readMemoryContent(c.env, c.get("projectContext"), v);
		c.header("ETag", `"${v.version}"`);
		return c.body(content, 200, { "Content-Type": MARKDOWN });
	},
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/index",
		scope: "read",
		summary: "MEMORY.md: one line per topic file, grouped by type, within 200 lines and 25,000 bytes",
		request: { params: ProjectParams },
		responses: { 200: markdownResponse("MEMORY.md"), ...errors(401, 403, 404) },
	}),
	async (c) => c.body(await store(c).index(c.get("projectContext")), 200, { "Content-Type": MARKDOWN }),
);

memoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/resolve",
		scope: "read",
		summary: "Resolve a memory:// URL to its markdown",
		description:
			"With `X-Cairn-Session`, a topic file read counts as that session's read of the memory (once per session, " +
			"however often it is read and whether or not the session's transcript records the read too).",
		request: {
			params: ProjectParams,
			query: z.object({ url: z.string().min(1).max(300).openapi({ example: "memory://root/MEMORY.md" }) }),
			headers: z.object({
				"x-cairn-session": z
					.string()
					.regex(SESSION_ID_PATTERN, "must be 1-128 characters of letters, digits, '.', '_', ':' or '-'")
					.optional()
					.openapi({ description: "The agent's session id: the read counts as that session's use of the memory" }),
			}),
		},
		responses: { 200: markdownResponse("The artifact"), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const session = c.req.valid("header")["x-cairn-session"];
		const text = await store(c).resolve(c.get("projectContext"), c.req.valid("query").url, session);
		return c.body(text, 200, { "Content-Type": MARKDOWN });
	},
);

// An empty memory name ("/memories/") would otherwise fall through to "no such route": refused with the
// scope of the read, write or delete it stands for.
for (const [method, scope] of [
	["GET", "read"],
	["PUT", "write"],
	["DELETE", "write"],
] as const) {
	memoryRoutes.on(method, ["/v1/projects/:projectId/memories/"], ...edgeMiddleware("/v1/projects/{projectId}/memories/", { scope }), () => {
		throw new CairnError("invalid_name", "memory name must not be empty");
	});
}
