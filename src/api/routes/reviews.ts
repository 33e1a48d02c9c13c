import { OpenAPIHono, z } from "@hono/zod-openapi";
import { APPROVE_BATCH_LIMIT, REVIEW_KINDS, REVIEW_OPS, REVIEW_STATUSES } from "../../memory/reviews";
import { MemoryScopeSchema, MemoryTypeSchema } from "../../memory/schemas";
import { type AppEnv, projectOf } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, MemoryMetadataSchema, ProjectIdParam, ProjectParams } from "../schemas";
import { reviewerOf } from "../write-trust";

export const reviewRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("reviews");

const ReviewIdParam = z
	.string()
	.regex(/^[A-Za-z0-9_-]{1,64}$/)
	.openapi({ param: { name: "id", in: "path" }, example: "rev_0123456789abcdef" });
const ReviewParams = z.object({ projectId: ProjectIdParam, id: ReviewIdParam });

export const ReviewItemSchema = z
	.object({
		id: z.string(),
		kind: z.enum(REVIEW_KINDS).openapi({
			description:
				"`change`: consolidation wants to change a memory written on purpose; `promote`: a memory proposed for team scope; `secret`: the maintenance re-scan found what the secret policy calls a credential in a stored memory (approve deletes it); `archive`: a memory served in many sessions and never cited or read (approve archives it: no longer served, never deleted); `code`: every file the memory cites is gone from the repository (approve deletes it; reject keeps it without those citations); `held`: a write the trust gate kept out of memory (docs/memory-trust.md; approved only by an admin through /held/{id}/approve); `vouch`: a team memory whose current text no person vouched for — served to its writer only, marked unreviewed, until a person approves it (any project member's key that no agent session used, never from an agent's session); approving serves it to every teammate, rejecting serves the last text a person vouched for again (or removes the memory when there is none)",
		}),
		status: z.enum(REVIEW_STATUSES),
		memory: z.object({
			name: z.string(),
			scope: MemoryScopeSchema,
			baseVersion: z.number().int().nullable().openapi({ description: "The memory's version the proposal was made against" }),
			currentVersion: z.number().int().nullable().openapi({ description: "The memory's version now (null: it no longer exists)" }),
		}),
		proposal: z.object({
			op: z.enum(REVIEW_OPS),
			type: MemoryTypeSchema.nullable(),
			description: z.string().nullable(),
			body: z.string().nullable(),
			from: z.array(z.string()).openapi({ description: "merge: the memories folded in (deleted on approval)" }),
			scope: z.enum(["team"]).nullable().openapi({ description: "promote: the scope the memory moves to" }),
		}),
		reason: z.string(),
		evidence: z.array(z.string()).openapi({ description: "The sessions the proposal rests on" }),
		runId: z.string().nullable(),
		createdAt: z.string(),
		decidedAt: z.string().nullable(),
		decidedBy: z.string().nullable().openapi({ description: "The user who approved or rejected it" }),
		writer: z.string().openapi({ description: "The user whose write or memory the item is about (an agent's writes are its user's)" }),
		findings: z.array(z.object({ class: z.string(), reason: z.string() })).openapi({
			description:
				"What the danger check (docs/memory-trust.md) finds in the proposed text now: classes and fixed phrases, never the text; empty for a team proposal the check passed",
		}),
		provenance: z
			.object({
				tier: z.string().nullable().openapi({ description: "How the write came: person, agent, extracted, imported" }),
				session: z.string().nullable().openapi({ description: "The agent session that wrote it, when one did" }),
				fromToolOutput: z.array(z.string()).openapi({
					description: "What of it a tool result printed and the person never said: host, command, path, instructions",
				}),
				turns: z.array(z.string()).openapi({ description: "The session's turns those came from (t<seq>)" }),
			})
			.openapi({ description: "Where the proposed text came from, as the item records it" }),
	})
	.openapi("ReviewItem");

const DecisionSchema = z.object({
	item: ReviewItemSchema,
	memory: MemoryMetadataSchema.nullable().openapi({ description: "The memory after the decision (null: deleted, or gone)" }),
});

reviewRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/reviews",
		scope: "read",
		summary: "The caller's review queue: proposed changes to memories written on purpose, memories proposed for team scope, team proposals",
		description:
			"The caller's own items; with an admin key also every item about a team memory (those go to the memory's last author and to the project's admins); and every team proposal (`vouch`) when the caller may vouch — a request from no agent session (no `X-Cairn-Session` or `X-Cairn-Agent`) with a key no agent session used in this project. A proposal's text reaches no other agent, through the queue neither. Held writes are listed under /held. Newest first; `status` defaults to `pending`.",
		request: {
			params: ProjectParams,
			query: z.object({
				status: z
					.enum(REVIEW_STATUSES)
					.default("pending")
					.openapi({ param: { name: "status", in: "query" } }),
				kind: z
					.enum(REVIEW_KINDS)
					.optional()
					.openapi({ param: { name: "kind", in: "query" } }),
				limit: z.coerce
					.number()
					.int()
					.min(1)
					.max(200)
					.default(50)
					.openapi({ param: { name: "limit", in: "query" } }),
			}),
		},
		responses: {
			200: jsonResponse(
				"Items",
				z.object({
					items: z.array(ReviewItemSchema),
					awaiting: z.number().int().openapi({
						description: "Team memories of the project awaiting a person's review (every writer's, whoever may see them)",
					}),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const { status, kind, limit } = c.req.valid("query");
		const [items, awaiting] = await Promise.all([
			store.reviews(ctx, { status, limit, reviewer: reviewerOf(c), ...(kind ? { kind } : {}) }),
			store.awaitingReview(ctx),
		]);
		return c.json({ items, awaiting }, 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/reviews/approve",
		scope: "write",
		summary: "Approve a writer's or a session's pending team proposals at once (a person, from no agent session)",
		description:
			"Takes the pending `vouch` items of `writer` (a user id), of `session` (an agent session id), or those named in `ids` — " +
			`the filters given all apply; at most ${APPROVE_BATCH_LIMIT}. Refused as one approval is (403 with \`details.reason\` \`agent_session\` or \`session_key\`) before anything is decided. ` +
			"Each is then decided on its own: one whose memory changed since (412) is listed in `failed`, the others are approved.",
		request: {
			params: ProjectParams,
			body: jsonBody(
				z
					.object({
						writer: z.string().min(1).max(120).optional(),
						session: z.string().min(1).max(128).optional(),
						ids: z
							.array(z.string().regex(/^[A-Za-z0-9_-]{1,64}$/))
							.min(1)
							.max(APPROVE_BATCH_LIMIT)
							.optional(),
					})
					.refine((b) => b.writer !== undefined || b.session !== undefined || b.ids !== undefined, {
						message: "name the writer, the session or the ids to approve",
					})
					.openapi({ example: { session: "2f0c3c52-5b4e-4d8e-9a53-0d6f5b1f3a11" } }),
			),
		},
		responses: {
			200: jsonResponse(
				"Approved and failed items",
				z.object({
					approved: z.array(ReviewItemSchema),
					failed: z.array(z.object({ id: z.string(), name: z.string(), error: z.object({ code: z.string(), message: z.string() }) })),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json(await store.approveProposals(ctx, reviewerOf(c), c.req.valid("json")), 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/reviews/{id}",
		scope: "read",
		summary: "One review item of the caller's (with an admin key: or about a team memory)",
		request: { params: ReviewParams },
		responses: { 200: jsonResponse("The item", z.object({ item: ReviewItemSchema })), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json({ item: await store.review(ctx, c.req.valid("param").id, reviewerOf(c)) }, 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/reviews/{id}/approve",
		scope: "write",
		summary: "Approve a pending item: the change is written through the ordinary write path; a promotion moves the memory to team scope",
		description:
			"A team proposal (`vouch`) is approved by a person: a request carrying `X-Cairn-Session` or `X-Cairn-Agent`, or made with a key an agent session used in this project (its hooks, MCP client, session writes), is a 403 `forbidden` with `details.reason` `agent_session` or `session_key`; approved, the memory is served to every teammate from the next request, recorded as vouched for by the caller (an admin's approval is also their review). " +
			"A change is applied as the caller's own write (a new version; history keeps the old one). A memory changed since the " +
			"proposal is a 412 version_conflict (`details.currentVersion`) and nothing changes. A promotion writes the memory to team " +
			"scope and removes the personal one — a team proposal unless the caller may vouch; it needs what a team write needs (403 feature_disabled when team memory is off) and " +
			"is a 409 conflict when a different team memory of that name exists. An item already decided is a 409 conflict.",
		request: { params: ReviewParams },
		responses: { 200: jsonResponse("Approved and applied", DecisionSchema), ...errors(400, 401, 403, 404, 409, 412, 422) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json(await store.decideReview(ctx, c.req.valid("param").id, "approve", reviewerOf(c)), 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/reviews/{id}/reject",
		scope: "write",
		summary: "Reject a pending item: the memory stays as it is (a promotion's proposed scope is cleared)",
		request: { params: ReviewParams },
		responses: { 200: jsonResponse("Rejected", DecisionSchema), ...errors(400, 401, 403, 404, 409) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json(await store.decideReview(ctx, c.req.valid("param").id, "reject", reviewerOf(c)), 200);
	},
);
