/**
 * Korean stop words and grammar: the one place that lists the Korean words which say nothing of what a
 * text is about, and the particles and verb endings that attach to a word. The stop words are the
 * maintained list of the `stopword` package (its single words: a token never holds a space, so its
 * phrases of several words could never match), less the few of its words that name something here, and
 * extended by what a request to a coding agent is made of and the package lacks: the polite and casual
 * forms of "do", "help", "tell", "can", "is it ok" that end a request (해줘, 도와줘, 되나요), and the
 * pronouns and time and degree adverbs of chat (이거, 지금, 그냥). Korean glues particles and endings to a
 * word, so a caller that takes a Korean word apart uses the particle and verb lists below, not a copy.
 */
import { kor } from "stopword";

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/**
 * Particles and copula endings that end a word and can be taken off any word to leave its stem
 * ("배포는", "포트는", "화요일에만", "5432예요").
 */
export const KO_PARTICLES: readonly string[] =
	words(`은 는 이 가 을 를 에 의 도 로 와 과 만 랑 야 요 에서 으로 에게 한테 까지 부터 처럼 보다 이랑
	에도 에는 에만 에서는 에서만 에서도 에게는 한테는 으로는 으로만 이야 이고 이라서 라서 이니까 니까 이에요 예요 입니다`);

/** A particle or copula ending at the end of a word. */
export const KO_PARTICLE_AT_END = new RegExp(`(?:${KO_PARTICLES.join("|")})$`);

/**
 * Words of the package's list that name something here, left out of it: 시간 and 시각 (a duration, a
 * time of day: "배포 시간"), 다음 (the next one: "다음 릴리스"), 이상 (more than, and an anomaly: "이상 징후"),
 * 좋아 ("I like": a preference, "X가 좋아"). The particles it lists as words (에서, 에게, 으로, 까지, 부터)
 * are left out too: they are grammar (KO_PARTICLES), and a query that spaces one off its word ("CI 에서")
 * keeps it, as it did before these lists were one.
 */
const KEPT_FROM_PACKAGE = new Set(["시간", "시각", "다음", "이상", "좋아", ...KO_PARTICLES]);

/** The one-syllable stems of 하다 and 되다 ("do", "become"), which make a verb of a noun: 배포해, 배포됐. */
const LIGHT_VERB_STEMS = words("하 해 했 할 함 합 한 된 되 돼 됐 될 됨 됩");

/**
 * The forms of 하다 / 되다 on their own: a verb made of the word before (`rebase해줘`, `merge했는데`,
 * `deploy된`, `배포 했어요`), grammar rather than a subject.
 */
export const KO_LIGHT_VERBS: ReadonlySet<string> = new Set([
	...LIGHT_VERB_STEMS,
	...words(`하다 하고 하는 하는데 하면 하려고 하려면 하자 하기 하지 해줘 해주세요 해줄래 해요 해서 해도 해야 해야돼 해야해 해봐 해놨어 해놓고
	했어 했어요 했는데 했다 했음 할까 할래 할게 합니다 합시다 한다 한거 한테 된다 된거 되는 되는데 되면 되나 되나요 돼요 됐어 됐는데 됐다 될까 될까요`),
]);

/** Pronouns and demonstratives, time and degree adverbs and conjunctions of chat that the package lacks (이거, 지금, 그냥, 근데). */
const CHAT_WORDS = `거 수 잘 더 뭐 이거 그거 저거 그것 이건 그건 거기 제가 내가 지금 오늘 어제 내일 방금 아까 이제 요즘 계속 자꾸 다시 아직
	이미 벌써 너무 정말 진짜 대충 그냥 먼저 제발 빨리 근데 하나만 음 나요`;

/**
 * The forms that end a request or a musing, besides 하다 / 되다: "seems" (같아), "there is" (있어, 없나),
 * "I'd like" (싶어), "give" (줘, 주세요), "help", "tell", "please", "take a look", "check" (도와줘, 알려줘,
 * 부탁해, 봐줘, 확인해줘), "can't" (안돼, 안, 못).
 */
const REQUEST_ENDINGS = `같아 같아요 같은데 있어 있어요 있나 있나요 있는데 없어 없어요 없나 싶어 싶어요 싶은데 줘 줘요 주세요 줄래 도와줘 도와주세요
	알려줘 알려주세요 부탁해 부탁해요 부탁드려요 봐줘 봐주세요 확인해줘 안돼 안 못`;

/** Words that say nothing of what a Korean text is about: the package's list and the extensions above, matched whole. */
export const KO_STOPWORDS: ReadonlySet<string> = new Set([
	...kor.filter((w) => !/\s/.test(w) && !KEPT_FROM_PACKAGE.has(w)),
	...KO_LIGHT_VERBS,
	...[CHAT_WORDS, REQUEST_ENDINGS].flatMap(words),
]);

/** Interrogatives, also with an ending (누구야, 누구한테, 어떻게든). */
const INTERROGATIVES = /^(?:누구|어떻게|어디|언제|무엇|뭐가|뭐야|뭔가|뭘|몇)/u;

export const isKoreanStopword = (w: string) => KO_STOPWORDS.has(w) || INTERROGATIVES.test(w);

/**
 * What is only grammar when it follows a word written in Latin letters (`PR을`, `orders에서`, `prod에`,
 * `rebase해줘`, `api쪽에서`): the particles, the forms of 하다 / 되다, and the endings and nouns that would
 * be part of a Korean word but after a Latin one say "or", "if", "side", "for", "like" (나, 면, 쪽, 용, 같은).
 */
export const KO_GRAMMAR_AFTER_LATIN: ReadonlySet<string> = new Set([
	...KO_PARTICLES,
	...KO_LIGHT_VERBS,
	...words("나 면 하고 이나 이든 이라 라고 이라고 로는 으로도 인데 이면 이랑은 같은 같이 쪽 쪽에 쪽에서 용 용으로"),
]);

/**
 * A word that is only a verb or the copula: a light verb's stem, or 있다, 없다, 이다, 쓰다, 주다, 보다,
 * 두다, with an ending of up to four syllables ("해요", "돼", "했어", "있어", "써주세요").
 */
export const KO_VERB_ONLY = new RegExp(
	`^(?:${[...LIGHT_VERB_STEMS, ...words("있 없 이에 예요 이야 임 입니 써 쓰 썼 씀 줘 주세 줬 봐 보 둬 두")].join("|")})[가-힣]{0,4}$`,
);
