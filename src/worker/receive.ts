/**
 * A transcript post, read as it streams in (in the Worker): lines become records, records become
 * turns, and every million characters of turns the new ones (asked of the project's object) are
 * secret-redacted and written to R2 as a staged chunk. At the end one call to the object commits
 * every chunk, its record keys and the session's counters together. Memory stays bounded by one
 * line and one chunk, whatever the size of the body; a bad line anywhere fails the post and its
 * staged chunks are deleted, so nothing of it is stored.
 */
import { CairnError } from "../errors";
import { type IngestBase, type IngestResult, redactTurns, type StagedChunk, sessionHash } from "../ingest/ingest";
import { keepLatestUses, usesInTurns } from "../ingest/memory-use";
import { type Format, parseLine, TranscriptReader } from "../ingest/parse";
import { streamLines } from "../ingest/stream";
import { nowIso, randomId } from "../lib/ids";
import { sessionPrefix } from "../memory/paths";
import type { MemoryUse } from "../memory/use";
import { projectStore } from "../project/client";
import type { ParsedTurn, Turn } from "../sessions/turns";
import type { ProjectContext } from "../storage/context";

/** Characters of turn text held before they are written out as a chunk. */
const CHUNK_CHARS = 1_000_000;
/** One transcript line, at most; a longer record (an inlined image, a huge tool output) is skipped unread. */
export const LINE_LIMIT = 8 * 1024 * 1024;
const ATTEMPTS = 4;

type Keyed = Omit<Turn, "seq"> & { key: string };

const validTime = (ts: string | null, now: string) =>
	ts && !Number.isNaN(Date.parse(ts)) && ts <= now ? new Date(ts).toISOString() : null;

export async function receiveTranscript(
	env: Env,
	ctx: ProjectContext,
	requestedId: string,
	body: ReadableStream<Uint8Array> | null,
	format: Format,
	maxBytes: number,
): Promise<IngestResult> {
	const store = projectStore(env, ctx.projectId);
	// The caller's own session of this id (per user): everything below uses its stored id.
	const { sessionId, ...start } = await store.ingestBase(ctx, requestedId);
	let base: IngestBase = start;
	const prefix = `${sessionPrefix(ctx.tenantId, ctx.projectId, await sessionHash(sessionId))}chunks/`;
	const now = nowIso();
	const reader = new TranscriptReader(format);
	let staged: StagedChunk[] = [];
	let next = base.turns;
	let duplicates = 0;
	let oversize = 0;
	const times: string[] = [];
	// The memories the new turns cite and read, committed with them (src/memory/use.ts).
	const uses = new Map<string, MemoryUse>();

	const writeChunk = async (first: number, turns: Keyed[]): Promise<StagedChunk> => {
		const objectKey = `${prefix}${String(first).padStart(8, "0")}-${randomId(8)}.ndjson`;
		const ndjson = `${turns.map(({ key: _key, ...t }, i) => JSON.stringify({ ...t, seq: first + i })).join("\n")}\n`;
		await env.FILES.put(objectKey, ndjson, { httpMetadata: { contentType: "application/x-ndjson" } });
		const chunk = { objectKey, first, last: first + turns.length - 1, bytes: ndjson.length, keys: turns.map((t) => t.key) };
		staged.push(chunk);
		return chunk;
	};
	const note = (turns: Keyed[]) => {
		for (const t of turns) {
			const time = validTime(t.ts, now);
			if (time) times.push(time);
		}
		// Only the earliest and latest matter.
		times.sort();
		times.splice(1, Math.max(0, times.length - 2));
	};
	const stage = async (turns: ParsedTurn[]) => {
		if (turns.length === 0) return;
		if (base.agent && base.agent !== reader.agent) {
			throw new CairnError("conflict", `this session holds a ${base.agent} transcript; the posted lines read as ${reader.agent}`);
		}
		const seen = new Set(
			await store.seenRecords(
				ctx,
				sessionId,
				turns.map((t) => t.key),
			),
		);
		const fresh = turns.filter((t) => !seen.has(t.key));
		duplicates += turns.length - fresh.length;
		if (fresh.length === 0) return;
		keepLatestUses(uses, usesInTurns(fresh, now));
		// Only new turns are scanned: a re-post of a known file costs parsing and one lookup per chunk.
		await redactTurns(fresh);
		note(fresh);
		await writeChunk(next, fresh);
		next += fresh.length;
	};
	/** Another post moved the session on: drop what it stored meanwhile and number the rest after it. */
	const restage = async () => {
		const old = staged;
		staged = [];
		times.length = 0;
		next = base.turns;
		for (const chunk of old) {
			const seen = new Set(await store.seenRecords(ctx, sessionId, chunk.keys));
			const text = await (await env.FILES.get(chunk.objectKey))?.text();
			if (text === undefined) throw new Error("a staged transcript chunk is missing from storage");
			const turns = text
				.split("\n")
				.filter(Boolean)
				.map((line, i) => ({ ...(JSON.parse(line) as Turn), key: chunk.keys[i] as string }))
				.filter((t) => !seen.has(t.key));
			duplicates += chunk.keys.length - turns.length;
			if (turns.length > 0) {
				note(turns);
				await writeChunk(next, turns);
				next += turns.length;
			}
			await env.FILES.delete(chunk.objectKey);
		}
	};

	try {
		let batch: ParsedTurn[] = [];
		let held = 0;
		for await (const { line, text } of streamLines(body, { maxBytes, maxLine: LINE_LIMIT })) {
			if (text === null) {
				oversize++;
				continue;
			}
			const record = await parseLine(text, line);
			if (!record) continue;
			for (const t of reader.push(record)) {
				batch.push(t);
				held += t.text.length;
			}
			if (held >= CHUNK_CHARS) {
				await stage(batch);
				batch = [];
				held = 0;
			}
		}
		batch.push(...reader.finish());
		await stage(batch);

		const { skipped, unknown, cwd, branch, agent } = reader.result;
		const counts = () => ({ duplicates: duplicates + reader.duplicates, skipped: skipped + oversize, unknown });
		for (let attempt = 1; ; attempt++) {
			if (staged.length === 0) return { accepted: 0, ...counts(), turns: base.turns, agent: base.agent ?? agent, session: null };
			const outcome = await store.commitIngest(ctx, sessionId, {
				base: base.turns,
				agent,
				...(cwd ? { cwd } : {}),
				...(branch ? { branch } : {}),
				started: times[0] ?? now,
				lastActivity: times.at(-1) ?? now,
				chunks: staged,
				uses: [...uses.values()],
			});
			if ("session" in outcome) {
				const accepted = staged.reduce((n, c) => n + c.keys.length, 0);
				return { accepted, ...counts(), turns: outcome.session.turns, agent, session: outcome.session };
			}
			if (attempt >= ATTEMPTS) throw new CairnError("conflict", "the session changed under concurrent posts; retry the request");
			base = outcome.stale;
			if (base.agent && base.agent !== agent) {
				throw new CairnError("conflict", `this session holds a ${base.agent} transcript; the posted lines read as ${agent}`);
			}
			await restage();
		}
	} catch (err) {
		await Promise.all(staged.map((c) => env.FILES.delete(c.objectKey)));
		throw err;
	}
}
