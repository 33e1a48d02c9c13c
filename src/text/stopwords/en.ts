/**
 * English stop words: the one list of words that say nothing of what a text is about, for every caller
 * (recall's query terms, the offline extractor's names, consolidation's content words, a statement's
 * subject, provenance's distinctive words, the summary's keyword map, topic keys). It is the maintained
 * list of the `stopword` package, less the few of its words that carry meaning here, and extended by what
 * the package lacks and our text needs: the rest of the usual function words, the filler of a chat with a
 * coding agent, and the verbs and pronouns of a request. A caller with a purpose of its own adds or keeps
 * one of the named sets below (question-shaping words, change words, the words that say how a memory is
 * kept or ask to keep it, words that limit a statement's scope, function words that are also names)
 * rather than keeping a list of its own.
 *
 * Every word is lower case and without an apostrophe: every caller splits its text at anything that is not
 * a letter or a digit, so "don't" reaches these sets as "don" and "t".
 */
import { eng } from "stopword";

/**
 * Words of the package's list that carry meaning here, left out of it:
 * - "many", "much": they shape a question ("how many"); recall drops them only as question words
 *   (QUESTION_WORDS), and a statement's "much" or "many" stays a word of it.
 * - "never": a ban; the words that say how a statement is kept (KEEPING_WORDS) include it where a
 *   caller wants it gone.
 * - "take", "come", "came", "way": verbs and a noun that say what happened or how ("take a trip", "take
 *   care of", "come alive", "her way of dealing with …"); as stop words they moved recall on LoCoMo.
 * - "since": a time ("since starting the job"), which a temporal question turns on.
 */
const KEPT_FROM_PACKAGE = new Set(["many", "much", "never", "take", "come", "came", "way", "since"]);

/** The rest of the usual English function words (pronouns, auxiliaries, prepositions), which the package lacks. */
const FUNCTION_WORDS = `above again against below does doing down during few further having hers herself its itself just let
	myself no nor not off once ours ourselves own she so theirs themselves until when whom why will yours yourself yourselves ever
	yet shall every`;

/**
 * Function words that are also a name once capitalised: the month May, the US. Lower case cannot tell
 * which is meant, so a query keeps them ("in May", "which US state"); a caller reading statements adds
 * them, so that "May" is not taken for a person and "us" is not a distinctive word.
 */
export const NAME_HOMOGRAPHS: ReadonlySet<string> = new Set(["may", "us"]);

/** The pieces a contraction leaves once split at its apostrophe: it's → "s", don't → "t", we'll → "ll". */
const CONTRACTION_PIECES = "s t d ll m re ve y o";

/**
 * The filler of a chat with a coding agent: greetings, thanks, assent, asides ("btw", "fyi", "heads up"), and
 * "lets" and "dont" typed without their apostrophe.
 */
const CHAT_FILLER = "ok okay yes please pls thanks thank hey hi hello btw fyi heads lets dont";

/** Hedges and intensifiers: they colour a request, never name its subject. */
const HEDGES = "actually really basically probably maybe";

/** The verbs of a request ("tell me", "I need", "let's go", "make it use …"): what is asked, not what it is about. */
const REQUEST_VERBS = "tell know need want use using used uses made done go going";

/** Indefinite pronouns and the counting words used as pronouns ("one of them", "the two"). */
const INDEFINITES = `one two someone somebody something anything everything nothing everyone everybody anyone anybody
	everywhere somewhere anywhere else`;

const words = (text: string) => text.split(/\s+/).filter(Boolean);

/** Words that say nothing of what a text is about: the package's list and the extensions above. */
export const EN_STOPWORDS: ReadonlySet<string> = new Set([
	...eng.filter((w) => !KEPT_FROM_PACKAGE.has(w)),
	...[FUNCTION_WORDS, CONTRACTION_PIECES, CHAT_FILLER, HEDGES, REQUEST_VERBS, INDEFINITES].flatMap(words),
]);

/**
 * Words that shape a question rather than name what it is about ("how many", "how long ago", "what
 * kind of", "what happened", "do you remember", "I mentioned previously"): a memory holding the answer
 * rarely repeats them, and one that happens to share them is no more relevant for it.
 */
export const QUESTION_WORDS: ReadonlySet<string> = new Set(
	words("happen happened happens kind sort many much long recently remember mentioned previously ago"),
);

/**
 * Words that only mark a change or a correction ("now", "new", "no longer", "actually", "correction",
 * "from now on", "going forward"): evidence that a statement replaces another, never its subject.
 */
export const CHANGE_WORDS: ReadonlySet<string> = new Set(words("now new actually correction anymore going forward"));

/**
 * Words that say how a memory is kept rather than what it is about: a rule, a note, a preference,
 * "always", "never", "per", "via". A memory's name or a topic's key is made of the other words.
 */
export const KEEPING_WORDS: ReadonlySet<string> = new Set(words("rule rules note notes always never prefer prefers per via"));

/**
 * The words of asking to keep something ("remember", "keep in mind", "don't forget", "every time", "a team
 * rule"): a statement's name leaves them out. A name written otherwise may be about them ("team-timezones"),
 * so a topic's key does not.
 */
export const REMEMBER_WORDS: ReadonlySet<string> = new Set(words("remember keep mind forget every time team"));

/**
 * Words that limit where or when a statement holds ("only on Tuesdays", "only in staging"): nothing to
 * search for, but part of what a rule says, so a memory's name keeps them.
 */
export const SCOPE_WORDS: ReadonlySet<string> = new Set(["only"]);

/** The English stop words with the named extensions in `add`, less the words in `keep`, as one set. */
export const enStopwords = (add: ReadonlySet<string>[], keep: ReadonlySet<string> = new Set()): ReadonlySet<string> =>
	new Set([...EN_STOPWORDS, ...add.flatMap((e) => [...e])].filter((w) => !keep.has(w)));
