import type { CodeMark } from "../memory/code-check";
import type { MemoryRow } from "../memory/rows";
import type { ProjectDb } from "../storage/sql";

/**
 * What the last check from the repository found of the code an existing memory cites, as consolidation's
 * model is shown it: `changed` (or moved) or `gone`, with the paths. A memory whose code is as written,
 * that cites nothing, or whose code was never checked carries none.
 */
export type CodeNote = Pick<CodeMark, "state" | "changed" | "moved" | "gone">;

/** Paths shown per memory and state, at most. */
const MAX_NOTED_PATHS = 10;

/** The code notes of the memories among `rows` whose cited code changed or went, by memory id. */
export async function codeNotes(db: ProjectDb, rows: Pick<MemoryRow, "id" | "code_state">[]): Promise<Map<number, CodeNote>> {
	const marked = rows.filter((r) => r.code_state === "changed" || r.code_state === "gone");
	const notes = new Map<number, CodeNote>();
	if (marked.length === 0) return notes;
	const { results } = await db
		.prepare(
			`SELECT memory_id, path, state, moved_to FROM code_citations
			 WHERE memory_id IN (SELECT value FROM json_each(?)) AND state IN ('changed', 'moved', 'gone') ORDER BY memory_id, path`,
		)
		.bind(JSON.stringify(marked.map((r) => r.id)))
		.all<{ memory_id: number; path: string; state: "changed" | "moved" | "gone"; moved_to: string | null }>();
	for (const r of marked) notes.set(r.id, { state: r.code_state as CodeNote["state"], changed: [], moved: [], gone: [] });
	for (const r of results) {
		const note = notes.get(r.memory_id);
		if (!note) continue;
		if (r.state === "changed" && note.changed.length < MAX_NOTED_PATHS) note.changed.push(r.path);
		else if (r.state === "moved" && note.moved.length < MAX_NOTED_PATHS) note.moved.push({ from: r.path, to: r.moved_to ?? "" });
		else if (r.state === "gone" && note.gone.length < MAX_NOTED_PATHS) note.gone.push(r.path);
	}
	return notes;
}

/** The `code` entry of an existing memory in the model's input: what changed, in a sentence and by path. */
export function codeEntry(note: CodeNote | undefined) {
	if (!note) return {};
	const said =
		note.state === "gone"
			? "every file this memory cites is gone from the repository since it was written"
			: "code this memory cites changed in the repository since it was written";
	const paths = {
		...(note.changed.length ? { changed: note.changed } : {}),
		...(note.moved.length ? { moved: note.moved.map((m) => `${m.from} -> ${m.to}`) } : {}),
		...(note.gone.length ? { gone: note.gone } : {}),
	};
	return { code: { state: note.state, note: said, ...paths } };
}
