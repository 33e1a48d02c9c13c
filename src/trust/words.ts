/**
 * The few words a block puts next to each memory to say where it came from, relative to the reader:
 * "team · written by a teammate's agent · not reviewed", "personal · written by you · reviewed by an admin".
 * The agent weighs a memory by them (prompts/read_path.md); the words never quote the memory itself.
 */
import { tierOf } from "./tier";

export interface ProvenanceRow {
	scope: "personal" | "team";
	source: Parameters<typeof tierOf>[0]["source"];
	trust?: string | null;
	reviewed_by?: string | null;
	author_id?: string | null;
	/** A team memory's vouch (src/trust/vouch.ts): null marks a proposal (served to its writer only); absent: not read. */
	vouched_by?: string | null;
}

/** Who wrote it and how, seen by `viewer`. */
function writtenBy(row: ProvenanceRow, viewer: string): string {
	const own = row.author_id === viewer;
	switch (tierOf(row)) {
		case "person":
			return own ? "written by you" : "written by a teammate";
		case "agent":
			return own ? "written by your agent" : "written by a teammate's agent";
		case "imported":
			return own ? "imported by you" : "imported by a teammate";
		default:
			return own ? "extracted from your sessions" : "extracted from a teammate's sessions";
	}
}

/** A team memory no person vouched for yet: its writer's sessions see it so marked, nobody else's see it. */
const proposal = (row: ProvenanceRow) => row.scope === "team" && row.vouched_by === null;

const PROPOSAL_WORDS = "unreviewed proposal (teammates are not served it until a person approves it)";

const reviewWords = (row: ProvenanceRow, viewer: string) =>
	proposal(row)
		? PROPOSAL_WORDS
		: row.reviewed_by
			? row.reviewed_by === viewer
				? "reviewed by you"
				: "reviewed by an admin"
			: row.vouched_by && !row.vouched_by.startsWith("cairn:")
				? row.vouched_by === viewer
					? "approved by you"
					: "approved by a teammate"
				: "not reviewed";

/** The full words, for a memory whose text a block holds: scope · writer · review. */
export function provenanceWords(row: ProvenanceRow, viewer: string): string {
	return `${row.scope} · ${writtenBy(row, viewer)} · ${reviewWords(row, viewer)}`;
}

/**
 * The short words for an index line: nothing for the reader's own or a reviewed memory (the common
 * case stays one line), else who wrote it and "not reviewed".
 */
export function provenanceTag(row: ProvenanceRow, viewer: string): string {
	if (proposal(row)) return `team · ${writtenBy(row, viewer).replace(/^written by /, "")} · unreviewed proposal`;
	if (row.reviewed_by || (row.author_id === viewer && tierOf(row) === "person")) return row.scope === "team" ? "team" : "";
	return `${row.scope === "team" ? "team · " : ""}${writtenBy(row, viewer).replace(/^written by /, "")} · not reviewed`;
}
