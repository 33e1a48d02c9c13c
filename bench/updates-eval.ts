/**
 * The labelled update set (bench/updates/*.jsonl): project timelines in which rules, preferences and
 * facts are stated and then changed across sessions, among unrelated ones. Each session is posted as
 * the real agent's transcript (a Claude Code session file, or a Codex rollout), ended, extracted by the
 * queue consumer and consolidated by the project's object; then each subject's probe is asked as a
 * prompt's block and as recall's first answer, and scored: the newest value served, no older value
 * served as current (an older value may appear only as history, "was … until <date>"), and no memory
 * that only says something changed. Used by the benchmark and by the test that holds the behaviour.
 */
import { MockLanguageModelV4 } from "ai/test";
import { type Caller, toClaudeJsonl, waitFor } from "./extraction-eval";

export interface UpdateValue {
	key: string[];
}

export interface UpdateSubject {
	id: string;
	kind: "rule" | "preference" | "fact";
	scope: "team" | "personal";
	values: UpdateValue[];
	final: number;
	probe: string;
}

export interface UpdateTurn {
	role: "user" | "assistant";
	text: string;
	states?: { subject: string; value: number }[];
}

export interface UpdateSession {
	id: string;
	date: string;
	agent: "claude" | "codex";
	turns: UpdateTurn[];
}

export interface Timeline {
	id: string;
	lang: string;
	project: string;
	subjects: UpdateSubject[];
	sessions: UpdateSession[];
}

export const parseTimelines = (jsonl: string): Timeline[] =>
	jsonl
		.split("\n")
		.filter((l) => l.trim())
		.map((l) => JSON.parse(l) as Timeline);

/** A Codex rollout for the session, as Codex writes it (session_meta, then one response_item a message). */
export function toCodexJsonl(id: string, project: string, turns: UpdateTurn[], start: Date): string {
	const at = (i: number) => new Date(start.getTime() + i * 30_000).toISOString();
	const records: unknown[] = [
		{
			timestamp: at(0),
			type: "session_meta",
			payload: { id, timestamp: at(0), cwd: `/home/dev/${project}`, originator: "codex-tui", cli_version: "0.131.0", source: "cli" },
		},
		...turns.map((t, i) => ({
			timestamp: at(i + 1),
			type: "response_item",
			payload: {
				type: "message",
				role: t.role,
				content: [{ type: t.role === "user" ? "input_text" : "output_text", text: t.text }],
			},
		})),
	];
	return records.map((r) => JSON.stringify(r)).join("\n");
}

/** The session's transcript as its agent writes it, starting at 09:00 UTC on the session's day. */
export function transcriptOf(timeline: Timeline, session: UpdateSession): { body: string; format: string } {
	const start = new Date(`${session.date}T09:00:00Z`);
	const id = `${timeline.id}-${session.id}`;
	if (session.agent === "codex") return { body: toCodexJsonl(id, timeline.project, session.turns, start), format: "codex" };
	return {
		body: toClaudeJsonl({ id, lang: timeline.lang, project: timeline.project, agent: "claude", turns: session.turns }, start),
		format: "claude",
	};
}

const hasAll = (text: string, keys: string[]) => {
	const lower = text.toLowerCase();
	return keys.every((k) => lower.includes(k.toLowerCase()));
};

/** History lines ("Earlier:", `- was "…" … until <date> …`) say what a value was, not what it is: left out. */
export const servedAsCurrent = (text: string) =>
	text
		.split("\n")
		.filter((l) => !/^\W*Earlier:\s*$/.test(l) && !/^\W*(?:-\s*)?was ".*".*\buntil \d{4}-\d{2}-\d{2}/.test(l))
		.join("\n");

/** Words that mark a change, in both languages: a memory holding one and no value of any subject only says something changed. */
const CHANGE = /\b(?:changed|moved|updated|switched|migrated|is different)\b|바뀌|바꼈|변경|옮겼|달라졌/i;

export interface SubjectScore {
	timeline: string;
	subject: string;
	kind: string;
	changes: number;
	returns: boolean;
	block: { newest: boolean; stale: boolean };
	recall: { newest: boolean; stale: boolean; first: string | null };
	served?: string;
}

export interface UpdateFigures {
	subjects: number;
	/** Newest value served and no older one as current, in the prompt's block / as recall's first answer / both. */
	block: number;
	recall: number;
	both: number;
	/** Subjects with an older value served as current in the block. */
	staleInBlock: number;
	changeOnly: number;
	rows: SubjectScore[];
	changeOnlyMemories: string[];
}

/** Scores one subject against a served text: the newest value in it, and whether an older value is served as current. */
export function judge(subject: UpdateSubject, text: string): { newest: boolean; stale: boolean } {
	const current = servedAsCurrent(text);
	const final = subject.values[subject.final]?.key ?? [];
	const same = (v: UpdateValue) => JSON.stringify(v.key.map((k) => k.toLowerCase())) === JSON.stringify(final.map((k) => k.toLowerCase()));
	return {
		newest: hasAll(current, final),
		stale: subject.values.some(
			(v) => !same(v) && hasAll(current, v.key) && !final.some((f) => f.toLowerCase().includes(v.key.join(" ").toLowerCase())),
		),
	};
}

export function summariseUpdates(rows: SubjectScore[], changeOnlyMemories: string[]): UpdateFigures {
	const right = (r: { newest: boolean; stale: boolean }) => r.newest && !r.stale;
	const n = rows.length || 1;
	return {
		subjects: rows.length,
		block: rows.filter((r) => right(r.block)).length / n,
		recall: rows.filter((r) => right(r.recall)).length / n,
		both: rows.filter((r) => right(r.block) && right(r.recall)).length / n,
		staleInBlock: rows.filter((r) => r.block.stale).length,
		changeOnly: changeOnlyMemories.length,
		rows,
		changeOnlyMemories,
	};
}

/** What the scripted models say, per session: the stage-1 candidates for the statements of the set. */
export interface Script {
	/** Subjects whose value a session's candidates carried, latest first seen last (for the consolidation model). */
	latest: Map<string, { description: string; type: "feedback" | "user" | "project"; session: string }>;
	created: Set<string>;
}

const typeOf = (kind: UpdateSubject["kind"]) => (kind === "rule" ? "feedback" : kind === "preference" ? "user" : "project");
const answer = (value: unknown) => ({
	content: [{ type: "text" as const, text: JSON.stringify(value) }],
	finishReason: { unified: "stop" as const, raw: "stop" },
	usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
	warnings: [],
});
/** The prompt's text, every message and part. */
const promptText = (options: { prompt: readonly { content: unknown }[] }) =>
	options.prompt
		.map((m) =>
			typeof m.content === "string"
				? m.content
				: Array.isArray(m.content)
					? m.content.map((p: { text?: string }) => p.text ?? "").join("\n")
					: "",
		)
		.join("\n");

/**
 * Scripted models for one timeline, answering as the extraction and consolidation schemas expect: stage 1
 * returns, for each user turn of the range that states a value, a candidate named by its subject with the
 * value (a correction when it is not the first value); consolidation creates the subject's memory the first
 * time and updates it in place after. They stand in for a model's judgement; the pipeline around them is real.
 */
export function scriptedModels(timeline: Timeline): { extract: MockLanguageModelV4; consolidate: MockLanguageModelV4 } {
	const script: Script = { latest: new Map(), created: new Set() };
	const subjects = new Map(timeline.subjects.map((s) => [s.id, s]));
	const stating = timeline.sessions.flatMap((s) => s.turns.filter((t) => t.role === "user" && t.states?.length));
	const extract = new MockLanguageModelV4({
		doGenerate: async (options) => {
			const prompt = promptText(options);
			const candidates = [];
			const session = /^Session: (\S+)/m.exec(prompt)?.[1] ?? "";
			for (const line of prompt.split("\n")) {
				if (!line.startsWith('{"id":"t')) continue;
				let item: { id?: string; role?: string; text?: string };
				try {
					item = JSON.parse(line);
				} catch {
					continue;
				}
				if (item.role !== "user" || !item.id) continue;
				const turn = stating.find((t) => t.text === item.text);
				for (const s of turn?.states ?? []) {
					const subject = subjects.get(s.subject);
					const value = subject?.values[s.value];
					if (!subject || !value) continue;
					// The sentence that states the value, without the values it replaces: what a model writes.
					const others = subject.values.flatMap((v) => v.key).filter((k) => !value.key.includes(k));
					const sentence =
						(item.text ?? "").split(/(?<=[.!?。])\s+|\n/).find((x) => value.key.every((k) => x.toLowerCase().includes(k.toLowerCase()))) ??
						value.key.join(" ");
					const description = others
						.reduce((text, k) => text.split(k).join(""), sentence)
						.replace(/\s+/g, " ")
						.trim();
					script.latest.set(subject.id, { description, type: typeOf(subject.kind), session });
					candidates.push({
						name: subject.id,
						type: typeOf(subject.kind),
						description,
						body: `${description}.`,
						evidence: [item.id],
						...(s.value > 0 ? { correction: true } : {}),
					});
				}
			}
			return answer({ raw_memory: candidates.map((c) => `- ${c.description}`).join("\n"), summary: "A session.", candidates });
		},
	});
	const consolidate = new MockLanguageModelV4({
		doGenerate: async (options) => {
			const prompt = promptText(options);
			const operations = [];
			for (const [name, latest] of script.latest) {
				if (!prompt.includes(latest.description)) continue;
				const op = script.created.has(name) ? "update" : "create";
				script.created.add(name);
				operations.push({
					op,
					name,
					type: latest.type,
					description: latest.description,
					body: `${latest.description}.`,
					reason: op === "update" ? "a newer statement of the same subject" : "new durable statement",
					evidence: [latest.session],
				});
			}
			return answer({ operations, skills: [], retiredSkills: [], summary: "" });
		},
	});
	return { extract, consolidate };
}

/**
 * Runs one timeline through the Worker: a project (memory on), every session posted as its agent's
 * transcript and ended in time order, each extracted by the queue consumer and consolidated before the
 * next; then every probe asked in a new session: what is in front of the model is the session-start block and
 * the probe's own block (as the hooks ask for them), and recall's first answer is read back. `prepare` hands the project's object its models (scripted, or none).
 */
export async function runTimeline(
	call: Caller,
	timeline: Timeline,
	projectId: string,
	prepare?: (projectId: string) => Promise<void>,
	debug?: (line: string) => void,
): Promise<{ rows: SubjectScore[]; changeOnly: string[] }> {
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", json: { "memories.enabled": true } });
	await prepare?.(projectId);
	for (const [i, session] of timeline.sessions.entries()) {
		const id = `${timeline.id}-${session.id}`;
		const { body, format } = transcriptOf(timeline, session);
		const posted = await call(`/v1/projects/${projectId}/sessions/${id}/transcript?format=${format}`, {
			body,
			headers: { "Content-Type": "application/x-ndjson" },
		});
		if (posted.status !== 200) throw new Error(`posting ${id}: ${posted.status}`);
		const ended = await call(`/v1/projects/${projectId}/sessions/${id}/end`, { method: "POST" });
		if (ended.status !== 202) throw new Error(`ending ${id}: ${ended.status}`);
		await waitFor(
			async () =>
				((await (await call(`/v1/projects/${projectId}/sessions`)).json()) as { sessions: { cursor: number; turns: number }[] }).sessions,
			(list) => list.length >= i + 1 && list.every((s) => s.cursor === s.turns),
			300_000,
		);
		const started = await call(`/v1/projects/${projectId}/consolidate`, { method: "POST" });
		if (started.status !== 202) throw new Error(`consolidating ${timeline.id}: ${started.status}`);
		await waitFor(
			async () =>
				(
					(await (await call(`/v1/projects/${projectId}/status`)).json()) as {
						pipeline: { pendingOutputs: number; running: boolean; lastRun?: { outcome: string } };
					}
				).pipeline,
			(p) => p.pendingOutputs === 0 && !p.running && p.lastRun !== undefined,
			300_000,
		);
	}
	const listed = ((await (await call(`/v1/projects/${projectId}/memories`)).json()) as { memories: { name: string }[] }).memories;
	const texts = new Map<string, string>();
	for (const m of listed) texts.set(m.name, await (await call(`/v1/projects/${projectId}/memories/${m.name}`)).text());
	const keys = timeline.subjects.flatMap((s) => s.values.flatMap((v) => v.key));
	const changeOnly = [...texts.entries()]
		.filter(([, text]) => {
			const current = servedAsCurrent(text.replace(/^---[\s\S]*?\n---\n/, (fm) => fm.replace(/^name: .*$/m, "")));
			return CHANGE.test(current) && !keys.some((k) => current.toLowerCase().includes(k.toLowerCase()));
		})
		.map(([name]) => `${timeline.id}/${name}`);
	if (debug) for (const [name, text] of texts) debug(`${name}: ${text.replace(/\n/g, " ⏎ ")}`);
	const rows: SubjectScore[] = [];
	for (const [i, subject] of timeline.subjects.entries()) {
		// In front of the model, as the hooks ask: a new session's start block, then the probe's own block.
		const sessionId = `${timeline.id}-probe-${i}`;
		const start = (await (
			await call(`/v1/projects/${projectId}/inject`, {
				json: { context: { folder: timeline.project, branch: "main" }, sessionId, maxChars: 9500 },
			})
		).json()) as { text: string };
		const prompt = (await (
			await call(`/v1/projects/${projectId}/inject`, {
				json: { query: subject.probe, include: "memories", sessionId, onlyNew: true, maxChars: 9500 },
			})
		).json()) as { text: string };
		const block = { text: `${start.text}\n${prompt.text}` };
		const recalled = (await (await call(`/v1/projects/${projectId}/recall`, { json: { query: subject.probe } })).json()) as {
			memories: { name: string }[];
		};
		const first = recalled.memories[0]?.name ?? null;
		const firstText = first ? (texts.get(first) ?? "").replace(/^name: .*$/m, "") : "";
		const seen = subject.values.map((v) => JSON.stringify(v.key));
		rows.push({
			timeline: timeline.id,
			subject: subject.id,
			kind: subject.kind,
			changes: subject.values.length - 1,
			returns: new Set(seen).size < seen.length,
			block: judge(subject, block.text),
			...(debug ? { served: block.text } : {}),
			recall: { ...judge(subject, firstText), first },
		});
	}
	return { rows, changeOnly };
}
