// Per-prompt recall figures (bench/prompts): hit rate, noise rate and memories per block, per set and
// language, from the names `POST /inject` served for each labelled prompt.
import type { PromptSetResult } from "../../bench/corpus";

export interface PromptFigures {
	set: string;
	lang: string;
	prompts: number;
	/** Prompts that need a memory, and those whose block held one they need. */
	needing: number;
	hits: number;
	/** Prompts that need none, and those that were handed one anyway. */
	needingNone: number;
	noisy: number;
	/** Memories per block, over all prompts. */
	perBlock: number;
	/** Share of served memories that the prompt needed. */
	precision: number;
}

type Served = Pick<PromptSetResult["prompts"][number], "lang" | "needs" | "served">;

export function figures(set: string, lang: string, prompts: Served[]): PromptFigures {
	const needing = prompts.filter((p) => p.needs.length > 0);
	const none = prompts.filter((p) => p.needs.length === 0);
	const served = prompts.reduce((n, p) => n + p.served.length, 0);
	const useful = prompts.reduce((n, p) => n + p.served.filter((s) => p.needs.includes(s)).length, 0);
	return {
		set,
		lang,
		prompts: prompts.length,
		needing: needing.length,
		hits: needing.filter((p) => p.served.some((s) => p.needs.includes(s))).length,
		needingNone: none.length,
		noisy: none.filter((p) => p.served.length > 0).length,
		perBlock: prompts.length ? served / prompts.length : 0,
		precision: served ? useful / served : 0,
	};
}

/** `make` per set and language, then per set over both languages. */
function perSetAndLanguage<T>(
	results: PromptSetResult[],
	make: (set: string, lang: string, prompts: PromptSetResult["prompts"]) => T,
): T[] {
	const rows: T[] = [];
	for (const set of [...new Set(results.map((r) => r.set))]) {
		const all = results.filter((r) => r.set === set).flatMap((r) => r.prompts);
		for (const lang of ["en", "ko"]) {
			const some = all.filter((p) => p.lang === lang);
			if (some.length > 0) rows.push(make(set, lang, some));
		}
		rows.push(make(set, "all", all));
	}
	return rows;
}

/** Figures per set and language, then per set over both languages. */
export const promptFigures = (results: PromptSetResult[]): PromptFigures[] => perSetAndLanguage(results, figures);

const pct = (x: number, of: number) => (of ? `${((x / of) * 100).toFixed(1)} %` : "–");

/**
 * Whether the method was tuned on a set after its first measurement: `dev` was built on; `fresh` and
 * `holdout` were written blind and measured once, then tuned on; `facts` was measured once and not since
 * (its rows are the honest figure); `grown` asks the base sets' prompts; `grown-facts` asks the facts set's prompts
 * in its projects grown to ~1,000, measured once (docs/benchmarks.md keeps that row) and seen since; `facts2` and
 * `grown-facts2` (two more fact-heavy projects, and the same grown to ~1,000) were written blind and measured once
 * (their misses were read since, nothing was tuned on them); `facts3` and `grown-facts3` likewise, later, and
 * `facts4` and `grown-facts4` after the start parts' latency work.
 * A *before* row takes its set's word.
 */
const SEEN: Record<string, string> = {
	dev: "seen",
	fresh: "seen",
	holdout: "seen",
	grown: "seen",
	facts: "measured once",
	"grown-facts": "seen (after its one measurement)",
	facts2: "measured once",
	"grown-facts2": "measured once",
	facts3: "measured once",
	"grown-facts3": "measured once",
	facts4: "measured once",
	"grown-facts4": "measured once",
};
const seen = (set: string) => {
	const name = (set.split(",")[0] ?? "").trim();
	return SEEN[name] ?? SEEN[name.split("-")[0] ?? ""] ?? "–";
};

/** The markdown table of `promptFigures`. */
export function promptTable(rows: PromptFigures[]): string[] {
	return [
		"| set | tuned on it | language | prompts | hit rate | noise rate | memories per block | precision |",
		"|---|---|---|---:|---:|---:|---:|---:|",
		...rows.map(
			(r) =>
				`| ${r.set} | ${seen(r.set)} | ${r.lang} | ${r.prompts} | ${pct(r.hits, r.needing)} (${r.hits}/${r.needing}) | ${pct(r.noisy, r.needingNone)} (${r.noisy}/${r.needingNone}) | ${r.perBlock.toFixed(2)} | ${(r.precision * 100).toFixed(1)} % |`,
		),
	];
}

/** In front of the model: each needed memory as the session-start block and the prompt's block held it. */
export interface FrontFigures {
	set: string;
	lang: string;
	prompts: number;
	/** Needs: (prompt, needed memory) pairs; by kind, rules and preferences (feedback, user) and facts and references. */
	needs: number;
	inFront: number;
	atPrompt: number;
	inStart: number;
	rules: { needs: number; inFront: number; oneRead?: number };
	facts: { needs: number; inFront: number; oneRead?: number };
	/** Needs not in front whose memory is in a topic a block names and whose line shares a word with the prompt. */
	oneRead?: number;
	/** Prompts that need none, and those handed a memory's body anyway. */
	needingNone: number;
	noisy: number;
	/** Characters the prompt's block adds, mean over all prompts (quiet ones included). */
	promptChars: number;
	/** Characters the prompt's block adds to the prompts that need none, mean. */
	quietChars?: number;
	/** The largest session-start block (all its parts), in characters, and its tokens. */
	startChars: number;
	startTokens?: number;
	/** Headers offered per prompt, mean over all prompts. */
	offered: number;
}

type Fronted = Pick<
	PromptSetResult["prompts"][number],
	"lang" | "needs" | "served" | "front" | "promptChars" | "startChars" | "startTokens" | "offered"
>;

const RULE_TYPES = new Set(["feedback", "user"]);

export function front(set: string, lang: string, prompts: Fronted[]): FrontFigures {
	const needs = prompts.flatMap((p) => p.front);
	const held = (n: (typeof needs)[number]) => n.start !== null || n.prompt !== null;
	const rules = needs.filter((n) => RULE_TYPES.has(n.type));
	const facts = needs.filter((n) => !RULE_TYPES.has(n.type));
	const none = prompts.filter((p) => p.needs.length === 0);
	return {
		set,
		lang,
		prompts: prompts.length,
		needs: needs.length,
		inFront: needs.filter(held).length,
		atPrompt: needs.filter((n) => n.prompt !== null).length,
		inStart: needs.filter((n) => n.start !== null).length,
		rules: { needs: rules.length, inFront: rules.filter(held).length, oneRead: rules.filter((n) => !held(n) && n.topic).length },
		facts: { needs: facts.length, inFront: facts.filter(held).length, oneRead: facts.filter((n) => !held(n) && n.topic).length },
		oneRead: needs.filter((n) => !held(n) && n.topic).length,
		needingNone: none.length,
		noisy: none.filter((p) => p.served.length > 0).length,
		promptChars: prompts.length ? prompts.reduce((n, p) => n + p.promptChars, 0) / prompts.length : 0,
		quietChars: none.length ? none.reduce((n, p) => n + p.promptChars, 0) / none.length : 0,
		startChars: Math.max(0, ...prompts.map((p) => p.startChars)),
		startTokens: Math.max(0, ...prompts.map((p) => p.startTokens ?? 0)),
		offered: prompts.length ? prompts.reduce((n, p) => n + p.offered.length, 0) / prompts.length : 0,
	};
}

/** In-front figures per set and language, then per set over both languages. */
export const frontFigures = (results: PromptSetResult[]): FrontFigures[] => perSetAndLanguage(results, front);

/** The markdown table of `frontFigures`: facts first (most of what prompts need in real work), then rules, then the cost. */
export function frontTable(rows: FrontFigures[]): string[] {
	const share = (x: number, of: number) => `${pct(x, of)} (${x}/${of})`;
	return [
		"| set | tuned on it | language | prompts | facts and references in front | facts in front or one read away | rules and preferences in front | in front (all needs) | at the prompt | in the start block | noise | start block (chars / tokens, max) | prompt block (chars, mean) | quiet prompts (chars, mean) | lines offered |",
		"|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
		...rows.map(
			(r) =>
				`| ${r.set} | ${seen(r.set)} | ${r.lang} | ${r.prompts} | ${share(r.facts.inFront, r.facts.needs)} | ${r.facts.oneRead === undefined ? "–" : pct(r.facts.inFront + r.facts.oneRead, r.facts.needs)} | ${share(r.rules.inFront, r.rules.needs)} | ${share(r.inFront, r.needs)} | ${pct(r.atPrompt, r.needs)} | ${pct(r.inStart, r.needs)} | ${share(r.noisy, r.needingNone)} | ${r.startChars} / ${r.startTokens ?? "–"} | ${Math.round(r.promptChars)} | ${r.quietChars === undefined ? "–" : Math.round(r.quietChars)} | ${r.offered.toFixed(2)} |`,
		),
	];
}
