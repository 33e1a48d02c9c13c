// LoCoMo: observations as memories, and the official retrieval recall.
import { readFileSync } from "node:fs";
import type { SeedMemory } from "../../bench/corpus";

export interface Conversation {
	sample_id: string;
	qa: { question: string; evidence: (string | number)[]; category: number }[];
	observation: Record<string, Record<string, [string, string][]>>;
	conversation: Record<string, unknown>;
}

export interface Observation {
	conv: string;
	name: string;
	diaId: string;
	speaker: string;
	fact: string;
	session: string;
}

export function loadLocomo(file: string) {
	const data = JSON.parse(readFileSync(file, "utf8")) as Conversation[];
	const observations: Observation[] = [];
	for (const conv of data) {
		let n = 0;
		for (const [sessionKey, bySpeaker] of Object.entries(conv.observation)) {
			const session = sessionKey.replace(/_observation$/, "");
			for (const [speaker, facts] of Object.entries(bySpeaker)) {
				for (const [fact, diaId] of facts)
					observations.push({ conv: conv.sample_id, name: `obs-${++n}`, diaId: String(diaId), speaker, fact, session });
			}
		}
	}
	return { data, observations };
}

const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];

/** A LoCoMo session time, "1:56 pm on 8 May, 2023", as ISO 8601 (UTC); undefined when it is not one. */
export function sessionTime(date: unknown): string | undefined {
	const m = typeof date === "string" ? /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(date.trim()) : null;
	const month = m ? MONTHS.indexOf((m[5] ?? "").toLowerCase()) : -1;
	if (!m || month < 0) return undefined;
	const hour = (Number(m[1]) % 12) + (m[3]?.toLowerCase() === "pm" ? 12 : 0);
	return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

/** One observation as one memory: the fact, who said it and when; written on its session's date by that session. */
export function toMemory(o: Observation, date: unknown): SeedMemory {
	const writtenAt = sessionTime(date);
	return {
		name: o.name,
		type: "user",
		description: o.fact.slice(0, 500),
		body: `${o.fact}\n\nSaid by ${o.speaker}${typeof date === "string" ? ` on ${date}` : ""}.`,
		...(writtenAt ? { writtenAt } : {}),
		session: `${o.conv}-${o.session}`,
	};
}

/** When a conversation's questions are asked: the day after its last session. */
export function questionTime(conv: Conversation): string | undefined {
	const times = Object.entries(conv.conversation)
		.filter(([k]) => k.endsWith("_date_time"))
		.map(([, v]) => sessionTime(v))
		.filter((t): t is string => t !== undefined)
		.sort();
	const last = times.at(-1);
	return last ? new Date(Date.parse(last) + 86_400_000).toISOString() : undefined;
}

export const CATEGORIES: Record<number, string> = { 1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial" };

/** LoCoMo's retrieval recall: the share of a question's evidence dia_ids among the retrieved units. */
export function evidenceRecall(evidence: string[], retrievedDiaIds: string[]): number {
	if (evidence.length === 0) return 0;
	const got = new Set(retrievedDiaIds);
	return evidence.filter((e) => got.has(e)).length / evidence.length;
}

export interface QualityRow {
	category: string;
	questions: number;
	cairnR5: number;
	cairnR10: number;
	bm25R5: number;
	bm25R10: number;
}

export function summarise(perQuestion: { category: number; cairn: [number, number]; bm25: [number, number] }[]): QualityRow[] {
	const groups: [string, (c: number) => boolean][] = [
		...[4, 1, 2, 3].map((c) => [CATEGORIES[c] ?? String(c), (x: number) => x === c] as [string, (c: number) => boolean]),
		["overall (1-4)", (x) => x >= 1 && x <= 4],
		["adversarial (5)", (x) => x === 5],
	];
	return groups.map(([category, match]) => {
		const qs = perQuestion.filter((q) => match(q.category));
		const mean = (f: (q: (typeof qs)[number]) => number) => (qs.length ? qs.reduce((s, q) => s + f(q), 0) / qs.length : 0);
		return {
			category,
			questions: qs.length,
			cairnR5: mean((q) => q.cairn[0]),
			cairnR10: mean((q) => q.cairn[1]),
			bm25R5: mean((q) => q.bm25[0]),
			bm25R10: mean((q) => q.bm25[1]),
		};
	});
}
