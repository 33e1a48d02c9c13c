import { countTokens, decode, encode } from "gpt-tokenizer";

/** Token counts use a real BPE tokenizer (o200k_base), close to what current models count. */
export const tokenCount = (text: string): number => (text ? countTokens(text) : 0);

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
