/**
 * The second lexical index: character n-grams of CJK text. FTS5's `unicode61` tokenizer splits only at
 * spaces and punctuation, so Korean `배포는` is one token that never matches `배포`, and Chinese or
 * Japanese written without spaces is one token per clause. `trigram` needs three characters, longer
 * than most two-syllable Korean words. So every run of Hangul, Kana or Han characters is indexed as its
 * overlapping bigrams (a run of one character as itself), and every Han character also as a unigram
 * (a Japanese verb keeps only its kanji across endings: 使う / 使って share 使). The grams are stored as
 * space-separated words in `memories_grams`, an FTS5 table whose `unicode61` tokenizer keeps each
 * gram whole; a query's CJK runs become the same grams. Text without CJK adds no row and no query.
 */

/** Hangul, Hiragana, Katakana (with the prolonged sound mark) and Han (with the iteration mark). */
export const CJK_RUN = /[\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}\u30FC\u3005]+/gu;
const HAN = /\p{Script=Han}/u;
const HAS_CJK = /[\p{Script=Hangul}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;
/** Kana and Han: scripts written without spaces between words. */
const UNSPACED = /[\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Han}]/u;

/** At most this many grams from one query (a pasted paragraph must not become a thousand-term OR). */
export const MAX_QUERY_GRAMS = 64;

export const hasCjk = (text: string) => HAS_CJK.test(text);

/** The grams of one CJK run: its bigrams (or the single character), plus each Han character alone. */
function runGrams(run: string, out: string[]): void {
	const chars = [...run];
	if (chars.length === 1) out.push(run);
	for (let i = 0; i + 1 < chars.length; i++) out.push(`${chars[i]}${chars[i + 1]}`);
	if (chars.length > 1) for (const c of chars) if (HAN.test(c)) out.push(c);
}

/** Every gram of a text, in order, repeats kept (term frequency counts for BM25). */
export function grams(text: string): string[] {
	const out: string[] = [];
	for (const m of text.normalize("NFKC").toLowerCase().matchAll(CJK_RUN)) runGrams(m[0], out);
	return out;
}

/** The indexed form of a text: its grams separated by spaces, or "" when it has no CJK. */
export const gramText = (text: string) => grams(text).join(" ");

/** The distinct grams of a query, at most MAX_QUERY_GRAMS. */
export function queryGrams(text: string): string[] {
	return [...new Set(grams(text))].slice(0, MAX_QUERY_GRAMS);
}

/** An FTS5 MATCH expression over grams: each quoted, any may match (BM25 ranks the overlap). */
export const gramMatchExpression = (list: string[]) => list.map((g) => `"${g}"`).join(" OR ");

/**
 * The words a query's relevance is counted against. Latin words and space-separated Korean words
 * stay as they are; a Chinese or Japanese run written without spaces stands for several words, so
 * it is counted as its bigrams (`如何部署到生产环境` → 如何, 何部, 部署, …).
 */
export function scoringTerms(terms: string[]): string[] {
	const out = new Set<string>();
	for (const t of terms) {
		if ([...t].length > 2 && UNSPACED.test(t) && !/[a-z0-9]/.test(t)) {
			const chars = [...t];
			for (let i = 0; i + 1 < chars.length; i++) out.add(`${chars[i]}${chars[i + 1]}`);
		} else out.add(t);
	}
	return [...out];
}

/**
 * Whether a term occurs in a (lower-cased) text, for CJK terms: any of its bigrams (or the character
 * of a one-character run) does — `배포는` is found in a text saying `배포`. Null for a term without CJK
 * (the caller's own matching applies).
 */
export function cjkTermIn(term: string, haystack: string): boolean | null {
	if (!hasCjk(term)) return null;
	for (const m of term.normalize("NFKC").matchAll(CJK_RUN)) {
		const chars = [...m[0]];
		if (chars.length === 1 && haystack.includes(m[0])) return true;
		for (let i = 0; i + 1 < chars.length; i++) if (haystack.includes(`${chars[i]}${chars[i + 1]}`)) return true;
	}
	return false;
}

/**
 * The stem of a CJK word for counting and matching it whole: its first two characters (a Korean word's
 * stem comes first, its particles and endings after: 배포를, 배포해줘 → 배포), or the word when shorter.
 */
export const cjkStem = (term: string) => [...term.normalize("NFKC").toLowerCase()].slice(0, 2).join("");
