import { OpenAPIHono, z } from "@hono/zod-openapi";
import { REVIEW_KINDS, REVIEW_OPS, REVIEW_STATUSES } from "../../memory/reviews";
import { MemoryScopeSchema, MemoryTypeSchema } from "../../memory/schemas";
import { projectStore } from "../../project/client";
import type { AppEnv } from "../context";
import { route } from "../route";
import { errors, MemoryMetadataSchema, ProjectIdParam } from "../schemas";

export const reviewRoutes = new OpenAPIHono<AppEnv>();

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
				"`change`: consolidation wants to change a memory written on purpose; `promote`: a memory proposed for team scope; `secret`: the maintenance re-scan found what the secret policy calls a credential in a stored memory (approve deletes it)",
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
	})
	.openapi("ReviewItem");

const itemResponse = { "application/json": { schema: z.object({ item: ReviewItemSchema }) } };
const decisionResponse = {
	"application/json": {
		schema: z.object({
			item: ReviewItemSchema,
			memory: MemoryMetadataSchema.nullable().openapi({ description: "The memory after the decision (null: deleted, or gone)" }),
		}),
	},
};

reviewRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/reviews",
		scope: "read",
		tags: ["reviews"],
		summary: "The caller's review queue: proposed changes to memories written on purpose, and memories proposed for team scope",
		description: "Only the caller's own items. Newest first; `status` defaults to `pending`.",
		request: {
			params: z.object({ projectId: ProjectIdParam }),
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
			200: { description: "Items", content: { "application/json": { schema: z.object({ items: z.array(ReviewItemSchema) }) } } },
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { status, kind, limit } = c.req.valid("query");
		const items = await projectStore(c.env, ctx.projectId).reviews(ctx, { status, limit, ...(kind ? { kind } : {}) });
		return c.json({ items }, 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/reviews/{id}",
		scope: "read",
		tags: ["reviews"],
		summary: "One review item of the caller's",
		request: { params: ReviewParams },
		responses: { 200: { description: "The item", content: itemResponse }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { id } = c.req.valid("param");
		return c.json({ item: await projectStore(c.env, ctx.projectId).review(ctx, id) }, 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/reviews/{id}/approve",
		scope: "write",
		tags: ["reviews"],
		summary: "Approve a pending item: the change is written through the ordinary write path; a promotion moves the memory to team scope",
		description:
			"A change is applied as the caller's own write (a new version; history keeps the old one). A memory changed since the " +
			"proposal is a 412 version_conflict (`details.currentVersion`) and nothing changes. A promotion writes the memory to team " +
			"scope and removes the personal one; it needs what a team write needs (403 feature_disabled when team memory is off) and " +
			"is a 409 conflict when a different team memory of that name exists. An item already decided is a 409 conflict.",
		request: { params: ReviewParams },
		responses: { 200: { description: "Approved and applied", content: decisionResponse }, ...errors(400, 401, 403, 404, 409, 412, 422) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { id } = c.req.valid("param");
		return c.json(await projectStore(c.env, ctx.projectId).decideReview(ctx, id, "approve"), 200);
	},
);

reviewRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/reviews/{id}/reject",
		scope: "write",
		tags: ["reviews"],
		summary: "Reject a pending item: the memory stays as it is (a promotion's proposed scope is cleared)",
		request: { params: ReviewParams },
		responses: { 200: { description: "Rejected", content: decisionResponse }, ...errors(400, 401, 403, 404, 409) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const { id } = c.req.valid("param");
		return c.json(await projectStore(c.env, ctx.projectId).decideReview(ctx, id, "reject"), 200);
	},
);
