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

/** Record types that carry no conversation: titles, timing, file snapshots, the input queue. */
const METADATA_TYPES = new Set(["summary", "system", "file-history-snapshot", "queue-operation", "progress", "custom-title", "tag"]);

const COMMAND = /^\s*<command-name>\s*([^<]*)<\/command-name>(?:[\s\S]*?<command-args>([^<]*)<\/command-args>)?/;
const COMMAND_OUTPUT = /^\s*<(local-command-stdout|local-command-stderr|local-command-caveat)>/;
const INTERRUPT = /^\[Request interrupted by user/;

/** A user text block: a slash command, an interruption, command output (dropped), or free text. */
function userText(text: string): Pick<ParsedTurn, "text" | "kind"> | null {
	if (COMMAND_OUTPUT.test(text)) return null;
	const command = COMMAND.exec(text);
	if (command) {
		const name = (command[1] ?? "").trim();
		const args = (command[2] ?? "").trim();
		return { text: `${name.startsWith("/") ? name : `/${name}`}${args ? ` ${args}` : ""}`, kind: "command" };
	}
	if (INTERRUPT.test(text)) return { text: text.trim(), kind: "interrupt" };
	return { text: clipText(text) };
}

/**
 * Claude Code session JSONL. Each user/assistant record has a `uuid` and a `parentUuid` (the
 * records form a tree; file order is arrival order). Handling, record by record:
 * - user text → user turn; `isMeta` caveats and local command output are dropped; slash commands and
 *   interruption notices are kept as user turns tagged `kind`;
 * - tool results (which arrive as *user* records) → tool_result turns joined by `tool_use_id`;
 * - assistant text → assistant turn; tool_use → tool_call turn; thinking is private reasoning and is dropped;
 * - sub-agent records (`isSidechain`) are kept and tagged `sidechain`;
 * - summary, system, file-history-snapshot and queue-operation records are metadata, skipped.
 */
export function parseClaude(records: RawRecord[]): AdapterResult {
	const out: AdapterResult = { agent: "claude", turns: [], skipped: 0, unknown: 0 };
	for (const { value: r, hash } of records) {
		const type = str(r.type);
		if (type !== "user" && type !== "assistant") {
			if (type && METADATA_TYPES.has(type)) out.skipped++;
			else {
				out.skipped++;
				out.unknown++;
			}
			continue;
		}
		const cwd = str(r.cwd);
		const branch = str(r.gitBranch);
		if (cwd) out.cwd = cwd;
		if (branch) out.branch = branch;
		if (r.isMeta === true || !isObject(r.message)) {
			out.skipped++;
			continue;
		}
		const id = str(r.uuid) ?? hash;
		const base = {
			id,
			ts: str(r.timestamp) ?? null,
			...(cwd ? { cwd } : {}),
			...(branch ? { branch } : {}),
			...(r.isSidechain === true ? { sidechain: true } : {}),
			...(str(r.parentUuid) ? { parentId: str(r.parentUuid) } : {}),
		};
		const content = r.message.content;
		const produced: ParsedTurn[] = [];
		if (typeof content === "string") {
			const user = type === "user" ? userText(content) : { text: clipText(content) };
			if (user) produced.push({ ...base, key: id, role: type, ...user });
		} else if (Array.isArray(content)) {
			content.forEach((block, i) => {
				if (!isObject(block)) return;
				const key = `${id}#${i}`;
				switch (block.type) {
					case "text": {
						const text = str(block.text) ?? "";
						const turn = type === "user" ? userText(text) : { text: clipText(text) };
						if (turn?.text.trim()) produced.push({ ...base, key, role: type, ...turn });
						break;
					}
					case "tool_use": {
						const name = str(block.name) ?? "tool";
						produced.push({ ...base, key, role: "tool_call", text: toolCallText(name, block.input), tool: name, callId: str(block.id) });
						break;
					}
					case "tool_result": {
						const body = contentText(block.content);
						produced.push({
							...base,
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
		out.turns.push(...produced);
	}
	return out;
}
