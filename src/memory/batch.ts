import { badRequest, CairnError, toWire, type WireError } from "../errors";
import { nowIso } from "../lib/ids";
import { holdContent } from "../storage/content-holds";
import type { ProjectContext } from "../storage/context";
import type { ProjectEnv } from "../storage/env";
import type { ProjectStatement } from "../storage/sql";
import { gateFindings, heldError, holdStatements, newHeldId, unchangedContent } from "../trust/gate";
import type { WriteTrust } from "../trust/tier";
import { resolveWriteTrust } from "../trust/vouch";
import { embedForWrite, vectorStatements } from "./index-rows";
import { PackBuilder } from "./packs";
import { packKey } from "./paths";
import type { MemoryRow } from "./rows";
import {
	assertScopeWritable,
	bumpIndexStatement,
	type CheckedWrite,
	checkWrite,
	commitFailure,
	type MemorySource,
	planWrite,
	putContent,
	type WriteFaults,
	type WritePlan,
	writerSession,
} from "./store";
import { assertValidName, type MemoryScope, NAME_PATTERN, validateFields } from "./topic-file";

/** The most memories one batch may hold. */
export const BATCH_LIMIT = 100;
/** R2 puts in flight at once while a batch stores its content objects. */
const PUT_CONCURRENCY = 16;

export interface BatchWrite {
	scope: MemoryScope;
	source: MemorySource;
	sessionId?: string | null;
	/** The items as sent (each `{name, type, description, body, cues?}`): each is checked on its own. */
	items: unknown[];
	/** How the batch came (src/trust/tier.ts); absent: implied by `source`, not reviewed. */
	trust?: WriteTrust;
}

/** One item's outcome, in request order; `name` is the item's name, or `#<index>` when it has no valid one. */
export type BatchItemResult =
	| { name: string; status: "created" | "updated" | "unchanged" }
	| { name: string; status: "error"; error: WireError };

interface Item {
	index: number;
	label: string;
	checked: CheckedWrite;
}

type VersionPlan = Extract<WritePlan, { kind: "version" }>;

const failed = (label: string, err: unknown): BatchItemResult => {
	// A domain error is the item's own; anything else (a storage fault) fails the request.
	if (!(err instanceof CairnError) || err.code === "internal_error") throw err;
	return { name: label, status: "error", error: toWire(err) };
};

/** Checks one item as sent: the same checks as a single write, plus a name used twice in the batch. */
async function checkItem(raw: unknown, index: number, seen: Set<string>): Promise<Item> {
	const fields = (raw && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
	const name = typeof fields.name === "string" ? fields.name : "";
	assertValidName(name);
	if (seen.has(name)) throw badRequest("name appears twice in this batch", { field: "name" });
	seen.add(name);
	const { type, description } = validateFields(fields);
	if (typeof fields.body !== "string") throw badRequest("body must be a string", { field: "body" });
	const checked = await checkWrite({ file: { name, type, description, body: fields.body }, cues: fields.cues as string[] | undefined });
	return { index, label: name, checked };
}

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<unknown>): Promise<void> {
	let next = 0;
	const worker = async () => {
		while (next < items.length) {
			const item = items[next++] as T;
			await fn(item);
		}
	};
	await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Writes up to BATCH_LIMIT memories into one scope, inside the project's object, with every guarantee
 * of a single write (`writeMemory`) and per-item results in request order: an item that fails a check
 * (its name, its fields, its size, a secret, a name used twice) fails alone with its own error.
 *
 * The batch is refused whole when its scope is switched off. Otherwise each item is checked and its
 * secret scan run once; the current rows of every named memory are read in one query; the new contents
 * are put to R2 as one pack (src/memory/packs.ts: one put for the batch), then every item's rows —
 * version, pointer, search rows, the session's write mark — and one index-generation bump commit in
 * one transaction. When that transaction fails (a concurrent write or delete of one item during the R2
 * puts), nothing of it is applied and each item commits in its own transaction instead, so only the
 * items that met a concurrent change fail (version_conflict).
 */
export async function writeMemories(
	env: ProjectEnv,
	ctx: ProjectContext,
	batch: BatchWrite,
	faults: WriteFaults = {},
): Promise<BatchItemResult[]> {
	await assertScopeWritable(env, ctx, batch.scope);
	// Whether the batch may review or vouch for its texts depends on its key and the project (src/trust/vouch.ts).
	batch = { ...batch, trust: await resolveWriteTrust(env, ctx, batch.scope, batch.trust) };
	if (batch.items.length > BATCH_LIMIT) throw badRequest(`at most ${BATCH_LIMIT} memories per batch`, { field: "memories" });
	const results: BatchItemResult[] = new Array(batch.items.length);
	const items: Item[] = [];
	const seen = new Set<string>();
	for (const [index, raw] of batch.items.entries()) {
		try {
			items.push(await checkItem(raw, index, seen));
		} catch (err) {
			const name = (raw as { name?: unknown } | null)?.name;
			results[index] = failed(typeof name === "string" && NAME_PATTERN.test(name) ? name : `#${index}`, err);
		}
	}
	if (items.length === 0) return results;

	const db = env.PDB;
	const sessionId = await writerSession(db, ctx, batch);
	const owner = batch.scope === "team" ? "" : ctx.userId;
	const { results: rows } = await db
		.prepare("SELECT * FROM memories WHERE project_id = ? AND scope = ? AND owner_id = ? AND name IN (SELECT value FROM json_each(?))")
		.bind(ctx.projectId, batch.scope, owner, JSON.stringify(items.map((i) => i.checked.file.name)))
		.all<MemoryRow>();
	const current = new Map(rows.map((r) => [r.name, r]));
	const now = nowIso();
	// The new contents go into one pack (one R2 put); a lone new content gets its ordinary object.
	const pack = items.length > 1 ? new PackBuilder() : null;
	const planned: { item: Item; plan: Exclude<WritePlan, { kind: "unchanged" }> }[] = [];
	for (const item of items) {
		// The trust gate before anything is planned: a held item's text never reaches the pack (src/trust/gate.ts).
		const base = current.get(item.checked.file.name) ?? null;
		const gate = { scope: batch.scope, file: item.checked.file, source: batch.source, trust: batch.trust, cues: item.checked.givenCues };
		const findings = gateFindings(gate);
		if (findings.length > 0 && !(await unchangedContent(item.checked.file, base))) {
			const id = newHeldId();
			await db.batch(holdStatements(db, ctx, gate, findings, base?.version ?? null, id));
			results[item.index] = failed(item.label, heldError(id, findings));
			continue;
		}
		const plan = await planWrite(
			db,
			ctx,
			batch,
			item.checked,
			current.get(item.checked.file.name) ?? null,
			sessionId,
			now,
			pack ? (content, hash) => pack.add(content, hash) : undefined,
		);
		if (plan.kind === "unchanged") results[item.index] = { name: item.label, status: "unchanged" };
		else planned.push({ item, plan });
	}
	if (planned.length === 0) return results;

	const versions = planned.filter((p): p is { item: Item; plan: VersionPlan } => p.plan.kind === "version");
	// One embedding call for the batch, beside the R2 puts.
	const embeddings = embedForWrite(
		env.embedder?.(),
		versions.map(({ plan }) => plan.file),
	);
	const bump = bumpIndexStatement(db, ctx);
	const statusOf = (plan: Exclude<WritePlan, { kind: "unchanged" }>) => (plan.current ? "updated" : "created");
	const objects = new Map(versions.flatMap(({ plan }) => (plan.key ? [[plan.key, plan.content] as const] : [])));
	// Content-addressed keys are held from before their put until the commit has landed
	// (src/maintenance/sweep.ts); a pack's id is new, so nothing else can put or delete it meanwhile.
	await holdContent([...objects.keys()], async () => {
		if (pack && pack.size > 0) {
			await env.FILES.put(packKey(ctx.tenantId, ctx.projectId, pack.id), pack.body(), {
				httpMetadata: { contentType: "application/octet-stream" },
			});
		}
		await eachLimited([...objects], PUT_CONCURRENCY, ([key, content]) => putContent(env, key, content));
		await faults.afterObjectPut?.();
		const vectors = await embeddings;
		const vectorOf = new Map(versions.map((v, i) => [v.item, vectors[i] ?? null]));
		const own = new Map<Item, ProjectStatement[]>(
			planned.map(({ item, plan }) => [
				item,
				plan.kind === "version"
					? [...plan.statements, ...vectorStatements(db, plan.searchRow, ctx.projectId, plan.hash, vectorOf.get(item) ?? null)]
					: plan.statements,
			]),
		);
		try {
			await db.batch([...[...own.values()].flat(), bump]);
			for (const { item, plan } of planned) results[item.index] = { name: item.label, status: statusOf(plan) };
			return;
		} catch (err) {
			// Only a concurrent change to some item is worth retrying item by item; anything else fails the request.
			if ((await commitFailure(db, err)) === err) throw err;
		}
		for (const { item, plan } of planned) {
			try {
				await db.batch([...(own.get(item) ?? []), bump]);
				results[item.index] = { name: item.label, status: statusOf(plan) };
			} catch (err) {
				const cause = await commitFailure(db, err);
				// Items before this one have committed: the answer must say so, so a storage fault here is this
				// item's error rather than the request's.
				results[item.index] =
					cause instanceof CairnError && cause.code !== "internal_error"
						? failed(item.label, cause)
						: {
								name: item.label,
								status: "error",
								error: toWire(new CairnError("internal_error", "the item could not be stored; retry it")),
							};
			}
		}
	});
	return results;
}
