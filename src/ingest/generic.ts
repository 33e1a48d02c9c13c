import { lookup, lookupTable } from "../lib/lookup";
import {
	type Adapter,
	type AdapterResult,
	clipText,
	clipToolResult,
	contentText,
	immediateAdapter,
	type RawRecord,
	runAdapter,
	str,
	toolCallText,
} from "../sessions/turns";
import { detectAgentWrite } from "./agent-writes";
import { detectFileAccess } from "./file-access";
import { detectMemoryRead } from "./memory-use";

const ROLES: Readonly<Record<string, "user" | "assistant" | "tool_call" | "tool_result">> = lookupTable({
	user: "user",
	human: "user",
	assistant: "assistant",
	ai: "assistant",
	tool_call: "tool_call",
	tool: "tool_result",
	tool_result: "tool_result",
});

/**
 * Generic NDJSON: `{"id","role","content","ts"}` per line. `role` is user, assistant, tool_call or
 * tool (a result); `system` lines and unknown roles are skipped. Without `id`, the line's hash is the id.
 * Tool lines may carry `name` and `call_id`; a tool call that wrote Cairn memory (`memory_write`,
 * `cairn remember` in a `command`) is flagged `agentWrite`.
 */
export function genericAdapter(): Adapter {
	const out: AdapterResult = { agent: "generic", turns: [], skipped: 0, unknown: 0 };
	return immediateAdapter(out, ({ value: r, hash }) => {
		const role = lookup(ROLES, String(r.role ?? "").toLowerCase());
		const text = contentText(r.content);
		if (!role || !text.trim()) {
			out.skipped++;
			if (!role && r.role !== "system") out.unknown++;
			return;
		}
		const id = typeof r.id === "string" || typeof r.id === "number" ? String(r.id) : hash;
		const ts = str(r.ts) ?? str(r.timestamp) ?? null;
		const name = str(r.name);
		out.turns.push({
			key: id,
			id,
			role,
			ts,
			text: role === "tool_result" ? clipToolResult(text) : role === "tool_call" ? toolCallText(name ?? "tool", r.content) : clipText(text),
			...(name ? { tool: name } : {}),
			...(str(r.call_id) ? { callId: str(r.call_id) } : {}),
			...(role === "tool_call" ? detectAgentWrite(name ?? "", r.content) : {}),
			...(role === "tool_call" ? detectMemoryRead(name ?? "", r.content) : {}),
			...(role === "tool_call" ? detectFileAccess(name ?? "", r.content) : {}),
		});
	});
}

export const parseGeneric = (records: RawRecord[]): AdapterResult => runAdapter(genericAdapter(), records);
