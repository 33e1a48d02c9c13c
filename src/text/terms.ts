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
	use using used make made do did done let's go going one two someone somebody something anything everything nothing everyone
	everybody anyone anybody everywhere somewhere anywhere else actually really basically probably maybe`.split(/\s+/),
);

/**
 * Korean words that carry a request's grammar and mood rather than its subject: pronouns and
 * demonstratives, time and degree adverbs, interrogatives, and the polite or casual forms of "do",
 * "help", "tell", "can", "is it ok" that end a request (해줘, 도와줘, 되나요). Matched whole; an
 * interrogative also with an ending (누구야, 누구한테, 어떻게든).
 */
const KOREAN_STOPWORDS = new Set(
	`이 그 저 것 거 수 등 및 좀 잘 더 또 왜 뭐 이거 그거 저거 이것 그것 저것 이건 그건 여기 거기 저기 우리 저희 제가 내가 나 너 너희
	지금 오늘 어제 내일 방금 아까 이번 이제 요즘 계속 자꾸 다시 아직 이미 벌써 너무 정말 진짜 대충 그냥 바로 혹시 일단 먼저 제발 빨리 그리고 그런데 근데 그래서 하지만
	같아 같아요 같은데 같이 하나 하나만 있어 있어요 있나 있나요 있는데 없어 없어요 없나 싶어 싶어요 싶은데
	해 해요 해줘 해주세요 해줄래 해봐 해도 해야 해야돼 해야해 했어 했는데 했음 하면 하는 하고 하는데 할까 할래 합니다 해서
	줘 줘요 주세요 줄래 도와줘 도와주세요 알려줘 알려주세요 부탁해 부탁해요 부탁드려요 봐줘 봐주세요 확인해줘
	돼 돼요 되나 되나요 되는 되는데 될까 될까요 됨 안돼 안 못 나요 네 응 음`.split(/\s+/),
);
const KOREAN_INTERROGATIVES = /^(?:누구|어떻게|어디|언제|무엇|뭐가|뭐야|뭔가|뭘|몇)/u;
const isKoreanStopword = (w: string) => KOREAN_STOPWORDS.has(w) || KOREAN_INTERROGATIVES.test(w);

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
/** The forms of 하다 / 되다 that make a verb of a Latin word (`rebase해줘`, `merge했는데`, `deploy된`), whole. */
const LIGHT_VERBS = new Set(
	`하 해 했 할 함 합 한 된 되 돼 됐 될 됨 하다 하고 하는 하는데 하면 하려고 하려면 하자 하기 하지 해줘 해주세요 해줄래 해요 해서 해도 해야 해봐 해놨어 해놓고
	했어 했어요 했는데 했다 했음 했고 할까 할래 할게 합니다 합시다 한다 한거 한테 된다 된거 되는 되는데 되면 되나 되나요 돼요 됐어 됐는데 됐다 될까`.split(
		/\s+/,
	),
);
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
		if (hangul && afterLatin && (KOREAN_PARTICLES.has(piece) || LIGHT_VERBS.has(piece))) continue;
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
		if (STOPWORDS.has(raw) || isKoreanStopword(raw) || raw.length > 64) continue;
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
