// @ts-check
// What a hook may take and what it prints: shared by every hook, and all the prompt hook's fast path
// loads besides its request (no other module of the CLI).
import { writeSync } from "node:fs";

/** @typedef {"claude" | "codex"} Agent */

/**
 * How long a hook may take, from the process's start: a prompt waits on UserPromptSubmit, so it gets
 * the least. `CAIRN_HOOK_BUDGET_MS` can only shorten these.
 * @param {string} event
 */
export function hookBudgetMs(event) {
	const cap = event === "UserPromptSubmit" ? 1400 : 2800;
	const wanted = Number(process.env.CAIRN_HOOK_BUDGET_MS);
	return wanted > 0 ? Math.min(wanted, cap) : cap;
}

/**
 * What each agent lets the model see whole, per hook. Claude Code saves hook output over 10,000
 * characters to a file and shows a ~2 KB preview; Codex spills text over 2,500 tokens, which it counts
 * as UTF-8 bytes / 4 (10,000 bytes). The service keeps each block within `maxChars` (Claude Code) or
 * `maxBytes` (Codex); `fitForAgent` is the last guard.
 */
export const INJECT_LIMITS = /** @type {const} */ ({
	claude: { maxChars: 9500 },
	codex: { maxBytes: 9500 },
});

/**
 * How many SessionStart hook entries the session-start block is split over. The cap above is per hook,
 * and several hooks on one event each arrive whole, so each entry (`cairn hook session-start --part i/n`)
 * asks for its own self-contained part; Claude Code does not keep their order, Codex does.
 */
export const START_PARTS = 3;
/** The most parts `--part` takes (the service takes `part.of` up to 8). */
export const MAX_PARTS = 8;

/**
 * `--part i/n` of `cairn hook session-start`: which part of the session-start block this hook prints.
 * @param {unknown} value what followed `--part` (true when nothing did)
 * @returns {{ index: number, of: number }}
 */
export function parsePart(value) {
	const m = typeof value === "string" ? /^([0-9]{1,2})\/([0-9]{1,2})$/.exec(value.trim()) : null;
	const index = Number(m?.[1]);
	const of = Number(m?.[2]);
	if (!m || index < 1 || of > MAX_PARTS || index > of) {
		const got = typeof value === "string" ? ` (got ${JSON.stringify(value.slice(0, 20))})` : " (got nothing)";
		throw new Error(
			`--part must be i/n, this hook's part of the session-start block: 1 <= i <= n <= ${MAX_PARTS}, e.g. --part 1/${START_PARTS}${got}; continuing without memory`,
		);
	}
	return { index, of };
}
const HARD_LIMIT = { claude: 10_000, codex: 10_000 };
const measure = { claude: (/** @type {string} */ s) => s.length, codex: (/** @type {string} */ s) => Buffer.byteLength(s) };

/** Cuts text that would exceed the agent's limit at a line break, saying so. @param {Agent} agent @param {string} text */
export function fitForAgent(agent, text) {
	const size = measure[agent];
	if (size(text) <= HARD_LIMIT[agent]) return text;
	const note = "\n[cairn: cut to fit the agent's hook output limit]";
	let cut = text.slice(0, HARD_LIMIT[agent] - note.length);
	while (size(cut) > HARD_LIMIT[agent] - note.length) cut = cut.slice(0, -64);
	const lastBreak = cut.lastIndexOf("\n");
	return `${lastBreak > 0 ? cut.slice(0, lastBreak) : cut}${note}`;
}

/**
 * What goes to stdout. Context-carrying events print hookSpecificOutput when there is something to add.
 * Codex validates every hook's stdout against the event's schema, so it always gets a JSON object —
 * `{}` when there is nothing to add; Claude Code gets nothing then.
 * @param {Agent} agent @param {string} event @param {string | null} context
 */
export function hookOutput(agent, event, context) {
	if (context && (event === "SessionStart" || event === "UserPromptSubmit" || event === "PostToolUse"))
		return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: fitForAgent(agent, context) } });
	return agent === "codex" ? "{}" : "";
}

/** Which agent sent a payload, when the installed command does not say: Codex's carry a turn id or a rollout path. @param {Record<string, unknown>} payload */
export function detectAgent(payload) {
	const path = typeof payload.transcript_path === "string" ? payload.transcript_path : "";
	return typeof payload.turn_id === "string" || /[\\/]\.codex[\\/]|rollout-[^\\/]*\.jsonl$/.test(path) ? "codex" : "claude";
}

/** Writes straight to the descriptor: a hook may exit right after, and Codex must get the whole object. @param {string} s */
export const emit = (s) => {
	try {
		if (s) writeSync(1, `${s}\n`);
	} catch (err) {
		// The agent stopped reading (a closed pipe): nothing to tell it.
		if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EPIPE") throw err;
	}
};

/** The payload an agent sends on stdin: one JSON object, or nothing. A parser's message would quote the input. @param {string} raw */
export function parsePayload(raw) {
	let payload;
	try {
		payload = raw.trim() ? JSON.parse(raw) : {};
	} catch {
		throw new Error(
			'the hook payload on stdin is not JSON: the agent sends one JSON object per event (README, "Try the hooks by hand"); continuing without memory',
		);
	}
	if (!payload || typeof payload !== "object" || Array.isArray(payload))
		throw new Error('the hook payload on stdin is not a JSON object (README, "Try the hooks by hand"); continuing without memory');
	return payload;
}
