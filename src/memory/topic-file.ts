import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { z } from "zod";
import { badRequest, CairnError } from "../errors";

export const MEMORY_TYPES = ["user", "feedback", "project", "reference"] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
export const MEMORY_SCOPES = ["personal", "team"] as const;
export type MemoryScope = (typeof MEMORY_SCOPES)[number];

/** Who wrote a memory's version: a person, an agent's explicit write, stage 1, consolidation, or an import. */
export const MEMORY_SOURCES = ["user", "agent", "extraction", "consolidation", "import"] as const;
export type MemorySource = (typeof MEMORY_SOURCES)[number];

/**
 * Names are the only user text that becomes an R2 key segment, hence the strict allow-list.
 * `NAME_SOURCE` is the same rule unanchored, for patterns that find names inside paths and URLs.
 */
export const NAME_SOURCE = "[a-z0-9][a-z0-9-]{0,63}";
export const NAME_PATTERN = new RegExp(`^${NAME_SOURCE}$`);
export const MAX_DESCRIPTION_CHARS = 500;
export const MAX_BODY_BYTES = 64 * 1024;

export const MemoryTypeSchema = z.enum(MEMORY_TYPES);
export const MemoryScopeSchema = z.enum(MEMORY_SCOPES);
export const descriptionSchema = z
	.string()
	.trim()
	.min(1, "description must not be empty")
	.max(MAX_DESCRIPTION_CHARS, `description must be at most ${MAX_DESCRIPTION_CHARS} characters`)
	.refine((d) => !/[\r\n]/.test(d), "description must be a single line");

export const MAX_CUES = 8;
export const MAX_CUE_CHARS = 200;
/** A memory's cues: when it applies. Metadata beside the topic file, never in its frontmatter. */
export const cuesSchema = z
	.array(
		z
			.string()
			.trim()
			.min(1, "a cue must not be empty")
			.max(MAX_CUE_CHARS, `a cue must be at most ${MAX_CUE_CHARS} characters`)
			.refine((c) => !/[\r\n]/.test(c), "a cue must be a single line"),
	)
	.max(MAX_CUES, `at most ${MAX_CUES} cues`);

/** Validates cues; errors name the field, never echo a value. Duplicates are dropped. */
export function validateCues(cues: unknown): string[] {
	const parsed = cuesSchema.safeParse(cues);
	if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "cues are invalid", { field: "cues" });
	return [...new Set(parsed.data)];
}

export interface TopicFile {
	name: string;
	type: MemoryType;
	description: string;
	body: string;
}

export function assertValidName(name: string): void {
	if (!NAME_PATTERN.test(name)) {
		throw new CairnError(
			"invalid_name",
			"memory name must be 1-64 characters of lowercase letters, digits and '-', starting with a letter or digit",
		);
	}
}

export function assertBodySize(body: string): void {
	if (new TextEncoder().encode(body).byteLength > MAX_BODY_BYTES) {
		throw new CairnError("payload_too_large", `memory body exceeds ${MAX_BODY_BYTES} bytes`);
	}
}

/** Validates the three frontmatter fields; errors name the field, never echo its value. */
export function validateFields(fields: { type?: unknown; description?: unknown }): { type: MemoryType; description: string } {
	const type = MemoryTypeSchema.safeParse(fields.type);
	if (!type.success) {
		throw badRequest(fields.type === undefined ? "type is required" : `type must be one of ${MEMORY_TYPES.join(", ")}`, { field: "type" });
	}
	if (fields.description === undefined) throw badRequest("description is required", { field: "description" });
	const description = descriptionSchema.safeParse(fields.description);
	if (!description.success) {
		throw badRequest(description.error.issues[0]?.message ?? "description is invalid", { field: "description" });
	}
	return { type: type.data, description: description.data };
}

const FRONTMATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** Parses a topic file (frontmatter `name`, `description`, `type` + markdown body). */
export function parseTopicFile(markdown: string): TopicFile {
	const m = FRONTMATTER.exec(markdown);
	if (!m)
		throw badRequest("markdown must start with a frontmatter block (---) holding name, description and type", { field: "frontmatter" });
	let data: unknown;
	try {
		data = parseYaml(m[1] ?? "", { maxAliasCount: 0 });
	} catch {
		throw badRequest("frontmatter is not valid YAML", { field: "frontmatter" });
	}
	if (!data || typeof data !== "object" || Array.isArray(data)) {
		throw badRequest("frontmatter must be a mapping of name, description and type", { field: "frontmatter" });
	}
	const fields = data as Record<string, unknown>;
	const unknown = Object.keys(fields).filter((k) => !["name", "description", "type"].includes(k));
	if (unknown.length > 0) {
		throw badRequest("frontmatter may only hold name, description and type", {
			field: "frontmatter",
			unknownFields: unknown.slice(0, 10).map((k) => k.slice(0, 40)),
		});
	}
	if (typeof fields.name !== "string") throw badRequest("name is required in frontmatter", { field: "name" });
	const { type, description } = validateFields(fields);
	return { name: fields.name, type, description, body: markdown.slice(m[0].length).replace(/^\r?\n/, "") };
}

/** Renders the canonical file text; what R2 stores and what GET returns. */
export function renderTopicFile(file: TopicFile): string {
	const body = file.body.endsWith("\n") || file.body === "" ? file.body : `${file.body}\n`;
	return `---\n${frontmatterOf(file)}---\n\n${body}`;
}

/**
 * The frontmatter of a header, kept per isolate: a memory read renders it to compare the indexed body
 * with the stored file, and the same headers are rendered again and again.
 */
const frontmatters = new Map<string, string>();
const FRONTMATTERS_KEPT = 4096;
function frontmatterOf(file: Pick<TopicFile, "name" | "description" | "type">): string {
	const key = `${file.name}\u0000${file.type}\u0000${file.description}`;
	let text = frontmatters.get(key);
	if (text === undefined) {
		text = stringifyYaml({ name: file.name, description: file.description, type: file.type }, { lineWidth: 0 });
		if (frontmatters.size >= FRONTMATTERS_KEPT) frontmatters.clear();
		frontmatters.set(key, text);
	}
	return text;
}

/** The body of a file in the canonical form `renderTopicFile` writes, without parsing its frontmatter again. */
export function canonicalBody(content: string): string {
	const m = FRONTMATTER.exec(content);
	return m ? content.slice(m[0].length).replace(/^\r?\n/, "") : parseTopicFile(content).body;
}
