/**
 * Citations from the transcript: the files the agent read or edited in the turns a memory's evidence
 * cites become the memory's citations when extraction and consolidation write it from a session.
 *
 * - Stage 1 stamps each candidate with `files`: for every turn its evidence cites, the files the tool
 *   calls of that exchange named (src/ingest/file-access.ts) — the exchange runs from the person's
 *   message that opened it to the next one, so a cited statement brings the files the agent worked on
 *   around it, and a cited tool call or tool result brings its own. Each path is made relative to the
 *   session's working directory (the turn's `cwd`, where the agents run: the repository); a path outside
 *   it, one that climbs out with `..`, git's own files and one without a known directory when it is
 *   absolute are never kept. Set by Cairn from the transcript, never by the model.
 * - Consolidation gives the memory it writes the files of the candidates behind it, after the paths its
 *   text names, within the citation limit. The transcripts carry no blob ids: the hooks' check sets the
 *   blob each file had when the memory was written from git history (src/memory/code-check.ts).
 */

import { turnRef } from "../extract/schema";
import type { StoredCandidate } from "../extract/statement-time";
import { isAbsolute } from "../ingest/file-access";
import type { Turn } from "../sessions/turns";
import { type Citation, CitedPathSchema, MAX_CITATIONS } from "../text/citations";
import type { PendingOutput } from "./inputs";
import type { Operation } from "./plan";

/** A path the agent named, relative to the repository at `cwd`; null when it is outside it or cannot be placed. */
export function repositoryPath(path: string, cwd: string | undefined): string | null {
	const slashed = (p: string) => p.replace(/\\/g, "/");
	let rel = slashed(path.trim());
	if (isAbsolute(rel)) {
		if (!cwd) return null;
		const root = slashed(cwd.trim()).replace(/\/+$/, "");
		const windows = /^[A-Za-z]:\//.test(root);
		const same = (a: string, b: string) => (windows ? a.toLowerCase() === b.toLowerCase() : a === b);
		if (!root || !same(rel.slice(0, root.length + 1), `${root}/`)) return null;
		rel = rel.slice(root.length + 1);
	}
	const parts: string[] = [];
	for (const part of rel.split("/")) {
		if (part === "" || part === ".") continue;
		if (part === "..") {
			if (parts.length === 0) return null;
			parts.pop();
		} else parts.push(part);
	}
	const out = parts.join("/");
	if (parts[0] === ".git" || !CitedPathSchema.safeParse(out).success) return null;
	return out;
}

/**
 * Stamps each candidate with `files`: the repository paths the tool calls of the exchanges its evidence
 * cites read or edited (a cited tool call or result: its own call's), at most MAX_CITATIONS.
 */
export function stampCitedFiles<O extends { candidates: StoredCandidate[] }>(output: O, turns: Turn[]): O {
	if (!turns.some((t) => t.files?.length)) {
		return { ...output, candidates: output.candidates.map(({ files: _fromModel, ...c }) => c) };
	}
	const index = new Map(turns.map((t, i) => [turnRef(t.seq), i]));
	const callOf = new Map(turns.filter((t) => t.role === "tool_call" && t.callId).map((t) => [t.callId, t]));
	const opens = (t: Turn) => t.role === "user" && !t.sidechain;
	const exchange = (i: number): Turn[] => {
		let start = i;
		while (start > 0 && !opens(turns[start] as Turn)) start--;
		let end = i + 1;
		while (end < turns.length && !opens(turns[end] as Turn)) end++;
		return turns.slice(start, end);
	};
	const filesOf = (t: Turn) => (t.files ?? []).map((f) => repositoryPath(f, t.cwd)).filter((p): p is string => p !== null);
	return {
		...output,
		candidates: output.candidates.map(({ files: _fromModel, ...c }) => {
			const files: string[] = [];
			for (const ref of c.evidence) {
				const i = index.get(ref);
				const cited = i === undefined ? undefined : turns[i];
				if (!cited || i === undefined) continue;
				const call = cited.role === "tool_result" && cited.callId ? callOf.get(cited.callId) : undefined;
				const source = cited.role === "tool_call" ? [cited] : call ? [call] : exchange(i);
				for (const t of source) files.push(...filesOf(t));
			}
			const unique = [...new Set(files)].slice(0, MAX_CITATIONS);
			return unique.length > 0 ? { ...c, files: unique } : c;
		}),
	};
}

/** The citations a memory written from these candidates takes from their transcripts (without blob ids). */
export function transcriptCitations(candidates: Pick<StoredCandidate, "files">[]): Citation[] {
	const paths = [...new Set(candidates.flatMap((c) => (Array.isArray(c.files) ? c.files : [])))];
	return paths
		.filter((p) => typeof p === "string" && CitedPathSchema.safeParse(p).success)
		.slice(0, MAX_CITATIONS)
		.map((path) => ({ path, source: "transcript" as const }));
}

/**
 * The transcript citations of a consolidation operation: the files of the candidates behind it in its
 * evidence sessions — those named like its memory (or a memory it merges), or whose statement its body
 * carries (the candidates its version's evidence turns come from).
 */
export function operationCitations(op: Operation, sessions: string[], outputs: PendingOutput[]): Citation[] {
	const names = new Set([op.name, ...(op.op === "merge" ? op.from : [])]);
	const body = "body" in op ? op.body.toLowerCase() : "";
	const behind = outputs
		.filter((o) => sessions.includes(o.session_id))
		.flatMap((o) => o.candidates)
		.filter((c) => {
			const statement = c.description.replace(/[.!]+$/, "").toLowerCase();
			return names.has(c.name) || (statement.length > 8 && body.includes(statement));
		});
	return transcriptCitations(behind);
}
