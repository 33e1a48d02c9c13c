import { OpenAPIHono, z } from "@hono/zod-openapi";
import { FORMATS } from "../../ingest/parse";
import type { SessionRow } from "../../sessions/sessions";
import { AGENTS, clientSessionId, SESSION_ID_PATTERN } from "../../sessions/turns";
import { LINE_LIMIT } from "../../worker/receive";
import { endSession, extractNow, postTranscript, retrySession, sessionMemory } from "../../worker/session-flow";
import { type AppEnv, projectOf } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, markdownResponse, ProjectIdParam, ProjectParams } from "../schemas";

export const sessionRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("sessions");

/** Transcript bodies: real session files reach several MB; the whole file may be posted at once. */
export const TRANSCRIPT_BODY_LIMIT = 32 * 1024 * 1024;

const SessionIdParam = z
	.string()
	.regex(SESSION_ID_PATTERN)
	.openapi({ param: { name: "sessionId", in: "path" }, example: "196820da-1026-4b6f-a513-a6aae42da1a6" });
const SessionParams = z.object({ projectId: ProjectIdParam, sessionId: SessionIdParam });
const LimitQuery = z.object({
	limit: z.coerce
		.number()
		.int()
		.min(1)
		.max(200)
		.default(50)
		.openapi({ param: { name: "limit", in: "query" } }),
});

const SessionSchema = z
	.object({
		id: z.string(),
		agent: z.enum(AGENTS),
		turns: z.number().int(),
		cursor: z.number().int().openapi({ description: "First turn stage 1 has not processed yet" }),
		status: z.enum(["active", "ended"]),
		cwd: z.string().nullable(),
		branch: z.string().nullable(),
		startedAt: z.string(),
		lastActivityAt: z.string(),
		extraction: z.object({
			state: z.enum(["idle", "queued", "retrying", "dead_letter"]),
			lastError: z.string().nullable(),
		}),
	})
	.openapi("Session");

const toSession = (s: SessionRow) => ({
	id: clientSessionId(s.id),
	agent: s.agent,
	turns: s.turns,
	cursor: s.cursor,
	status: s.status,
	cwd: s.cwd,
	branch: s.branch,
	startedAt: s.started_at,
	lastActivityAt: s.last_activity_at,
	extraction: { state: s.extraction_state as "idle", lastError: s.last_error },
});
const SessionBodySchema = z.object({ session: SessionSchema });

sessionRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/sessions/{sessionId}/transcript",
		scope: "write",
		bodyLimit: TRANSCRIPT_BODY_LIMIT,
		streamed: true,
		summary: "Post transcript records (NDJSON): a whole Claude Code or Codex session file, new lines of it, or generic records",
		description:
			"Idempotent by native record ids: re-posting a file or an overlapping tail adds nothing. Secrets are redacted before storage. " +
			"Session ids are per user: an id another user of the project also uses names the caller's own session, and nothing of the other. " +
			`Bodies up to ${TRANSCRIPT_BODY_LIMIT} bytes, read as they stream (chunked uploads welcome). A line that is not JSON fails the request (nothing stored) with its line number; ` +
			`a line over ${LINE_LIMIT} bytes is skipped unread and counted in \`skipped\`.`,
		request: {
			params: SessionParams,
			query: z.object({
				format: z
					.enum(FORMATS)
					.default("auto")
					.openapi({ param: { name: "format", in: "query" } }),
			}),
			body: { required: true, content: { "application/x-ndjson": { schema: z.string() } } },
		},
		responses: {
			200: jsonResponse(
				"Ingested",
				z.object({
					accepted: z.number().int().openapi({ description: "New turns stored" }),
					duplicates: z.number().int().openapi({ description: "Turns already stored (or repeated in this body)" }),
					skipped: z.number().int().openapi({ description: "Records that carry no turn (metadata, reasoning, mirrored events)" }),
					unknown: z.number().int().openapi({ description: "Records of an unknown type, skipped" }),
					turns: z.number().int().openapi({ description: "Turns in the session after this post" }),
					agent: z.enum(AGENTS),
				}),
			),
			...errors(400, 401, 403, 404, 409, 413),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { sessionId } = c.req.valid("param");
		const { format } = c.req.valid("query");
		const result = await postTranscript(c.env, ctx, sessionId, c.req.raw.body, format, TRANSCRIPT_BODY_LIMIT, (p) =>
			c.executionCtx.waitUntil(p),
		);
		return c.json(result, 200);
	},
);

sessionRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/sessions/{sessionId}/end",
		scope: "write",
		summary: "Mark a session ended; its unprocessed turns are queued for extraction at once (when memory is on)",
		request: { params: SessionParams },
		responses: { 202: jsonResponse("Ended", SessionBodySchema), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { sessionId } = c.req.valid("param");
		const session = await endSession(c.env, ctx, sessionId);
		return c.json({ session: toSession(session) }, 202);
	},
);

sessionRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/sessions/{sessionId}/retry",
		scope: "write",
		summary: "Queue extraction again for a session whose extraction failed (`dead_letter` or `retrying`)",
		description:
			"Re-queues the session's unprocessed turns and answers 202 with the session (`extraction.state` is `queued`; `lastError` " +
			"stays until a run succeeds). Nothing to retry (`idle` or `queued`, or no unprocessed turns) is a 409 conflict; " +
			"extraction switched off is a 403 feature_disabled; a session the caller does not have is a 404 (session ids are per user).",
		request: { params: SessionParams },
		responses: { 202: jsonResponse("Queued again", SessionBodySchema), ...errors(400, 401, 403, 404, 409) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { sessionId } = c.req.valid("param");
		return c.json({ session: toSession(await retrySession(c.env, ctx, sessionId)) }, 202);
	},
);

sessionRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/sessions/{sessionId}",
		scope: "read",
		summary: "A session's registry row: turns, cursor, status and extraction state",
		request: { params: SessionParams },
		responses: { 200: jsonResponse("The session", SessionBodySchema), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json({ session: toSession(await store.session(ctx, c.req.valid("param").sessionId)) }, 200);
	},
);

sessionRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/sessions",
		scope: "read",
		summary: "The caller's sessions in this project, most recently active first",
		request: {
			params: ProjectParams,
			query: LimitQuery,
		},
		responses: { 200: jsonResponse("Sessions", z.object({ sessions: z.array(SessionSchema) })), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const sessions = await store.sessions(ctx, c.req.valid("query").limit);
		return c.json({ sessions: sessions.map(toSession) }, 200);
	},
);

sessionRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/extract",
		scope: "write",
		summary: "Queue extraction now for every session of the caller's in this project with unprocessed turns",
		request: { params: ProjectParams },
		responses: { 202: jsonResponse("Queued", z.object({ enqueued: z.number().int() })), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		return c.json({ enqueued: await extractNow(c.env, ctx) }, 202);
	},
);

const CandidateOut = z.object({
	name: z.string(),
	type: z.string(),
	description: z.string(),
	body: z.string(),
	evidence: z.array(z.string()),
});

sessionRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/candidates",
		scope: "read",
		summary: "Stage-1 outputs of the caller's sessions not yet consolidated (for inspection)",
		request: {
			params: ProjectParams,
			query: LimitQuery,
		},
		responses: {
			200: jsonResponse(
				"Pending outputs, newest first",
				z.object({
					outputs: z.array(
						z.object({
							sessionId: z.string(),
							fromSeq: z.number().int(),
							toSeq: z.number().int(),
							extractor: z.string(),
							summary: z.string(),
							rawMemory: z.string(),
							candidates: z.array(CandidateOut),
							createdAt: z.string(),
						}),
					),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json({ outputs: await store.candidates(ctx, c.req.valid("query").limit) }, 200);
	},
);

sessionRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/sessions/{sessionId}/memory",
		scope: "read",
		summary: "The session memory: a template summary of what already scrolled by (built on first read)",
		request: { params: SessionParams },
		responses: { 200: markdownResponse("Session memory"), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { sessionId } = c.req.valid("param");
		const { text } = await sessionMemory(c.env, ctx, sessionId, false);
		return c.body(text, 200, { "Content-Type": "text/markdown; charset=utf-8" });
	},
);

sessionRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/sessions/{sessionId}/memory/compact",
		scope: "write",
		summary: "Rebuild the session memory now (before the agent compacts its context)",
		request: { params: SessionParams },
		responses: {
			200: jsonResponse("Rebuilt", z.object({ tokens: z.number().int(), engine: z.enum(["model", "offline"]), turns: z.number().int() })),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { sessionId } = c.req.valid("param");
		const result = await sessionMemory(c.env, ctx, sessionId, true);
		return c.json({ tokens: result.tokens ?? 0, engine: result.engine ?? "offline", turns: result.turns }, 200);
	},
);
