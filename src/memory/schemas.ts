/**
 * The named field schemas every interface shares: REST (with OpenAPI metadata added on top) and MCP
 * tools use these same objects, so a limit cannot differ between them.
 */
import { z } from "zod";
import { cuesSchema, descriptionSchema, MAX_BODY_BYTES, MemoryScopeSchema, MemoryTypeSchema, NAME_PATTERN } from "./topic-file";

export { MemoryScopeSchema, MemoryTypeSchema };

export const MemoryNameSchema = z
	.string()
	.regex(NAME_PATTERN, "must be 1-64 characters of a-z, 0-9 and '-', starting with a letter or digit");
/** One line, ≤ 500 characters: a newline would forge lines in MEMORY.md. */
export const MemoryDescriptionSchema = descriptionSchema;
/** Characters bound the request; the write function checks the UTF-8 size (≤ 64 KB). */
export const MemoryBodySchema = z.string().max(MAX_BODY_BYTES);
export const RecallQuerySchema = z.string().max(8_000);
export const RecallLimitSchema = z.number().int().min(1).max(20);
export const ToolListSchema = z.array(z.string().min(1).max(200)).max(100);
export const MemoryUrlSchema = z.string().min(1).max(300);
/** When a memory applies (≤ 8 single-line cues of ≤ 200 characters), in its language and in English. */
export const MemoryCuesSchema = cuesSchema;
