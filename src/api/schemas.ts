import { z } from "@hono/zod-openapi";
import {
	MemoryBodySchema,
	MemoryCuesSchema,
	MemoryDescriptionSchema,
	MemoryNameSchema,
	MemoryScopeSchema,
	MemoryTypeSchema,
} from "../memory/schemas";
import { MEMORY_SOURCES } from "../memory/topic-file";
import { CitationsInputSchema } from "../text/citations";

export const ErrorSchema = z
	.object({
		error: z.object({
			code: z.string().openapi({ example: "invalid_request" }),
			message: z.string(),
			details: z.record(z.string(), z.unknown()).optional(),
		}),
	})
	.openapi("Error");

const errorContent = { "application/json": { schema: ErrorSchema } };
/** Standard error responses, declared once and spread into each route. */
export const errors = (...statuses: (400 | 401 | 403 | 404 | 409 | 412 | 413 | 415 | 422)[]) =>
	Object.fromEntries(statuses.map((s) => [s, { description: "Error", content: errorContent }]));

/** A response whose body is JSON of this schema. */
export const jsonResponse = <T extends z.ZodType>(description: string, schema: T) => ({
	description,
	content: { "application/json": { schema } },
});
/** A response whose body is markdown. */
export const markdownResponse = (description: string) => ({ description, content: { "text/markdown": { schema: z.string() } } });
/**
 * A JSON request body of this schema. Not `required`: the schema then applies only when the body is
 * sent as JSON, and a route reads anything else itself.
 */
export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({ required, content: { "application/json": { schema } } });

export const NameParam = MemoryNameSchema.openapi({ param: { name: "name", in: "path" }, example: "testing-conventions" });
export const ProjectIdParam = z
	.string()
	.min(1)
	.max(64)
	.openapi({ param: { name: "projectId", in: "path" }, example: "prj_0123456789abcdef" });

/** The path parameters of a route about one project and nothing under it. */
export const ProjectParams = z.object({ projectId: ProjectIdParam });

export const ScopeQuery = MemoryScopeSchema.optional().openapi({ param: { name: "scope", in: "query" } });

const CitationSchema = z
	.object({
		path: z.string(),
		symbol: z.string().optional(),
		lines: z.string().optional(),
		blob: z.string().optional(),
		source: z.enum(["writer", "text", "transcript"]),
	})
	.openapi("Citation");

export const MemoryMetadataSchema = z
	.object({
		name: z.string(),
		type: MemoryTypeSchema,
		description: z.string(),
		scope: MemoryScopeSchema,
		path: z.string().openapi({ example: "memory://root/testing-conventions.md" }),
		version: z.number().int(),
		createdAt: z.string(),
		updatedAt: z.string(),
		verifiedAt: z.string(),
		source: z.enum(MEMORY_SOURCES),
		sessionId: z.string().nullable(),
		timesServed: z.number().int().openapi({ description: "Times recall and inject handed it out, with or without a session" }),
		lastServedAt: z.string().nullable(),
		sessionsServed: z.number().int().openapi({ description: "Sessions it was served in (each counted once)" }),
		sessionsCited: z.number().int().openapi({
			description: "Sessions whose agent cited its memory:// path in its own reply (read from the transcripts they posted)",
		}),
		lastCitedAt: z.string().nullable(),
		sessionsRead: z.number().int().openapi({
			description: "Sessions that read it: memory_read, an MCP resource read, or a resolve sent with X-Cairn-Session",
		}),
		lastReadAt: z.string().nullable(),
		archivedAt: z.string().nullable().openapi({
			description:
				"When a person approved archiving it (served often, never used): it is no longer served at session start, per prompt or by recall, and stays readable and in history until a new version or a restore",
		}),
		proposedScope: MemoryScopeSchema.nullable().openapi({
			description: "A scope proposed for this memory and not yet decided: 'team' when its author called it a team rule",
		}),
		cues: z.array(z.string()).openapi({
			description: "When the memory applies (situations and tasks), in its language and in English; indexed for recall",
			example: ["adding, removing or upgrading a dependency; installing packages"],
		}),
		cuesSource: z
			.enum(["written", "derived"])
			.openapi({ description: "written: by a model or a person; derived: from the concept map when none were written" }),
		citations: z.array(CitationSchema).openapi({
			description:
				"The repository code the memory is about: paths (with a symbol or lines where known) and the git blob id its writer saw; 'text' citations were read from the memory's text, 'transcript' ones are files the agent read or edited in the session turns it was written from",
		}),
		codeState: z.enum(["current", "changed", "gone"]).nullable().openapi({
			description:
				"What the last check of the cited code from the repository found: current, changed (or moved), gone; null when nothing it cites is tracked or it cites nothing",
		}),
		awaitingReview: z.boolean().openapi({
			description:
				"A team memory whose current text no person vouched for yet (docs/memory-trust.md): a proposal, served to its writer only (marked unreviewed) until a person approves it in the console or with `cairn review approve`; teammates are told only how many wait. Always false for personal memories.",
		}),
	})
	.openapi("MemoryMetadata");

export const MemoryJsonBodySchema = z
	.object({
		type: MemoryTypeSchema,
		description: MemoryDescriptionSchema,
		body: MemoryBodySchema,
		cues: MemoryCuesSchema.optional().openapi({
			description:
				"When the memory applies, e.g. 'adding or upgrading a dependency'. Absent: cues written earlier are kept, else derived from the concept map; [] derives them again",
		}),
		citations: CitationsInputSchema.optional().openapi({
			description:
				"The repository code the memory is about, each a path relative to the repository root with an optional symbol, line range and git blob id. Absent: citations written earlier are kept and the paths the text names join them; [] removes them",
		}),
	})
	.openapi("MemoryInput");

export const BatchItemSchema = MemoryJsonBodySchema.extend({ name: z.string() }).openapi("BatchMemoryInput");

export const ProjectSchema = z
	.object({ id: z.string(), name: z.string(), canonicalKey: z.string(), createdAt: z.string() })
	.openapi("Project");

export const KeySchema = z
	.object({
		id: z.string(),
		name: z.string(),
		scopes: z.array(z.enum(["read", "write", "admin"])),
		projectId: z.string().nullable(),
		userId: z.string(),
		createdAt: z.string(),
	})
	.openapi("ApiKey");

/**
 * A settings patch reaches `parseSettingsPatch` as the caller sent it: a zod record would rebuild the
 * object and a `__proto__` key would vanish into the copy's prototype (a 200 that did nothing), so the
 * schema only checks for an object and the parser checks every key by its own name.
 */
export const SettingsPatchSchema = z
	.custom<Record<string, unknown>>((v) => typeof v === "object" && v !== null && !Array.isArray(v), {
		message: "must be a JSON object of dotted setting keys",
	})
	.openapi("SettingsPatch", {
		type: "object",
		additionalProperties: { anyOf: [{ type: "boolean" }, { type: "number" }, { type: "string" }, { type: "null" }] },
		example: { "memories.enabled": true, "memories.minRolloutIdleHours": 6 },
	});

/**
 * Headers for a response of a few hundred bytes to a few KB (one memory, one settings level): sent as it
 * is. Compressing a body that small saves less than the compressing costs — in the local runtime about a
 * millisecond per request, the gap between such a read and /health.
 */
export const UNCOMPRESSED = { "Content-Encoding": "identity" } as const;
