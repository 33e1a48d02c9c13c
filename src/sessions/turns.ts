/** The one turn model every transcript format is normalised into. */
export type TurnRole = "user" | "assistant" | "tool_call" | "tool_result";

export const AGENTS = ["claude", "codex", "generic"] as const;
export type Agent = (typeof AGENTS)[number];

export interface Turn {
	/** Position in the session, assigned at ingest: 0, 1, 2, … in arrival order. */
	seq: number;
	/** The native id the turn came from (record uuid, call id, or a hash of the line). */
	id: string;
	role: TurnRole;
	text: string;
	ts: string | null;
	cwd?: string;
	branch?: string;
	/** Turns of a sub-agent run inside the session (Claude Code sidechains, Codex sub-agent rollouts). */
	sidechain?: boolean;
	/** The sub-agent a sidechain turn belongs to (Claude Code `agentId`), so several sub-agents stay apart. */
	agentId?: string;
	/** User turns that are not free text: a slash or shell (`!`) command, an interruption notice. */
	kind?: "command" | "interrupt";
	/** Tool name for tool calls; call id joins a call to its result. */
	tool?: string;
	callId?: string;
	parentId?: string;
	/**
	 * The tool call (and its result) by which the agent wrote Cairn memory itself: `memory_write` under
	 * any MCP server name, or `cairn remember …` run in a shell (also a `!cairn remember` the user typed).
	 * Stage 1 leaves these turns out: explicit writes beat automatic extraction.
	 */
	agentWrite?: boolean;
	/** The memory an agent write names, when the call says (`memory_write` input.name). */
	memoryName?: string;
	/** The memory:// URL a tool call read: Cairn's `memory_read` under any server name, or an MCP resource read. */
	readsMemory?: string;
	/** The files a tool call read or edited, as it names them (src/ingest/file-access.ts). */
	files?: string[];
}

/** A turn as an adapter produces it: `key` de-duplicates it across posts; seq comes later. */
export type ParsedTurn = Omit<Turn, "seq"> & { key: string };

export interface AdapterResult {
	agent: Agent;
	turns: ParsedTurn[];
	/** Records that produced no turn on purpose (metadata, reasoning, mirrored events). */
	skipped: number;
	/** Records of a type this adapter does not know; skipped and counted, never fatal. */
	unknown: number;
	cwd?: string;
	branch?: string;
}

/**
 * An adapter fed one record at a time, so a transcript is read as it streams in: `take` hands over
 * the turns that are final, in arrival order (`final` at the end of the post), and `out` keeps the
 * counters, cwd and branch.
 */
export interface Adapter {
	out: AdapterResult;
	push(record: RawRecord): void;
	take(final: boolean): ParsedTurn[];
}

/** Runs an adapter over records already in memory. */
export function runAdapter(adapter: Adapter, records: RawRecord[]): AdapterResult {
	for (const r of records) adapter.push(r);
	return { ...adapter.out, turns: adapter.take(true) };
}

/** An adapter whose turns are final as soon as their record is read. */
export function immediateAdapter(out: AdapterResult, push: (record: RawRecord) => void): Adapter {
	return { out, push, take: () => out.turns.splice(0) };
}

/** One parsed NDJSON line with its 1-based line number and a stable hash of its text. */
export interface RawRecord {
	line: number;
	hash: string;
	value: Record<string, unknown>;
}

const TEXT_LIMIT = 16_000;
const TOOL_CALL_LIMIT = 2_000;
const TOOL_RESULT_LIMIT = 4_000;

/**
 * Keeps the head and tail of long text. Extraction needs what was asked and decided, not whole
 * tool outputs, and the cap bounds what one session costs to store and to read back.
 */
export function clip(text: string, limit: number): string {
	if (text.length <= limit) return text;
	const head = Math.floor(limit * 0.75);
	const tail = limit - head;
	return `${text.slice(0, head)}\n[… ${text.length - limit} characters omitted …]\n${text.slice(text.length - tail)}`;
}

export const clipText = (text: string) => clip(text, TEXT_LIMIT);
export const clipToolCall = (text: string) => clip(text, TOOL_CALL_LIMIT);
export const clipToolResult = (text: string) => clip(text, TOOL_RESULT_LIMIT);

export const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Text of a content value that may be a string, a list of blocks with `text`, or anything else. */
export function contentText(content: unknown): string {
	if (typeof content === "string") return content;
	if (Array.isArray(content)) {
		return content
			.map((b) => (typeof b === "string" ? b : isObject(b) ? (str(b.text) ?? (b.type === "image" ? "[image]" : "")) : ""))
			.filter(Boolean)
			.join("\n");
	}
	if (content === undefined || content === null) return "";
	return JSON.stringify(content);
}

/** A tool call rendered as one line of text: `name {json args}`. */
export function toolCallText(name: string, input: unknown): string {
	const args = typeof input === "string" ? input : JSON.stringify(input ?? {});
	return clipToolCall(`${name} ${args}`);
}

/** Session ids as agents send them (UUIDs, rollout ids): letters, digits, '.', '_', ':', '-'. */
export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Session ids are per user. A session row is keyed by the id as the agent sent it when that id was
 * free in the project (every session before ids were per user, and nearly every one since: agents
 * send UUIDs), and by `<id>@<user id>` for a user whose id another user already holds. Neither user
 * learns of the other; '@' is outside SESSION_ID_PATTERN, so no caller can name the scoped form.
 */
export const scopedSessionId = (userId: string, sessionId: string) => `${sessionId}@${userId}`;

/** The id as its agent sent it: what responses show for a session row. */
export const clientSessionId = (storedId: string) => storedId.split("@")[0] ?? storedId;
