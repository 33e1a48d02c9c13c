/**
 * The search rows kept beside `memories_fts` for each memory: its CJK grams (`memories_grams`), its cues
 * and concepts (`memories_cues`) and its embedding (`memory_vectors`). Every path that replaces or removes a memory's `memories_fts` row
 * includes these statements in the same batch, so the three indexes change together.
 */

import { EMBED_TIMEOUT_MS, type Embedder, embeddingText, toBlob } from "../llm/embedding";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { conceptColumn } from "../text/concepts";
import { gramText } from "../text/grams";

/** The memory a statement addresses: its id, or an SQL expression that yields it (a new memory's id). */
export interface RowRef {
	sql: string;
	args: unknown[];
}

export const rowById = (id: number): RowRef => ({ sql: "?", args: [id] });

/** Replaces a memory's row in the CJK index (no row when its text has no CJK). */
export function gramStatements(
	db: ProjectDb,
	ref: RowRef,
	fields: { name: string; description: string; body: string },
): ProjectStatement[] {
	const text = [gramText(fields.name), gramText(fields.description), gramText(fields.body)];
	const statements = [db.prepare(`DELETE FROM memories_grams WHERE rowid = ${ref.sql}`).bind(...ref.args)];
	if (text.some((t) => t !== ""))
		statements.push(
			db.prepare(`INSERT INTO memories_grams (rowid, name, description, body) SELECT ${ref.sql}, ?, ?, ?`).bind(...ref.args, ...text),
		);
	return statements;
}

/** Replaces a memory's cue row: its cues and its concepts (src/text/concepts.ts); none when it has neither. */
export function cueStatements(
	db: ProjectDb,
	ref: RowRef,
	fields: { name: string; description: string; body: string; cues: string[] },
): ProjectStatement[] {
	const concepts = conceptColumn(fields);
	const statements = [db.prepare(`DELETE FROM memories_cues WHERE rowid = ${ref.sql}`).bind(...ref.args)];
	if (fields.cues.length > 0 || concepts !== "")
		statements.push(
			db
				.prepare(`INSERT INTO memories_cues (rowid, cues, concepts) SELECT ${ref.sql}, ?, ?`)
				.bind(...ref.args, fields.cues.join("\n"), concepts),
		);
	return statements;
}

/** Replaces a memory's vector: the new one when the model gave one, none otherwise (the backfill fills it). */
export function vectorStatements(
	db: ProjectDb,
	ref: RowRef,
	projectId: string,
	contentHash: string,
	embedded: { model: string; vector: Float32Array } | null,
): ProjectStatement[] {
	const statements = [db.prepare(`DELETE FROM memory_vectors WHERE memory_id = ${ref.sql}`).bind(...ref.args)];
	if (embedded)
		statements.push(
			db
				.prepare(`INSERT INTO memory_vectors (memory_id, project_id, model, content_hash, dims, vector) SELECT ${ref.sql}, ?, ?, ?, ?, ?`)
				.bind(...ref.args, projectId, embedded.model, contentHash, embedded.vector.length, toBlob(embedded.vector)),
		);
	return statements;
}

/** Removes a memory's rows from both indexes. */
export const dropStatements = (db: ProjectDb, id: number): ProjectStatement[] => [
	db.prepare("DELETE FROM memories_grams WHERE rowid = ?").bind(id),
	db.prepare("DELETE FROM memories_cues WHERE rowid = ?").bind(id),
	db.prepare("DELETE FROM memory_vectors WHERE memory_id = ?").bind(id),
	db.prepare("DELETE FROM code_citations WHERE memory_id = ?").bind(id),
];

/**
 * The embeddings of the memories being written, in one model call started beside their R2 put: never
 * rejects, never waits longer than EMBED_TIMEOUT_MS. A null per memory without an embedder or when the
 * model fails or is slow; those writes land without a vector and the backfill embeds them later.
 */
export async function embedForWrite(
	embedder: Embedder | null | undefined,
	fields: { name: string; description: string; body: string }[],
): Promise<({ model: string; vector: Float32Array } | null)[]> {
	const none = fields.map(() => null);
	if (!embedder || fields.length === 0) return none;
	let timer: ReturnType<typeof setTimeout> | undefined;
	try {
		const timeout = new Promise<null>((resolve) => {
			timer = setTimeout(() => resolve(null), EMBED_TIMEOUT_MS);
		});
		const vectors = await Promise.race([embedder.embed(fields.map((f) => embeddingText(f.name, f.description, f.body))), timeout]);
		return fields.map((_, i) => {
			const vector = vectors?.[i];
			return vector ? { model: embedder.model, vector } : null;
		});
	} catch {
		return none;
	} finally {
		if (timer) clearTimeout(timer);
	}
}
