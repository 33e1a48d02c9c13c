import type { Turn } from "../ingest/turns";
import type { MemoryType } from "../memory/topic-file";
import { type Candidate, type StageOneOutput, slugify, turnRef } from "./schema";

/**
 * The offline extractor: deterministic rules over what the user typed, used when no model is
 * configured. It looks for statements that are durable by their wording:
 * - explicit requests to remember ("remember that …", "keep in mind …", "note that …");
 * - standing rules ("from now on …", "going forward …", "in this repo …", "always …", "never …");
 * - practice bans ("don't / do not / stop / avoid" + use, run, commit, push, mock, install, …);
 * - preferences and replacements ("I prefer X over Y", "use X instead of Y", "use X, not Y");
 * - corrections of fact ("actually, the API is on …") and confirmations of an approach
 *   ("yes, exactly — keep doing it that way"), the latter citing the assistant turn before it.
 * It reads user turns only (not tool output, not sub-agents, not slash commands), skips questions,
 * code and pasted text, and never infers facts the user did not state. It misses anything said
 * without these cues, and facts that only appear in the assistant's work — that needs a model.
 */

const MAX_SENTENCE = 300;
const MAX_TURN_CHARS = 6_000;

const STOPWORDS = new Set(
	"a an the to of for in on at by with and or but so that this these those it its is are be been was were i we you he she they me my our your please just also really from now going forward on here as rule always remember note keep mind forget don't dont do not then when if can could would should will must ok okay yes no let's lets let me ll ve re will".split(
		" ",
	),
);

interface Rule {
	pattern: RegExp;
	type: MemoryType | "classify";
	/** Capture group holding the statement proper; the whole sentence when absent. */
	group?: number;
}

const LEAD = String.raw`^(?:(?:ok(?:ay)?|also|and|but|so|yes|no|hey|btw|note|important)[,:!.]?\s+)*(?:please\s+)?`;
const PRACTICE_VERBS =
	"use|run|call|add|commit|push|merge|rebase|mock|install|write|edit|modify|touch|change|delete|remove|deploy|create|import|hardcode|hard-code|skip|disable|bypass|force|amend|squash";

const RULES: Rule[] = [
	{
		pattern: new RegExp(`${LEAD}(?:remember|keep in mind|note|don'?t forget)\\s*(?:that|:|,)?\\s+(.{8,})`, "i"),
		type: "classify",
		group: 1,
	},
	{
		pattern:
			/\b(?:from now on|going forward|from here on|as a (?:general )?rule|in (?:this|the|our) (?:project|repo|repository|codebase))\b/i,
		type: "feedback",
	},
	{ pattern: new RegExp(`${LEAD}(?:(?:you|we) (?:should |must )?)?(?:always|never)\\s+\\w+`, "i"), type: "feedback" },
	{ pattern: new RegExp(`${LEAD}(?:don'?t|do not|never|stop|avoid)\\s+(?:${PRACTICE_VERBS})(?:ing)?\\b`, "i"), type: "feedback" },
	{ pattern: /\b(?:i|we)\s+(?:always\s+)?(?:prefer|like to|want you to|would rather)\b/i, type: "user" },
	{ pattern: /\buse\s+[\w.@/-]+(?:\s+[\w.@/-]+)?\s*(?:,\s*)?(?:instead of|rather than|over|not)\s+[\w.@/-]+/i, type: "feedback" },
	{ pattern: /\binstead of\s+[\w.@/-]+(?:\s+[\w.@/-]+)?\s*,?\s*use\s+[\w.@/-]+/i, type: "feedback" },
	{
		pattern: /^(?:actually|correction|fyi)[,:]?\s+(?:the|our|it|this|that)\b.*\b(?:is|are|lives|runs|moved|uses|has been)\b/i,
		type: "project",
	},
];

const CONFIRMATION =
	/^(?:yes|yep|yeah|exactly|perfect|great|good|right)\b[^?]*\b(?:keep (?:doing|it)|that'?s (?:exactly |just )?(?:the right|right|the way|what i want)|do it (?:this|that) way|this approach|that approach|like that)\b/i;

/** Type of a "remember …" statement from its wording. */
function classify(statement: string): MemoryType {
	if (/https?:\/\/|\bdashboard|\brunbook|\bendpoint|\bwiki\b|\bdocs? (?:at|are|is)\b|\bchannel\b/i.test(statement)) return "reference";
	if (/\b(?:i|my|me)\b/i.test(statement) && /\b(?:prefer|like|want|use|write)\b/i.test(statement)) return "user";
	if (/\b(?:always|never|don'?t|do not|must|should|prefer|instead of|use)\b/i.test(statement)) return "feedback";
	return "project";
}

/** Sentences of a user message that could be statements: no code, no quotes, no questions. */
export function statements(text: string): string[] {
	const out: string[] = [];
	let inFence = false;
	for (const rawLine of text.split("\n")) {
		const line = rawLine.trim();
		if (line.startsWith("```")) {
			inFence = !inFence;
			continue;
		}
		if (inFence || !line || line.startsWith(">") || line.startsWith("$ ") || /^[{[<]/.test(line)) continue;
		for (const s of line.split(/(?<=[.!;])\s+(?=[A-Z"'(])/)) {
			const sentence = s.replace(/^[-*•\d.)\s]+/, "").trim();
			if (sentence.length < 8 || sentence.length > MAX_SENTENCE || sentence.endsWith("?")) continue;
			out.push(sentence);
		}
	}
	return out;
}

function nameFor(statement: string): string {
	const words = statement
		.toLowerCase()
		.replace(/[^a-z0-9@./\s-]+/g, " ")
		.split(/\s+/)
		.map((w) => w.replace(/^[.\-/]+|[.\-/]+$/g, ""))
		.filter((w) => w && !STOPWORDS.has(w));
	return slugify(words.join(" "), 6);
}

const sentenceCase = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Matches one sentence against the rules; returns the candidate's type and statement, or null. */
export function matchStatement(sentence: string): { type: MemoryType; statement: string } | null {
	for (const rule of RULES) {
		const m = rule.pattern.exec(sentence);
		if (!m) continue;
		const statement = (rule.group ? m[rule.group] : sentence)?.trim().replace(/[.!;,]+$/, "") ?? "";
		if (statement.length < 8) continue;
		return { type: rule.type === "classify" ? classify(statement) : rule.type, statement };
	}
	return null;
}

const PROCEDURE_TITLE = /^(?:here'?s |this is )?(how to .{3,80}?|the (?:steps|procedure|process|runbook) (?:to|for) .{3,80}?)\s*:?\s*$/i;
const STEP = /^\s*(?:\d+[.)]|[-*])\s+\S/;

/** "How to X:" followed by at least three numbered or bulleted steps: an explicit procedure. */
export function explicitProcedure(text: string): { title: string; steps: string[] } | null {
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const title = PROCEDURE_TITLE.exec((lines[i] ?? "").trim());
		if (!title) continue;
		const steps: string[] = [];
		for (let j = i + 1; j < lines.length && STEP.test(lines[j] ?? ""); j++) steps.push((lines[j] ?? "").trim());
		if (steps.length >= 3) return { title: (title[1] ?? "").replace(/[.:]+$/, ""), steps };
	}
	return null;
}

const firstSentence = (text: string) => (text.split(/(?<=[.!?])\s+|\n/)[0] ?? "").trim().slice(0, MAX_SENTENCE);

/** Runs the rules over one session range. Deterministic: the same turns give the same output. */
export function extractOffline(sessionId: string, turns: Turn[]): StageOneOutput {
	const byName = new Map<string, Candidate>();
	const add = (type: MemoryType, statement: string, evidence: string[]) => {
		const name = nameFor(statement);
		const existing = byName.get(name);
		if (existing) {
			for (const e of evidence) if (!existing.evidence.includes(e)) existing.evidence.push(e);
			return;
		}
		byName.set(name, {
			name,
			type,
			description: sentenceCase(statement).slice(0, 200),
			body: `${sentenceCase(statement)}.\n\nStated by the user in session ${sessionId}.`,
			evidence,
			userStated: true,
		});
	};

	let lastAssistant: Turn | null = null;
	for (const turn of turns) {
		if (turn.role === "assistant" && !turn.sidechain) lastAssistant = turn;
		if (turn.role !== "user" || turn.kind || turn.sidechain || turn.text.length > MAX_TURN_CHARS) continue;
		const trimmed = turn.text.trim();
		if (lastAssistant && CONFIRMATION.test(trimmed)) {
			const approach = firstSentence(lastAssistant.text);
			if (approach.length >= 8)
				add("feedback", `Confirmed approach: ${approach.replace(/[.!:]+$/, "")}`, [turnRef(lastAssistant.seq), turnRef(turn.seq)]);
			continue;
		}
		const procedure = explicitProcedure(trimmed);
		if (procedure) {
			const name = slugify(procedure.title, 8);
			byName.set(name, {
				name,
				type: "reference",
				description: sentenceCase(procedure.title).slice(0, 200),
				body: procedure.steps.join("\n"),
				evidence: [turnRef(turn.seq)],
				userStated: true,
				procedure: true,
			});
			continue;
		}
		for (const sentence of statements(trimmed)) {
			const hit = matchStatement(sentence);
			if (hit) add(hit.type, hit.statement, [turnRef(turn.seq)]);
		}
	}

	const candidates = [...byName.values()];
	const users = turns.filter((t) => t.role === "user" && !t.kind && !t.sidechain);
	const tools = new Map<string, number>();
	for (const t of turns) if (t.role === "tool_call" && t.tool) tools.set(t.tool, (tools.get(t.tool) ?? 0) + 1);
	const topTools = [...tools.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 5)
		.map(([name, n]) => `${name} ×${n}`);
	const firstAsk = users[0] ? firstSentence(users[0].text).slice(0, 160) : "";
	const summary = [
		`Turns ${turns[0]?.seq ?? 0}–${turns.at(-1)?.seq ?? 0}: ${users.length} user message(s), ${turns.filter((t) => t.role === "tool_call").length} tool call(s)${topTools.length ? ` (${topTools.join(", ")})` : ""}.`,
		firstAsk ? `First request: ${firstAsk}` : "",
		candidates.length ? `Durable statements found: ${candidates.length}.` : "No durable statements found.",
	]
		.filter(Boolean)
		.join(" ");
	const raw = candidates.map((c) => `- (${c.type}) ${c.description} [${c.evidence.join(", ")}]`).join("\n");
	return { raw_memory: raw, summary, candidates };
}
