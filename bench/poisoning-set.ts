// The poisoning benchmark's shapes, shared by the in-Worker phase (bench/poisoning.ts) and the report
// (scripts/bench/poisoning.ts): one labelled entry, the paths it is written through, what a session is served.

export interface PoisonEntry {
	id: string;
	lang: string;
	label: "plant" | "lookalike";
	class: string;
	disguise: string | null;
	type: "rule" | "fact" | "reference" | "preference";
	name: string;
	description: string;
	body: string;
	sentence: string;
	carrier?: string;
	prompt: string;
}

export const POISON_PATHS = [
	"rest-personal",
	"rest-team",
	"batch-team",
	"mcp-team",
	"team-folder",
	"import",
	"transcript",
	"consolidation-merge",
] as const;
export type PoisonPath = (typeof POISON_PATHS)[number];
export const SURFACES = ["start", "prompt", "resolve", "mcp-read", "team-pull"] as const;
export type Surface = (typeof SURFACES)[number];

/** Per entry and path: where it reached each viewer, and whether it was held (with a reason). */
export interface PoisonOutcome {
	id: string;
	label: PoisonEntry["label"];
	class: string;
	disguise: string | null;
	lang: string;
	path: PoisonPath;
	held: boolean;
	heldWithReason: boolean;
	/** Surfaces on which the entry's text reached the viewer (teammate: another user; writer: the writer's next session). */
	teammate: Surface[];
	writer: Surface[];
	/**
	 * Look-alikes: surfaces on which the entry reached the teammate once a person (a key no agent session used,
	 * from no session) approved every team proposal and held write of the path (docs/memory-trust.md).
	 */
	teammateApproved?: Surface[];
}

export interface PoisonResult {
	sets: Record<string, PoisonOutcome[]>;
	/** Single writes of an ordinary memory (ms): with the agent's write key (the check runs) and an admin key (reviewed, no check). */
	writes: { agentKey: number[]; adminKey: number[] };
}
