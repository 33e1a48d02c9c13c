import { OpenAPIHono, z } from "@hono/zod-openapi";
import { REVIEW_STATUSES } from "../../memory/reviews";
import { type AppEnv, projectOf } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, MemoryMetadataSchema, ProjectIdParam, ProjectParams } from "../schemas";
import { reviewerOf } from "../write-trust";
import { ReviewItemSchema } from "./reviews";

/**
 * Held writes (docs/memory-trust.md, src/trust/held.ts): what the trust gate kept out of memory. A project
 * admin sees and decides every one; anyone else sees and may reject their own. Approval needs an admin key
 * (the console signed in with one is the same key): the write key an agent's hooks and MCP client hold cannot.
 */
export const heldRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("reviews");

const HeldIdParam = z
	.string()
	.regex(/^[A-Za-z0-9_-]{1,64}$/)
	.openapi({ param: { name: "id", in: "path" }, example: "rev_0123456789abcdef" });
const HeldParams = z.object({ projectId: ProjectIdParam, id: HeldIdParam });

const HeldItemSchema = ReviewItemSchema.extend({
	writer: z.string().openapi({ description: "The user whose write was held (an agent's writes are its user's)" }),
}).openapi("HeldItem");

const DecisionSchema = z.object({
	item: HeldItemSchema,
	memory: MemoryMetadataSchema.nullable().openapi({ description: "The memory as approved (null: rejected)" }),
});

heldRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/held",
		scope: "read",
		summary: "Held writes: with an admin key every writer's, otherwise the caller's own",
		description:
			"Each item carries the held file (`proposal`), the reason (the classes of what it asks for, never quoted) and the writer. Newest first; `status` defaults to `pending`.",
		request: {
			params: ProjectParams,
			query: z.object({
				status: z
					.enum(REVIEW_STATUSES)
					.default("pending")
					.openapi({ param: { name: "status", in: "query" } }),
				limit: z.coerce
					.number()
					.int()
					.min(1)
					.max(200)
					.default(50)
					.openapi({ param: { name: "limit", in: "query" } }),
			}),
		},
		responses: { 200: jsonResponse("Held items", z.object({ items: z.array(HeldItemSchema) })), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const { status, limit } = c.req.valid("query");
		return c.json({ items: await store.held(ctx, { reviewer: reviewerOf(c), status, limit }) }, 200);
	},
);

heldRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/held/{id}",
		scope: "read",
		summary: "One held write (an admin: anyone's; otherwise the caller's own)",
		request: { params: HeldParams },
		responses: { 200: jsonResponse("The item", z.object({ item: HeldItemSchema })), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json({ item: await store.heldItem(ctx, c.req.valid("param").id, reviewerOf(c)) }, 200);
	},
);

heldRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/held/{id}/approve",
		scope: "admin",
		summary:
			"Approve a held write (admin key only): it is written as its writer's memory, reviewed by the caller, and served from the next request",
		description:
			"A memory changed since the write was held is a 412 version_conflict and the item stays pending; an item already decided is a 409 conflict. A write- or read-scoped key gets 403, and so does an admin key from an agent's session (`X-Cairn-Session`, `X-Cairn-Agent`) or one an agent session used in this project. Listing with such a key shows the caller's own items only.",
		request: { params: HeldParams },
		responses: { 200: jsonResponse("Approved and written", DecisionSchema), ...errors(400, 401, 403, 404, 409, 412, 422) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json(await store.decideHeld(ctx, c.req.valid("param").id, "approve", reviewerOf(c)), 200);
	},
);

heldRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/held/{id}/reject",
		scope: "write",
		summary: "Reject a held write (an admin, or its writer): nothing is written and the item keeps no text",
		request: { params: HeldParams },
		responses: { 200: jsonResponse("Rejected", DecisionSchema), ...errors(400, 401, 403, 404, 409) },
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		return c.json(await store.decideHeld(ctx, c.req.valid("param").id, "reject", reviewerOf(c)), 200);
	},
);
