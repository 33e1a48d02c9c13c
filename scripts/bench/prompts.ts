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

/** Figures per set and language, then per set over both languages. */
export function promptFigures(results: PromptSetResult[]): PromptFigures[] {
	const rows: PromptFigures[] = [];
	for (const set of [...new Set(results.map((r) => r.set))]) {
		const all = results.filter((r) => r.set === set).flatMap((r) => r.prompts);
		for (const lang of ["en", "ko"]) {
			const some = all.filter((p) => p.lang === lang);
			if (some.length > 0) rows.push(figures(set, lang, some));
		}
		rows.push(figures(set, "all", all));
	}
	return rows;
}

const pct = (x: number, of: number) => (of ? `${((x / of) * 100).toFixed(1)} %` : "–");

/** The markdown table of `promptFigures`. */
export function promptTable(rows: PromptFigures[]): string[] {
	return [
		"| set | language | prompts | hit rate | noise rate | memories per block | precision |",
		"|---|---|---:|---:|---:|---:|---:|",
		...rows.map(
			(r) =>
				`| ${r.set} | ${r.lang} | ${r.prompts} | ${pct(r.hits, r.needing)} (${r.hits}/${r.needing}) | ${pct(r.noisy, r.needingNone)} (${r.noisy}/${r.needingNone}) | ${r.perBlock.toFixed(2)} | ${(r.precision * 100).toFixed(1)} % |`,
		),
	];
}
