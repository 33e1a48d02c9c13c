import { describe, expect, it } from "vitest";
import { normalise, readRecords } from "../src/ingest/parse";
import type { AdapterResult } from "../src/ingest/turns";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
// Real Claude Code and Codex files, when the evaluation material is checked out beside the project.
const bench = import.meta.glob<string>("../../shared/bench/transcripts/*/*.jsonl", { query: "?raw", import: "default", eager: true });

const fixture = (name: string) => own[`./fixtures/transcripts/${name}`] as string;
const parse = async (text: string, format: "auto" | "claude" | "codex" | "generic" = "auto") => normalise(await readRecords(text), format);
const roles = (r: AdapterResult) => {
	const out: Record<string, number> = {};
	for (const t of r.turns) out[t.role] = (out[t.role] ?? 0) + 1;
	return out;
};

/** Invariants every transcript must satisfy after normalisation, whatever wrote it. */
function expectWellFormed(result: AdapterResult) {
	const keys = result.turns.map((t) => t.key);
	expect(new Set(keys).size).toBe(keys.length);
	const calls = new Set(result.turns.filter((t) => t.role === "tool_call" && t.callId).map((t) => t.callId));
	for (const r of result.turns.filter((t) => t.role === "tool_result")) {
		expect(r.callId, "a tool result without a call id").toBeTruthy();
		expect(calls.has(r.callId), "a tool result whose call is missing").toBe(true);
	}
	// User and assistant text is kept once, even where the format mirrors it.
	const said = result.turns.filter((t) => t.role === "user" || t.role === "assistant").map((t) => `${t.role}\u0000${t.ts}\u0000${t.text}`);
	expect(new Set(said).size).toBe(said.length);
	for (const t of result.turns) expect(t.text.length).toBeLessThanOrEqual(16_100);
}

describe("transcript adapters on real session files", () => {
	const files = Object.entries(bench);
	it.each(files)("%s normalises into paired, de-duplicated turns", async (path, text) => {
		const result = await parse(text);
		expect(result.agent).toBe(path.includes("/claude/") ? "claude" : "codex");
		expect(result.turns.length).toBeGreaterThan(0);
		expect(roles(result).user).toBeGreaterThan(0);
		expectWellFormed(result);
		// Every line is accounted for: turns plus skipped records cover the file.
		const records = text.split("\n").filter((l) => l.trim()).length;
		expect(result.skipped).toBeLessThanOrEqual(records);
		if (path.includes("/codex/")) {
			// Each user message Codex mirrors as an event is kept once: as many user turns as user_message events,
			// minus the context Codex injects itself.
			const events = text.split("\n").filter((l) => l.includes('"type":"event_msg"') && l.includes('"type":"user_message"')).length;
			expect(roles(result).user).toBe(events);
			const agentEvents = text.split("\n").filter((l) => l.includes('"type":"event_msg"') && l.includes('"type":"agent_message"')).length;
			expect(roles(result).assistant).toBe(agentEvents);
		}
	});

	it("holds the counts of the two Claude Code dev files", async () => {
		const big = Object.entries(bench).find(([p]) => p.endsWith("session-196820da.jsonl"));
		if (!big) return expect(files.length).toBe(0);
		const result = await parse(big[1]);
		// 65 tool_use blocks and 65 tool_result records; 47 thinking blocks and the meta caveat dropped.
		expect(roles(result)).toEqual({ user: 14, assistant: 21, tool_call: 65, tool_result: 65 });
		expect(result.turns.filter((t) => t.kind === "command").map((t) => t.text)).toEqual(["/clear"]);
		expect(result.cwd).toBe("/Users/user/repo");
		expect(result.branch).toBe("conversations");
	});
});

describe("Claude Code adapter", () => {
	it("drops meta, command output, thinking and metadata records; tags commands, interruptions and sidechains", async () => {
		const result = await parse(fixture("claude-sidechain.jsonl"));
		expect(result.agent).toBe("claude");
		expect(roles(result)).toEqual({ user: 4, assistant: 1, tool_call: 2, tool_result: 2 });
		const users = result.turns.filter((t) => t.role === "user");
		expect(users.map((t) => [t.kind ?? "text", t.sidechain ?? false])).toEqual([
			["command", false],
			["text", false],
			["text", true],
			["interrupt", false],
		]);
		expect(users[0]?.text).toBe("/model opus");
		expect(result.turns.filter((t) => t.sidechain).map((t) => t.role)).toEqual(["user", "tool_call", "tool_result"]);
		const result1 = result.turns.find((t) => t.callId === "toolu_2" && t.role === "tool_result");
		expect(result1?.text).toBe("src/a.ts\nsrc/b.ts");
		expect(result1?.tool).toBe("Grep");
		expect(result.turns.some((t) => t.text.includes("The user wants pnpm"))).toBe(false);
		// summary, meta, stdout, thinking, snapshot, queue operation, system; plus one unknown record type.
		expect(result.skipped).toBe(8);
		expect(result.unknown).toBe(1);
		expect(result.cwd).toBe("/home/dev/shop");
		expectWellFormed(result);
	});
});

describe("Codex adapter", () => {
	it("reads the legacy form: header and state lines skipped, injected context dropped, calls joined to outputs", async () => {
		const result = await parse(fixture("codex-legacy.jsonl"));
		expect(result.agent).toBe("codex");
		expect(roles(result)).toEqual({ user: 1, tool_call: 1, tool_result: 1, assistant: 1 });
		expect(result.turns[0]?.text).toBe("Use ruff instead of flake8 in this repo.");
		expect(result.turns.find((t) => t.role === "tool_result")?.tool).toBe("shell");
		expect(result.unknown).toBe(1);
		expectWellFormed(result);
	});

	it("keeps mirrored envelope messages once and skips compacted history", async () => {
		const lines = [
			{ timestamp: "2026-05-01T00:00:00Z", type: "session_meta", payload: { id: "x", cwd: "/w", git: { branch: "dev" } } },
			{
				timestamp: "2026-05-01T00:00:01Z",
				type: "response_item",
				payload: { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] },
			},
			{ timestamp: "2026-05-01T00:00:01Z", type: "event_msg", payload: { type: "user_message", message: "hi" } },
			{ timestamp: "2026-05-01T00:00:02Z", type: "compacted", payload: { message: "summary", replacement_history: [] } },
			{
				timestamp: "2026-05-01T00:00:03Z",
				type: "response_item",
				payload: { type: "custom_tool_call", name: "apply_patch", input: "*** Begin Patch", call_id: "c1" },
			},
			{
				timestamp: "2026-05-01T00:00:04Z",
				type: "response_item",
				payload: { type: "custom_tool_call_output", call_id: "c1", output: "ok" },
			},
		];
		const result = await parse(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(roles(result)).toEqual({ user: 1, tool_call: 1, tool_result: 1 });
		expect(result.branch).toBe("dev");
		expect(result.cwd).toBe("/w");
	});
});

describe("generic adapter and format detection", () => {
	it("reads {id, role, content, ts}; system lines skipped, unknown roles counted", async () => {
		const result = await parse(fixture("generic.ndjson"));
		expect(result.agent).toBe("generic");
		expect(roles(result)).toEqual({ user: 1, assistant: 1, tool_call: 1, tool_result: 1 });
		expect(result.turns[0]?.id).toBe("g1");
		expect(result.skipped).toBe(2);
		expect(result.unknown).toBe(1);
	});

	it("an explicit format overrides detection", async () => {
		const result = await parse(fixture("generic.ndjson"), "claude");
		expect(result.agent).toBe("claude");
		expect(result.turns).toEqual([]);
		expect(result.unknown).toBe(6);
	});

	it("names the first line that is not JSON", async () => {
		await expect(readRecords('{"role":"user","content":"a"}\n\n{oops\n')).rejects.toMatchObject({
			code: "invalid_request",
			details: { line: 3 },
		});
		await expect(readRecords('{"role":"user"}\n[1,2]\n')).rejects.toMatchObject({ code: "invalid_request", details: { line: 2 } });
	});
});
