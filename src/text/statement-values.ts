/**
 * What a statement is about and what value it gives, in English and Korean: the words that name the
 * subject ("staging DB port", "배포 요일"), the values that can change (numbers with their units,
 * versions, days, times, hosts and paths, people), and the words that only mark a change ("from now
 * on", "raised to", "이제부터", "바뀌었어"). Consolidation uses them to tell an update of a memory
 * (same subject, another value) from a new statement, and the extractor to leave out sentences that
 * only say something changed.
 */
import { CJK_RUN, grams } from "./grams";
import { CHANGE_WORDS, enStopwords, NAME_HOMOGRAPHS } from "./stopwords/en";
import { KO_PARTICLE_AT_END, KO_VERB_ONLY } from "./stopwords/ko";

const EN_DAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"];
const KO_DAYS = ["월", "화", "수", "목", "금", "토", "일"];

const NUMBER_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"];

/** Words that mark a change of value: evidence that a statement updates another, never a statement alone. */
const EN_CHANGE =
	/\b(?:from now on|going forward|moving forward|starting (?:this|next|from|today|now)|as of|now|no longer|anymore|no more|moved|switched|changed|change|raised|lowered|increased|decreased|bumped|reduced|dropped|upped|cut|took over|taking over|takes over|handed|instead(?: of)?|actually|replaced|reverted|rolled back|back to|back on|again|migrated|upgraded|downgraded|went|go(?:es)? back|is back|are back|updated|new|raise|lower|bump|increase|decrease|reduce|minimum is now|from the next release|from (?:the )?next (?:release|sprint|month|week))\b/gi;
const KO_CHANGE =
	/(?:이제부터|지금부터|앞으로는?|앞으론|이제는?|다시|또|원래대로|원복|되돌리|돌아가|바뀌었|바뀜|바꼈|바꿨|바꾸|변경(?:됐|되었|했|함)?|옮겼|옮김|이전했|넘어갔|넘겨받|올렸|올라갔|늘렸|늘리|줄였|낮췄|낮춰|내렸|당겨|교체|대신|취소|번복|늘려|올려|올리자|올리기로|늘리기로|줄이기로|줄여|내려|옮겨|옮기기로|증설|감축|상향|하향|통일)/g;

/** Words of a statement that name no subject: the stop words, the words that only mark a change, and "may" and "us". */
const EN_STOP = enStopwords([CHANGE_WORDS, NAME_HOMOGRAPHS]);

/** What is left of a verb once its change stem is gone ("넘겨받았어" → "았어"): an ending, not a word. */
const KO_ENDING = /^(?:았|었|였|했|됐|줬|봤|둬|해|돼|야|요|어|아|지|고|서|면|니|네|죠|게|까|대|래)[가-힣]{0,3}$/;

/** Normalises a number: "1,000" → "1000", "1.5" stays. */
const num = (s: string) => s.replace(/[,_]/g, "");

/**
 * The values a statement gives: numbers (with a unit word when one follows), versions, days of the
 * week, clock times, hosts, URLs and paths, and people named with a capital letter or an honorific
 * ("Joon", "서연님"). Lower-cased, normalised so "1,000" and "1000" or "Tuesdays" and "화요일" compare.
 */
export function valuesOf(text: string): Set<string> {
	const out = new Set<string>();
	const lower = text.toLowerCase();
	for (const m of lower.matchAll(/\b(?:https?:\/\/)?[a-z0-9][\w-]*(?:\.[a-z0-9][\w-]*)+(?::\d+)?(?:\/[\w./-]*)?/g)) {
		if (/^\d+(?:\.\d+)*$/.test(m[0])) continue;
		out.add(m[0].replace(/^https?:\/\//, "").replace(/\/+$/, ""));
	}
	for (const m of lower.matchAll(/(?:s3|gs):\/\/[\w./-]+|(?:^|\s)[\w.-]*\/[\w./-]+/g)) out.add(m[0].trim());
	for (const m of lower.matchAll(/\d{1,2}:\d{2}/g)) out.add(m[0]);
	for (const m of lower.matchAll(/v?\d+(?:[.,_]\d+)*/g)) {
		const prev = lower[(m.index ?? 0) - 1] ?? " ";
		if (/[a-z:]/.test(prev) && !/v$/.test(m[0])) continue;
		out.add(num(m[0].replace(/^v/, "")));
	}
	for (const [i, word] of NUMBER_WORDS.entries()) if (new RegExp(`\\b${word}\\b`).test(lower)) out.add(String(i + 1));
	for (const [i, day] of EN_DAYS.entries()) if (new RegExp(`\\b${day}s?\\b|\\b${day.slice(0, 3)}\\b`).test(lower)) out.add(`day:${i}`);
	for (const [i, day] of KO_DAYS.entries()) if (new RegExp(`${day}요일`).test(text)) out.add(`day:${i}`);
	for (const w of ["daily", "weekly", "fortnightly", "biweekly", "monthly", "quarterly", "weekend", "weekday", "nightly"])
		if (new RegExp(`\\b${w}s?\\b`).test(lower)) out.add(`every:${w}`);
	for (const [w, v] of [
		["매일", "daily"],
		["매주", "weekly"],
		["격주", "fortnightly"],
		["매달", "monthly"],
		["주말", "weekend"],
		["평일", "weekday"],
	] as const)
		if (text.includes(w)) out.add(`every:${v}`);
	// People: a capitalised word that is not the sentence's first, or a Korean name with an honorific.
	for (const m of text.matchAll(/(?<=[^.!?\s]\s+|^)[A-Z][a-z]{2,}\b/g)) {
		const w = m[0].toLowerCase();
		if ((m.index ?? 0) === 0 && !/^\S+ (?:is|was|took|takes|owns|handles|runs|leads|will|has)\b/.test(text)) continue;
		if (!EN_STOP.has(w) && !EN_DAYS.some((d) => w.startsWith(d.slice(0, 3)))) out.add(`who:${w}`);
	}
	for (const m of text.matchAll(/([가-힣]{2,3})(?:님|씨)/g)) out.add(`who:${(m[1] ?? "").slice(-2)}`);
	return out;
}

/** Whether the statement carries a word that marks a change of value. */
export const marksChange = (text: string): boolean => {
	EN_CHANGE.lastIndex = 0;
	KO_CHANGE.lastIndex = 0;
	return EN_CHANGE.test(text) || KO_CHANGE.test(text);
};

/** Light English stemming: "deploys" / "deploy", "approvals" / "approval". */
const stem = (w: string) =>
	w.length > 4 && w.endsWith("ies") ? `${w.slice(0, -3)}y` : w.length > 3 && /[^s]s$/.test(w) ? w.slice(0, -1) : w;

/**
 * The words naming what a statement is about: its content words with the values, change words and
 * function words left out. Korean words lose their particles and endings, and their stems count as
 * the grams the recall index uses (src/text/grams.ts), so "배포는" and "배포" meet.
 */
export function subjectWords(text: string): Set<string> {
	const out = new Set<string>();
	let rest = text
		.toLowerCase()
		.replace(EN_CHANGE, " ")
		.replace(KO_CHANGE, " ")
		.replace(/(?:https?:\/\/|s3:\/\/|gs:\/\/)\S+/g, " ")
		.replace(/[월화수목금토일]요일/g, " ")
		// People named with an honorific are values, not the subject: "결제 on-call은 이준호님이".
		.replace(/[가-힣]{2,4}(?:님|씨)[가-힣]*/g, " ");
	rest = rest.replace(/\b[a-z0-9][\w-]*(?:\.[a-z0-9][\w-]*)+\S*/g, " ");
	// A number with its Korean counter and particle ("24개로", "30초로", "1개면") is the value, not the subject.
	rest = rest.replace(
		/\d[\d,.:]*\s*(?:개월|시간|개|초|건|일|분|시|줄|명|회|번|배|대|주|달|년)?(?:으로|로|이야|야|이에요|예요|입니다|이고|이면|면|이|가|은|는|을|를|에|까지|부터|씩|만|짜리)*/g,
		" ",
	);
	for (const token of rest.replace(CJK_RUN, (m) => ` ${m} `).split(/[^\p{L}\p{N}/_-]+/u)) {
		if (!token) continue;
		if (/^[\p{Script=Hangul}]+$/u.test(token)) {
			let s = token;
			for (let i = 0; i < 2 && s.length > 1 && KO_PARTICLE_AT_END.test(s); i++) s = s.replace(KO_PARTICLE_AT_END, "");
			if (s.length < 2 || KO_VERB_ONLY.test(token) || KO_VERB_ONLY.test(s) || KO_ENDING.test(s)) continue;
			for (const g of grams(s)) out.add(g);
			continue;
		}
		for (const w of token.split(/[/_-]+/)) {
			if (w.length < 2 || EN_STOP.has(w) || /\d/.test(w)) continue;
			if (EN_DAYS.some((d) => w.startsWith(d.slice(0, 3)) && d.startsWith(w.replace(/s$/, "")))) continue;
			out.add(stem(w));
		}
	}
	return out;
}

/**
 * A sentence that only says something changed, with no new value ("the deploy day changed",
 * "배포 요일이 바뀌었어요"): it marks the next statement as an update, and is never a memory itself.
 */
export function onlySaysChanged(sentence: string): boolean {
	const s = sentence.trim().replace(/[.!~]+$/, "");
	if (valuesOf(s).size > 0) return false;
	if (
		/^(?:(?:the|our|their|my)\s+)?(?:[\w-]+\s+){0,4}(?:has|have|had|was|were|got|is|are)?\s*(?:changed|moved|been (?:changed|moved|updated)|updated|different now)(?:\s+(?:again|too|as well|now|recently|last week|yesterday))*$/i.test(
			s,
		)
	)
		return true;
	if (/^(?:that|this|it|things|something|the (?:plan|schedule|setup|process|rule|policy))\s+(?:has\s+)?changed\b[^.]{0,20}$/i.test(s))
		return true;
	if (/(?:으로|로|에서)\s*(?:또 |다시 )?(?:바뀌|바꼈|변경|달라)/.test(s)) return false; // "나이스페이로 바뀌었어요" names the new value
	return /^[^.?!]{0,30}(?:또 |다시 )?(?:바뀌었|바뀜|바꼈|변경됐|변경되었|달라졌)(?:어요|어|습니다|음|네요|다|대요|대)?$/.test(s);
}
