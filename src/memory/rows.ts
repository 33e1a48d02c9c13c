import type { MemoryScope, MemorySource, MemoryType } from "./topic-file";

/** How a memory's cues came to be. */
export type CueSource = "written" | "derived";

export interface MemoryRow {
	id: number;
	scope: MemoryScope;
	owner_id: string;
	name: string;
	type: MemoryType;
	description: string;
	version: number;
	content_hash: string;
	/** Where the content is when a batch wrote it (src/memory/packs.ts); null: the object of `content_hash`. */
	content_ref?: string | null;
	bytes: number;
	source: MemorySource;
	session_id: string | null;
	author_id: string;
	created_at: string;
	updated_at: string;
	verified_at: string;
	times_served: number;
	last_served_at: string | null;
	/** Sessions the memory was served in, that cited its path, that read it (src/memory/use.ts; schema version 16). */
	served_sessions?: number;
	cited_sessions?: number;
	last_cited_at?: string | null;
	read_sessions?: number;
	last_read_at?: string | null;
	/** When a person approved archiving it: no longer served, still readable and listed. */
	archived_at?: string | null;
	proposed_scope?: MemoryScope | null;
	/** JSON array of strings: when the memory applies (src/text/concepts.ts). */
	cues?: string;
	/** 'written' by a model or a person, or 'derived' from the concept map. */
	cues_source?: CueSource;
	/** JSON array of the code it cites, as written (src/text/citations.ts). */
	citations?: string;
	/** What the last check of its cited code found (src/memory/code-check.ts); null: nothing tracked. */
	code_state?: "current" | "changed" | "gone" | null;
	/** How it came ('person', 'agent', 'extracted', 'imported'; null before: read from `source`) and the admin who reviewed it (src/trust/tier.ts). */
	trust?: string | null;
	reviewed_by?: string | null;
	/** Who let its current text reach teammates (team scope; src/trust/vouch.ts); null: a proposal, served to its writer only. */
	vouched_by?: string | null;
}
