/**
 * Topics: the memories grouped offline by what they are about, so that a block which cannot list every
 * memory can still name where each one is. A topic is keyed by a word several memories' names share (a
 * service, a component, a tool, a person: `dispatch`, `billing`, `grafana`), chosen greedily — the word
 * that gathers the most memories not yet in a topic, its own name words counting double — up to
 * `MAX_TOPIC_SIZE` members (a larger group is cut by its members' next shared word: `billing-invoice`); a
 * memory no shared word gathers joins the topic it shares most words with,
 * or an `other` topic of its kind. Every memory is in one topic, and also in any other whose key its name
 * spells out (up to twice the size); `memory://root/topics/<key>.md` lists a topic's members' index lines. English and Korean alike: keys come from names (slugs), the words
 * that describe a topic from names and descriptions in either language.
 */
import { KEEPING_WORDS } from "../text/stopwords/en";
import { queryTerms } from "../text/terms";

export interface TopicMember {
	id: number;
	name: string;
	type: string;
	description: string;
	scope?: string;
}

export interface Topic {
	/** The key, also the topic's file name: memory://root/topics/<key>.md. */
	key: string;
	/** Besides the key, the words its members are most about (at most `LABEL_WORDS`; a model's, when one named the topic). */
	words: string[];
	members: TopicMember[];
	/** What its memories are about, in a few words, when a model named the topic (src/search/topic-labels.ts). */
	title?: string;
}

/** A topic holds at most this many memories: a larger group is split by its next word. */
export const MAX_TOPIC_SIZE = 40;
const LABEL_WORDS = 3;
/** A word becomes a topic's key when at least this many memories not yet in a topic have it in their names. */
const MIN_KEYED = 3;

/** A label word: not a number (years and counts say nothing of a topic), nor a word that says how a memory is kept. */
const labelWord = (w: string) => w.length >= 3 && !/^\d+$/.test(w) && !KEEPING_WORDS.has(w);

const nameWords = (name: string) =>
	new Set(name.split("-").filter((w) => w.length >= 3 && !/^\d+$/.test(w) && !KEEPING_WORDS.has(w) && queryTerms(w).length > 0));

const otherKey = (kind: string, n: number) => `other-${kind}${n > 1 ? `-${n}` : ""}`;
const kindOf = (type: string) => (type === "feedback" || type === "user" ? "rules" : "facts");

/** Groups `rows` into topics (deterministic: ties go to the earlier word, rows keep their order). */
export function groupTopics(rows: TopicMember[]): Topic[] {
	const names = rows.map((r) => nameWords(r.name));
	const described = rows.map((r, i) => {
		const words = new Set(queryTerms(r.description));
		for (const w of names[i] ?? []) words.delete(w);
		return words;
	});
	// Inverted lists: which rows hold each candidate key in their name (weight 2) or only in their description
	// (1), and how many of them are not yet in a topic (kept as rows are taken, so each round is one pass over the keys).
	const inName = new Map<string, number[]>();
	const inText = new Map<string, number[]>();
	const push = (map: Map<string, number[]>, w: string, i: number) => {
		const list = map.get(w);
		if (list) list.push(i);
		else map.set(w, [i]);
	};
	rows.forEach((_, i) => {
		for (const w of names[i] ?? []) push(inName, w, i);
		for (const w of described[i] ?? []) if (/^[a-z][a-z0-9]{2,}$/.test(w)) push(inText, w, i);
	});
	const openName = new Map([...inName].map(([w, l]) => [w, l.length]));
	const openText = new Map([...inText].map(([w, l]) => [w, l.length]));
	const keys = [...inName.keys()].filter((w) => (inName.get(w)?.length ?? 0) >= MIN_KEYED).sort();
	const taken = new Array<boolean>(rows.length).fill(false);
	const take = (i: number) => {
		taken[i] = true;
		for (const w of names[i] ?? []) openName.set(w, (openName.get(w) ?? 1) - 1);
		for (const w of described[i] ?? []) if (openText.has(w)) openText.set(w, (openText.get(w) ?? 1) - 1);
	};
	const topics: Topic[] = [];
	const keyed = new Set<string>();
	const open = (i: number) => !taken[i];
	for (;;) {
		// The word that fills a topic best; past a full topic more members gain nothing, so of two that fill one
		// the more specific (fewer memories in all) goes first: `billing` before a word every name has.
		let best = "";
		let bestGain = 0;
		let bestSpread = 0;
		for (const w of keys) {
			const a = openName.get(w) ?? 0;
			if (a < MIN_KEYED) continue;
			const gain = 2 * Math.min(a, MAX_TOPIC_SIZE) + Math.min(openText.get(w) ?? 0, MAX_TOPIC_SIZE);
			if (gain > bestGain || (gain === bestGain && a < bestSpread)) {
				best = w;
				bestGain = gain;
				bestSpread = a;
			}
		}
		if (!best) break;
		let members = [...new Set([...(inName.get(best) ?? []), ...(inText.get(best) ?? [])])].filter(open);
		let key = best;
		if (members.length > MAX_TOPIC_SIZE) {
			// Too many for one topic: the part of it that also shares its most common other name word (`billing-invoice`).
			const co = new Map<string, number>();
			for (const i of members)
				for (const w of names[i] ?? []) if (w !== best && !keyed.has(`${best}-${w}`)) co.set(w, (co.get(w) ?? 0) + 1);
			const [word, n] = [...co].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0] ?? ["", 0];
			if (word && n >= MAX_TOPIC_SIZE / 4) {
				key = `${best}-${word}`;
				members = members.filter((i) => names[i]?.has(word) || described[i]?.has(word));
			} else {
				let n = 1;
				while (keyed.has(`${best}-${n}`)) n += 1;
				key = `${best}-${n}`;
			}
			members = members.slice(0, MAX_TOPIC_SIZE);
		}
		keyed.add(key);
		for (const i of members) take(i);
		topics.push({ key: key.slice(0, 64).replace(/-+$/, ""), words: [], members: members.map((i) => rows[i] as TopicMember) });
	}
	// What no shared word gathered: into the topic it shares most words with while there is room, else `other`.
	const indexOf = new Map(rows.map((r, i) => [r.id, i]));
	const wordsOf = (i: number) => [...(names[i] ?? []), ...(described[i] ?? [])];
	const topicsWith = new Map<string, number[]>();
	topics.forEach((t, ti) => {
		const words = new Set(t.members.flatMap((m) => wordsOf(indexOf.get(m.id) ?? -1)));
		for (const w of words) push(topicsWith, w, ti);
	});
	const others: Record<string, Topic[]> = {};
	rows.forEach((row, i) => {
		if (taken[i]) return;
		const shared = new Map<number, number>();
		for (const w of wordsOf(i)) for (const ti of topicsWith.get(w) ?? []) shared.set(ti, (shared.get(ti) ?? 0) + 1);
		let at = -1;
		let most = 0;
		for (const [ti, n] of [...shared].sort((a, b) => a[0] - b[0])) {
			if ((topics[ti]?.members.length ?? MAX_TOPIC_SIZE) >= MAX_TOPIC_SIZE) continue;
			if (n > most) {
				at = ti;
				most = n;
			}
		}
		if (at >= 0) {
			topics[at]?.members.push(row);
			return;
		}
		const kind = kindOf(row.type);
		const list = others[kind] ?? [];
		others[kind] = list;
		let last = list.at(-1);
		if (!last || last.members.length >= MAX_TOPIC_SIZE) {
			last = { key: otherKey(kind, list.length + 1), words: [], members: [] };
			list.push(last);
		}
		last.members.push(row);
	});
	// A memory is also found under every other topic whose key its name spells out (`payments-review-owners`
	// under `review` too): a topic then holds all that its key names, as far as room allows.
	for (const t of topics) {
		const key = t.key.split("-").filter((w) => !/^\d+$/.test(w));
		const have = new Set(t.members.map((m) => m.id));
		for (const i of inName.get(key[0] ?? "") ?? []) {
			const row = rows[i] as TopicMember;
			if (t.members.length >= MAX_TOPIC_SIZE * 2) break;
			if (!have.has(row.id) && key.every((w) => names[i]?.has(w))) t.members.push(row);
		}
	}
	const all = [...topics, ...(others.facts ?? []), ...(others.rules ?? [])];
	for (const t of all) t.words = labelWords(t, (id) => indexOf.get(id) ?? -1, names, described);
	return all;
}

/** The words a topic's members share most, besides its key: names first (they say what a memory is about), then descriptions. */
function labelWords(topic: Topic, indexOf: (id: number) => number, names: Set<string>[], described: Set<string>[]): string[] {
	const counts = new Map<string, number>();
	for (const m of topic.members) {
		const i = indexOf(m.id);
		for (const w of names[i] ?? []) counts.set(w, (counts.get(w) ?? 0) + 2);
		for (const w of described[i] ?? []) if (labelWord(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
	}
	for (const w of topic.key.split("-")) counts.delete(w);
	return [...counts]
		.filter(([, n]) => n >= 2)
		.sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
		.slice(0, LABEL_WORDS)
		.map(([w]) => w);
}

/** A topic's file. */
export const topicUrl = (key: string) => `memory://root/topics/${key}.md`;
/** How a line names a topic's file: short, the block's heading says where topics are (memory://root/topics/). */
export const topicRef = (key: string) => `topics/${key}.md`;

/**
 * A topic's line in a block: its file, what it is about, and how many memories it holds (with how many of
 * them the block already lists, when some are).
 */
export function topicLine(topic: Pick<Topic, "key" | "words" | "title">, n: number, listed = 0): string {
	const about = topic.key.startsWith("other-") ? [] : [topic.key.replace(/-(\d+)$/, "").replace(/-/g, " ")];
	const words = topic.title
		? `${topic.title}${topic.words.length > 0 ? `: ${topic.words.join(", ")}` : ""}`
		: [...about, ...topic.words].join(", ");
	return `- ${topicRef(topic.key)} — ${words || "other memories"} (${n}${listed > 0 ? `, ${listed} listed` : ""})`;
}
