/**
 * What came from tool output is held for its writer too (docs/memory-trust.md, "What came from tool
 * output"). An agent that read a hostile README, issue, web page or CI log can write what it read into
 * memory in its own session; the danger check reads shapes and may not know this one. When the session's
 * transcript arrives (the write usually lands before it), each memory its agent wrote naming that session
 * is compared with what the agent had seen before the write: a host, a command or a path outside the
 * repository that a tool result printed and the person never typed, instructions whose words are a
 * tool result's and not the person's, or a sentence copied from a tool result that the person never said,
 * mean the memory came from tool output. It is then held — its text
 * goes to the review queue as a `held` item for the writer, with that reason (which kinds, which turns,
 * never the text), and the memory is taken back: its earlier text served again, or removed — so the
 * writer's next session is not served it either. A project admin approving it writes it back as reviewed.
 *
 * Until the check has run, the memory is served to its writer as unreviewed (a team memory is a proposal
 * anyway); passing the check vouches for nothing.
 */
import { distinctiveWords, wordsSupported } from "../extract/provenance";
import { nowIso } from "../lib/ids";
import { lookupTable } from "../lib/lookup";
import type { MemoryRow } from "../memory/rows";
import { cuesOf, getMemoryRow } from "../memory/store";
import { hostsIn } from "../security/danger-hosts";
import type { SessionRow } from "../sessions/sessions";
import type { Turn } from "../sessions/turns";
import type { ProjectEnv } from "../storage/env";
import { holdStatements, newHeldId } from "../trust/gate";
import { takeBack } from "../trust/vouch-review";

/** Turns before a write read to tell where its text came from: the agent's recent context. */
export const ORIGIN_WINDOW = 400;

export type OriginKind = "host" | "command" | "path" | "instructions";

export interface OriginFinding {
	kind: OriginKind;
	/** The tool result turns that printed it (`t<seq>`), and the tools that made them. */
	turns: string[];
	tools: string[];
}

const QUOTED = /`([^`\n]{3,200})`/g;
/** A path outside the repository: absolute, in the home directory, or a dot-directory of the home. */
const OUTSIDE_PATH =
	/(?<![\w.~/-])(?:~\/[\w.@+-][\w./@+-]*|\/(?:etc|usr|var|tmp|opt|root|home|Users|private|Library|bin|sbin|dev|proc|srv|mnt)\/[\w./@+-]+|\$HOME\/[\w./@+-]+)/g;

const isPersonsMessage = (t: Turn) => t.role === "user" && !t.sidechain && !t.kind;
const lower = (s: string) => s.toLowerCase();

/** Text compared for copying: lower case, markdown's emphasis and quotes gone, every run of space one space. */
const flat = (s: string) =>
	s
		.toLowerCase()
		.normalize("NFKC")
		.replace(/[`*_>#|]+/g, " ")
		.replace(/\s+/g, " ")
		.trim();
const HANGUL = /\p{Script=Hangul}/u;
/**
 * A sentence long enough that finding it whole in a tool result means it was copied from there: at least
 * six words and 30 characters (Korean, whose words carry their grammar: four words and 20 characters).
 */
const copyable = (sentence: string) => {
	const words = sentence.split(" ").filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
	return HANGUL.test(sentence) ? words >= 4 && sentence.length >= 20 : words >= 6 && sentence.length >= 30;
};
/** The sentences of a memory's text: split at line ends and at sentence ends followed by a space. */
export const sentencesOf = (text: string): string[] =>
	text
		.split(/\n+|(?<=[.!?。])\s+/u)
		.map(flat)
		.map((s) => s.replace(/^[-+\d.)\s]+/, "").replace(/[.!?。:;,\s]+$/u, ""))
		.filter(copyable);

/**
 * Where the parts of `text` that steer an agent come from, in `turns` (what the agent had seen before the
 * write): each kind that a tool result printed and the person's own messages never said.
 */
export function toolOrigin(text: string, turns: Turn[]): OriginFinding[] {
	const results = turns.filter((t) => t.role === "tool_result");
	if (results.length === 0) return [];
	const toolOf = new Map(turns.filter((t) => t.role === "tool_call" && t.callId).map((t) => [t.callId as string, t.tool ?? "a tool"]));
	const person = lower(
		turns
			.filter(isPersonsMessage)
			.map((t) => t.text)
			.join("\n"),
	);
	const printedBy = (piece: string) => results.filter((t) => lower(t.text).includes(piece));
	const findings: OriginFinding[] = [];
	const add = (kind: OriginKind, from: Turn[]) => {
		if (from.length === 0) return;
		const existing = findings.find((f) => f.kind === kind);
		const turnsOf = from.map((t) => `t${t.seq}`);
		const tools = from.map((t) => (t.callId ? (toolOf.get(t.callId) ?? "a tool") : "a tool"));
		if (existing) {
			existing.turns = [...new Set([...existing.turns, ...turnsOf])];
			existing.tools = [...new Set([...existing.tools, ...tools])];
		} else findings.push({ kind, turns: [...new Set(turnsOf)], tools: [...new Set(tools)] });
	};
	// Hosts other than local and official ones (a registry, a code host, localhost say nothing of origin).
	for (const h of hostsIn(text)) {
		if (h.kind === "local" || h.kind === "official") continue;
		const host = lower(h.host);
		if (!person.includes(host)) add("host", printedBy(host));
	}
	for (const m of text.matchAll(QUOTED)) {
		const command = lower((m[1] ?? "").trim());
		if (command.length < 6 || !/\s/.test(command)) continue;
		if (!person.includes(command)) add("command", printedBy(command));
	}
	for (const m of text.matchAll(OUTSIDE_PATH)) {
		const path = lower(m[0].replace(/[.,;:)]+$/, ""));
		if (!person.includes(path)) add("path", printedBy(path));
	}
	// A sentence copied whole from a tool result that the person's messages do not hold: the agent wrote down
	// what it read, in the words it read it in — whatever those words ask for.
	const printed = results.map((t) => ({ t, text: flat(t.text) }));
	const said = flat(person);
	for (const sentence of sentencesOf(text)) {
		if (said.includes(sentence)) continue;
		add(
			"instructions",
			printed.filter((p) => p.text.includes(sentence)).map((p) => p.t),
		);
	}
	// Instructions: most of the memory's distinctive words are a tool result's, and the person's messages do not carry them.
	const words = distinctiveWords(text);
	if (words.size >= 4) {
		const toolWords = distinctiveWords(results.map((t) => t.text).join("\n"));
		let hits = 0;
		for (const w of words) if (toolWords.has(w)) hits++;
		if (hits / words.size >= 0.6 && !wordsSupported(words, distinctiveWords(person))) {
			add(
				"instructions",
				results.filter((t) => {
					const own = distinctiveWords(t.text);
					let n = 0;
					for (const w of words) if (own.has(w)) n++;
					return n >= Math.min(3, words.size);
				}),
			);
		}
	}
	return findings;
}

const KIND_WORDS: Record<OriginKind, string> = lookupTable({
	host: "a host",
	command: "a command",
	path: "a path outside the repository",
	instructions: "its instructions",
});

/** The held item's reason: which kinds came from which tool results, never the text. */
export function originReason(findings: OriginFinding[]): string {
	const kinds = findings.map((f) => KIND_WORDS[f.kind]);
	const turns = [...new Set(findings.flatMap((f) => f.turns))].slice(0, 6);
	const tools = [...new Set(findings.flatMap((f) => f.tools))].slice(0, 4);
	return `Held for review: ${kinds.join(", ")} came from a tool result (${turns.join(", ")}: the output of ${tools.join(", ")}), not from the person's own messages, in the session that wrote it. A project admin approves it to serve it; rejecting drops it.`.slice(
		0,
		500,
	);
}

interface PendingWrite {
	seq: number;
	memory_name: string;
}

/** The turn at which the agent made a write recorded at `seq`: its memory call when the transcript shows it, else `seq`. */
function writeTurn(turns: Turn[], write: PendingWrite): number {
	const calls = turns.filter(
		(t) =>
			t.role === "tool_call" &&
			((t.agentWrite === true && (t.memoryName === undefined || t.memoryName === write.memory_name)) ||
				(/memor|remember/i.test(t.text) && t.text.includes(write.memory_name))),
	);
	const call = calls.find((t) => t.seq >= write.seq) ?? calls.filter((t) => t.seq < write.seq).at(-1);
	return call?.seq ?? write.seq;
}

/**
 * Checks the writes an agent made naming `session` whose turns have arrived up to `to` (inclusive), once
 * each: `turns` are the session's turns read for the range, `earlier` reads turns before them. A write whose
 * memory has changed since (another version, another session) is only marked checked. Returns how many were held.
 */
export async function checkWriteOrigins(
	env: ProjectEnv,
	session: Pick<SessionRow, "project_id" | "id" | "user_id">,
	turns: Turn[],
	to: number,
	earlier: (from: number, to: number) => Promise<Turn[]>,
	tenantId: string,
): Promise<number> {
	const db = env.PDB;
	const { results: writes } = await db
		.prepare(
			"SELECT seq, memory_name FROM session_writes WHERE project_id = ? AND session_id = ? AND origin_checked_at IS NULL AND seq <= ? ORDER BY seq",
		)
		.bind(session.project_id, session.id, to + 1)
		.all<PendingWrite>();
	if (writes.length === 0) return 0;
	const first = turns[0]?.seq ?? to + 1;
	const need = Math.max(0, Math.min(...writes.map((w) => w.seq)) - ORIGIN_WINDOW);
	const context = [...(need < first ? await earlier(need, first - 1) : []), ...turns].sort((a, b) => a.seq - b.seq);
	const ctx = { tenantId, projectId: session.project_id, userId: session.user_id };
	let held = 0;
	for (const write of writes) {
		const at = writeTurn(context, write);
		const before = context.filter((t) => t.seq < at && t.seq >= at - ORIGIN_WINDOW);
		for (const scope of ["personal", "team"] as const) {
			const row = await getMemoryRow(db, ctx, scope, write.memory_name);
			if (!row || !writtenBy(row, session)) continue;
			const body = await db.prepare("SELECT body FROM memories_fts WHERE rowid = ?").bind(row.id).first<{ body: string }>();
			// The text the agent wrote: description and body, and cues it wrote (derived cues are the concept map's words, not its).
			const text = [row.description, body?.body ?? "", ...(row.cues_source === "written" ? cuesOf(row) : [])].join("\n");
			const findings = toolOrigin(text, before);
			if (findings.length === 0) continue;
			await holdForOrigin(env, ctx, row, body?.body ?? "", findings);
			held++;
		}
		await db
			.prepare("UPDATE session_writes SET origin_checked_at = ? WHERE project_id = ? AND session_id = ? AND seq = ? AND memory_name = ?")
			.bind(nowIso(), session.project_id, session.id, write.seq, write.memory_name)
			.run();
	}
	return held;
}

/** Whether the memory's current version is the agent's write in this session (not changed since). */
const writtenBy = (row: MemoryRow, session: Pick<SessionRow, "id" | "user_id">) =>
	row.source === "agent" && row.session_id === session.id && row.author_id === session.user_id;

async function holdForOrigin(
	env: ProjectEnv,
	ctx: { tenantId: string; projectId: string; userId: string },
	row: MemoryRow,
	body: string,
	findings: OriginFinding[],
): Promise<void> {
	const db = env.PDB;
	const file = { name: row.name, type: row.type, description: row.description, body };
	const input = { scope: row.scope, file, source: row.source, trust: { tier: "agent" as const } };
	const evidence = ["tool-origin", ...findings.map((f) => `origin:${f.kind}`), ...findings.flatMap((f) => f.turns.map((t) => `turn:${t}`))];
	// The reason is where it came from, not a danger class.
	await db.batch(holdStatements(db, ctx, input, [], row.version, newHeldId(), evidence, originReason(findings)));
	// Taken back: its earlier text is served again, or the memory goes — the writer's sessions included.
	const taken = await takeBack(env, ctx, row.scope, row);
	// The held item's base is the version it would replace when approved.
	const now = taken ? taken.version : null;
	await db
		.prepare(
			"UPDATE review_items SET base_version = ? WHERE project_id = ? AND owner_id = ? AND kind = 'held' AND memory_scope = ? AND memory_name = ? AND status = 'pending'",
		)
		.bind(now, ctx.projectId, ctx.userId, row.scope, row.name)
		.run();
}
