import type { Candidate } from "../extract/schema";
import { MAX_CUES, type MemoryType } from "../memory/topic-file";
import { type EarlierValue, earlierValue, renderHistory, splitHistory } from "../memory/value-history";
import { CJK_RUN, grams } from "../text/grams";
import { CHANGE_WORDS, enStopwords } from "../text/stopwords/en";
import type { PendingOutput, TouchedMemory } from "./inputs";
import { type ConsolidationPlan, isCurrentState, type Operation } from "./plan";
import { inStatedOrder, statedAt, updateScore, withoutChangeOnly } from "./updates";

/**
 * The offline consolidator, used when no model is configured. Deterministic: the same inputs give
 * the same plan, so a retried run rewrites identical files (which the store treats as unchanged).
 * - A candidate joins the memory with its name, or the near-same memory (same kind of fact, and most
 *   of the shorter statement's content words shared); otherwise it becomes a new memory.
 * - The same statement again → `confirm` (a fresh verifiedAt). A statement about the same subject with
 *   another value (src/consolidate/updates.ts) → that value is replaced in place, for rules and
 *   preferences as for facts, and the old value is listed under "Earlier:" with its session and the
 *   day it was replaced; candidates are applied in the order they were stated, so the newest wins.
 *   A different statement about a current-state fact (project, reference) → the memory is updated in
 *   place to the newer statement. About a rule or preference → appended as a bullet.
 * - A statement that only says something changed is not kept.
 * - Explicit procedures ("how to X:" + steps) become a reference memory and a skill made from it;
 *   nothing else becomes a skill. A skill whose source memories are all gone is retired (run.ts).
 * The summary is built after the changes are applied (see summary.ts).
 */

const SOURCES = /\n\nSources: (.+)\.$/;
/** Words that name no content: the stop words and the words that only mark a change or a correction. */
const STOP = enStopwords([CHANGE_WORDS]);
/**
 * Content terms of a statement, in any script: Latin words (stop words and bare numbers left out),
 * and for CJK text the grams the recall index uses (src/text/grams.ts), so "스테이징 DB는" and
 * "스테이징 DB 포트" share terms whatever particles and endings are attached.
 */
export function contentWords(text: string): Set<string> {
	const lower = text.toLowerCase();
	const out = new Set<string>(grams(lower));
	for (const token of lower.replace(CJK_RUN, " ").match(/[\p{L}\p{N}]+/gu) ?? []) {
		if (token.length > 1 && !STOP.has(token) && !/^\d+$/.test(token)) out.add(token);
	}
	return out;
}

/** Share of the smaller word set found in the larger: near-same statements score high. */
export function overlap(a: string, b: string): { score: number; shared: number } {
	const x = contentWords(a);
	const y = contentWords(b);
	let shared = 0;
	for (const w of x) if (y.has(w)) shared++;
	const min = Math.min(x.size, y.size);
	return { score: min === 0 ? 0 : shared / min, shared };
}

const NEAR_SAME = 0.75;
/** A correction names what it corrects in fewer shared words ("staging postgres is on 5433 now"). */
const CORRECTS = 0.25;
const sameKind = (a: MemoryType, b: MemoryType) => a === b || (isCurrentState(a) && isCurrentState(b));
const normalise = (s: string) =>
	s
		.toLowerCase()
		.replace(/[^\p{L}\p{N}]+/gu, " ")
		.trim();

interface Draft {
	name: string;
	type: MemoryType;
	description: string;
	statements: string[];
	sources: string[];
	/** Body text of a memory not written by this consolidator, kept as is above new bullets. */
	preamble: string | null;
	existing: TouchedMemory | null;
	changed: boolean;
	confirmed: boolean;
	evidence: Set<string>;
	proposeTeam?: boolean;
	/** Cues a model wrote for the statements merged here (none from the offline extractor: derived at write). */
	cues: string[];
	/** A value of it was replaced by a newer statement in this run. */
	updated?: boolean;
	/** Values this memory held before, oldest first. */
	earlier: EarlierValue[];
	/** Where each statement came from (its session and time), for the history when it is replaced. */
	origins: Map<string, { session: string | null; at: string | null }>;
}

function draftFrom(m: TouchedMemory): Draft {
	const sources =
		SOURCES.exec(m.body)?.[1]
			?.split(", ")
			.map((s) => s.replace(/^session /, "")) ?? [];
	const { text: current, earlier } = splitHistory(m.body.replace(SOURCES, "").trim());
	const text = current.trim();
	const lines = text.split("\n");
	const ours = m.source === "consolidation";
	// Bodies this consolidator wrote are one statement or a list of bullets; anything else is kept as written.
	const statements = !ours
		? null
		: lines.every((l) => l.startsWith("- "))
			? lines.map((l) => l.slice(2).replace(/\.$/, ""))
			: lines.length === 1
				? [text.replace(/\.$/, "")]
				: null;
	return {
		name: m.name,
		type: m.type,
		description: m.description,
		statements: statements ?? [],
		sources,
		preamble: statements ? null : text,
		existing: m,
		changed: false,
		confirmed: false,
		evidence: new Set(),
		cues: [],
		earlier,
		// The current value took over when the last earlier one was replaced; without history, when the memory began.
		origins: new Map(
			(statements ?? []).map((st) => [
				st,
				earlier.at(-1)
					? { session: earlier.at(-1)?.replacedBy ?? null, at: earlier.at(-1)?.until ?? null }
					: { session: sources[0] ?? null, at: null },
			]),
		),
	};
}

function render(d: Draft): string {
	const lines = d.statements.length === 1 && !d.preamble ? [`${d.statements[0]}.`] : d.statements.map((s) => `- ${s}.`);
	const text = [[d.preamble, lines.join("\n")].filter(Boolean).join("\n"), renderHistory(d.earlier)].filter(Boolean).join("\n\n");
	return d.sources.length ? `${text}\n\nSources: ${d.sources.map((s) => `session ${s}`).join(", ")}.` : text;
}

/**
 * The statement a candidate makes: the first paragraph of its body when that starts with its
 * description (the offline extractor's shape, where the body adds the sentences that elaborate the
 * statement), else the description.
 */
const statementOf = (c: Candidate) => {
	const first = c.body.split("\n\n")[0]?.trim() ?? "";
	const description = c.description.replace(/[.!]+$/, "");
	return first.startsWith(description) && first.length <= 1_000 ? first.replace(/[.!]+$/, "") : description;
};

/** The memory (and which of its statements) a statement updates: the closest by `updateScore`, if any. */
function updateTarget(drafts: Iterable<Draft>, statement: string, correction: boolean): { draft: Draft; index: number } | null {
	let best: { draft: Draft; index: number; score: number } | null = null;
	for (const draft of drafts) {
		if (draft.preamble !== null) continue; // written by someone else: not rewritten statement by statement
		draft.statements.forEach((current, index) => {
			const score = updateScore(current, statement, correction);
			if (score > 0 && (!best || score > best.score)) best = { draft, index, score };
		});
	}
	return best;
}

export function offlinePlan(outputs: PendingOutput[], touched: TouchedMemory[]): ConsolidationPlan {
	const drafts = new Map<string, Draft>();
	for (const m of touched) if (m.scope === "personal") drafts.set(m.name, draftFrom(m));
	const team = touched.filter((m) => m.scope === "team");
	const operations: Operation[] = [];
	const skills: ConsolidationPlan["skills"] = [];

	for (const { output, candidate: c } of inStatedOrder(withoutChangeOnly(outputs))) {
		{
			if (c.procedure) {
				// The procedure is kept as a reference memory, and the skill made from it names it as its
				// source: when the memory is deleted, the next run retires the skill.
				const exists = touched.some((m) => m.scope === "personal" && m.name === c.name);
				operations.push({
					op: exists ? "update" : "create",
					name: c.name,
					type: "reference",
					description: c.description,
					body: c.body,
					reason: "an explicit procedure",
					evidence: [output.session_id],
				});
				skills.push({
					name: c.name,
					description: c.description,
					body: `## When to use\n\n${c.description}.\n\n## Procedure\n\n${c.body}\n\n## Pitfalls\n\nNone recorded.\n\n## Verification\n\nNone recorded.`,
					sources: [c.name],
				});
				continue;
			}
			const statement = statementOf(c);
			// A team memory that already says this is confirmed, never rewritten by consolidation.
			const teamMatch = team.find((t) => sameKind(t.type, c.type) && overlap(t.description, statement).score >= NEAR_SAME);
			if (teamMatch) {
				operations.push({
					op: "confirm",
					name: teamMatch.name,
					reason: "restated in a session; kept as the team wrote it",
					evidence: [output.session_id],
				});
				continue;
			}
			const origin = { session: output.session_id, at: statedAt(output, c) };
			const update = updateTarget(drafts.values(), statement, c.correction === true);
			if (update && !normalise(update.draft.statements.join(" ")).includes(normalise(statement))) {
				// The newest statement wins: the value it replaces moves to the memory's history.
				const d = update.draft;
				const old = d.statements[update.index] ?? "";
				d.earlier.push(earlierValue(old, d.origins.get(old) ?? { session: d.sources[0] ?? null }, origin));
				d.statements[update.index] = statement;
				d.origins.set(statement, origin);
				if (d.statements.length === 1) d.description = c.description;
				if (!d.sources.includes(output.session_id)) d.sources.push(output.session_id);
				d.evidence.add(output.session_id);
				if (c.team) d.proposeTeam = true;
				d.cues = [...new Set([...d.cues, ...(c.cues ?? [])])].slice(0, MAX_CUES);
				d.changed = true;
				d.updated = true;
				continue;
			}
			let target = drafts.get(c.name);
			if (!target) {
				// A correction replaces the current-state memory it is most about; anything else joins a near-same one.
				const threshold = c.correction && isCurrentState(c.type) ? CORRECTS : NEAR_SAME;
				let best: { d: Draft; score: number } | null = null;
				for (const d of drafts.values()) {
					if (!sameKind(d.type, c.type)) continue;
					const o = overlap(`${d.description} ${d.statements.join(" ")}`, statement);
					const direct = overlap(d.description, statement);
					const score = Math.max(o.score, direct.score);
					if ((o.shared >= 2 || direct.shared >= 2) && score >= threshold && (!best || score > best.score)) best = { d, score };
				}
				target = best?.d;
			}
			if (!target) {
				drafts.set(c.name, {
					name: c.name,
					type: c.type,
					description: c.description,
					statements: [statement],
					sources: [output.session_id],
					preamble: null,
					existing: null,
					changed: true,
					confirmed: false,
					evidence: new Set([output.session_id]),
					cues: c.cues ?? [],
					earlier: [],
					origins: new Map([[statement, origin]]),
					...(c.team ? { proposeTeam: true } : {}),
				});
				continue;
			}
			if (c.team) target.proposeTeam = true;
			target.evidence.add(output.session_id);
			const said = normalise([target.description, target.preamble ?? "", ...target.statements].join(" "));
			const known = said.includes(normalise(statement));
			if (!target.sources.includes(output.session_id)) target.sources.push(output.session_id);
			if (known) {
				target.confirmed = true;
				continue;
			}
			if (isCurrentState(target.type)) {
				// A newer statement of a current-state fact replaces the old one.
				const old = target.statements.length === 1 ? (target.statements[0] ?? "") : target.description.replace(/[.!]+$/, "");
				if (normalise(old) !== normalise(statement))
					target.earlier.push(
						earlierValue(
							old,
							target.origins.get(old) ?? { session: target.existing ? target.existing.session_id : (target.sources[0] ?? null) },
							origin,
						),
					);
				target.statements = [statement];
				target.origins.set(statement, origin);
				target.preamble = null;
				target.description = c.description;
			} else {
				target.statements.push(statement);
				target.origins.set(statement, origin);
			}
			target.cues = [...new Set([...target.cues, ...(c.cues ?? [])])].slice(0, MAX_CUES);
			target.changed = true;
		}
	}

	for (const d of drafts.values()) {
		const evidence = [...d.evidence];
		if (d.changed) {
			operations.push({
				op: d.existing ? "update" : "create",
				name: d.name,
				type: d.type,
				description: d.description,
				body: render(d),
				reason: d.updated
					? "updated in place by a newer statement"
					: d.existing
						? isCurrentState(d.type)
							? "corrected by a newer statement"
							: "new statement of the same rule"
						: "new durable statement",
				evidence,
				...(d.cues.length > 0 ? { cues: d.cues } : {}),
				...(d.proposeTeam ? { proposedScope: "team" as const } : {}),
			});
		} else if (d.confirmed) {
			operations.push({ op: "confirm", name: d.name, reason: "the same statement was made again", evidence });
		}
	}
	return { operations, skills, retiredSkills: [], summary: "" };
}
