import { badRequest } from "../errors";
import { sha256Hex } from "../lib/ids";
import { type Adapter, type AdapterResult, type Agent, isObject, type ParsedTurn, type RawRecord } from "../sessions/turns";
import { claudeAdapter } from "./claude";
import { CODEX_ENVELOPE_TYPES, CODEX_ITEM_TYPES, codexAdapter } from "./codex";
import { genericAdapter } from "./generic";

export const FORMATS = ["auto", "claude", "codex", "generic"] as const;
export type Format = (typeof FORMATS)[number];

const CLAUDE_TYPES = new Set(["user", "assistant", "summary", "system", "file-history-snapshot", "queue-operation"]);

/** Which agent wrote one record, or null when the record alone does not say. */
function recordAgent(r: Record<string, unknown>): Agent | null {
	const type = typeof r.type === "string" ? r.type : undefined;
	if (isObject(r.payload) && type && CODEX_ENVELOPE_TYPES.has(type)) return "codex";
	if ("parentUuid" in r || ("uuid" in r && "sessionId" in r) || (type && CLAUDE_TYPES.has(type) && !("role" in r))) return "claude";
	if (r.record_type === "state" || (type && CODEX_ITEM_TYPES.has(type))) return "codex";
	if (typeof r.role === "string") return "generic";
	if (typeof r.id === "string" && typeof r.timestamp === "string" && type === undefined) return "codex"; // legacy header
	return null;
}

/** One NDJSON line as a record: a line that is not a JSON object fails the request with its line number. */
export async function parseLine(text: string, line: number): Promise<RawRecord | null> {
	const trimmed = text.trim();
	if (!trimmed) return null;
	let value: unknown;
	try {
		value = JSON.parse(trimmed);
	} catch {
		throw badRequest(`line ${line} is not valid JSON`, { line });
	}
	if (!isObject(value)) throw badRequest(`line ${line} is not a JSON object`, { line });
	return { line, hash: (await sha256Hex(trimmed)).slice(0, 32), value };
}

/**
 * Splits an NDJSON body into records. A line that is not a JSON object fails the whole request with
 * its line number (and nothing from the request is stored); blank lines are ignored.
 */
export async function readRecords(body: string): Promise<RawRecord[]> {
	const records: RawRecord[] = [];
	const lines = body.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const record = await parseLine(lines[i] ?? "", i + 1);
		if (record) records.push(record);
	}
	return records;
}

const adapterFor = (agent: Agent): Adapter =>
	agent === "claude" ? claudeAdapter() : agent === "codex" ? codexAdapter() : genericAdapter();

/** Records read before the format is known, at most: then the transcript is read as generic. */
const DETECT_RECORDS = 256;

/**
 * Reads a transcript record by record, as it streams in, into turns: detects the format from the
 * first record that says (`auto`), de-duplicates turns within the post, and names each tool result
 * after its call (the result of an agent's memory write is part of that write). Holds only what
 * the adapters hold back, never the records already turned into turns.
 */
export class TranscriptReader {
	private adapter: Adapter | null = null;
	private readonly waiting: RawRecord[] = [];
	private readonly keys = new Set<string>();
	private readonly calls = new Map<string, Pick<ParsedTurn, "tool" | "agentWrite" | "memoryName">>();
	duplicates = 0;

	constructor(format: Format) {
		if (format !== "auto") this.adapter = adapterFor(format);
	}

	/** The agent the transcript reads as (generic until a record says otherwise). */
	get agent(): Agent {
		return this.adapter?.out.agent ?? "generic";
	}

	get result(): Omit<AdapterResult, "turns"> {
		const { turns: _turns, ...out } = this.adapter?.out ?? { agent: "generic" as Agent, turns: [], skipped: 0, unknown: 0 };
		return out;
	}

	/** Feeds one record; returns the turns that became final. */
	push(record: RawRecord): ParsedTurn[] {
		if (!this.adapter) {
			const agent = recordAgent(record.value);
			if (agent === null && this.waiting.length < DETECT_RECORDS) {
				this.waiting.push(record);
				return [];
			}
			this.adapter = adapterFor(agent ?? "generic");
			for (const r of this.waiting.splice(0)) this.adapter.push(r);
		}
		this.adapter.push(record);
		return this.ready(false);
	}

	/** The end of the post: every turn still held back. */
	finish(): ParsedTurn[] {
		if (!this.adapter) {
			this.adapter = adapterFor("generic");
			for (const r of this.waiting.splice(0)) this.adapter.push(r);
		}
		return this.ready(true);
	}

	private ready(final: boolean): ParsedTurn[] {
		const out: ParsedTurn[] = [];
		for (const t of (this.adapter as Adapter).take(final)) {
			if (t.role === "tool_call" && t.callId) {
				this.calls.set(t.callId, {
					...(t.tool ? { tool: t.tool } : {}),
					...(t.agentWrite ? { agentWrite: true } : {}),
					...(t.memoryName ? { memoryName: t.memoryName } : {}),
				});
			}
			const call = t.role === "tool_result" && t.callId ? this.calls.get(t.callId) : undefined;
			if (call) {
				if (!t.tool && call.tool) t.tool = call.tool;
				if (call.agentWrite) {
					t.agentWrite = true;
					if (call.memoryName) t.memoryName = call.memoryName;
				}
			}
			if (this.keys.has(t.key)) this.duplicates++;
			else {
				this.keys.add(t.key);
				out.push(t);
			}
		}
		return out;
	}
}

/** Normalises records already in memory into turns (de-duplicated within them) with the adapter for `format`. */
export function normalise(records: RawRecord[], format: Format): AdapterResult & { duplicates: number } {
	const reader = new TranscriptReader(format);
	const turns = records.flatMap((r) => reader.push(r));
	turns.push(...reader.finish());
	return { ...reader.result, turns, duplicates: reader.duplicates };
}
