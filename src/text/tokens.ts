import { countTokens, decode, encode } from "gpt-tokenizer";

/** Token counts use a real BPE tokenizer (o200k_base), close to what current models count. */
export const tokenCount = (text: string): number => (text ? countTokens(text) : 0);

/**
 * `text` is at most `limit` tokens whatever it says: a BPE token covers at least one UTF-8 byte, and a
 * UTF-16 code unit encodes to at most three.
 */
export const surelyWithin = (text: string, limit: number): boolean => text.length * 3 <= limit;

/** Whether `text` is at most `limit` tokens, counted only when it could be more. */
export const fitsTokens = (text: string, limit: number): boolean => surelyWithin(text, limit) || tokenCount(text) <= limit;

/** Cuts text to at most `limit` tokens, at a line boundary when one is near, and says whether it cut. */
export function truncateToTokens(text: string, limit: number): { text: string; truncated: boolean } {
	if (limit <= 0) return { text: "", truncated: text.length > 0 };
	const tokens = encode(text);
	if (tokens.length <= limit) return { text, truncated: false };
	let cut = decode(tokens.slice(0, limit));
	const lastBreak = cut.lastIndexOf("\n");
	if (lastBreak > cut.length * 0.8) cut = cut.slice(0, lastBreak);
	return { text: cut.trimEnd(), truncated: true };
}
