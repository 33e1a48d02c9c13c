import {
	type Adapter,
	type AdapterResult,
	clipText,
	clipToolResult,
	contentText,
	immediateAdapter,
	isObject,
	type ParsedTurn,
	type RawRecord,
	runAdapter,
	str,
	toolCallText,
} from "../sessions/turns";
import { detectAgentWrite, qualifiedToolName, runsCairnRemember } from "./agent-writes";
import { detectFileAccess } from "./file-access";
import { detectMemoryRead } from "./memory-use";

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

/**
 * Fragments Codex injects into user-role messages to carry context, not things the user said
 * (`codex-rs/core/src/context/*`, `codex-rs/protocol/src/instruction_markers.rs`): environment
 * context, AGENTS.md / user instructions, skill bodies, sub-agent notifications, aborted-turn notes,
 * hook prompts and hook context, goal / internal / extension context, plugin and mode instructions,
 * image wrappers, and the warnings older builds wrote as user text. Matched like Codex matches them:
 * at the start of one content item, ignoring case.
 */
const INJECTED_PREFIXES = [
	"<environment_context>",
	"<user_instructions>",
	"# agents.md instructions",
	"<instructions>",
	"<permissions instructions>",
	"<skill",
	"<turn_aborted>",
	"<subagent_notification>",
	"<context_update>",
	"<collaboration_mode>",
	"<model_switch>",
	"<personality_spec>",
	"<realtime_conversation>",
	"<recommended_plugins>",
	"<goal_context>",
	"<codex_internal_context",
	"<extension_context>",
	"<hook_context>",
	"<hook_prompt",
	"<external_",
	"<user_action>",
	"<image>",
	"<image name=",
	"</image>",
	"warning: the maximum number of unified exec processes you can keep open is",
	"warning: your account was flagged for potentially high-risk cyber activity",
	"warning: apply_patch was requested via ",
];
/** Every fragment Codex injects is one block wrapped in a snake_case tag; a person rarely types one. */
const WRAPPED_FRAGMENT = /^<([a-z][a-z0-9]*_[a-z0-9_]*)(?:\s[^>]*)?>[\s\S]*<\/\1>$/i;
const SHELL_COMMAND = /^\s*<user_shell_command>([\s\S]*?)<\/user_shell_command>/;

/** Whether one text item of a user message is context Codex injected. */
export function isInjectedFragment(text: string): boolean {
	const trimmed = text.trim();
	const lower = trimmed.slice(0, 96).toLowerCase();
	return INJECTED_PREFIXES.some((p) => lower.startsWith(p)) || WRAPPED_FRAGMENT.test(trimmed);
}

/** The user-role message as the user turn it holds: the person's text, a `!` command, or null (all injected). */
function userMessage(content: unknown): Pick<ParsedTurn, "text" | "kind" | "agentWrite"> | null {
	const items = Array.isArray(content) ? content : [content];
	const said: string[] = [];
	for (const item of items) {
		const text = typeof item === "string" ? item : isObject(item) ? str(item.text) : undefined;
		if (!text?.trim()) continue;
		const shell = SHELL_COMMAND.exec(text);
		if (shell) {
			// `<command>…</command><result>…</result>` inside; older builds hold the bare command.
			const inner = shell[1] ?? "";
			const command = (/<command>([\s\S]*?)<\/command>/.exec(inner)?.[1] ?? inner).trim();
			return { text: clipText(`!${command}`), kind: "command", ...(runsCairnRemember(command) ? { agentWrite: true } : {}) };
		}
		if (!isInjectedFragment(text)) said.push(text);
	}
	const text = said.join("\n");
	return text.trim() ? { text: clipText(text) } : null;
}

/** One response item → at most one turn. Returns null for items that carry nothing to keep. */
function itemTurn(item: Record<string, unknown>, key: string, ts: string | null, cwd: string | undefined): ParsedTurn | null | "unknown" {
	const base = { key, id: str(item.id) ?? key, ts, ...(cwd ? { cwd } : {}) };
	switch (item.type) {
		case "message": {
			const role = str(item.role);
			if (role === "assistant") {
				const text = contentText(item.content);
				return text.trim() ? { ...base, role: "assistant", text: clipText(text) } : null;
			}
			if (role !== "user") return null; // developer and system prompts
			const said = userMessage(item.content);
			return said ? { ...base, role: "user", ...said } : null;
		}
		case "function_call":
		case "custom_tool_call": {
			// MCP tools arrive as `mcp__<server>__<tool>`, `<server>__<tool>`, or a bare name with a `namespace`.
			const name = qualifiedToolName(str(item.name) ?? "tool", item.namespace);
			const input = item.type === "function_call" ? item.arguments : item.input;
			return {
				...base,
				role: "tool_call",
				text: toolCallText(name, input),
				tool: name,
				callId: str(item.call_id),
				...detectAgentWrite(name, input),
				...detectMemoryRead(name, input),
				...detectFileAccess(name, input),
			};
		}
		case "local_shell_call": {
			const action = isObject(item.action) ? item.action : {};
			return {
				...base,
				role: "tool_call",
				text: toolCallText("shell", action.command ?? action),
				tool: "shell",
				callId: str(item.call_id),
				...detectAgentWrite("shell", action),
				...detectFileAccess("local_shell", action),
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
 * Developer/system messages and the context Codex injects into user messages (environment context,
 * AGENTS.md and user instructions, skills, sub-agent notifications, hook prompts, …: see
 * `INJECTED_PREFIXES`) are not user turns; a `<user_shell_command>` is kept as a `!` command. Tool
 * calls that wrote Cairn memory (`memory_write` under any server name or namespace, `cairn remember`
 * in a shell) are flagged `agentWrite`; calls that read a memory:// file (`memory_read`,
 * `read_mcp_resource`) carry it as `readsMemory`. A rollout whose `session_meta` says it is a sub-agent's
 * (`source: {subagent: …}`) has its turns tagged `sidechain`: its "user" is the parent agent.
 */
export function codexAdapter(): Adapter {
	const out: AdapterResult = { agent: "codex", turns: [], skipped: 0, unknown: 0 };
	let cwd: string | undefined;
	let subagent = false;
	return immediateAdapter(out, ({ value: r, hash }) => {
		const payload = isObject(r.payload) ? r.payload : null;
		const ts = str(r.timestamp) ?? null;
		let item: Record<string, unknown> | null = null;
		if (payload && typeof r.type === "string") {
			switch (r.type) {
				case "session_meta": {
					cwd = str(payload.cwd) ?? cwd;
					// A non-root agent's rollout (`SessionSource::SubAgent` / `Internal`): its "user" is another agent.
					if (
						(isObject(payload.source) && ("subagent" in payload.source || "internal" in payload.source)) ||
						payload.thread_source === "subagent"
					)
						subagent = true;
					const git = isObject(payload.git) ? payload.git : {};
					out.branch = str(git.branch) ?? out.branch;
					out.skipped++;
					return;
				}
				case "turn_context":
					cwd = str(payload.cwd) ?? cwd;
					out.skipped++;
					return;
				case "response_item":
					item = payload;
					break;
				case "event_msg":
				case "compacted":
					out.skipped++;
					return;
				default:
					out.skipped++;
					out.unknown++;
					return;
			}
		} else if (typeof r.type === "string" && CODEX_ITEM_TYPES.has(r.type)) {
			item = r;
		} else if (r.record_type === "state" || (typeof r.id === "string" && r.type === undefined)) {
			out.skipped++; // legacy session header or state line
			return;
		} else {
			out.skipped++;
			out.unknown++;
			return;
		}
		if (cwd) out.cwd = cwd;
		const turn = itemTurn(item, hash, ts, cwd);
		if (turn === "unknown") {
			out.skipped++;
			out.unknown++;
		} else if (turn === null) out.skipped++;
		else out.turns.push(subagent ? { ...turn, sidechain: true } : turn);
	});
}

export const parseCodex = (records: RawRecord[]): AdapterResult => runAdapter(codexAdapter(), records);
