/**
 * Semantic recall: one embedding engine behind one interface. In production an AI SDK embedding model
 * (Workers AI `@cf/baai/bge-m3` through the `AI` binding: multilingual, 1,024 dimensions), chosen by
 * `CAIRN_EMBEDDING_MODEL` like the language model roles in src/llm/models.ts; in tests a scripted
 * model behind the same interface. Vectors live beside the project's memories in its object's SQLite
 * (`memory_vectors`, unit length, Float32) and are searched there by brute force.
 */
import { type EmbeddingModel, embedMany } from "ai";
import { createWorkersAI } from "workers-ai-provider";
import { ModelConfigError } from "./models";

export interface Embedder {
	/** Recorded with every vector: vectors of another model are not compared and get re-embedded. */
	readonly model: string;
	/** One unit-length vector per text, in order. Throws when the model fails. */
	embed(texts: string[]): Promise<Float32Array[]>;
}

export interface EmbeddingEnv {
	AI?: Ai;
	CAIRN_EMBEDDING_MODEL?: string;
}

/** The longest text sent to the model for one memory (bge-m3 reads up to 8,192 tokens). */
export const MAX_EMBED_CHARS = 8_000;
/** How long a write or a recall waits for the model before going on without it. */
export const EMBED_TIMEOUT_MS = 5_000;

/** What is embedded for a memory: its name (as words), description and body. */
export const embeddingText = (name: string, description: string, body: string) =>
	`${name.replace(/[-_]/g, " ")}\n${description}\n${body}`.slice(0, MAX_EMBED_CHARS);

/** Scales a vector to unit length, so that cosine similarity is a dot product. */
export function normalise(values: ArrayLike<number>): Float32Array {
	const v = Float32Array.from(values);
	let norm = 0;
	for (let i = 0; i < v.length; i++) norm += (v[i] as number) * (v[i] as number);
	norm = Math.sqrt(norm);
	if (norm > 0) for (let i = 0; i < v.length; i++) v[i] = (v[i] as number) / norm;
	return v;
}

/** An embedder over an AI SDK embedding model. */
export function embedderFromModel(model: EmbeddingModel, id: string, timeoutMs = EMBED_TIMEOUT_MS): Embedder {
	return {
		model: id,
		async embed(texts) {
			if (texts.length === 0) return [];
			const { embeddings } = await embedMany({ model, values: texts, maxRetries: 0, abortSignal: AbortSignal.timeout(timeoutMs) });
			if (embeddings.length !== texts.length) throw new Error("the embedding model returned a different number of vectors");
			const dims = embeddings[0]?.length ?? 0;
			if (dims === 0 || embeddings.some((e) => e.length !== dims)) throw new Error("the embedding model returned vectors of unequal size");
			return embeddings.map(normalise);
		},
	};
}

/**
 * The configured embedder: `CAIRN_EMBEDDING_MODEL` as `workers-ai:<model>` (e.g.
 * `workers-ai:@cf/baai/bge-m3`). Null when it is empty (recall stays lexical).
 */
export function resolveEmbedder(env: EmbeddingEnv): Embedder | null {
	const spec = env.CAIRN_EMBEDDING_MODEL?.trim();
	if (!spec) return null;
	const colon = spec.indexOf(":");
	const provider = spec.slice(0, colon);
	const model = spec.slice(colon + 1);
	if (colon <= 0 || !model) throw new ModelConfigError("CAIRN_EMBEDDING_MODEL must look like provider:model");
	if (provider !== "workers-ai") throw new ModelConfigError("CAIRN_EMBEDDING_MODEL: only workers-ai embedding models are supported");
	if (!env.AI) throw new ModelConfigError("workers-ai needs the AI binding, which is not available here");
	return embedderFromModel(createWorkersAI({ binding: env.AI }).textEmbeddingModel(model), spec);
}

/** The configured embedder, or the reason there is none usable (a bad configuration is not an outage). */
export function embedderOrReason(env: EmbeddingEnv): { embedder: Embedder | null; reason?: string } {
	try {
		const embedder = resolveEmbedder(env);
		return embedder ? { embedder } : { embedder: null, reason: "no embedding model is configured" };
	} catch (err) {
		return { embedder: null, reason: err instanceof ModelConfigError ? err.message : "the embedding model could not be configured" };
	}
}

export const toBlob = (v: Float32Array): ArrayBuffer => v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength) as ArrayBuffer;

export interface VectorHit {
	id: number;
	similarity: number;
}

/**
 * The `k` nearest vectors to `query` among rows of (id, blob): one pass, dot products on Float32
 * views of the stored blobs, a small sorted list of the best. Vectors of another size are skipped.
 */
export function nearest(
	rows: Iterable<{ id: number; vector: ArrayBuffer }>,
	query: Float32Array,
	k: number,
	minSimilarity: number,
): VectorHit[] {
	const best: VectorHit[] = [];
	const dims = query.length;
	for (const row of rows) {
		if (row.vector.byteLength !== dims * 4) continue;
		const v = new Float32Array(row.vector);
		let dot = 0;
		for (let i = 0; i < dims; i++) dot += (v[i] as number) * (query[i] as number);
		if (dot < minSimilarity || (best.length >= k && dot <= (best[best.length - 1] as VectorHit).similarity)) continue;
		let at = best.length;
		while (at > 0 && (best[at - 1] as VectorHit).similarity < dot) at--;
		best.splice(at, 0, { id: row.id, similarity: dot });
		if (best.length > k) best.pop();
	}
	return best;
}
