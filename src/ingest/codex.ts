import {
	type AdapterResult,
	clipText,
	clipToolResult,
	contentText,
	isObject,
	type ParsedTurn,
	type RawRecord,
	str,
	toolCallText,
} from "./turns";

/** Response-item types, as they appear in `payload` (envelope) or bare (legacy files). */
export const CODEX_ITEM_TYPES = new Set([
	"message",
	"reasoning",
	"function_call",
	"function_call_output",
	"custom_tool_call",
	"custom_tool_call_output",
	"local_shell_call",
	"local_shell_call_output",
	"web_search_call",
	"tool_search_call",
	"tool_search_output",
	"image_generation_call",
	"ghost_snapshot",
	"compaction",
]);
export const CODEX_ENVELOPE_TYPES = new Set(["session_meta", "turn_context", "response_item", "event_msg", "compacted"]);

/** User messages Codex writes itself to carry context, not things the user said. */
const INJECTED_USER_TEXT =
	/^\s*(<environment_context>|<user_instructions>|<permissions instructions>|# AGENTS\.md instructions|<INSTRUCTIONS>|<turn_aborted>)/;
const SHELL_COMMAND = /^\s*<user_shell_command>([\s\S]*?)<\/user_shell_command>/;

/** One response item → at most one turn. Returns null for items that carry nothing to keep. */
function itemTurn(item: Record<string, unknown>, key: string, ts: string | null, cwd: string | undefined): ParsedTurn | null | "unknown" {
	const base = { key, id: str(item.id) ?? key, ts, ...(cwd ? { cwd } : {}) };
	switch (item.type) {
		case "message": {
			const role = str(item.role);
			const text = contentText(item.content);
			if (!text.trim()) return null;
			if (role === "assistant") return { ...base, role: "assistant", text: clipText(text) };
			if (role !== "user" || INJECTED_USER_TEXT.test(text)) return null; // developer/system prompts, injected context
			const shell = SHELL_COMMAND.exec(text);
			if (shell) return { ...base, role: "user", kind: "command", text: clipText(`!${(shell[1] ?? "").trim()}`) };
			return { ...base, role: "user", text: clipText(text) };
		}
		case "function_call":
		case "custom_tool_call": {
			const name = str(item.name) ?? "tool";
			const input = item.type === "function_call" ? item.arguments : item.input;
			return { ...base, role: "tool_call", text: toolCallText(name, input), tool: name, callId: str(item.call_id) };
		}
		case "local_shell_call": {
			const action = isObject(item.action) ? item.action : {};
			return {
				...base,
				role: "tool_call",
				text: toolCallText("shell", action.command ?? action),
				tool: "shell",
				callId: str(item.call_id),
			};
		}
		case "web_search_call": {
			const action = isObject(item.action) ? item.action : {};
			return { ...base, role: "tool_call", text: toolCallText("web_search", action.query ?? action), tool: "web_search" };
		}
		case "function_call_output":
		case "custom_tool_call_output":
		case "local_shell_call_output": {
			const output = item.output;
			const text = isObject(output) ? (str(output.content) ?? JSON.stringify(output)) : contentText(output);
			return { ...base, role: "tool_result", text: clipToolResult(text), callId: str(item.call_id) };
		}
		default:
			// reasoning is encrypted or private; snapshots and compaction markers carry no conversation.
			return CODEX_ITEM_TYPES.has(String(item.type)) ? null : "unknown";
	}
}

/**
 * Codex rollout JSONL, in both forms:
 * - envelope: `{timestamp, type, payload}`. `response_item` payloads become turns. User and
 *   assistant text is mirrored as `event_msg` user_message/agent_message: those mirrors are skipped,
 *   so each message is kept once. Tool calls are joined to their outputs by `call_id`.
 *   `session_meta` and `turn_context` give cwd and branch; `compacted` records restate history the
 *   file already holds (a summary plus replacement items) and are skipped.
 * - legacy: a bare `{id, timestamp, instructions?}` first line, then bare response items and
 *   `{record_type: "state"}` lines.
 * Developer/system messages and the context Codex injects as user messages (environment context,
 * AGENTS.md instructions) are not user turns.
 */
export function parseCodex(records: RawRecord[]): AdapterResult {
	const out: AdapterResult = { agent: "codex", turns: [], skipped: 0, unknown: 0 };
	let cwd: string | undefined;
	for (const { value: r, hash } of records) {
		const payload = isObject(r.payload) ? r.payload : null;
		const ts = str(r.timestamp) ?? null;
		let item: Record<string, unknown> | null = null;
		if (payload && typeof r.type === "string") {
			switch (r.type) {
				case "session_meta": {
					cwd = str(payload.cwd) ?? cwd;
					const git = isObject(payload.git) ? payload.git : {};
					out.branch = str(git.branch) ?? out.branch;
					out.skipped++;
					continue;
				}
				case "turn_context":
					cwd = str(payload.cwd) ?? cwd;
					out.skipped++;
					continue;
				case "response_item":
					item = payload;
					break;
				case "event_msg":
				case "compacted":
					out.skipped++;
					continue;
				default:
					out.skipped++;
					out.unknown++;
					continue;
			}
		} else if (typeof r.type === "string" && CODEX_ITEM_TYPES.has(r.type)) {
			item = r;
		} else if (r.record_type === "state" || (typeof r.id === "string" && r.type === undefined)) {
			out.skipped++; // legacy session header or state line
			continue;
		} else {
			out.skipped++;
			out.unknown++;
			continue;
		}
		if (cwd) out.cwd = cwd;
		const turn = itemTurn(item, hash, ts, cwd);
		if (turn === "unknown") {
			out.skipped++;
			out.unknown++;
		} else if (turn === null) out.skipped++;
		else out.turns.push(turn);
	}
	return out;
}
