/**
 * The labelled extraction sessions (bench/extraction/*.jsonl) and how they are scored: per labelled
 * statement, whether what Cairn kept contains all of its key terms. Used by the benchmark (the
 * offline extractor alone, and end to end) and by the test that holds the end-to-end figures.
 */
import { currentText } from "../src/memory/value-history";
import type { Turn } from "../src/sessions/turns";

export interface Label {
	kind: string;
	durable: boolean;
	key: string[];
	team?: boolean;
	corrects?: { session: string; turn: number };
	old?: string[];
}

export interface EvalSession {
	id: string;
	lang: string;
	project: string;
	agent: "claude" | "codex";
	turns: { role: "user" | "assistant"; text: string; labels?: Label[] }[];
}

export const parseSessions = (jsonl: string): EvalSession[] =>
	jsonl
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as EvalSession);

export const toTurns = (s: EvalSession): Turn[] =>
	s.turns.map((t, i) => ({ seq: i, id: `${s.id}-${i}`, role: t.role, text: t.text, ts: null }));

/** A Claude Code session file for the session, as Claude Code writes it (one record a line, a uuid chain). */
export function toClaudeJsonl(s: EvalSession, start: Date): string {
	let parent: string | null = null;
	return s.turns
		.map((t, i) => {
			const uuid = `${s.id}-${String(i).padStart(4, "0")}-0000-0000-000000000000`.slice(0, 36);
			const record = {
				parentUuid: parent,
				isSidechain: false,
				userType: "external",
				cwd: `/home/dev/${s.project}`,
				sessionId: s.id,
				version: "2.1.4",
				gitBranch: "main",
				type: t.role,
				message: t.role === "user" ? { role: "user", content: t.text } : { role: "assistant", content: [{ type: "text", text: t.text }] },
				uuid,
				timestamp: new Date(start.getTime() + i * 30_000).toISOString(),
			};
			parent = uuid;
			return JSON.stringify(record);
		})
		.join("\n");
}

const hasAll = (text: string, keys: string[]) => {
	const lower = text.toLowerCase();
	return keys.every((k) => lower.includes(k.toLowerCase()));
};

export interface Figures {
	durable: number;
	kept: number;
	traps: number;
	leaked: number;
	corrections: number;
	corrected: number;
	recall: number;
	trapRate: number;
	missed: string[];
	leaks: string[];
	/** Corrections whose project does not hold the new value without the old one. */
	uncorrected: string[];
}

/**
 * Scores what was kept. `kept(session, turn)` is the text kept from that user turn (candidates citing
 * it, or memories), and `finalText(project)` the project's memories at the end. A durable statement is
 * kept when text from its turn holds all its keys; a trap leaks when text from its turn holds all of
 * its keys; a correction holds when the project's final memories carry the new keys in a memory that
 * no longer carries the old value.
 */
export function score(
	sessions: EvalSession[],
	kept: (session: EvalSession, turn: number) => string[],
	finalTexts?: (project: string) => string[],
): Figures {
	const f: Figures = {
		durable: 0,
		kept: 0,
		traps: 0,
		leaked: 0,
		corrections: 0,
		corrected: 0,
		recall: 0,
		trapRate: 0,
		missed: [],
		leaks: [],
		uncorrected: [],
	};
	for (const s of sessions) {
		s.turns.forEach((t, i) => {
			for (const label of t.labels ?? []) {
				const texts = kept(s, i);
				const hit = texts.some((x) => hasAll(x, label.key));
				if (label.durable) {
					f.durable++;
					if (hit) f.kept++;
					else f.missed.push(`${s.id}#${i} ${label.kind} [${label.key.join(", ")}]: ${t.text.slice(0, 140)}`);
					if (label.corrects && label.old && finalTexts) {
						f.corrections++;
						const finals = finalTexts(s.project);
						// The old value may stay as history ("Earlier:" lines), never as what the memory says now.
						const updated = finals
							.map(currentText)
							.some((x) => hasAll(x, label.key) && !label.old?.some((o) => x.toLowerCase().includes(o.toLowerCase())));
						if (updated) f.corrected++;
						else f.uncorrected.push(`${s.id}#${i} [${label.key.join(", ")}] not [${label.old.join(", ")}]: ${t.text.slice(0, 140)}`);
					}
				} else {
					f.traps++;
					if (hit) {
						f.leaked++;
						f.leaks.push(`${s.id}#${i} ${label.kind} [${label.key.join(", ")}]: ${t.text.slice(0, 140)}`);
					}
				}
			}
		});
	}
	f.recall = f.durable ? f.kept / f.durable : 0;
	f.trapRate = f.traps ? f.leaked / f.traps : 0;
	return f;
}

/**
 * End to end: what the project's memories say after every session was extracted and consolidated.
 * A durable statement counts when one memory of its project holds all its keys; a statement a later
 * one corrects is judged by the correction instead (the correction's keys present in a memory that
 * no longer holds the old value); a trap leaks when a memory of its project holds all its keys.
 */
export function scoreEndToEnd(sessions: EvalSession[], memories: (project: string) => string[]): Figures & { teamProposed?: number } {
	const superseded = new Set<string>();
	for (const s of sessions)
		for (const t of s.turns) for (const l of t.labels ?? []) if (l.corrects) superseded.add(`${l.corrects.session}#${l.corrects.turn}`);
	const kept = (s: EvalSession, turn: number) => (superseded.has(`${s.id}#${turn}`) ? [] : memories(s.project));
	const f = score(
		sessions.map((s) => ({
			...s,
			turns: s.turns.map((t, i) => ({
				...t,
				labels: superseded.has(`${s.id}#${i}`) ? (t.labels ?? []).filter((l) => !l.durable) : t.labels,
			})),
		})),
		kept,
		memories,
	);
	return f;
}

/** Sends one request through the Worker's own entry point with the caller's key; JSON bodies as objects. */
export type Caller = (
	path: string,
	init?: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> },
) => Promise<Response>;

/**
 * Reads every 200 ms until `done` holds, for work the Worker finishes after answering (queues, alarms);
 * throws with the last value read when `ms` pass first — a wait is a claim, and a claim can fail.
 * @asserts
 */
export const waitFor = async <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 60_000): Promise<T> => {
	const end = Date.now() + ms;
	let value = await read();
	while (!done(value)) {
		if (Date.now() >= end) throw new Error(`not reached within ${ms} ms; last read: ${lastRead(value)}`);
		await new Promise((r) => setTimeout(r, 200));
		value = await read();
	}
	return value;
};

/** What a wait last saw, short enough for a failure message. */
function lastRead(value: unknown): string {
	const text = value === undefined ? "undefined" : JSON.stringify(value);
	return text.length > 600 ? `${text.slice(0, 600)}…` : text;
}

interface ListedMemory {
	name: string;
	scope: string;
	proposedScope: string | null;
}

/**
 * Runs the sessions of one language through the whole pipeline with no model: a project per eval
 * project (memory on), each session posted as a Claude Code file and ended in time order, extracted
 * by the queue consumer, then consolidated. Returns each project's memory texts (description and
 * body; the name is an identifier) and listings.
 */
export async function runEndToEnd(
	call: Caller,
	sessions: EvalSession[],
	newProject: (name: string) => Promise<string>,
): Promise<{ texts: Map<string, string[]>; listed: Map<string, ListedMemory[]> }> {
	const projects = new Map<string, string>();
	for (const name of new Set(sessions.map((s) => s.project))) {
		const id = await newProject(name);
		await call(`/v1/projects/${id}/settings`, { method: "PUT", json: { "memories.enabled": true } });
		projects.set(name, id);
	}
	const start = Date.parse("2026-10-01T09:00:00Z");
	for (const [i, s] of sessions.entries()) {
		const id = projects.get(s.project) as string;
		const body = toClaudeJsonl(s, new Date(start + i * 86_400_000));
		const posted = await call(`/v1/projects/${id}/sessions/${s.id}/transcript`, {
			body,
			headers: { "Content-Type": "application/x-ndjson" },
		});
		if (posted.status !== 200) throw new Error(`posting ${s.id}: ${posted.status}`);
		const ended = await call(`/v1/projects/${id}/sessions/${s.id}/end`, { method: "POST" });
		if (ended.status !== 202) throw new Error(`ending ${s.id}: ${ended.status}`);
	}
	const texts = new Map<string, string[]>();
	const listed = new Map<string, ListedMemory[]>();
	for (const [name, id] of projects) {
		const count = sessions.filter((s) => s.project === name).length;
		await waitFor(
			async () =>
				((await (await call(`/v1/projects/${id}/sessions`)).json()) as { sessions: { cursor: number; turns: number }[] }).sessions,
			(list) => list.length >= count && list.every((s) => s.cursor === s.turns),
		);
		const started = await call(`/v1/projects/${id}/consolidate`, { method: "POST" });
		if (started.status !== 202) throw new Error(`consolidating ${name}: ${started.status}`);
		await waitFor(
			async () =>
				(
					(await (await call(`/v1/projects/${id}/status`)).json()) as {
						pipeline: { pendingOutputs: number; running: boolean; lastRun?: { outcome: string } };
					}
				).pipeline,
			(p) => p.pendingOutputs === 0 && p.lastRun?.outcome === "succeeded" && !p.running,
		);
		const memories = ((await (await call(`/v1/projects/${id}/memories`)).json()) as { memories: ListedMemory[] }).memories;
		listed.set(name, memories);
		texts.set(
			name,
			await Promise.all(
				memories.map(async (m) => (await (await call(`/v1/projects/${id}/memories/${m.name}`)).text()).replace(/^name: .*$/m, "")),
			),
		);
	}
	return { texts, listed };
}

/**
 * Precision: the share of kept texts (candidates or memories) that carry a durable statement of their
 * own turn (candidates) or project (memories) — all of its key terms. What is left is noise: traps,
 * fragments, statements nobody labelled durable.
 */
export function precision(kept: { text: string; durableKeys: string[][] }[]): number {
	if (kept.length === 0) return 0;
	const good = kept.filter(({ text, durableKeys }) => durableKeys.some((keys) => hasAll(text, keys))).length;
	return good / kept.length;
}

/** The key sets of every durable statement of one session turn, or of a whole project. */
export const durableKeysOf = (sessions: EvalSession[], where: { session?: string; turn?: number; project?: string }): string[][] =>
	sessions
		.filter((s) => (where.session ? s.id === where.session : s.project === where.project))
		.flatMap((s) => s.turns.flatMap((t, i) => (where.turn === undefined || where.turn === i ? (t.labels ?? []) : [])))
		.filter((l) => l.durable)
		.map((l) => l.key);
