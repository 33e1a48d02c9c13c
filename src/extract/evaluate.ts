import type { MemoryType } from "../memory/topic-file";
import type { Turn } from "../sessions/turns";
import { extractOffline } from "./offline";

export interface LabelledTurn {
	text: string;
	/** The memory type a reader would keep from this turn, or null when nothing is durable. */
	label: MemoryType | null;
	/** The assistant turn before it, for confirmations. */
	after?: string;
}

export interface Score {
	turns: number;
	positives: number;
	predicted: number;
	truePositives: number;
	typeMatches: number;
	precision: number;
	recall: number;
}

/**
 * Scores the offline extractor turn by turn: a turn counts as predicted when the extractor produced a
 * candidate citing it; a true positive when the label says there was something durable to keep.
 */
export function scoreOffline(items: LabelledTurn[]): Score {
	let predicted = 0;
	let truePositives = 0;
	let typeMatches = 0;
	for (const item of items) {
		const turns: Turn[] = [];
		if (item.after) turns.push({ seq: 0, id: "a", role: "assistant", text: item.after, ts: null });
		turns.push({ seq: turns.length, id: "u", role: "user", text: item.text, ts: null });
		const userRef = `t${turns.length - 1}`;
		const hits = extractOffline("eval", turns).candidates.filter((c) => c.evidence.includes(userRef));
		if (hits.length === 0) continue;
		predicted++;
		if (item.label) {
			truePositives++;
			if (hits.some((h) => h.type === item.label)) typeMatches++;
		}
	}
	const positives = items.filter((i) => i.label).length;
	return {
		turns: items.length,
		positives,
		predicted,
		truePositives,
		typeMatches,
		precision: predicted ? truePositives / predicted : Number.NaN,
		recall: positives ? truePositives / positives : Number.NaN,
	};
}
