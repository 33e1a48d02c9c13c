/**
 * How a memory came to be, as its row and each version record it (`trust`, schema: docs/storage.md), and
 * who reviewed it (`reviewed_by`). The tier is what the write path could tell, never what the text claims:
 *
 * - `person`: written by a person — the console, `cairn remember` typed in a terminal (the CLI tells an
 *   agent's shell by the variables the agents set for their tool commands), a REST write with no agent
 *   session. A write key cannot prove a person typed it, so this tier alone does not pass the gate.
 * - `agent`: an agent's write — MCP, the hooks, the team folder, a REST write naming an agent session,
 *   `cairn remember` from inside an agent's shell.
 * - `extracted`: stage 1 or consolidation made it from a transcript.
 * - `imported`: `cairn import` of a memory directory.
 *
 * `reviewed_by` is set when a project admin approved the text (src/trust/held.ts) or wrote it with an
 * admin key outside an agent session: only such a memory may ask for what the danger check flags.
 */
import type { MemorySource } from "../memory/topic-file";

export const TRUST_TIERS = ["person", "agent", "extracted", "imported"] as const;
export type TrustTier = (typeof TRUST_TIERS)[number];

/** The tier a write's source implies when the caller names none. */
export function tierOfSource(source: MemorySource): TrustTier {
	switch (source) {
		case "user":
			return "person";
		case "agent":
			return "agent";
		case "import":
			return "imported";
		default:
			return "extracted";
	}
}

/** A stored row's tier: the recorded one, or (rows from before tiers were recorded) the one its source implies. */
export function tierOf(row: { source: MemorySource; trust?: string | null }): TrustTier {
	return (TRUST_TIERS as readonly string[]).includes(row.trust ?? "") ? (row.trust as TrustTier) : tierOfSource(row.source);
}

/** What a write says about its own provenance (WriteInput.trust). */
export interface WriteTrust {
	/** Overrides the tier implied by `source` (the team folder writes as `user` for history, but is an agent's channel). */
	tier?: TrustTier;
	/** The admin who reviewed this text: the gate lets it through and the row records them. */
	reviewedBy?: string | null;
	/**
	 * Who vouches for this text reaching teammates (team scope; src/trust/vouch.ts): a person, or the
	 * project's publish setting. Absent: the reviewer, if any; else the write is a proposal.
	 */
	vouchedBy?: string | null;
	/** The API key the write came with: a key an agent session used in the project neither reviews nor vouches. */
	keyId?: string;
}
