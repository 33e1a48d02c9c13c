/**
 * Date cues in a query: "a week ago", "last Saturday", "in March", "on 16 June, 2023", 지난주, 3日前,
 * 上个月. Each becomes a window of time; recall prefers the memories written inside one (their
 * `created_at` or `updated_at`: when a session said it) and also reads the best word matches among
 * them, so a memory written then is a candidate even when words elsewhere outrank it.
 *
 * English (and the dates chrono-node reads in Japanese and Chinese) is parsed by chrono-node against
 * the anchor — the moment the question is asked from, now unless the caller says otherwise. Relative
 * expressions in Korean, Japanese and Chinese ("N일 전", "先週", "上个月"), which chrono-node does
 * not read, are parsed here.
 */
import * as en from "chrono-node/en";
import * as ja from "chrono-node/ja";
import * as zh from "chrono-node/zh";
import { hasCjk } from "./grams";

export interface DateWindow {
	/** ISO 8601 instants, `from` inclusive and `to` exclusive: comparable with the stored timestamps as text. */
	from: string;
	to: string;
}

const DAY_MS = 86_400_000;
/** At most this many windows from one query. */
const MAX_WINDOWS = 3;
/**
 * A relative expression is approximate: "a month ago" may mean five weeks. Its window widens by this
 * share of its distance from the anchor, and every window by a day (a memory is written at the end
 * of the session that told of the event, often a day later; time zones differ).
 */
const RELATIVE_SLACK = 0.15;

const startOfDay = (t: number) => Math.floor(t / DAY_MS) * DAY_MS;

/** The window for a calendar span [from, to) named `relative`ly or not, as of `anchor`. */
function widen(from: number, to: number, anchor: number, relative: boolean): DateWindow {
	const slack = DAY_MS + (relative ? RELATIVE_SLACK * Math.max(0, anchor - from) : 0);
	return { from: new Date(from - slack).toISOString(), to: new Date(to + slack).toISOString() };
}

/** An expression is relative unless it names a year or a month by name and no relative word. */
const RELATIVE_WORDS = /\b(?:ago|last|past|previous|this|yesterday|today|tonight|earlier|later|recently)\b/i;
const ABSOLUTE_WORDS = /\b\d{4}\b|\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?(?:\s|$|,)/i;

function chronoWindows(query: string, anchor: Date): DateWindow[] {
	const parsers = hasCjk(query) ? [en.casual, ja.casual, zh.casual] : [en.casual];
	const out: DateWindow[] = [];
	const now = anchor.getTime();
	for (const parser of parsers) {
		for (const result of parser.parse(query, anchor)) {
			const c = result.start;
			const known = (k: "year" | "month" | "day" | "weekday") => c.isCertain(k);
			let t = c.date().getTime();
			let from: number;
			let to: number;
			if (known("day") || known("weekday")) {
				// A weekday alone ("on Wednesday") means the last one, not the next.
				if (!known("day") && t > now) t -= 7 * DAY_MS;
				from = startOfDay(t);
				to = from + DAY_MS;
			} else if (known("month")) {
				const d = new Date(t);
				from = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
				to = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
			} else if (known("year")) {
				const y = new Date(t).getUTCFullYear();
				from = Date.UTC(y, 0, 1);
				to = Date.UTC(y + 1, 0, 1);
			} else continue; // a time of day only ("at 3pm")
			if (from > now + DAY_MS) continue; // the future: nothing was written then
			const relative = RELATIVE_WORDS.test(result.text) || !ABSOLUTE_WORDS.test(result.text);
			out.push(widen(from, to, now, relative));
		}
	}
	return out;
}

/** Chinese numerals up to ten, and digits: 三 → 3, 两 → 2, 10 → 10. */
const CJK_NUMBERS: Record<string, number> = { 一: 1, 二: 2, 两: 2, 兩: 2, 三: 3, 四: 4, 五: 5, 六: 6, 七: 7, 八: 8, 九: 9, 十: 10 };
const numberOf = (s: string) => (/^\d+$/.test(s) ? Number(s) : (CJK_NUMBERS[s] ?? Number.NaN));

/** "N units ago" in Korean, Japanese and Chinese: 3일 전, 2주 전, 3日前, 2週間前, 三天前, 两个月前, 1년 전. */
const AGO =
	/(\d{1,3}|[一二两兩三四五六七八九十])\s*(일|日|天|주|週間?|周|星期|개월|달|ヶ月|か月|カ月|个月|個月|년|年)\s*(?:전|前|之前|以前)/gu;
const UNIT_DAYS: [RegExp, number][] = [
	[/^(?:일|日|天)$/u, 1],
	[/^(?:주|週間?|周|星期)$/u, 7],
	[/^(?:개월|달|ヶ月|か月|カ月|个月|個月)$/u, 30],
	[/^(?:년|年)$/u, 365],
];

/** Words for a span relative to the anchor's day: its [start, end) in UTC milliseconds. */
const CASUAL: [RegExp, (today: Date) => [number, number]][] = [
	[/그저께|그제|一昨日|前天/u, (d) => days(d, -2, 1)],
	[/어제|昨日|昨天/u, (d) => days(d, -1, 1)],
	[/오늘|今日|今天/u, (d) => days(d, 0, 1)],
	[/지난\s?주|저번\s?주|先週|上周|上週|上星期/u, (d) => days(d, -7 - d.getUTCDay(), 7)],
	[/이번\s?주|今週|本周|这周|這週/u, (d) => days(d, -d.getUTCDay(), 7)],
	[
		/지난\s?달|저번\s?달|先月|上个月|上個月/u,
		(d) => [Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - 1, 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)],
	],
	[
		/이번\s?달|今月|本月|这个月|這個月/u,
		(d) => [Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1), Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)],
	],
	[/작년|지난\s?해|昨年|去年/u, (d) => [Date.UTC(d.getUTCFullYear() - 1, 0, 1), Date.UTC(d.getUTCFullYear(), 0, 1)]],
	[/올해|今年/u, (d) => [Date.UTC(d.getUTCFullYear(), 0, 1), Date.UTC(d.getUTCFullYear() + 1, 0, 1)]],
];

/** `length` days starting `offset` days from `d`'s day. */
const days = (d: Date, offset: number, length: number): [number, number] => {
	const from = startOfDay(d.getTime()) + offset * DAY_MS;
	return [from, from + length * DAY_MS];
};

/** Korean dates: 5월 10일, 2023년 5월 (chrono-node reads the Japanese and Chinese forms). */
const KO_DATE = /(?:(\d{4})\s*년\s*)?(\d{1,2})\s*월(?:\s*(\d{1,2})\s*일)?/gu;

function cjkWindows(query: string, anchor: Date): DateWindow[] {
	const now = anchor.getTime();
	const today = startOfDay(now);
	const out: DateWindow[] = [];
	for (const m of query.matchAll(AGO)) {
		const n = numberOf(m[1] ?? "");
		const unit = UNIT_DAYS.find(([re]) => re.test(m[2] ?? ""))?.[1];
		if (!Number.isFinite(n) || !unit) continue;
		const from = today - n * unit * DAY_MS;
		out.push(widen(from, from + DAY_MS, now, true));
	}
	for (const [re, span] of CASUAL) {
		const m = re.exec(query);
		if (!m) continue;
		// A named calendar span ("last week", 지난달) is exact: no widening beyond the day.
		const [from, to] = span(anchor);
		out.push(widen(from, to, now, false));
	}
	for (const m of query.matchAll(KO_DATE)) {
		const year = m[1] ? Number(m[1]) : anchor.getUTCFullYear();
		const month = Number(m[2]) - 1;
		if (month < 0 || month > 11) continue;
		const day = m[3] ? Number(m[3]) : undefined;
		let from = Date.UTC(year, month, day ?? 1);
		// Without a year, the last such date on or before the anchor.
		if (!m[1] && from > now) from = Date.UTC(year - 1, month, day ?? 1);
		const to = day ? from + DAY_MS : Date.UTC(new Date(from).getUTCFullYear(), month + 1, 1);
		out.push(widen(from, to, now, false));
	}
	return out;
}

/** The windows of time a query names, as of `anchor` (at most MAX_WINDOWS; none for most queries). */
export function dateWindows(query: string, anchor: Date = new Date()): DateWindow[] {
	if (!Number.isFinite(anchor.getTime())) return [];
	const text = query.slice(0, 2000);
	const windows = new Map<string, DateWindow>();
	for (const w of [...chronoWindows(text, anchor), ...(hasCjk(text) ? cjkWindows(text, anchor) : [])]) windows.set(`${w.from}/${w.to}`, w);
	return [...windows.values()].slice(0, MAX_WINDOWS);
}

/** Whether a memory was written (created or last changed) inside one of the windows. */
export function writtenIn(row: { created_at: string; updated_at: string }, windows: DateWindow[]): boolean {
	return windows.some((w) => (row.created_at >= w.from && row.created_at < w.to) || (row.updated_at >= w.from && row.updated_at < w.to));
}
