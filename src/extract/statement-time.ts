import type { Turn } from "../sessions/turns";
import type { Candidate, StageOneOutput } from "./schema";
import { turnRef } from "./schema";

/**
 * A candidate as stage 1 stores it: with the time of the statement it rests on, so consolidation can
 * tell whether it came before or after a memory was written on purpose (not the session's last
 * activity, which a write in the middle of the session precedes).
 */
export type StoredCandidate = Candidate & {
	statedAt?: string;
	/** The repository paths the agent read or edited in the turns its evidence cites (src/consolidate/transcript-citations.ts). */
	files?: string[];
};

/**
 * Stamps each candidate with `statedAt`: the latest timestamp among the user turns it cites (the
 * statement), else among any turn it cites. Set by Cairn from the transcript, never by the model.
 */
export function stampStatementTimes(
	output: StageOneOutput,
	turns: Turn[],
): Omit<StageOneOutput, "candidates"> & { candidates: StoredCandidate[] } {
	const bySeq = new Map(turns.map((t) => [turnRef(t.seq), t]));
	const latest = (cited: Turn[]) =>
		cited
			.map((t) => t.ts)
			.filter((ts): ts is string => ts !== null && !Number.isNaN(Date.parse(ts)))
			.sort((a, b) => Date.parse(a) - Date.parse(b))
			.at(-1);
	return {
		...output,
		candidates: output.candidates.map((c) => {
			const { statedAt: _fromModel, ...candidate } = c as StoredCandidate;
			const cited = c.evidence.map((e) => bySeq.get(e)).filter((t): t is Turn => t !== undefined);
			const at = latest(cited.filter((t) => t.role === "user")) ?? latest(cited);
			return at ? { ...candidate, statedAt: new Date(Date.parse(at)).toISOString() } : candidate;
		}),
	};
}
