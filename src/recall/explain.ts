/**
 * What a traced candidate matched beyond its words: the query's concepts it is about and the cues that
 * brought it in (the cue index holds each memory's cues and concepts, src/search/candidates.ts). Only
 * for `trace: true` — a memory found through a concept otherwise shows a tiny BM25 and no matched terms.
 */
import { cuesOf } from "../memory/store";
import { type ConceptHit, memoryConcepts, storedConcepts } from "../text/concepts";
import type { ScoredMemory } from "./ranking";
import { heldTerms } from "./relevance";

export interface Matches {
	/** The query's concepts the memory is about. */
	concepts: string[];
	/** The memory's cues (situations it applies in) that hold a query word. */
	cues: string[];
}

/** `conceptColumn`: the memory's stored concepts (its cue row), when read with the candidates. */
export function matchesOf(m: ScoredMemory, terms: string[], concepts: ConceptHit[], conceptColumn?: string): Matches {
	const cues = cuesOf(m.row);
	const about =
		concepts.length === 0
			? []
			: ((conceptColumn !== undefined ? storedConcepts(conceptColumn) : null) ??
				memoryConcepts({ name: m.row.name, description: m.row.description, body: m.body, cues }).map((c) => c.id));
	return {
		concepts: concepts.map((c) => c.id).filter((id) => about.includes(id)),
		cues: terms.length === 0 ? [] : cues.filter((cue) => heldTerms(terms, cue).length > 0),
	};
}
