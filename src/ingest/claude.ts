import {
	type Adapter,
	type AdapterResult,
	clipText,
	clipToolResult,
	contentText,
	isObject,
	type ParsedTurn,
	type RawRecord,
	runAdapter,
	str,
	toolCallText,
} from "../sessions/turns";
import { detectAgentWrite, runsCairnRemember } from "./agent-writes";
import { detectFileAccess } from "./file-access";
import { detectMemoryRead } from "./memory-use";

/**
 * Record types that carry no conversation: titles, timing, file snapshots, the input queue (its
 * absorbed prompts excepted, below), attachments (queued prompts excepted), session settings.
 */
const METADATA_TYPES = new Set([
	"summary",
	"system",
	"file-history-snapshot",
	"queue-operation",
	"progress",
	"custom-title",
	"ai-title",
	"tag",
	"attachment",
	"last-prompt",
	"agent-name",
	"agent-color",
	"mode",
	"permission-mode",
	"pr-link",
	"saved_hook_context",
]);

/** `origin.kind` values Claude Code gives user records that no person typed. */
const NOT_HUMAN_ORIGINS = new Set(["task-notification", "peer", "coordinator", "auto-continuation", "channel", "hook", "system", "agent"]);

/**
 * User-role text the harness writes, not the person: command output, `!` command output, background
 * task and sub-agent notifications, messages from other sessions, hook echoes, the compaction summary
 * (when it lacks its flag).
 */
const NOT_SPEECH =
	/^\s*(?:<(?:local-command-stdout|local-command-stderr|local-command-caveat|bash-stdout|bash-stderr|task-notification|agent-message|channel|user-prompt-submit-hook|persisted-output)\b|Caveat: The messages below were generated|This session is being continued from a previous conversation|\[SYSTEM NOTIFICATION|Stop hook feedback:)/;
/** Reminders Claude Code wraps around injected context; they can sit before or after what the user typed. */
const SYSTEM_REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
const BASH_INPUT = /^\s*<bash-input>([\s\S]*?)<\/bash-input>/;
const COMMAND_NAME = /<command-name>\s*([^<]*)<\/command-name>/;
const COMMAND_ARGS = /<command-args>([\s\S]*?)<\/command-args>/;
const MEMORY_INPUT = /^\s*<user-memory-input>([\s\S]*?)<\/user-memory-input>\s*$/;
const INTERRUPT = /^\[Request interrupted by user/;

type UserText = Pick<ParsedTurn, "text" | "kind" | "agentWrite">;

/** A `!` shell command the user ran: kept as a command; `!cairn remember …` is an explicit write. */
function shellCommand(command: string): UserText {
	const line = command.trim();
	return { text: clipText(`!${line}`), kind: "command", ...(runsCairnRemember(line) ? { agentWrite: true } : {}) };
}

/**
 * What a user text block is: a slash command, a `!` shell command, an interruption (all tagged
 * `kind`), something the person said, or — null — text the harness wrote in the user's name.
 */
export function userText(raw: string): UserText | null {
	const text = raw.replace(SYSTEM_REMINDER, "").trim();
	if (!text || NOT_SPEECH.test(text)) return null;
	const bash = BASH_INPUT.exec(text);
	if (bash) return shellCommand(bash[1] ?? "");
	if (text.startsWith("<command-")) {
		const name = (COMMAND_NAME.exec(text)?.[1] ?? "").trim();
		if (name) {
			const args = (COMMAND_ARGS.exec(text)?.[1] ?? "").trim();
			return { text: clipText(`${name.startsWith("/") ? name : `/${name}`}${args ? ` ${args}` : ""}`), kind: "command" };
		}
	}
	if (INTERRUPT.test(text)) return { text, kind: "interrupt" };
	const memory = MEMORY_INPUT.exec(text);
	if (memory) return (memory[1] ?? "").trim() ? { text: clipText((memory[1] ?? "").trim()) } : null;
	return { text: clipText(text) };
}

/** The text a queued prompt (attachment or queue record) carries, or null when it is not the person's. */
function queuedText(prompt: unknown, mode: string | undefined): UserText | null {
	const text = contentText(prompt);
	if (!text.trim()) return null;
	if (mode === "bash") return shellCommand(text);
	return mode === undefined || mode === "prompt" ? userText(text) : null;
}

/**
 * Claude Code session JSONL. Each user/assistant record has a `uuid` and a `parentUuid` (the
 * records form a tree; file order is arrival order). Handling, record by record:
 * - user text → user turn; `isMeta` caveats, the compaction summary (`isCompactSummary`), records
 *   shown only in the transcript view, records whose `origin` is not a person, command output,
 *   `!` command output, task notifications and `<system-reminder>` text are not the user speaking
 *   and are dropped; slash commands, `!` commands and interruption notices are kept, tagged `kind`;
 * - prompts typed while the agent worked: a `queued_command` attachment, or — in builds that write
 *   none — the `queue-operation` `remove` that absorbed the prompt into the running turn, become user
 *   turns (once; an enqueue that is later dequeued arrives again as an ordinary user record);
 * - tool results (which arrive as *user* records) → tool_result turns joined by `tool_use_id`;
 * - assistant text → assistant turn; tool_use → tool_call turn, flagged `agentWrite` when it wrote
 *   Cairn memory and `readsMemory` when it read a memory:// file; thinking is private reasoning and is dropped;
 * - sub-agent records (`isSidechain`, from `<session>/subagents/agent-<id>.jsonl` or inline in older
 *   builds) are kept and tagged `sidechain` with their `agentId`;
 * - summary, system, file-history-snapshot, the other queue operations, other attachments and
 *   session settings are metadata, skipped.
 */
export function claudeAdapter(): Adapter {
	const out: AdapterResult = { agent: "claude", turns: [], skipped: 0, unknown: 0 };
	// Prompts the post holds as queued_command attachments: their queue records are copies. A prompt a
	// queue record absorbed waits until QUEUE_LOOKAHEAD more records have arrived (or the end) before it
	// is kept, since its attachment may come just after it.
	const attached = new Set<string>();
	const enqueued: string[] = [];
	const queue: { turn: ParsedTurn; absorbed?: string; at: number }[] = [];
	let seen = 0;

	const push = ({ value: r, hash }: RawRecord) => {
		seen++;
		if (r.type === "attachment" && isObject(r.attachment) && r.attachment.type === "queued_command") {
			attached.add(contentText(r.attachment.prompt).trim());
		}
		const type = str(r.type);
		const cwd = str(r.cwd);
		const branch = str(r.gitBranch);
		const base = (id: string) => ({
			id,
			ts: str(r.timestamp) ?? null,
			...(cwd ? { cwd } : {}),
			...(branch ? { branch } : {}),
			...(r.isSidechain === true ? { sidechain: true, ...(str(r.agentId) ? { agentId: str(r.agentId) } : {}) } : {}),
			...(str(r.parentUuid) ? { parentId: str(r.parentUuid) } : {}),
		});

		if (type === "queue-operation") {
			const content = str(r.content)?.trim();
			let absorbed: string | undefined;
			if (r.operation === "enqueue" && content) enqueued.push(content);
			else if (r.operation === "dequeue") enqueued.shift();
			else if (r.operation === "popAll") enqueued.length = 0;
			else if (r.operation === "remove") {
				const i = content ? enqueued.indexOf(content) : 0;
				absorbed = content ?? enqueued[0];
				if (i >= 0) enqueued.splice(i, 1);
			}
			const turn = absorbed ? queuedText(absorbed, "prompt") : null;
			if (turn && absorbed) queue.push({ turn: { ...base(hash), key: hash, role: "user", ...turn }, absorbed, at: seen });
			else out.skipped++;
			return;
		}
		if (type === "attachment") {
			const a = isObject(r.attachment) ? r.attachment : {};
			const origin = isObject(a.origin) ? str(a.origin.kind) : undefined;
			const human = a.type === "queued_command" && a.isMeta !== true && r.isMeta !== true && (!origin || origin === "human");
			const turn = human ? queuedText(a.prompt, str(a.commandMode)) : null;
			const id = str(r.uuid) ?? hash;
			if (turn)
				queue.push({
					turn: {
						...base(id),
						...(str(a.timestamp) && !str(r.timestamp) ? { ts: str(a.timestamp) } : {}),
						key: id,
						role: "user",
						...turn,
					},
					at: seen,
				});
			else out.skipped++;
			return;
		}
		if (type !== "user" && type !== "assistant") {
			if (type && METADATA_TYPES.has(type)) out.skipped++;
			else {
				out.skipped++;
				out.unknown++;
			}
			return;
		}
		if (cwd) out.cwd = cwd;
		if (branch) out.branch = branch;
		const origin = isObject(r.origin) ? str(r.origin.kind) : undefined;
		if (
			r.isMeta === true ||
			r.isCompactSummary === true ||
			r.isVisibleInTranscriptOnly === true ||
			(type === "user" && origin && NOT_HUMAN_ORIGINS.has(origin)) ||
			!isObject(r.message)
		) {
			out.skipped++;
			return;
		}
		const id = str(r.uuid) ?? hash;
		const content = r.message.content;
		const produced: ParsedTurn[] = [];
		if (typeof content === "string") {
			const said = type === "user" ? userText(content) : { text: clipText(content) };
			if (said?.text.trim()) produced.push({ ...base(id), key: id, role: type, ...said });
		} else if (Array.isArray(content)) {
			content.forEach((block, i) => {
				if (!isObject(block)) return;
				const key = `${id}#${i}`;
				switch (block.type) {
					case "text": {
						const text = str(block.text) ?? "";
						const turn = type === "user" ? userText(text) : { text: clipText(text) };
						if (turn?.text.trim()) produced.push({ ...base(id), key, role: type, ...turn });
						break;
					}
					case "tool_use": {
						const name = str(block.name) ?? "tool";
						produced.push({
							...base(id),
							key,
							role: "tool_call",
							text: toolCallText(name, block.input),
							tool: name,
							callId: str(block.id),
							...detectAgentWrite(name, block.input),
							...detectMemoryRead(name, block.input),
							...detectFileAccess(name, block.input),
						});
						break;
					}
					case "tool_result": {
						// Tool output carries reminders Claude Code appends for the model (e.g. after a file read).
						const body = contentText(block.content).replace(SYSTEM_REMINDER, "").trimEnd();
						produced.push({
							...base(id),
							key,
							role: "tool_result",
							text: clipToolResult(block.is_error === true ? `error: ${body}` : body),
							callId: str(block.tool_use_id),
						});
						break;
					}
					default:
						// thinking, redacted_thinking, images on their own: nothing to keep.
						break;
				}
			});
		}
		if (produced.length === 0) out.skipped++;
		for (const turn of produced) queue.push({ turn, at: seen });
	};

	const take = (final: boolean): ParsedTurn[] => {
		const ready: ParsedTurn[] = [];
		while (queue.length > 0) {
			const next = queue[0] as (typeof queue)[number];
			if (next.absorbed !== undefined && !final && seen - next.at < QUEUE_LOOKAHEAD) break;
			queue.shift();
			if (next.absorbed !== undefined && attached.has(next.absorbed)) out.skipped++;
			else ready.push(next.turn);
		}
		return ready;
	};
	return { out, push, take };
}

/** Records a queued prompt's attachment may trail its queue record by. */
const QUEUE_LOOKAHEAD = 256;

export const parseClaude = (records: RawRecord[]): AdapterResult => runAdapter(claudeAdapter(), records);
