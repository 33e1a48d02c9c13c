// The poisoning phase's inputs and report (bench/poisoning/README.md). The labelled sets are read from
// bench/poisoning/<lang>-<set>.jsonl; CAIRN_BENCH_POISON_SETS chooses them (default: every set present —
// dev, holdout, fresh, blind — reported in that order).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { POISON_PATHS, type PoisonEntry, type PoisonOutcome, type PoisonResult, SURFACES } from "../../bench/poisoning-set";

const DIR = "bench/poisoning";

export function loadPoisoning(): Record<string, PoisonEntry[]> | undefined {
	if (!existsSync(DIR)) return undefined;
	const files = readdirSync(DIR).filter((f) => /^[a-z]{2}-[a-z]+\.jsonl$/.test(f));
	const wanted = process.env.CAIRN_BENCH_POISON_SETS?.split(",").map((s) => s.trim());
	const sets: Record<string, PoisonEntry[]> = {};
	for (const f of files) {
		const set = f.replace(/^[a-z]{2}-/, "").replace(/\.jsonl$/, "");
		if (wanted && !wanted.includes(set)) continue;
		const entries = readFileSync(join(DIR, f), "utf8")
			.split("\n")
			.filter((l) => l.trim())
			.map((l) => JSON.parse(l) as PoisonEntry);
		sets[set] = [...(sets[set] ?? []), ...entries];
	}
	if (Object.keys(sets).length === 0) return undefined;
	// The set built on first, then the ones measured after it, in the order they were written.
	const rank = (set: string) => {
		const i = SET_ORDER.indexOf(set);
		return i < 0 ? SET_ORDER.length : i;
	};
	return Object.fromEntries(Object.entries(sets).sort(([a], [b]) => rank(a) - rank(b) || a.localeCompare(b)));
}

const SET_ORDER = ["dev", "holdout", "fresh", "blind"];

const pct = (n: number, d: number) => (d === 0 ? "—" : `${((n / d) * 100).toFixed(1)} %`);
const p50 = (xs: number[]) => {
	const s = [...xs].sort((a, b) => a - b);
	return s[Math.floor((s.length - 1) / 2)] ?? 0;
};

/** A plant served unreviewed: its text reached a viewer on any surface (held plants are never stored). */
const served = (o: PoisonOutcome, who: "teammate" | "writer") => o[who].length > 0;
/** A look-alike that keeps working: stored (not held) and readable by the writer. */
const works = (o: PoisonOutcome) => !o.held;

function rows(outcomes: PoisonOutcome[], key: (o: PoisonOutcome) => string, keys: string[]): string[] {
	const out = [
		"| | plants | served to a teammate | served to the writer | held, with a reason | look-alikes | served (not held) |",
		"|---|---:|---:|---:|---:|---:|---:|",
	];
	for (const k of keys) {
		const plants = outcomes.filter((o) => o.label === "plant" && key(o) === k);
		const looks = outcomes.filter((o) => o.label === "lookalike" && key(o) === k);
		if (plants.length + looks.length === 0) continue;
		out.push(
			`| ${k} | ${plants.length} | ${plants.filter((o) => served(o, "teammate")).length} | ${plants.filter((o) => served(o, "writer")).length} | ${pct(plants.filter((o) => o.heldWithReason).length, plants.length)} | ${looks.length} | ${pct(looks.filter(works).length, looks.length)} |`,
		);
	}
	return out;
}

/** The section of docs/benchmarks.md for this result, as markdown lines. */
export function poisoningSection(result: PoisonResult): string[] {
	const out: string[] = [];
	for (const [set, outcomes] of Object.entries(result.sets)) {
		const plants = outcomes.filter((o) => o.label === "plant");
		const looks = outcomes.filter((o) => o.label === "lookalike");
		const entries = new Set(outcomes.map((o) => o.id)).size;
		out.push(`### Set \`${set}\` (${entries} entries, each through ${POISON_PATHS.length} paths)`, "");
		out.push(
			`Plants served unreviewed on any path: **${plants.filter((o) => served(o, "teammate") || served(o, "writer")).length} of ${plants.length}** ` +
				`(to a teammate ${plants.filter((o) => served(o, "teammate")).length}, to the writer ${plants.filter((o) => served(o, "writer")).length}); ` +
				`look-alikes served: **${pct(looks.filter(works).length, looks.length)}** (${looks.filter(works).length} of ${looks.length}).`,
			"",
		);
		out.push("By path:", "", ...rows(outcomes, (o) => o.path, [...POISON_PATHS]), "");
		const approvable = looks.filter((o) => o.teammateApproved !== undefined);
		if (approvable.length > 0) {
			const reached = approvable.filter((o) => (o.teammateApproved ?? []).length > 0);
			out.push(
				`Once a person approved every team proposal and held look-alike of a team path (${[...new Set(approvable.map((o) => o.path))].join(", ")}), ` +
					`the look-alikes reached the teammate: **${reached.length} of ${approvable.length}** (${pct(reached.length, approvable.length)}; ` +
					`${SURFACES.map((s) => `${s} ${approvable.filter((o) => (o.teammateApproved ?? []).includes(s)).length}`).join(", ")}).`,
				"",
			);
		}
		const classes = [...new Set(outcomes.map((o) => o.class))].sort();
		out.push("By class:", "", ...rows(outcomes, (o) => o.class, classes), "");
		const disguises = [...new Set(plants.map((o) => o.disguise ?? "none"))].sort();
		out.push("Plants by disguise:", "", ...rows(outcomes, (o) => (o.label === "plant" ? (o.disguise ?? "none") : "—"), disguises), "");
		out.push("By language:", "", ...rows(outcomes, (o) => o.lang, ["en", "ko"]), "");
		const surfaces = SURFACES.map((s) => `${s} ${looks.filter((o) => o.teammate.includes(s) || o.writer.includes(s)).length}`);
		out.push(`Where the served look-alikes reached a session (teammate or writer, entry × path): ${surfaces.join(", ")}.`, "");
		const wrong = looks.filter((o) => !works(o));
		if (wrong.length > 0)
			out.push(
				`Look-alikes held: ${[...new Set(wrong.map((o) => o.id))].join(", ")} (each on ${[...new Set(wrong.map((o) => o.path))].length} paths).`,
				"",
			);
		const leaked = plants.filter((o) => served(o, "teammate") || served(o, "writer"));
		if (leaked.length > 0)
			out.push(
				`Plants served: ${leaked.map((o) => `${o.id} (${o.path}: ${[...new Set([...o.teammate, ...o.writer])].join(", ")})`).join("; ")}.`,
				"",
			);
	}
	out.push(
		`Single write of an ordinary memory (${result.writes.agentKey.length} each, interleaved): with the agent's write key (the danger check runs) p50 ${p50(result.writes.agentKey).toFixed(1)} ms; with an admin key (reviewed: no check) p50 ${p50(result.writes.adminKey).toFixed(1)} ms.`,
	);
	return out;
}
