import type { MemoryScope } from "../memory/topic-file";

/** Ids like `prj_0abc…` become single alphanumeric tokens (`pprj0abc…`), which the tokenizer keeps whole. */
const token = (prefix: string, id: string) => `${prefix}${id.toLowerCase().replace(/[^a-z0-9]/g, "")}`;

/** The `scope_key` text indexed with each memory. */
export const scopeKey = (projectId: string, scope: MemoryScope, ownerId: string) =>
	`${token("p", projectId)} ${scope === "team" ? "oteam" : token("o", ownerId)}`;

/**
 * The MATCH expression for recall: the project, the visible owners (the caller's personal memories
 * and/or the team's), and any of the query terms in name, description or body.
 */
export function scopedMatch(terms: string[], projectId: string, userId: string, scopes: MemoryScope[]): string {
	const owners = scopes.map((s) => (s === "team" ? '"oteam"' : `"${token("o", userId)}"`)).join(" OR ");
	return `scope_key : "${token("p", projectId)}" AND scope_key : (${owners}) AND {name description body} : (${terms.map((t) => `"${t}"`).join(" OR ")})`;
}
