/**
 * Content packs: the topic files one batch writes, stored as one R2 object instead of one object each.
 * A local or remote R2 put costs about the same for 1 KB as for 100 KB, so a batch of a hundred
 * memories costs one put instead of a hundred. Each version written this way records where its bytes
 * are, `content_ref` = `<pack id>:<offset>:<length>` (UTF-8 bytes), and is read with a ranged get;
 * its `content_hash` is still the SHA-256 of exactly those bytes, so "unchanged" and team sync compare
 * hashes as before. The order of writes is the same as for a single write: the pack is put first,
 * then one transaction writes the rows that point into it. A pack id is random per batch, so no writer
 * ever re-puts a pack the sweep may be deleting; a pack no version references any more (its memories
 * deleted or rewritten, or a batch that failed after its put) is deleted by `sweepProjectPacks` once
 * older than the grace period.
 */
import { randomId } from "../lib/ids";
import { oldObjects } from "../storage/content-holds";
import type { ProjectEnv } from "../storage/env";
import { objectKey, packKey, packsPrefix } from "./paths";

const REF = /^([a-z0-9]{20}):(\d{1,9}):(\d{1,9})$/;

/** Builds one batch's pack: each distinct content once, with the reference its rows store. */
export class PackBuilder {
	readonly id = randomId(20);
	private readonly parts: Uint8Array[] = [];
	private readonly refs = new Map<string, string>();
	private bytes = 0;

	/** Adds `content` (once per hash) and returns its `content_ref`. */
	add(content: string, hash: string): string {
		const known = this.refs.get(hash);
		if (known) return known;
		const encoded = new TextEncoder().encode(content);
		const ref = `${this.id}:${this.bytes}:${encoded.byteLength}`;
		this.parts.push(encoded);
		this.bytes += encoded.byteLength;
		this.refs.set(hash, ref);
		return ref;
	}

	get size(): number {
		return this.refs.size;
	}

	/** The pack's bytes, in the order added. */
	body(): Uint8Array {
		const out = new Uint8Array(this.bytes);
		let at = 0;
		for (const part of this.parts) {
			out.set(part, at);
			at += part.byteLength;
		}
		return out;
	}
}

/** Where a `content_ref` points: the pack's key and the byte range; null for a malformed reference. */
export function packRange(tenantId: string, projectId: string, ref: string): { key: string; offset: number; length: number } | null {
	const m = REF.exec(ref);
	if (!m) return null;
	return { key: packKey(tenantId, projectId, m[1] as string), offset: Number(m[2]), length: Number(m[3]) };
}

const PACK_ID_LENGTH = 20;

/** The versions whose bytes are in any of a JSON list of pack ids (by the index of schema version 13). */
export const PACKED_VERSIONS = `SELECT DISTINCT content_ref, content_hash FROM memory_versions
	WHERE project_id = ? AND content_ref IS NOT NULL AND substr(content_ref, 1, ${PACK_ID_LENGTH}) IN (SELECT value FROM json_each(?))`;

/**
 * Sweeps this project's packs older than `grace` (a batch's rows commit right after its put): a pack no
 * memory version references any more is deleted; a pack that still holds bytes no version references
 * (a memory deleted — perhaps for holding a secret — while others of its batch live on) is dissolved:
 * each live range becomes its content-addressed object, its rows point there, and the pack is deleted,
 * so a deleted memory's text leaves storage as it does for a memory written alone. Returns how many
 * packs were removed.
 */
export async function sweepProjectPacks(env: ProjectEnv, projectId: string, tenantId: string, now: number, grace: number): Promise<number> {
	const prefix = packsPrefix(tenantId, projectId);
	let removed = 0;
	for await (const group of oldObjects(env.FILES, prefix, now, grace)) {
		const { results } = await env.PDB.prepare(PACKED_VERSIONS)
			.bind(projectId, JSON.stringify(group.map((o) => o.key.slice(prefix.length))))
			.all<{ content_ref: string; content_hash: string }>();
		const live = new Map<string, { content_ref: string; content_hash: string }[]>();
		for (const r of results) {
			const id = r.content_ref.slice(0, PACK_ID_LENGTH);
			live.set(id, [...(live.get(id) ?? []), r]);
		}
		const orphans: string[] = [];
		for (const o of group) {
			const refs = live.get(o.key.slice(prefix.length)) ?? [];
			const liveBytes = refs.reduce((n, r) => n + (packRange(tenantId, projectId, r.content_ref)?.length ?? 0), 0);
			if (refs.length === 0) orphans.push(o.key);
			else if (liveBytes < o.size && (await dissolvePack(env, projectId, tenantId, refs))) orphans.push(o.key);
		}
		if (orphans.length > 0) await env.FILES.delete(orphans);
		removed += orphans.length;
	}
	return removed;
}

/**
 * Moves a pack's live ranges to content-addressed objects and points their rows there (objects first,
 * then the rows). False when a range could not be read: the pack stays for the next sweep.
 */
async function dissolvePack(
	env: ProjectEnv,
	projectId: string,
	tenantId: string,
	refs: { content_ref: string; content_hash: string }[],
): Promise<boolean> {
	for (const r of refs) {
		const range = packRange(tenantId, projectId, r.content_ref);
		const part = range && (await env.FILES.get(range.key, { range: { offset: range.offset, length: range.length } }));
		if (!part) return false;
		await env.FILES.put(objectKey(tenantId, projectId, r.content_hash), await part.arrayBuffer(), {
			httpMetadata: { contentType: "text/markdown; charset=utf-8" },
		});
	}
	await env.PDB.batch(
		refs.flatMap((r) => [
			env.PDB.prepare("UPDATE memory_versions SET content_ref = NULL WHERE project_id = ? AND content_ref = ?").bind(
				projectId,
				r.content_ref,
			),
			env.PDB.prepare("UPDATE memories SET content_ref = NULL WHERE project_id = ? AND content_ref = ?").bind(projectId, r.content_ref),
		]),
	);
	return true;
}
