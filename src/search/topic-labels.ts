/**
 * Topics named by a model: with a model configured, consolidation asks it to title the project's topics
 * (src/search/topics.ts groups memories offline by the words their names share, and labels each with those
 * words) by what their memories are about — "On-call and incidents: pagerduty, escalation, runbooks" — and
 * to merge topics that hold the same kind of thing. An agent opens a topic only when its line tells it the
 * topic holds what the task needs; a word its memories' names share often does not. The names are kept per
 * user (a user's topics include their personal memories) with the topics they were made for, and made again
 * only when a topic is added, split or gone. What the model returns is checked like any untrusted text: known keys only,
 * letters, digits and a few separators, short; a merge never chains and never makes a topic too large.
 */

import { generateText, type LanguageModel, Output } from "ai";
import { z } from "zod";
import topicsPrompt from "../../prompts/topics.md";
import { fillTemplate } from "../lib/template";
import { stripDelimiters } from "../llm/delimiters";
import { modelFailure } from "../llm/models";
import { assessDanger } from "../security/danger";
import { redactSecrets } from "../security/secrets";
import type { ProjectContext } from "../storage/context";
import type { ProjectDb } from "../storage/sql";
import { MAX_TOPIC_SIZE, type Topic } from "./topics";

/** Topics are named only in a project this large: a smaller one's start block lists every memory. */
export const LABEL_MIN_MEMORIES = 60;
/** At most this many topics are sent (the largest first), each with at most `MEMBERS_SHOWN` members. */
const TOPICS_SENT = 120;
const MEMBERS_SHOWN = 12;
const TITLE_MAX = 60;
const WORD_MAX = 24;
export const LABEL_WORDS_MAX = 6;
const LABEL_TIMEOUT_MS = 60_000;

export const TopicLabelsSchema = z.object({
	topics: z.array(
		z.object({
			key: z.string(),
			title: z.string(),
			words: z.array(z.string()).default([]),
			mergeInto: z.string().nullable().default(null),
		}),
	),
});

export interface TopicLabel {
	key: string;
	title: string;
	words: string[];
	mergeInto: string | null;
}

/** Letters, digits, spaces and `&'-,` only, spaces collapsed, cut at a word boundary within `max`. */
function clean(text: string, max: number): string {
	const plain = text
		.normalize("NFKC")
		.replace(/[^\p{L}\p{N} &'-]+/gu, " ")
		.replace(/\s+/g, " ")
		.trim();
	if (plain.length <= max) return plain;
	const cut = plain.slice(0, max + 1);
	const at = cut.lastIndexOf(" ");
	return (at > 0 ? cut.slice(0, at) : plain.slice(0, max)).trim();
}

/**
 * The model's answer, checked against the topics it was shown: labels for known keys only (the first for
 * a key), each title and word cleaned and bounded, a merge only into another known topic that is not itself
 * merged away, and only while the two together stay within twice `MAX_TOPIC_SIZE`.
 */
export function checkedLabels(answer: z.infer<typeof TopicLabelsSchema>, topics: Topic[]): TopicLabel[] {
	const size = new Map(topics.map((t) => [t.key, t.members.length]));
	const out = new Map<string, TopicLabel>();
	for (const t of answer.topics) {
		if (!size.has(t.key) || out.has(t.key)) continue;
		const title = clean(t.title, TITLE_MAX);
		const words = [...new Set(t.words.map((w) => clean(w, WORD_MAX).toLowerCase()).filter((w) => w.length >= 2))].slice(0, LABEL_WORDS_MAX);
		if (!title && words.length === 0) continue;
		// A name is shown to every session like a memory's line: one the danger check would hold is not kept.
		if (assessDanger(`${title}\n${words.join(", ")}`).length > 0) continue;
		out.set(t.key, { key: t.key, title, words, mergeInto: t.mergeInto && t.mergeInto !== t.key ? t.mergeInto : null });
	}
	// Merges: into a known topic that stays (no chains), within the size bound, the larger first.
	const merged = new Set<string>();
	const grown = new Map(size);
	for (const label of [...out.values()].sort((a, b) => (size.get(b.key) ?? 0) - (size.get(a.key) ?? 0))) {
		const into = label.mergeInto;
		if (!into) continue;
		const target = out.get(into);
		const ok =
			size.has(into) &&
			!merged.has(into) &&
			!(target?.mergeInto && size.has(target.mergeInto)) &&
			(grown.get(into) ?? 0) + (size.get(label.key) ?? 0) <= 2 * MAX_TOPIC_SIZE;
		if (ok) {
			merged.add(label.key);
			grown.set(into, (grown.get(into) ?? 0) + (size.get(label.key) ?? 0));
		} else label.mergeInto = null;
	}
	return [...out.values()];
}

/** What the model is shown: the largest topics first, a few members' lines each, redacted and stripped of the prompt's tags. */
async function promptFor(topics: Topic[]): Promise<string> {
	const shown = [...topics]
		.filter((t) => !t.key.startsWith("other-"))
		.sort((a, b) => b.members.length - a.members.length || (a.key < b.key ? -1 : 1))
		.slice(0, TOPICS_SENT)
		.map((t) => ({
			key: t.key,
			words: t.words,
			size: t.members.length,
			members: t.members.slice(0, MEMBERS_SHOWN).map((m) => `${m.name} — ${m.description.replace(/\s+/g, " ").slice(0, 160)}`),
		}));
	return (await redactSecrets(fillTemplate(topicsPrompt, { topics: stripDelimiters(JSON.stringify(shown, null, 1)) }))).text;
}

/**
 * The topics' fingerprint: which keys there are. Names are made again only when it changes — a memory joining
 * a topic does not change what the topic is about; a new topic, or one split or gone, does.
 */
export async function topicsHash(topics: Topic[]): Promise<string> {
	const text = topics
		.map((t) => t.key)
		.sort()
		.join("\n");
	const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The names kept for a user's topics. */
export async function storedLabels(db: ProjectDb, ctx: ProjectContext): Promise<TopicLabel[]> {
	const { results } = await db
		.prepare("SELECT key, title, words_json, merge_into FROM topic_labels WHERE project_id = ? AND owner_id = ?")
		.bind(ctx.projectId, ctx.userId)
		.all<{ key: string; title: string; words_json: string; merge_into: string | null }>();
	return results.map((r) => ({ key: r.key, title: r.title, words: JSON.parse(r.words_json) as string[], mergeInto: r.merge_into }));
}

export type LabelOutcome =
	| { outcome: "named"; topics: number; merged: number }
	| { outcome: "unchanged" }
	| { outcome: "skipped"; reason: string };

/**
 * Names the user's topics with the model when they changed since they were last named (and the project is
 * large enough for topics to be shown). Never throws for the model's sake: a failed or invalid answer keeps
 * the previous names and says why.
 */
export async function labelTopics(db: ProjectDb, ctx: ProjectContext, topics: Topic[], model: LanguageModel): Promise<LabelOutcome> {
	const memories = new Set(topics.flatMap((t) => t.members.map((m) => m.id))).size;
	if (memories < LABEL_MIN_MEMORIES) return { outcome: "unchanged" };
	const hash = await topicsHash(topics);
	const done = await db
		.prepare("SELECT topics_hash FROM topic_labelling WHERE project_id = ? AND owner_id = ?")
		.bind(ctx.projectId, ctx.userId)
		.first<{ topics_hash: string }>();
	if (done?.topics_hash === hash) return { outcome: "unchanged" };
	let labels: TopicLabel[];
	try {
		const result = await generateText({
			model,
			prompt: await promptFor(topics),
			output: Output.object({ schema: TopicLabelsSchema }),
			abortSignal: AbortSignal.timeout(LABEL_TIMEOUT_MS),
			maxRetries: 1,
		});
		labels = checkedLabels(TopicLabelsSchema.parse(result.output), topics);
	} catch (err) {
		const { kind, name } = modelFailure(err);
		const reason =
			kind === "timeout"
				? "the model timed out naming the topics"
				: kind === "invalid"
					? "the model's topic names were not valid JSON of the expected shape"
					: `the model call naming the topics failed (${name})`;
		return { outcome: "skipped", reason };
	}
	const now = new Date().toISOString();
	await db.batch([
		db.prepare("DELETE FROM topic_labels WHERE project_id = ? AND owner_id = ?").bind(ctx.projectId, ctx.userId),
		...labels.map((l) =>
			db
				.prepare(
					"INSERT INTO topic_labels (project_id, owner_id, key, title, words_json, merge_into, labelled_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
				)
				.bind(ctx.projectId, ctx.userId, l.key, l.title, JSON.stringify(l.words), l.mergeInto, now),
		),
		db
			.prepare(
				`INSERT INTO topic_labelling (project_id, owner_id, topics_hash, labelled_at) VALUES (?, ?, ?, ?)
				 ON CONFLICT (project_id, owner_id) DO UPDATE SET topics_hash = excluded.topics_hash, labelled_at = excluded.labelled_at`,
			)
			.bind(ctx.projectId, ctx.userId, hash, now),
	]);
	return { outcome: "named", topics: labels.length, merged: labels.filter((l) => l.mergeInto).length };
}

/**
 * The topics with their names applied: a named topic carries its title and the model's words; a topic
 * merged into another is gone from the list, its members in the other, its key an alias of it (`aliases`).
 */
export function applyLabels(topics: Topic[], labels: TopicLabel[]): { topics: Topic[]; aliases: Map<string, string> } {
	const aliases = new Map<string, string>();
	if (labels.length === 0) return { topics, aliases };
	const byKey = new Map(topics.map((t) => [t.key, { ...t, members: [...t.members] }]));
	for (const l of labels) {
		const t = byKey.get(l.key);
		if (!t) continue;
		if (l.title) t.title = l.title;
		if (l.words.length > 0) t.words = l.words;
	}
	for (const l of labels) {
		if (!l.mergeInto) continue;
		const from = byKey.get(l.key);
		const into = byKey.get(l.mergeInto);
		if (!from || !into || aliases.has(l.mergeInto)) continue;
		const have = new Set(into.members.map((m) => m.id));
		for (const m of from.members) if (!have.has(m.id)) into.members.push(m);
		byKey.delete(l.key);
		aliases.set(l.key, l.mergeInto);
	}
	return { topics: topics.filter((t) => byKey.has(t.key)).map((t) => byKey.get(t.key) as Topic), aliases };
}
