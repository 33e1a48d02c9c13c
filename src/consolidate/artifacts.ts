import { nowIso, sha256Hex } from "../lib/ids";
import { objectKey, summaryKey } from "../memory/paths";
import { forgetStoredSummaries, keepSummary } from "../memory/summary-cache";
import { effectiveSettings } from "../settings/settings";
import { holdContent } from "../storage/content-holds";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectDb, ProjectStatement } from "../storage/sql";
import { buildSummary, datedSummary, storedSummary, withoutStaleLines } from "./summary";

/** A skill: `skills/<name>/SKILL.md`, frontmatter name + description, then its sections. */
export interface Skill {
	name: string;
	description: string;
	body: string;
	/** Memory names the skill was made from; absent or empty when unknown. */
	sources?: string[];
}

export interface SkillRow {
	name: string;
	description: string;
	content_hash: string;
	updated_at: string;
	/** JSON array of memory names. */
	sources: string;
}

export const renderSkill = (s: Skill) => `---\nname: ${s.name}\ndescription: ${JSON.stringify(s.description)}\n---\n\n${s.body.trim()}\n`;

/**
 * The caller's summary as it may be shown: lines citing a memory or skill that changed or went away
 * since it was written are left out; without a model (`rebuildOffline`) a stale summary is rebuilt from
 * the current memories at once and stored. Null when there is none.
 */
export async function readSummary(
	env: ProjectEnv,
	ctx: ProjectContext,
	options: { rebuildOffline?: boolean } = {},
): Promise<string | null> {
	const stored = await storedSummary(env, ctx);
	if (!stored) return null;
	const fresh = await withoutStaleLines(env.PDB, ctx, stored.text, stored.writtenAt);
	if (fresh.dropped === 0 || !options.rebuildOffline) return fresh.text;
	return rebuildSummary(env, ctx);
}

/** Rebuilds the caller's summary offline from the current memories and stores it (the rebuild command; a stale summary without a model). */
export async function rebuildSummary(env: ProjectEnv, ctx: ProjectContext): Promise<string> {
	const settings = await effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
	const text = await buildSummary(env.PDB, ctx, Number(settings["memories.summaryInjectionTokenLimit"].value));
	return writeSummary(env, ctx, text);
}

/** The summary is one object per user, replaced whole: an R2 put is atomic. It carries its date, in the text and as metadata. */
export async function writeSummary(env: Env, ctx: ProjectContext, text: string): Promise<string> {
	const at = new Date();
	const dated = datedSummary(text, at);
	const key = summaryKey(ctx.tenantId, ctx.projectId, ctx.userId);
	// Forgotten before the put (a read meanwhile keeps nothing), kept once it is stored.
	forgetStoredSummaries(key);
	await env.FILES.put(key, dated, {
		httpMetadata: { contentType: "text/markdown; charset=utf-8" },
		customMetadata: { writtenAt: at.toISOString() },
	});
	keepSummary(key, { text: dated, writtenAt: at.toISOString() });
	return dated;
}

export async function listSkills(db: ProjectDb, ctx: ProjectContext): Promise<SkillRow[]> {
	const { results } = await db
		.prepare("SELECT name, description, content_hash, updated_at, sources FROM skills WHERE project_id = ? AND owner_id = ? ORDER BY name")
		.bind(ctx.projectId, ctx.userId)
		.all<SkillRow>();
	return results;
}

export async function readSkill(env: ProjectEnv, ctx: ProjectContext, name: string): Promise<string | null> {
	const row = await env.PDB.prepare("SELECT content_hash FROM skills WHERE project_id = ? AND owner_id = ? AND name = ?")
		.bind(ctx.projectId, ctx.userId, name)
		.first<{ content_hash: string }>();
	if (!row) return null;
	const object = await env.FILES.get(objectKey(ctx.tenantId, ctx.projectId, row.content_hash));
	return object ? object.text() : null;
}

/**
 * Writes skills: content-addressed objects first, then one D1 batch that upserts the rows and, in
 * `replace` mode, deletes every skill absent from `skills`. Returns what was written and removed.
 */
export async function replaceSkills(
	env: ProjectEnv,
	ctx: ProjectContext,
	skills: Skill[],
	mode: "replace" | "add",
	/** A statement the batch runs first; when it fails nothing is written (consolidation's clear check). */
	guard?: ProjectStatement,
	/** Skills to delete in the same batch (in `add` mode: the ones the run retired). */
	retire: string[] = [],
): Promise<{ written: string[]; removed: string[] }> {
	const now = nowIso();
	const existing = await listSkills(env.PDB, ctx);
	const statements: ProjectStatement[] = [];
	const written: string[] = [];
	const puts: { key: string; content: string }[] = [];
	for (const skill of skills) {
		const content = renderSkill(skill);
		const hash = await sha256Hex(content);
		if (existing.some((e) => e.name === skill.name && e.content_hash === hash)) continue;
		puts.push({ key: objectKey(ctx.tenantId, ctx.projectId, hash), content });
		written.push(skill.name);
		statements.push(
			env.PDB.prepare(
				`INSERT INTO skills (project_id, owner_id, name, description, content_hash, updated_at, sources) VALUES (?, ?, ?, ?, ?, ?, ?)
				 ON CONFLICT (project_id, owner_id, name) DO UPDATE SET description = excluded.description, content_hash = excluded.content_hash,
				   updated_at = excluded.updated_at, sources = excluded.sources`,
			).bind(ctx.projectId, ctx.userId, skill.name, skill.description, hash, now, JSON.stringify(skill.sources ?? [])),
		);
	}
	const keep = new Set(skills.map((s) => s.name));
	const removed =
		mode === "replace"
			? existing.filter((e) => !keep.has(e.name)).map((e) => e.name)
			: existing.filter((e) => retire.includes(e.name) && !keep.has(e.name)).map((e) => e.name);
	for (const name of removed) {
		statements.push(
			env.PDB.prepare("DELETE FROM skills WHERE project_id = ? AND owner_id = ? AND name = ?").bind(ctx.projectId, ctx.userId, name),
		);
	}
	if (statements.length === 0) return { written, removed };
	// Held from the puts until the batch lands, so the orphan sweep cannot delete a re-used object.
	await holdContent(
		puts.map((p) => p.key),
		async () => {
			for (const { key, content } of puts)
				await env.FILES.put(key, content, { httpMetadata: { contentType: "text/markdown; charset=utf-8" } });
			await env.PDB.batch(guard ? [guard, ...statements] : statements);
		},
	);
	return { written, removed };
}
