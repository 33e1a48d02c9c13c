/**
 * Archiving and restoring a memory (what it means: src/memory/archive-rows.ts). A memory is archived
 * only by a person approving an `archive` review item (src/memory/reviews.ts), which the maintenance
 * sweep proposes for a memory served often and never used (src/maintenance/archive-unused.ts); it is
 * never deleted that way. A team memory is archived and restored only where a team write is allowed.
 */
import { CairnError, notFound } from "../errors";
import { nowIso } from "../lib/ids";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import { archiveStatements, restoreStatements } from "./archive-rows";
import {
	assertScopeWritable,
	bumpIndexStatement,
	getMemoryRow,
	guardStatement,
	isGuardFailure,
	type MemoryMetadata,
	toMetadata,
	type WriteGuard,
} from "./store";
import type { MemoryScope } from "./topic-file";

const changed = (current: number | null) =>
	new CairnError("version_conflict", "the memory changed since this was proposed; nothing was changed", { currentVersion: current });

/**
 * Archives the memory at `version` in one transaction with `guard` (the review item still pending): a
 * memory changed or deleted since is a 412 and nothing changes. Returns it as it is now.
 */
export async function archiveMemory(
	env: ProjectEnv,
	ctx: ProjectContext,
	scope: MemoryScope,
	name: string,
	version: number | null,
	guard: WriteGuard,
): Promise<MemoryMetadata> {
	const current = await getMemoryRow(env.PDB, ctx, scope, name);
	if (!current || current.version !== version) throw changed(current?.version ?? null);
	if (scope === "team") await assertScopeWritable(env, ctx, "team");
	const db = env.PDB;
	try {
		await db.batch([
			guardStatement(db, guard.condition, guard.args),
			guardStatement(db, "EXISTS (SELECT 1 FROM memories WHERE id = ? AND version = ?)", [current.id, current.version]),
			...archiveStatements(db, current, nowIso()),
			bumpIndexStatement(db, ctx),
		]);
	} catch (err) {
		if (!isGuardFailure(err)) throw err;
		const still = await guardStatement(db, guard.condition, guard.args)
			.first()
			.then(() => true)
			.catch(() => false);
		throw still ? changed((await getMemoryRow(db, ctx, scope, name))?.version ?? null) : guard.error();
	}
	const row = await getMemoryRow(db, ctx, scope, name);
	if (!row) throw changed(null);
	return toMetadata(row);
}

/** Serves an archived memory again (a memory not archived is left as it is). Returns it as it is now. */
export async function restoreMemory(env: ProjectEnv, ctx: ProjectContext, scope: MemoryScope, name: string): Promise<MemoryMetadata> {
	const current = await getMemoryRow(env.PDB, ctx, scope, name);
	if (!current) throw notFound("memory");
	if (!current.archived_at) return toMetadata(current);
	await assertScopeWritable(env, ctx, scope);
	await env.PDB.batch([...restoreStatements(env.PDB, current.id), bumpIndexStatement(env.PDB, ctx)]);
	const row = await getMemoryRow(env.PDB, ctx, scope, name);
	if (!row) throw notFound("memory");
	return toMetadata(row);
}
