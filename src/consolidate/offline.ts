import type { Candidate } from "../extract/schema";
import type { MemoryType } from "../memory/topic-file";
import type { PendingOutput, TouchedMemory } from "./inputs";
import { type ConsolidationPlan, isCurrentState, type Operation } from "./plan";

/**
 * The offline consolidator, used when no model is configured. Deterministic: the same inputs give
 * the same plan, so a retried run rewrites identical files (which the store treats as unchanged).
 * - A candidate joins the memory with its name, or the near-same memory (same kind of fact, and most
 *   of the shorter statement's content words shared); otherwise it becomes a new memory.
 * - The same statement again → `confirm` (a fresh verifiedAt). A different statement about a
 *   current-state fact (project, reference) → the memory is updated in place to the newer statement
 *   (the store keeps the old version in history). About a rule or preference → appended as a bullet.
 * - Explicit procedures ("how to X:" + steps) become skills; nothing else does.
 * The summary is built after the changes are applied (see summary.ts).
 */

const SOURCES = /\n\nSources: (.+)\.$/;
const STOP = new Set("a an the to of for in on at by with and or but is are was be it this that we you i our my use using".split(" "));

const contentWords = (text: string) =>
	new Set(
		text
			.toLowerCase()
			.split(/[^a-z0-9]+/)
			.filter((w) => w.length > 1 && !STOP.has(w) && !/^\d+$/.test(w)),
	);

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
const sameKind = (a: MemoryType, b: MemoryType) => a === b || (isCurrentState(a) && isCurrentState(b));
const normalise = (s: string) =>
	s
		.toLowerCase()
		.replace(/[^a-z0-9]+/g, " ")
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
}

function draftFrom(m: TouchedMemory): Draft {
	const sources =
		SOURCES.exec(m.body)?.[1]
			?.split(", ")
			.map((s) => s.replace(/^session /, "")) ?? [];
	const text = m.body.replace(SOURCES, "").trim();
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
	};
}

function render(d: Draft): string {
	const lines = d.statements.length === 1 && !d.preamble ? [`${d.statements[0]}.`] : d.statements.map((s) => `- ${s}.`);
	const text = [d.preamble, lines.join("\n")].filter(Boolean).join("\n");
	return d.sources.length ? `${text}\n\nSources: ${d.sources.map((s) => `session ${s}`).join(", ")}.` : text;
}

const statementOf = (c: Candidate) => c.description.replace(/[.!]+$/, "");

export function offlinePlan(outputs: PendingOutput[], touched: TouchedMemory[]): ConsolidationPlan {
	const drafts = new Map<string, Draft>();
	for (const m of touched) if (m.scope === "personal") drafts.set(m.name, draftFrom(m));
	const team = touched.filter((m) => m.scope === "team");
	const operations: Operation[] = [];
	const skills: ConsolidationPlan["skills"] = [];

	for (const output of outputs) {
		for (const c of output.candidates) {
			if (c.procedure) {
				skills.push({
					name: c.name,
					description: c.description,
					body: `## When to use\n\n${c.description}.\n\n## Procedure\n\n${c.body}\n\n## Pitfalls\n\nNone recorded.\n\n## Verification\n\nNone recorded.`,
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
			let target = drafts.get(c.name);
			if (!target) {
				let best: { d: Draft; score: number } | null = null;
				for (const d of drafts.values()) {
					if (!sameKind(d.type, c.type)) continue;
					const o = overlap(`${d.description} ${d.statements.join(" ")}`, statement);
					const direct = overlap(d.description, statement);
					const score = Math.max(o.score, direct.score);
					if ((o.shared >= 2 || direct.shared >= 2) && score >= NEAR_SAME && (!best || score > best.score)) best = { d, score };
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
				});
				continue;
			}
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
				target.statements = [statement];
				target.preamble = null;
				target.description = c.description;
			} else target.statements.push(statement);
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
				reason: d.existing
					? isCurrentState(d.type)
						? "corrected by a newer statement"
						: "new statement of the same rule"
					: "new durable statement",
				evidence,
			});
		} else if (d.confirmed) {
			operations.push({ op: "confirm", name: d.name, reason: "the same statement was made again", evidence });
		}
	}
	return { operations, skills, summary: "" };
}
