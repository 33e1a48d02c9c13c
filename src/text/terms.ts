/**
 * Turns arbitrary user text into a safe FTS5 query. Only runs of letters and digits survive, each
 * quoted, so FTS5 syntax in the input (quotes, NEAR, *, -, :, parentheses, AND/OR/NOT) is just text.
 * Stop words, English and Korean, are those of src/text/stopwords.
 */
import { EN_STOPWORDS, QUESTION_WORDS } from "./stopwords/en";
import { isKoreanStopword, KO_GRAMMAR_AFTER_LATIN } from "./stopwords/ko";

const SCRIPT_PIECES = /\p{Script=Hangul}+|[^\p{Script=Hangul}]+/gu;
const HANGUL_START = /^\p{Script=Hangul}/u;
const HAS_HANGUL = /\p{Script=Hangul}/u;

/**
 * A run of letters and digits as the words it holds: Korean text glues particles and endings to words
 * written in Latin letters (`orders에` → `orders`; `스테이징에` stays whole: the CJK matching takes a
 * Korean word by its stem), so a run mixing scripts is cut where the script changes and the grammar
 * after a Latin word is dropped.
 */
function pieces(run: string): string[] {
	if (!HAS_HANGUL.test(run)) return [run];
	const out: string[] = [];
	let afterLatin = false;
	for (const piece of run.match(SCRIPT_PIECES) ?? []) {
		const hangul = HANGUL_START.test(piece);
		if (hangul && afterLatin && KO_GRAMMAR_AFTER_LATIN.has(piece)) continue;
		out.push(piece);
		afterLatin = !hangul;
	}
	return out;
}

/**
 * The distinct content words of a query, in order, at most 32. With `question`, question-shaping
 * words are dropped too — unless nothing else is left.
 */
export function queryTerms(text: string, question = false): string[] {
	const seen = new Set<string>();
	for (const raw of (
		text
			.toLowerCase()
			.normalize("NFKC")
			.match(/[\p{L}\p{N}]+/gu) ?? []
	).flatMap(pieces)) {
		if (raw.length < 2 && !/\d/.test(raw)) continue;
		if (EN_STOPWORDS.has(raw) || isKoreanStopword(raw) || raw.length > 64) continue;
		if (question && QUESTION_WORDS.has(raw)) continue;
		seen.add(raw);
		if (seen.size >= 32) break;
	}
	return question && seen.size === 0 ? queryTerms(text) : [...seen];
}

/** An FTS5 MATCH expression: every term quoted, any term may match (BM25 ranks the overlap). */
export function matchExpression(terms: string[]): string {
	return terms.map((t) => `"${t}"`).join(" OR ");
}
