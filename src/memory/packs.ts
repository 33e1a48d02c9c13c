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
import type { ProjectEnv } from "../project/env";
import { packKey, packsPrefix } from "./paths";

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

/**
 * Deletes this project's packs that no memory version references, once older than `grace` (a batch's
 * rows commit right after its put). Returns how many were removed.
 */
export async function sweepProjectPacks(env: ProjectEnv, projectId: string, tenantId: string, now: number, grace: number): Promise<number> {
	const prefix = packsPrefix(tenantId, projectId);
	let removed = 0;
	let cursor: string | undefined;
	do {
		const page = await env.FILES.list({ prefix, cursor, limit: 500 });
		const old = page.objects.filter((o) => now - o.uploaded.getTime() >= grace).map((o) => o.key.slice(prefix.length));
		for (let i = 0; i < old.length; i += 90) {
			const ids = old.slice(i, i + 90);
			const { results } = await env.PDB.prepare(
				`SELECT DISTINCT substr(content_ref, 1, instr(content_ref, ':') - 1) AS id FROM memory_versions
				 WHERE project_id = ? AND content_ref IS NOT NULL AND substr(content_ref, 1, instr(content_ref, ':') - 1) IN (SELECT value FROM json_each(?))`,
			)
				.bind(projectId, JSON.stringify(ids))
				.all<{ id: string }>();
			const live = new Set(results.map((r) => r.id));
			const orphans = ids.filter((id) => !live.has(id)).map((id) => `${prefix}${id}`);
			if (orphans.length > 0) await env.FILES.delete(orphans);
			removed += orphans.length;
		}
		cursor = page.truncated ? page.cursor : undefined;
	} while (cursor);
	return removed;
}
