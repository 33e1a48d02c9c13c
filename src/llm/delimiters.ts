import consolidationPrompt from "../../prompts/consolidation.md";
import readPathPrompt from "../../prompts/read_path.md";
import selectorPrompt from "../../prompts/recall_selector.md";
import sessionMemoryPrompt from "../../prompts/session_memory.md";
import stageOneInput from "../../prompts/stage_one_input.md";
import stageOneSystem from "../../prompts/stage_one_system.md";
import topicsPrompt from "../../prompts/topics.md";

/**
 * The tags Cairn's prompts wrap untrusted text in: every `<name>` that a prompt also closes with
 * `</name>`, read from the prompts themselves (so a tag added to a prompt is covered), plus the ones
 * the code names.
 */
function promptTags(): string[] {
	const tags = new Set([
		"transcript",
		"previous_notes",
		"existing_memories",
		"existing_skills",
		"raw_memories",
		"rollout_summaries",
		"query",
		"manifest",
	]);
	for (const prompt of [
		consolidationPrompt,
		readPathPrompt,
		selectorPrompt,
		sessionMemoryPrompt,
		stageOneInput,
		stageOneSystem,
		topicsPrompt,
	]) {
		for (const m of prompt.matchAll(/<\/([a-z][a-z0-9_-]*)>/gi)) if (m[1]) tags.add(m[1].toLowerCase());
	}
	return [...tags];
}

export const PROMPT_DELIMITERS: readonly string[] = promptTags();

/** Tag names are `[a-z0-9_-]` (read above), literal in a pattern. `<tag>`, `</tag>`, `< / TAG >`, `<tag attr="…">`: any case, any whitespace inside the brackets. */
const DELIMITER = new RegExp(`<\\s*/?\\s*(?:${PROMPT_DELIMITERS.join("|")})\\b[^<>]*>`, "gi");

/**
 * Removes every prompt delimiter from untrusted text before it enters a prompt, so that text written
 * by users, agents, tools or earlier models cannot close the data block it sits in. Repeated until
 * nothing is left, since removing one tag can join the halves of another (`<trans<transcript>cript>`).
 */
export function stripDelimiters(text: string): string {
	let current = text;
	for (let i = 0; i < 100; i++) {
		const next = current.replace(DELIMITER, "");
		if (next === current) return next;
		current = next;
	}
	return current.replace(/[<>]/g, "");
}
