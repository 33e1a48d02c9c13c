/**
 * The newest statement wins. A later statement about the same subject as a memory (the same rule; the
 * same fact: a port, an owner, a limit, a day, a version, a host) but with another value replaces the
 * value in place — for rules and preferences as for facts — and the old value is kept in the memory's
 * "Earlier:" history (src/memory/value-history.ts). A statement that only says something changed is
 * never a memory. Used by the offline consolidator, and after a model's plan for the same guarantees.
 */
import type { StoredCandidate } from "../extract/statement-time";
import { type EarlierValue, earlierValue, renderHistory, splitHistory } from "../memory/value-history";
import { marksChange, onlySaysChanged, subjectWords, valuesOf } from "../text/statement-values";
import type { PendingOutput, TouchedMemory } from "./inputs";
import type { ConsolidationPlan, Operation } from "./plan";

/**
 * How strongly `next` updates `current` (0: it does not): both name the same subject (most of the
 * smaller set of subject words shared) and `next` gives another value, or says it changes one.
 * Two statements that each name something the other does not ("staging port" / "prod port") only
 * count with a word that marks the change and a closer match.
 */
export function updateScore(current: string, next: string, correction = false): number {
	const a = subjectWords(current);
	const b = subjectWords(next);
	let shared = 0;
	for (const w of b) if (a.has(w)) shared++;
	const min = Math.min(a.size, b.size);
	if (min === 0 || shared === 0) return 0;
	const ratio = shared / min;
	const va = valuesOf(current);
	const vb = valuesOf(next);
	const newValue = vb.size > 0 && ([...vb].some((v) => !va.has(v)) || [...va].some((v) => !vb.has(v)));
	const change = correction || marksChange(next);
	const sameKind = sameShape(va, vb) || sameUnit(current, next, va, vb);
	// One shared word is enough when the new value has the shape of the old one (a port for a port,
	// a version for a version, a day for a day, a host for a host) and the wording marks a change.
	if (shared < 2) return change && newValue && sameKind ? 0.5 : 0;
	if (!newValue && !change) return 0;
	if (!newValue && vb.size > 0) return 0; // the same value again: a restatement, not an update
	const bothOwn = a.size > shared && b.size > shared;
	// Each naming something the other does not ("staging port" / "production port"): only with a word of change.
	let needed = bothOwn ? (!change ? Number.POSITIVE_INFINITY : newValue ? 0.5 : 0.67) : newValue ? 0.4 : 0.5;
	// A changed value of the same kind as the old one (a count for a count, a time for a time) with a word
	// of change: two shared subject words are enough, however many other words each statement has.
	if (change && newValue && sameKind) needed = Math.min(needed, 0.2);
	return ratio >= needed ? ratio + (newValue ? 0.2 : 0) + (change ? 0.1 : 0) : 0;
}

/** The kind of a value: a day, a person, a schedule, a host, or a number by its digits and dots. */
const shape = (v: string) =>
	/^(?:day|who|every):/.test(v)
		? v.split(":")[0]
		: /^\d{1,2}:\d{2}$/.test(v)
			? "time"
			: /^\d+$/.test(v)
				? `n${v.length}`
				: /^\d+(?:\.\d+)+$/.test(v)
					? "version"
					: /[a-z]/.test(v) && v.includes(".")
						? "host"
						: "other";

/** Units written after a number, by kind: "1500ms" and "800 ms", "45초" and "30 seconds", "50,000건" and "80,000 requests". */
const UNITS: [RegExp, string][] = [
	[/^(?:ms|밀리초)/, "ms"],
	[/^(?:s|secs?|seconds?|초)(?![a-z])/, "s"],
	[/^(?:mins?|minutes?|분)(?![a-z])/, "min"],
	[/^(?:h|hours?|시간)(?![a-z])/, "h"],
	[/^(?:days?|일)(?![a-z])/, "day"],
	[/^(?:weeks?|주)(?![a-z])/, "week"],
	[/^(?:[kmgt]b|[kmgt]ib)\b/, "size"],
	[/^%/, "%"],
	[/^(?:requests?|req|calls?|messages?|events?|건)(?![a-z])/, "count"],
	[/^(?:nodes?|replicas?|shards?|partitions?|pods?|workers?|노드|샤드|파티션|개)/, "units"],
	[/^(?:lines?|줄)(?![a-z])/, "lines"],
	[/^(?:approvals?|reviewers?|명)(?![a-z])/, "people"],
	[/^(?:retries|times|회|번)(?![a-z])/, "times"],
];
function unitsOf(text: string): Set<string> {
	const out = new Set<string>();
	for (const m of text.toLowerCase().matchAll(/\d[\d,.]*\s?([^\s\d,.][^\s]*)/g)) {
		const rest = m[1] ?? "";
		const unit = UNITS.find(([re]) => re.test(rest));
		if (unit) out.add(unit[1]);
	}
	return out;
}

/** Both statements give a number in the same unit, and the new number differs: "1500ms" → "800ms". */
function sameUnit(current: string, next: string, old: Set<string>, fresh: Set<string>): boolean {
	if (![...fresh].some((v) => /^\d+(?:\.\d+)?$/.test(v) && !old.has(v))) return false;
	const a = unitsOf(current);
	return [...unitsOf(next)].some((u) => a.has(u));
}

/** Both statements give a value of the same kind, and the new one differs. */
function sameShape(old: Set<string>, next: Set<string>): boolean {
	const shapes = new Set([...old].map(shape));
	// Not people or schedules: a capitalised place or a weekday in passing reads like one.
	return [...next].some((v) => {
		const kind = shape(v) ?? "other";
		return !old.has(v) && shapes.has(kind) && !["other", "who", "every"].includes(kind);
	});
}

/** Candidates that only say something changed are dropped: their session's other statements carry the change. */
export function withoutChangeOnly(outputs: PendingOutput[]): PendingOutput[] {
	return outputs.map((o) => ({
		...o,
		candidates: o.candidates.filter((c) => !onlySaysChanged(c.description.replace(/[.!]+$/, ""))),
	}));
}

/** Outputs' candidates in the order they were stated, so that the newest statement is applied last. */
export function inStatedOrder(outputs: PendingOutput[]): { output: PendingOutput; candidate: StoredCandidate }[] {
	const at = (o: PendingOutput, c: StoredCandidate) => Date.parse(c.statedAt ?? o.session_activity ?? o.created_at) || 0;
	return outputs
		.flatMap((output, i) => output.candidates.map((candidate, j) => ({ output, candidate, order: i * 1000 + j })))
		.sort((x, y) => at(x.output, x.candidate) - at(y.output, y.candidate) || x.order - y.order)
		.map(({ output, candidate }) => ({ output, candidate }));
}

/** When a candidate was stated: its own time, else its session's last activity, else when its output was stored. */
export const statedAt = (o: PendingOutput, c: StoredCandidate) => c.statedAt ?? o.session_activity ?? o.created_at;

const SOURCES = /\n\nSources: (.+)\.$/;

/**
 * A model's update of an existing memory that changes what it says, without history of its own, gets
 * the memory's earlier values and the value it replaces as its "Earlier:" section — so the old value
 * stays readable as history whichever consolidator wrote the change.
 */
export function newestWins(plan: ConsolidationPlan, touched: TouchedMemory[], outputs: PendingOutput[]): ConsolidationPlan {
	return { ...plan, operations: keepHistory(plan.operations, touched, outputs) };
}

function keepHistory(operations: Operation[], touched: TouchedMemory[], outputs: PendingOutput[]): Operation[] {
	return operations.map((op) => {
		if (op.op !== "update" && op.op !== "merge") return op;
		const before = touched.find((m) => m.name === op.name && m.scope === "personal");
		if (!before || splitHistory(op.body).earlier.length > 0) return op;
		const old = splitHistory(before.body.replace(SOURCES, ""));
		const oldValue = before.description.replace(/[.!]+$/, "");
		const newValue = op.description.replace(/[.!]+$/, "");
		if (oldValue === newValue && old.earlier.length === 0) return op;
		const session = op.evidence.at(-1) ?? null;
		const output = outputs.filter((o) => o.session_id === session).at(-1);
		const at = output
			? (output.candidates
					.map((c) => statedAt(output, c))
					.sort()
					.at(-1) ?? statedAt(output, {} as StoredCandidate))
			: null;
		const earlier: EarlierValue[] = [...old.earlier];
		if (oldValue !== newValue && updateScore(oldValue, newValue) > 0)
			earlier.push(earlierValue(oldValue, { session: before.session_id }, { session, at }));
		if (earlier.length === 0) return op;
		const sources = SOURCES.exec(op.body);
		const text = op.body.replace(SOURCES, "").trim();
		const body = `${text}\n\n${renderHistory(earlier)}${sources ? `\n\nSources: ${sources[1]}.` : ""}`;
		return body.length <= 16_000 ? { ...op, body } : op;
	});
}
