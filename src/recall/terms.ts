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
 * Korean particles and light-verb endings as they attach to a word written in Latin letters (`PR을`,
 * `orders에서`, `prod에`, `rebase해줘`): the word is what the query is about, the ending is grammar.
 */
const KOREAN_PARTICLES = new Set(
	`은 는 이 가 을 를 에 의 도 로 와 과 만 랑 나 야 면 에서 으로 에게 한테 까지 부터 처럼 보다 이랑 하고 이나 이든 이라 라고 이라고 에도 에는
	에서는 으로는 로는 에서도 으로도 인데 이야 이면 이랑은 같은 같이 쪽 쪽에 쪽에서 용 용으로`.split(/\s+/),
);
const LIGHT_VERB = /^[하해했할함합한된되돼됐될됨]/u;
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
		if (hangul && afterLatin && (KOREAN_PARTICLES.has(piece) || LIGHT_VERB.test(piece))) continue;
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
