import type { Turn } from "../sessions/turns";
import { enStopwords, NAME_HOMOGRAPHS } from "../text/stopwords/en";
import type { Candidate } from "./schema";
import { turnRef } from "./schema";

/**
 * Where a stage-1 candidate's content comes from. The model's citations are a claim, not proof: a
 * candidate counts as stated by the user only when cited turns are the user's own typed turns and
 * its distinctive words (and every URL and quoted command it carries) appear in them. Rules and
 * preferences whose instructions, commands or URLs come only from tool output are not kept at all,
 * so a "remember: …" inside a tool result can never become a rule or overwrite a memory the user
 * wrote on purpose.
 */

/** Words that tell nothing of where a statement comes from: the stop words, and "may" and "us". */
const STOP = enStopwords([NAME_HOMOGRAPHS]);

const URL = /\bhttps?:\/\/[^\s<>"'`)\]]+/gi;
const QUOTED = /`([^`\n]{3,200})`/g;

/** Words folded to a short stem so that "deploys" meets "deploy" and "linter" meets "lint". */
const stem = (w: string) => (w.length > 5 ? w.slice(0, 5) : w);

export function distinctiveWords(text: string): Set<string> {
	const words = new Set<string>();
	for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
		if (w.length < 3 || STOP.has(w) || /^\d+$/.test(w)) continue;
		words.add(stem(w));
	}
	return words;
}

const urlsOf = (text: string) => [...text.matchAll(URL)].map((m) => m[0].replace(/[.,;:]+$/, "").toLowerCase());
const commandsOf = (text: string) => [...text.matchAll(QUOTED)].map((m) => (m[1] ?? "").trim().toLowerCase()).filter(Boolean);

/** Enough of the candidate's words in `source`: at least two (or all, when it has fewer) and 40 %. */
export function wordsSupported(words: Set<string>, source: Set<string>): boolean {
	if (words.size === 0) return false;
	let hits = 0;
	for (const w of words) if (source.has(w)) hits++;
	return hits >= Math.min(2, words.size) && hits >= Math.ceil(words.size * 0.4);
}

const isUserStatement = (t: Turn) => t.role === "user" && !t.sidechain && !t.kind;
const isTool = (t: Turn) => t.role === "tool_call" || t.role === "tool_result";

export interface Provenance {
	/** Supported by the text of a cited user turn. */
	userStated: boolean;
	/** A rule or preference whose content comes only from tool output: never stored. */
	fromToolOnly: boolean;
}

export function provenanceOf(candidate: Pick<Candidate, "type" | "description" | "body" | "evidence">, turns: Turn[]): Provenance {
	const text = `${candidate.description}\n${candidate.body}`;
	const words = distinctiveWords(text);
	const urls = urlsOf(text);
	const commands = commandsOf(text);
	const cited = new Set(candidate.evidence);
	const citedUser = turns.filter((t) => cited.has(turnRef(t.seq)) && isUserStatement(t));
	const userText = citedUser.map((t) => t.text).join("\n");
	const userLower = userText.toLowerCase();
	const userStated =
		citedUser.length > 0 &&
		wordsSupported(words, distinctiveWords(userText)) &&
		urls.every((u) => userLower.includes(u)) &&
		commands.every((c) => userLower.includes(c));

	let fromToolOnly = false;
	if (!userStated && (candidate.type === "feedback" || candidate.type === "user")) {
		const toolText = turns
			.filter(isTool)
			.map((t) => t.text)
			.join("\n");
		const toolLower = toolText.toLowerCase();
		const otherText = turns
			.filter((t) => !isTool(t))
			.map((t) => t.text)
			.join("\n");
		const userLowerAll = turns
			.filter(isUserStatement)
			.map((t) => t.text)
			.join("\n")
			.toLowerCase();
		// A URL or command the user never typed but a tool printed.
		const injected = [...urls, ...commands].some((x) => toolLower.includes(x) && !userLowerAll.includes(x));
		// Words that tools printed and no person or agent said.
		const toolWords = wordsSupported(words, distinctiveWords(toolText)) && !wordsSupported(words, distinctiveWords(otherText));
		fromToolOnly = injected || toolWords;
	}
	return { userStated, fromToolOnly };
}
