import { badRequest } from "../errors";
import { sha256Hex } from "../lib/ids";
import { parseClaude } from "./claude";
import { CODEX_ENVELOPE_TYPES, CODEX_ITEM_TYPES, parseCodex } from "./codex";
import { parseGeneric } from "./generic";
import { type AdapterResult, type Agent, isObject, type RawRecord } from "./turns";

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

/** The format of a transcript: the first record that says decides. */
export function detectFormat(records: RawRecord[]): Agent {
	for (const { value } of records) {
		const agent = recordAgent(value);
		if (agent) return agent;
	}
	return "generic";
}

/**
 * Splits an NDJSON body into records. A line that is not a JSON object fails the whole request with
 * its line number (and nothing from the request is stored); blank lines are ignored.
 */
export async function readRecords(body: string): Promise<RawRecord[]> {
	const records: RawRecord[] = [];
	const lines = body.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const line = (lines[i] ?? "").trim();
		if (!line) continue;
		let value: unknown;
		try {
			value = JSON.parse(line);
		} catch {
			throw badRequest(`line ${i + 1} is not valid JSON`, { line: i + 1 });
		}
		if (!isObject(value)) throw badRequest(`line ${i + 1} is not a JSON object`, { line: i + 1 });
		records.push({ line: i + 1, hash: (await sha256Hex(line)).slice(0, 32), value });
	}
	return records;
}

/** Normalises records into turns with the adapter for `format` (detected when `auto`). */
export function normalise(records: RawRecord[], format: Format): AdapterResult {
	const agent = format === "auto" ? detectFormat(records) : format;
	const result = agent === "claude" ? parseClaude(records) : agent === "codex" ? parseCodex(records) : parseGeneric(records);
	// Tool results name the tool of the call they answer, and the result of an agent's memory write is part of that write.
	const calls = new Map(result.turns.filter((t) => t.role === "tool_call" && t.callId).map((t) => [t.callId, t]));
	for (const t of result.turns) {
		const call = t.role === "tool_result" && t.callId ? calls.get(t.callId) : undefined;
		if (!call) continue;
		if (!t.tool && call.tool) t.tool = call.tool;
		if (call.agentWrite) {
			t.agentWrite = true;
			if (call.memoryName) t.memoryName = call.memoryName;
		}
	}
	return result;
}
