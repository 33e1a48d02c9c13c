import { OpenAPIHono, z } from "@hono/zod-openapi";
import { DEFAULT_INJECT_TOKENS, injectBlock } from "../../inject/inject";
import { MemoryScopeSchema, MemoryTypeSchema, RecallLimitSchema, RecallQuerySchema, ToolListSchema } from "../../memory/schemas";
import { NAME_PATTERN } from "../../memory/topic-file";
import { recall } from "../../recall/recall";
import { recordServedMemories } from "../../recall/usage";
import { type AppEnv, projectOf } from "../context";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, ProjectParams } from "../schemas";
import { CitedAnswerSchema, CODE_CHECK_BODY_LIMIT, CodeCheckSchema } from "./code";

export const recallRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("recall");

const DEFAULT_BACKFILL = 100;
const MAX_BACKFILL = 1_000;

const ToolList = ToolListSchema;

const RecallBody = z
	.object({
		query: RecallQuerySchema,
		recentTools: ToolList.optional(),
		limit: RecallLimitSchema.optional(),
		exclude: z.array(z.string().regex(NAME_PATTERN)).max(200).optional(),
		scope: MemoryScopeSchema.optional(),
		engine: z.enum(["lexical", "llm"]).optional(),
		retrieval: z.enum(["lexical", "hybrid"]).optional().openapi({
			description:
				'"lexical": the word and CJK indexes only. By default ("hybrid") embedding candidates are fused in when an embedding model is configured',
		}),
		waitMs: z.number().int().min(0).max(60_000).optional().openapi({
			description:
				"How long the caller can wait for the answer, in ms from when the request arrives (a hook's remaining budget). The model selector runs only within it; past it the ranked answer is served and the response says why",
		}),
		trace: z.boolean().optional(),
		at: z.iso.datetime({ offset: true }).optional().openapi({
			description:
				'The moment the query is asked from (ISO 8601). Dates in the query ("a week ago", "last Saturday", "in March", 지난주, 3日前) are read against it and memories written then are preferred. Default: now',
			example: "2026-03-14T09:30:00Z",
		}),
	})
	.openapi("RecallRequest");

const RecallTraceSchema = z
	.object({
		terms: z.array(z.string()),
		concepts: z.array(z.string()).openapi({ description: "The concepts the query names (the concept map of software work)" }),
		candidates: z.array(z.record(z.string(), z.unknown())).openapi({
			description:
				"Every candidate: `name`, `scope`, `score` (0–1, as the memories show it), `rankingScore` (the unscaled score the ranking sorts by) and its factors (`bm25`, `typePrior`, `freshness`, `coverage`; hybrid: `lexicalRank`, `vectorRank`, `similarity`), `decision` (returned, or why not), and what it matched: `matchedTerms` (query words), `concepts` (the query's concepts it is about), `cues` (its cues holding a query word), `dated` (written when the query says), `neighbourOf`, `similarity`; per prompt also `evidence`, `held` and `about`",
		}),
		note: z.string().optional(),
		weights: z.record(z.string(), z.unknown()).optional().openapi({
			description: "Per-prompt recall: the weight of each word and concept of the prompt in this project",
		}),
	})
	.openapi("RecallTrace");

const RecalledMemorySchema = z.object({
	name: z.string(),
	type: MemoryTypeSchema,
	description: z.string(),
	scope: MemoryScopeSchema,
	path: z.string(),
	score: z.number().min(0).max(1).openapi({
		description:
			"How well it matches, 0–1 to two decimals, in ranking order: the ranking's score as a share of the best this answer could hold — the first memory's (lexical retrieval; the first reads 1), or first place in both fused lists (hybrid: first in both reads 1, first in one 0.5). Compare within one answer; the trace's `rankingScore` is the unscaled score",
		example: 0.82,
	}),
	updatedAt: z.string(),
	verifiedAt: z.string().openapi({ description: "When a session last confirmed the memory (equal to updatedAt until one does)" }),
	ageDays: z.number().int().openapi({ description: "Days since the later of the last edit and the last confirmation" }),
});

recallRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/recall",
		scope: "read",
		summary: "The memories that matter for a query (lexical BM25 with priors, or a small model choosing from its candidates)",
		request: {
			params: ProjectParams,
			body: jsonBody(RecallBody),
		},
		responses: {
			200: jsonResponse(
				"Recalled memories, best first",
				z.object({
					engine: z.enum(["lexical", "llm", "lexical-fallback"]),
					retrieval: z.enum(["lexical", "hybrid"]).openapi({
						description:
							'"hybrid": lexical (BM25 over words and CJK grams) and embedding candidates fused by reciprocal rank; "lexical": no embeddings took part',
					}),
					retrievalNote: z
						.string()
						.optional()
						.openapi({ description: "Why retrieval is lexical: no embedding model, a model failure, no vectors yet" }),
					memories: z.array(RecalledMemorySchema),
					warnings: z.array(z.string()),
					fallbackReason: z.string().optional(),
					trace: RecallTraceSchema.optional(),
				}),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const result = await recall(c.env, ctx, c.req.valid("json"));
		c.executionCtx.waitUntil(
			recordServedMemories(
				c.env,
				ctx,
				result.served.map((m) => m.row.id),
			),
		);
		const { served: _served, offered: _offered, ranked: _ranked, terms: _terms, ...body } = result;
		return c.json(body, 200);
	},
);

const BackfillBody = z
	.object({
		limit: z
			.number()
			.int()
			.min(1)
			.max(MAX_BACKFILL)
			.optional()
			.openapi({ description: `Memories to embed in this call (default ${DEFAULT_BACKFILL}, at most ${MAX_BACKFILL})` }),
	})
	.openapi("EmbeddingBackfillRequest");

recallRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/embeddings/backfill",
		scope: "write",
		summary:
			"Embed memories that have no vector for their current content (after an embedding model is configured or failed on write); resumable: call until remaining is 0",
		request: {
			params: ProjectParams,
			body: jsonBody(BackfillBody, false),
		},
		responses: {
			200: jsonResponse(
				"What this call embedded and what remains",
				z
					.object({
						model: z.string(),
						embedded: z.number().int(),
						remaining: z.number().int(),
						error: z.string().optional().openapi({ description: "The model failed part-way; what was embedded is kept" }),
					})
					.openapi("EmbeddingBackfillResult"),
			),
			...errors(400, 401, 403, 404, 409),
		},
	}),
	async (c) => {
		const { ctx, store } = projectOf(c);
		const { limit } = c.req.valid("json") ?? {};
		return c.json(await store.backfillEmbeddings(ctx, limit ?? DEFAULT_BACKFILL), 200);
	},
);

const InjectBody = z
	.object({
		query: RecallQuerySchema.optional(),
		recentTools: ToolList.optional(),
		sessionId: z.string().max(128).optional().openapi({
			description: "The caller's session: what it was handed is kept per user, so another user's session of the same id is not affected",
		}),
		mode: z.enum(["default", "assistant"]).optional(),
		exclude: z.array(z.string().regex(NAME_PATTERN)).max(200).optional(),
		maxTokens: z
			.number()
			.int()
			.min(200)
			.max(200_000)
			.optional()
			.openapi({ description: `Token budget for the whole block (default ${DEFAULT_INJECT_TOKENS})` }),
		maxChars: z.number().int().min(500).max(200_000).optional().openapi({
			description:
				"Character budget for the whole block, or with `part` for this part (Claude Code hooks: 9,500; it caps each hook's output at 10,000 characters)",
		}),
		maxBytes: z.number().int().min(500).max(200_000).optional().openapi({
			description:
				"UTF-8 byte budget for the whole block, or with `part` for this part (Codex hooks: 9,500; it caps each hook's output at 10,000 bytes). With `part`, the start budget is counted in bytes too",
		}),
		part: z
			.object({ index: z.number().int().min(1).max(8), of: z.number().int().min(1).max(8) })
			.strict()
			.refine((p) => p.index <= p.of, { message: "part.index must be at most part.of" })
			.optional()
			.openapi({
				description:
					"Session start in parts, one per SessionStart hook entry: this is part `index` of `of`. The session's block is laid out once (rules and preferences, then the files its context is sure of, facts and references, then topics for what is not listed) and each part answered from that layout, each within maxChars / maxBytes, all within startBudget; no line is in two parts. Needs sessionId to share one layout",
			}),
		source: z.enum(["startup", "resume", "clear", "compact"]).optional().openapi({
			description:
				"With part: what started the session (the agents' SessionStart `source`). The parts of one start share its layout; a later start of the same session with another source is laid out anew",
		}),
		startBudget: z.number().int().min(2_000).max(100_000).optional().openapi({
			description: "With part: the whole start block's size in the agent's unit (default: the memories.startBudget setting, 25,000)",
		}),
		include: z.enum(["all", "memories"]).optional().openapi({
			description:
				'"memories": per-prompt recall — at most 3 recalled topic files that the relevance decision keeps (what matched, weighed by how informative it is) or the model selector picks; empty when none matters enough',
		}),
		onlyNew: z.boolean().optional().openapi({ description: "With sessionId: leave out memories this session was already handed" }),
		waitMs: z.number().int().min(0).max(60_000).optional().openapi({
			description:
				"How long the caller can wait for the answer, in ms from when the request arrives (a hook's remaining budget). The model selector runs only within it; past it the ranked answer is served and the response says why",
		}),
		sessionMemory: z
			.boolean()
			.optional()
			.openapi({ description: "With sessionId: this session's session memory first (after the agent compacted its context)" }),
		code: CodeCheckSchema.optional().openapi({
			description:
				"What the repository says of the code the memories cite (GET …/citations lists the paths): paths and git blob ids only. Memories whose code changed are marked in the block; one whose cited files are all gone leaves the session-start index",
		}),
		context: z
			.object({
				folder: z.string().max(200).optional(),
				branch: z.string().max(200).optional(),
				commits: z.array(z.string().max(300)).max(20).optional(),
				files: z.array(z.string().max(300)).max(200).optional(),
			})
			.strict()
			.optional()
			.openapi({
				description:
					"Session start: what the session is about, as the hook reads it from git (folder name, branch, recent commit subjects, files changed on the branch). Ranks the index's facts and lets through the topic files the relevance decision is sure of; only paths and subjects, never file contents",
			}),
		trace: z.boolean().optional().openapi({
			description:
				"Return recall's trace in `recall.trace`: every candidate with its decision (served or why held back) and what it matched — words, concepts, cues, dates",
		}),
	})
	.openapi("InjectRequest");

export const InjectResultSchema = z
	.object({
		text: z.string(),
		tokens: z.number().int(),
		chars: z.number().int(),
		truncated: z.boolean(),
		warnings: z.array(z.string()),
		parts: z.object({
			sessionMemory: z.string(),
			guidance: z.string(),
			summary: z.string(),
			index: z.string(),
			memories: z.array(
				z.object({
					name: z.string(),
					path: z.string(),
					type: z.string(),
					ageDays: z.number(),
					tokens: z.number(),
					truncated: z.boolean(),
					matchedTerms: z.array(z.string()),
				}),
			),
			offered: z.array(z.object({ name: z.string(), path: z.string(), type: z.string(), ageDays: z.number() })).openapi({
				description: "Per-prompt block: the index lines of the next candidates, offered for the agent to open when the task needs them",
			}),
			listed: z
				.object({
					rules: z.number().int(),
					facts: z.number().int(),
					ofRules: z.number().int(),
					ofFacts: z.number().int(),
					topics: z.number().int().optional(),
				})
				.openapi({ description: "Session-start block: how many index lines of each kind it lists, of how many memories" }),
			logs: z.array(z.object({ date: z.string(), tokens: z.number() })),
		}),
		part: z
			.object({ index: z.number().int(), of: z.number().int(), chars: z.number().int(), bytes: z.number().int() })
			.optional()
			.openapi({ description: "With `part`: which part this is and its size in characters and UTF-8 bytes" }),
		cited: CitedAnswerSchema.optional().openapi({
			description: "With `code.stamp`: whether the cited list the check was made from is still the list (false: list it again)",
		}),
		recall: z
			.object({
				engine: z.enum(["lexical", "llm", "lexical-fallback"]),
				fallbackReason: z
					.string()
					.optional()
					.openapi({ description: "Why the model selector's answer is not the one served (no time left, failure)" }),
				trace: RecallTraceSchema.optional().openapi({ description: "With `trace: true`: why each candidate was served or held back" }),
			})
			.optional()
			.openapi({ description: "How the recalled memories were chosen (present when a query was given)" }),
	})
	.openapi("InjectResult");

recallRoutes.openapi(
	route({
		method: "post",
		path: "/v1/projects/{projectId}/inject",
		scope: "read",
		bodyLimit: CODE_CHECK_BODY_LIMIT,
		summary: "The Memory Guidance block for a session start (or the memories for one prompt), within a token and character budget",
		request: {
			params: ProjectParams,
			body: jsonBody(InjectBody),
		},
		responses: { 200: jsonResponse("The block and its parts", InjectResultSchema), ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		const request = c.req.valid("json");
		const result = await injectBlock(c.env, ctx, request);
		// Recorded off the response path; the call to the project's object leaves before the answer does, so
		// the session's next request (its first prompt) finds what this block listed.
		c.executionCtx.waitUntil(recordServedMemories(c.env, ctx, result.servedIds, request.sessionId, result.listedIds, result.topicKeys));
		const { servedIds: _ids, listedIds: _listed, topicKeys: _topics, layout: _layout, ...body } = result;
		return c.json(body, 200);
	},
);
