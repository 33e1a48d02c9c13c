/**
 * Turns arbitrary user text into a safe FTS5 query. Only runs of letters and digits survive, each
 * quoted, so FTS5 syntax in the input (quotes, NEAR, *, -, :, parentheses, AND/OR/NOT) is just text.
 */

const STOPWORDS = new Set(
	`a about above after again against all am an and any are aren't as at be because been before being below between both but by
	can could did do does doing down during each few for from further had has have having he her here hers herself him himself his
	how i if in into is it its itself just let me more most my myself no nor not now of off on once only or other our ours ourselves
	out over own same she should so some such than that the their theirs them themselves then there these they this those through
	to too under until up very was we were what when where which while who whom why will with would you your yours yourself
	yourselves also get got ever still yet s t d ll m re ve y o ok okay please thanks thank hey hi hello tell know need want like
	use using used make made do did done let's go going one two`.split(/\s+/),
);

/**
 * Words that shape a question rather than name what it is about ("how many", "how long ago", "what
 * kind of", "what happened", "do you remember", "I mentioned previously"): a memory holding the answer
 * rarely repeats them, and one that happens to share them is no more relevant for it.
 */
export const QUESTION_WORDS = new Set(
	"happen happened happens kind sort many much long recently remember mentioned previously ago".split(" "),
);

/**
 * The distinct content words of a query, in order, at most 32. With `question`, question-shaping
 * words are dropped too — unless nothing else is left.
 */
export function queryTerms(text: string, question = false): string[] {
	const seen = new Set<string>();
	for (const raw of text
		.toLowerCase()
		.normalize("NFKC")
		.match(/[\p{L}\p{N}]+/gu) ?? []) {
		if (raw.length < 2 && !/\d/.test(raw)) continue;
		if (STOPWORDS.has(raw) || raw.length > 64) continue;
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
