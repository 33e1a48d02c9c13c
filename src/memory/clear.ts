import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { projectPrefix } from "./paths";
import { forgetStoredSummaries } from "./summary-cache";

/** Tables holding memory artifacts of a project; the project row, keys and settings are not among them. */
const PROJECT_TABLES = [
	"memory_versions",
	"memory_visibility",
	"stage1_outputs",
	"skills",
	"consolidation_events",
	"session_writes",
	"session_served",
	"session_topics",
	"session_used",
	"code_citations",
	"session_chunks",
	"session_records",
	"sessions",
	"topic_labels",
	"topic_labelling",
];

/**
 * Deletes every memory artifact of a project: in D1 the FTS rows, memories and every table above,
 * in one batch; in R2 everything under the project's prefix (topic file objects, index caches,
 * summaries, logs, transcripts, session memories). D1 goes first so that nothing points at a deleted
 * object; a crash part-way through R2 leaves unreferenced objects, which a second clear (or the
 * sweep, for content objects) removes.
 */
export async function clearProjectMemory(env: ProjectEnv, ctx: ProjectContext): Promise<{ objects: number }> {
	const db = env.PDB;
	await db.batch([
		db.prepare("DELETE FROM memories_fts WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?)").bind(ctx.projectId),
		db.prepare("DELETE FROM memories_grams WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?)").bind(ctx.projectId),
		db.prepare("DELETE FROM memories_cues WHERE rowid IN (SELECT id FROM memories WHERE project_id = ?)").bind(ctx.projectId),
		db.prepare("DELETE FROM memory_vectors WHERE project_id = ?").bind(ctx.projectId),
		...PROJECT_TABLES.map((table) => db.prepare(`DELETE FROM ${table} WHERE project_id = ?`).bind(ctx.projectId)),
		db.prepare("DELETE FROM memories WHERE project_id = ?").bind(ctx.projectId),
		db.prepare("UPDATE projects SET index_generation = index_generation + 1 WHERE id = ?").bind(ctx.projectId),
	]);
	// Forgotten before the objects go (a read meanwhile keeps nothing) and after (what a read kept while they went).
	forgetStoredSummaries(projectPrefix(ctx.tenantId, ctx.projectId));
	const objects = await deletePrefix(env.FILES, projectPrefix(ctx.tenantId, ctx.projectId));
	forgetStoredSummaries(projectPrefix(ctx.tenantId, ctx.projectId));
	return { objects };
}

/** Deletes every R2 object under a prefix, a page at a time. Returns how many were deleted. */
export async function deletePrefix(bucket: R2Bucket, prefix: string): Promise<number> {
	let objects = 0;
	let cursor: string | undefined;
	do {
		const page = await bucket.list({ prefix, cursor, limit: 1000 });
		const keys = page.objects.map((o) => o.key);
		if (keys.length > 0) await bucket.delete(keys);
		objects += keys.length;
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return objects;
}
