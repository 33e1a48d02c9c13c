// The review load's shapes, shared by the in-Worker phase (bench/review-load.ts) and the report (scripts/bench/review-load.ts).

export interface ReviewLoadSession {
	name: string;
	turns: number;
	/** Memory writes of the agent's the transcript shows (memory_write, `cairn remember`), replayed into team scope. */
	agentWrites: number;
	/** Pending items after the pipeline, by kind. */
	vouch: number;
	promote: number;
	heldTeam: number;
	heldPersonal: number;
	/** Memories consolidation wrote for the writer (personal: no review). */
	personal: number;
	/**
	 * The heavy case: the agent writes everything stage 1 learned from the session into team memory, naming a
	 * replay of the session: how many it wrote, how many wait as proposals, how many the tool-output check held.
	 */
	allToTeam: { written: number; proposals: number; held: number };
}

export interface ReviewLoadResult {
	sessions: ReviewLoadSession[];
}
