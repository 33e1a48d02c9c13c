// The review load's report (bench/review-load.ts measures it in workerd): per real session, what a person must
// review once it went through the pipeline, and the figure per session.
import type { ReviewLoadResult } from "../../bench/review-load-set";

/** The section of docs/benchmarks.md for this result, as markdown lines. */
export function reviewLoadSection(result: ReviewLoadResult): string[] {
	const rows = result.sessions;
	const team = (s: ReviewLoadResult["sessions"][number]) => s.vouch + s.promote + s.heldTeam;
	const total = rows.reduce((n, s) => n + team(s), 0);
	const out = [
		"Each real session file of the shared bench material (`../shared/bench/transcripts`, Claude Code and Codex) replayed",
		"through the pipeline as its writer's session (`CAIRN_BENCH_ONLY=review-load npm run bench`; bench/review-load.ts): posted",
		"whole, the agent's own memory writes it shows replayed into team memory naming the session, stage 1 with the offline",
		"extractor (which runs the check of where the agent's writes came from), consolidation offline. What then waits for a person:",
		"",
		"| session | turns | agent memory writes | team proposals (`vouch`) | proposed for team (`promote`) | held, team | held, personal | personal memories written |",
		"|---|---:|---:|---:|---:|---:|---:|---:|",
		...rows.map(
			(s) =>
				`| ${s.name} | ${s.turns} | ${s.agentWrites} | ${s.vouch} | ${s.promote} | ${s.heldTeam} | ${s.heldPersonal} | ${s.personal} |`,
		),
		"",
		`Team items a person must review: **${total} over ${rows.length} sessions (${rows.length ? (total / rows.length).toFixed(2) : "—"} per session)**; ` +
			`the writer's own held items: ${rows.reduce((n, s) => n + s.heldPersonal, 0)}.`,
		"",
		"The heavy case — a replay of each session whose agent writes everything stage 1 learned from it into team memory, naming",
		"the session, then the session's transcript read (the check of where each write came from runs):",
		"",
		"| session | written to team | waiting as proposals | held (from tool output) |",
		"|---|---:|---:|---:|",
		...rows.map((s) => `| ${s.name} | ${s.allToTeam.written} | ${s.allToTeam.proposals} | ${s.allToTeam.held} |`),
		"",
		`Then a person reviews **${rows.reduce((n, s) => n + s.allToTeam.proposals + s.allToTeam.held, 0)} items over ${rows.length} sessions ` +
			`(${rows.length ? (rows.reduce((n, s) => n + s.allToTeam.proposals + s.allToTeam.held, 0) / rows.length).toFixed(2) : "—"} per session)**.`,
	];
	return out;
}
