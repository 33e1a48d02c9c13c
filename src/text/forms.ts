/**
 * English word forms the index's stemmer cannot join. FTS5's `porter` stemmer reduces regular
 * inflections to one stem (paint, painted, painting), but irregular ones keep their own spelling: a
 * question asking where someone *went* never matches a memory saying they *go*, nor *won* → *win*,
 * *children* → *child*. Each group below lists one word's forms; a query word in a group also
 * searches the group's other forms, and a memory holding any of them counts as matching it.
 */
const GROUPS = `arise arose arisen|awake awoke awoken|bear bore borne born|beat beaten|become became|begin began begun|bend bent|bet|
bind bound|bite bit bitten|bleed bled|blow blew blown|break broke broken|breed bred|bring brought|broadcast|build built|burn burnt|
buy bought|catch caught|choose chose chosen|cling clung|come came|cost|creep crept|cut|deal dealt|dig dug|draw drew drawn|
dream dreamt|drink drank drunk|drive drove driven|eat ate eaten|fall fell fallen|feed fed|feel felt|fight fought|find found|flee fled|
fly flew flown|forbid forbade forbidden|forget forgot forgotten|forgive forgave forgiven|freeze froze frozen|give gave given|
go went gone|grind ground|grow grew grown|hang hung|hear heard|hide hid hidden|hit|hold held|hurt|keep kept|kneel knelt|know knew known|
lay laid|lead led|lean leant|leap leapt|learn learnt|leave left|lend lent|lie lay lain|light lit|lose lost|mean meant|meet met|
mistake mistook mistaken|overcome overcame|pay paid|prove proven|quit|ride rode ridden|ring rang rung|rise rose risen|run ran|
say said|see saw seen|seek sought|sell sold|send sent|set|sew sewn|shake shook shaken|shine shone|shoot shot|show shown|
shrink shrank shrunk|shut|sing sang sung|sink sank sunk|sit sat|sleep slept|slide slid|speak spoke spoken|speed sped|spend spent|
spin spun|split|spread|spring sprang sprung|stand stood|steal stole stolen|stick stuck|sting stung|stink stank stunk|strike struck|
string strung|swear swore sworn|sweep swept|swim swam swum|swing swung|take took taken|teach taught|tear tore torn|tell told|
think thought|throw threw thrown|undergo underwent undergone|understand understood|undertake undertook undertaken|upset|
wake woke woken|wear wore worn|weave wove woven|weep wept|win won|wind wound|withdraw withdrew withdrawn|write wrote written|
child children|person people|man men|woman women|mouse mice|goose geese|foot feet|tooth teeth|analysis analyses|criterion criteria|
datum data|index indices|matrix matrices|vertex vertices|medium media|phenomenon phenomena|life lives|wife wives|knife knives|
leaf leaves|half halves|shelf shelves|wolf wolves|thief thieves|good better best|bad worse worst|far farther further`;

const FORMS = new Map<string, string[]>();
for (const group of GROUPS.split("|")) {
	const words = group.trim().split(/\s+/);
	for (const w of words) FORMS.set(w, [...(FORMS.get(w) ?? []), ...words.filter((x) => x !== w)]);
}

/** The other forms of a (lower-case) word: `went` → go, gone; none for a regular word. */
export function otherForms(word: string): string[] {
	return FORMS.get(word) ?? [];
}

/** The query's words followed by the other forms of each, without repeats. */
export function withForms(words: string[]): string[] {
	const out = new Set(words);
	for (const w of words) for (const f of otherForms(w)) out.add(f);
	return [...out];
}
