import { type MemoryUse, topicPaths } from "../memory/use";
import { isObject, type ParsedTurn } from "../sessions/turns";
import { toolInput } from "./agent-writes";

/**
 * How a session used its memories, read from its transcript's turns as the agents record them:
 * - **cited**: a topic file's memory:// path in the agent's own text (an assistant turn, sub-agents
 *   included). The injected blocks never become assistant turns — Claude Code records hook context as
 *   `attachment` records, Codex as developer messages — and neither do tool outputs or what the user
 *   typed, so a path they echo is not a citation;
 * - **read**: a tool call that opened one: Cairn's `memory_read` (`{url}`) under whatever name the
 *   client gave the server (`mcp__<server>__memory_read`, a Codex `namespace`), or a read of the MCP
 *   resource (Claude Code `ReadMcpResourceTool`, Codex `read_mcp_resource`, `{server, uri}`).
 */

/** Cairn's `memory_read` tool under any MCP server name, and the agents' own MCP resource readers. */
const READ_TOOL = /(?:^|__|[./:])(?:memory_read|read_mcp_resource)$|^ReadMcpResourceTool$/;

/** The memory:// URL a tool call reads, when it reads one: the fields to put on its turn, or null. */
export function detectMemoryRead(name: string, input: unknown): { readsMemory: string } | null {
	if (!READ_TOOL.test(name)) return null;
	const value = toolInput(input);
	if (!isObject(value)) return null;
	const url = typeof value.url === "string" ? value.url : typeof value.uri === "string" ? value.uri : undefined;
	return url?.startsWith("memory://") ? { readsMemory: url.slice(0, 300) } : null;
}

/** A turn's time when it is one and not in the future, else `now`. */
const turnTime = (ts: string | null, now: string) => {
	const at = ts ? Date.parse(ts) : Number.NaN;
	return !Number.isNaN(at) && at <= Date.parse(now) ? new Date(at).toISOString() : now;
};

/** The memories these turns cite and read, each with the time of its turn. */
export function usesInTurns(turns: Pick<ParsedTurn, "role" | "text" | "ts" | "readsMemory">[], now: string): MemoryUse[] {
	const uses: MemoryUse[] = [];
	for (const t of turns) {
		const found =
			t.role === "assistant"
				? topicPaths(t.text).map((p) => ({ ...p, kind: "cited" as const }))
				: t.role === "tool_call" && t.readsMemory
					? topicPaths(t.readsMemory).map((p) => ({ ...p, kind: "read" as const }))
					: [];
		for (const use of found) uses.push({ ...use, at: turnTime(t.ts, now) });
	}
	return uses;
}

/** Adds `found` to `uses`, one entry per kind and path, the latest kept: what a post commits stays bounded by the memories it names. */
export function keepLatestUses(uses: Map<string, MemoryUse>, found: MemoryUse[]): void {
	for (const use of found) {
		const key = `${use.kind}:${use.team ? "team/" : ""}${use.name}`;
		const seen = uses.get(key);
		if (!seen || seen.at < use.at) uses.set(key, use);
	}
}
