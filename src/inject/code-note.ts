/**
 * The words a block puts next to a memory whose cited code changed since it was written (marked by a
 * check from the repository, src/memory/code-check.ts): which paths changed, moved (and to where) or
 * went, and that the agent should check them before relying on the memory. Nothing for a memory whose
 * code is as it was, or that cites none.
 */
import type { CodeMark } from "../memory/code-check";

const SHOWN = 3;
const list = (paths: string[]) =>
	paths.length <= SHOWN ? paths.join(", ") : `${paths.slice(0, SHOWN).join(", ")} and ${paths.length - SHOWN} more`;

/** E.g. "cites src/queue/worker.ts, changed since this was written — check it". Empty without a mark. */
export function codeNote(mark: Pick<CodeMark, "changed" | "moved" | "gone"> | undefined): string {
	if (!mark) return "";
	const parts: string[] = [];
	if (mark.changed.length > 0) parts.push(`cites ${list(mark.changed)}, changed since this was written`);
	for (const m of mark.moved.slice(0, SHOWN)) parts.push(`cites ${m.from}, moved to ${m.to} since this was written`);
	if (mark.gone.length > 0) parts.push(`cites ${list(mark.gone)}, gone from the repository since this was written`);
	if (parts.length === 0) return "";
	const many = mark.changed.length + mark.moved.length + mark.gone.length > 1;
	return `${parts.join("; ")} — check ${many ? "them" : "it"}`;
}

/** An index line with its note, if any: `<line> [<note>]`. */
export const withCodeNote = (line: string, mark: CodeMark | undefined) => {
	const note = codeNote(mark);
	return note ? `${line} [${note}]` : line;
};
