// @ts-check
// Why, on demand: what a recalled memory matched (`cairn recall`), and why each candidate was served to
// a prompt or held back (`cairn hook user-prompt-submit --explain`), from the service's recall trace.
import { memoryOff } from "./api.mjs";

/** A score as people read it: three decimals, or three significant digits when smaller. @param {unknown} n */
export const number = (n) =>
	typeof n !== "number" ? "-" : Number.isInteger(n) ? String(n) : Math.abs(n) < 0.0005 && n !== 0 ? n.toPrecision(3) : n.toFixed(3);

/** A recall score as the service gives it (0–1), to two decimals: `0.83`. Never rescaled. @param {unknown} n */
export const score = (n) => (typeof n === "number" && Number.isFinite(n) ? n.toFixed(2) : "-");

/** What a trace entry matched: words, concepts, cues, dates, neighbours, meaning. @param {Record<string, any> | undefined} t */
export function matched(t) {
	if (!t) return "not in the trace";
	const list = (/** @type {unknown} */ v) => (Array.isArray(v) ? v.map(String) : []);
	const words = list(t.held).length ? list(t.held) : list(t.matchedTerms);
	const parts = [
		words.length ? `words ${words.join(", ")}` : "",
		list(t.concepts).length ? `concepts ${list(t.concepts).join(", ")}` : "",
		list(t.cues).length
			? `cues ${list(t.cues)
					.map((c) => `"${c}"`)
					.join(", ")}`
			: "",
		t.dated ? "written when the query says" : "",
		typeof t.neighbourOf === "string" ? `written next to ${t.neighbourOf} by the same session` : "",
		typeof t.similarity === "number" ? `similar in meaning (${number(t.similarity)})` : "",
	].filter(Boolean);
	return parts.length ? parts.join("; ") : "no word, concept or cue of the query (a weak match)";
}

/** Why a candidate was held back, in words. @type {Record<string, string>} */
const HELD = {
	excluded: "already handed to this session (or excluded)",
	"skipped: documents a tool in use": "it only documents a tool the session already uses",
	"below limit": "ranked below the block's limit",
	"not selected by model": "the model selector did not pick it",
	"not relevant enough": "what it matched weighs too little for this prompt",
	"below the best match": "its evidence is well below the best match's",
	"offered as a line": "its line was left out to fit the hook's size budget",
	"line already shown": "its line was already shown to this session",
};

/**
 * Lines explaining a per-prompt inject: the prompt's weighed words and concepts, then each candidate
 * served or held back and why, then what the block left out to fit.
 * @param {Record<string, any>} res the inject response (with `trace: true`)
 * @returns {string[]}
 */
export function explainInject(res) {
	const lines = [];
	const warnings = Array.isArray(res?.warnings) ? res.warnings.map(String) : [];
	const off = memoryOff(warnings);
	if (off) return [off];
	const trace = res?.recall?.trace;
	const weights = trace?.weights;
	if (weights) {
		const words = Object.entries(weights.words ?? {}).map(([w, x]) => `${w} ${number(x)}`);
		const concepts = (weights.concepts ?? []).map(
			(/** @type {any} */ c) => `${c.id} (named by ${(c.words ?? []).join(", ") || "the prompt"})`,
		);
		lines.push(`prompt: words ${words.join(", ") || "none"}${concepts.length ? `; concepts ${concepts.join(", ")}` : ""}`);
	}
	if (res?.recall?.fallbackReason) lines.push(`model selector not used: ${res.recall.fallbackReason}`);
	const candidates = Array.isArray(trace?.candidates) ? trace.candidates : [];
	if (candidates.length === 0) lines.push("no memory matched any word, concept or cue of this prompt: nothing to serve");
	const offered = new Set((Array.isArray(res?.parts?.offered) ? res.parts.offered : []).map((/** @type {any} */ o) => o.name));
	const dropped = new Set(warnings.filter((w) => w.endsWith("left out to fit the budget")).map((w) => w.split(" ")[0]));
	for (const t of candidates) {
		const path = `memory://root/${t.scope === "team" ? "team/" : ""}${t.name}.md`;
		const evidence = typeof t.evidence === "number" ? `evidence ${number(t.evidence)}, coverage ${number(t.coverage)}; ` : "";
		if (t.decision === "returned" && !dropped.has(path)) lines.push(`served  ${t.name}: ${evidence}matched ${matched(t)}`);
		else if (t.decision === "offered as a line" && offered.has(t.name))
			lines.push(`line    ${t.name}: offered as an index line (not sure enough for its file); ${evidence}matched ${matched(t)}`);
		else {
			const why = t.decision === "returned" ? "left out to fit the hook's size budget" : (HELD[t.decision] ?? t.decision);
			lines.push(`held    ${t.name}: ${why}; ${evidence}matched ${matched(t)}`);
		}
	}
	for (const w of warnings) if (!w.endsWith("left out to fit the budget")) lines.push(`note: ${w}`);
	return lines;
}
