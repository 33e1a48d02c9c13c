// @ts-check
// `cairn remember "free text"`: a name, a type and a description picked from the text itself, offline
// (the service has no route that reads them out of free text; its extraction runs on session transcripts).
// The name is the text's key words, the type follows simple cues, the description is its first sentence.
import { describe, slugify } from "./transfer.mjs";

/** Words that say nothing about what a memory is about: left out of its name. */
const FILLER = new Set(
	(
		"a an the and or but so if then than that this these those it its it's is are was were be been being am " +
		"i i'm me my we we're us our you your they them their he she his her to of in on at by for from with " +
		"as into about over under up down out off just also very really please use uses used using do does did " +
		"done have has had can could would will shall should must may might let lets here there what which who " +
		"when where why how all any some each every more most other such only own same too s t"
	).split(" "),
);

/** First person about oneself: a preference, a habit, a role. */
const USER =
	/\b(i|we)\s+(prefer|like|love|hate|dislike|want|enjoy)\b|\bi\s+(am|'m|usually|always|never|tend|work)\b|\bi'm\b|\bmy\s+(preference|style|role|name|setup|editor|machine)\b/i;
/** A rule: a prohibition, an obligation, a correction. */
const RULE =
	/\b(never|don'?t|do not|doesn'?t|does not|avoid|always|must|mustn'?t|must not|should|shouldn'?t|should not|stop|instead of|rather than|make sure|no more|not allowed|forbidden|required|prefer)\b/i;
/** An instruction: the text starts with what to do, or corrects (`X, not Y`). */
const INSTRUCTION =
	/^\s*(use|run|keep|put|write|call|add|ask|check|test|commit|push|deploy|name|prefer|remember|let|leave|mention)\b|,\s*not\s+\w/i;
/** Where something lives outside the repository. */
const REFERENCE = /\bhttps?:\/\/\S+/i;

/** @param {string} text */
export function pickType(text) {
	const t = text.replace(/[‘’]/g, "'");
	if (USER.test(t)) return "user";
	if (RULE.test(t) || INSTRUCTION.test(t)) return "feedback";
	if (REFERENCE.test(t)) return "reference";
	return "project";
}

/** A kebab-case name from the text's first key words (at most four), or null when none is in a-z/0-9. @param {string} text */
export function pickName(text) {
	const words = text
		.replace(/https?:\/\/\S+/gi, " ")
		.toLowerCase()
		.split(/[^a-z0-9'’]+/)
		.map((w) => w.replace(/['’]/g, ""))
		.filter((w) => w && !FILLER.has(w) && !/^\d+$/.test(w));
	const name = slugify(words.slice(0, 4).join(" "));
	return name || null;
}

/** The description: the text's first sentence (at most 200 characters), starting with a capital. @param {string} text */
export function pickDescription(text) {
	let d = describe(text.trim());
	if (d.length > 200) d = `${d.slice(0, 199).trimEnd()}…`;
	return d.charAt(0).toUpperCase() + d.slice(1);
}

/**
 * Name, type and description for a memory given as free text.
 * @param {string} text @param {Date} [now] for the name when the text has no key word in a-z/0-9
 * @returns {{ name: string, type: "user" | "feedback" | "project" | "reference", description: string }}
 */
export function fromFreeText(text, now = new Date()) {
	return {
		name: pickName(text) ?? `note-${now.toISOString().slice(0, 16).replace(/[-:T]/g, "")}`,
		type: /** @type {any} */ (pickType(text)),
		description: pickDescription(text),
	};
}
