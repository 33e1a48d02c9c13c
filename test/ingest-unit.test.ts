import { describe, expect, it } from "vitest";
import { detectAgentWrite, isMemoryWriteTool, runsCairnRemember } from "../src/ingest/agent-writes";
import { isInjectedFragment } from "../src/ingest/codex";
import { normalise, readRecords } from "../src/ingest/parse";
import type { AdapterResult } from "../src/sessions/turns";
import { benchTranscripts } from "./bench-transcripts";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
// Real Claude Code and Codex files from the bench material beside the project (required).
const bench = Object.fromEntries(benchTranscripts());

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
		if (!big) throw new Error("the Claude Code dev file session-196820da.jsonl is missing from the bench transcripts");
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

/** The turns of a parse as compact rows: role, kind, flags and text. */
const rows = (r: AdapterResult) =>
	r.turns.map((t) => ({
		role: t.role,
		text: t.text,
		...(t.kind ? { kind: t.kind } : {}),
		...(t.sidechain ? { sidechain: true } : {}),
		...(t.agentWrite ? { agentWrite: true } : {}),
		...(t.memoryName ? { memoryName: t.memoryName } : {}),
	}));

describe("Claude Code records as current builds write them", () => {
	it("keeps what the person said and typed while the agent worked; drops what the harness wrote in their name", async () => {
		const result = await parse(fixture("claude-current.jsonl"));
		expect(result.agent).toBe("claude");
		expectWellFormed(result);
		const users = rows(result).filter((t) => t.role === "user");
		expect(users).toEqual([
			{ role: "user", text: "We ship with `make ship`. Never run npm publish by hand; remember that." },
			// `!` commands are commands, not statements; `!cairn remember` is an explicit write.
			{ role: "user", text: "!git status", kind: "command" },
			{ role: "user", text: '!cairn remember "Staging lives at https://staging.shop.example"', kind: "command", agentWrite: true },
			// The reminder wrapped around the prompt goes; the prompt stays.
			{ role: "user", text: "Run the suite and fix what fails." },
			// Typed mid-turn: a queued_command attachment (its queue records are copies of it)…
			{ role: "user", text: "also use pnpm for the docs site" },
			// …or, in builds that write no attachment, the queue record that absorbed it.
			{ role: "user", text: "keep the changelog in English" },
			{ role: "user", text: "/review focus on the auth module", kind: "command" },
		]);
		// Never the user: bash output, task notifications, another session's message, reminders, the compaction summary.
		const all = result.turns.map((t) => t.text).join("\n");
		for (const text of [
			"nothing to commit",
			"task-notification",
			"Deploy window moved",
			"Today's date",
			"continued from a previous",
			"malware",
		]) {
			expect(all).not.toContain(text);
		}
	});

	it("flags the memory writes the agent made itself, call and result, under any MCP server name or through the CLI", async () => {
		const result = await parse(fixture("claude-current.jsonl"));
		const tools = rows(result).filter((t) => t.role === "tool_call" || t.role === "tool_result");
		expect(tools.map((t) => [t.role, t.agentWrite ?? false, t.memoryName ?? null])).toEqual([
			["tool_call", true, "release-process"],
			["tool_result", true, "release-process"],
			["tool_call", false, null],
			["tool_result", false, null],
			["tool_call", true, "docs-site-pnpm"],
			["tool_result", true, "docs-site-pnpm"],
			// grep for the words is not a write.
			["tool_call", false, null],
			["tool_result", false, null],
		]);
	});

	it("counts every record: metadata, the harness's user records and queue copies are skipped, not unknown", async () => {
		const text = fixture("claude-current.jsonl");
		const result = await parse(text);
		const records = text.trim().split("\n").length;
		expect(result.unknown).toBe(0);
		// Records that became no turn, plus records that became one or more.
		const producing = new Set(result.turns.map((t) => t.key.split("#")[0]));
		expect(result.skipped + producing.size).toBe(records);
	});

	it("a sub-agent transcript (subagents/agent-<id>.jsonl) reads as sidechain turns tagged with their agent", async () => {
		const result = await parse(fixture("claude-subagent-agent-a3f9c2e.jsonl"));
		expect(result.agent).toBe("claude");
		expectWellFormed(result);
		expect(result.turns.map((t) => [t.role, t.sidechain, t.agentId])).toEqual([
			["user", true, "a3f9c2e"],
			["tool_call", true, "a3f9c2e"],
			["tool_result", true, "a3f9c2e"],
			["assistant", true, "a3f9c2e"],
		]);
		// Its keys never meet the main transcript's.
		const main = await parse(fixture("claude-current.jsonl"));
		const keys = new Set(main.turns.map((t) => t.key));
		expect(result.turns.some((t) => keys.has(t.key))).toBe(false);
	});

	it("a queued prompt that was dequeued arrives as its own user record and is kept once", async () => {
		const session = "9c1d";
		const lines = [
			{
				type: "queue-operation",
				operation: "enqueue",
				timestamp: "2026-11-03T10:00:00.000Z",
				sessionId: session,
				content: "and update the README",
			},
			{ type: "queue-operation", operation: "dequeue", timestamp: "2026-11-03T10:00:05.000Z", sessionId: session },
			{
				parentUuid: null,
				isSidechain: false,
				type: "user",
				message: { role: "user", content: "and update the README" },
				uuid: "q-1",
				sessionId: session,
				timestamp: "2026-11-03T10:00:05.010Z",
			},
			{ type: "queue-operation", operation: "enqueue", timestamp: "2026-11-03T10:01:00.000Z", sessionId: session, content: "draft" },
			{ type: "queue-operation", operation: "popAll", timestamp: "2026-11-03T10:01:02.000Z", sessionId: session },
		];
		const result = await parse(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(rows(result)).toEqual([{ role: "user", text: "and update the README" }]);
		expect(result.skipped).toBe(4);
	});
});

describe("Claude Code: what the user typed between tool calls", () => {
	it("a user record between a call and the next one is a user turn, also when it shares the record with a tool result", async () => {
		const rec = (uuid: string, parentUuid: string | null, type: string, content: unknown) => ({
			parentUuid,
			isSidechain: false,
			type,
			message: { role: type, content },
			uuid,
			sessionId: "m1",
			timestamp: "2026-11-03T11:00:00.000Z",
		});
		const lines = [
			rec("m-1", null, "user", "Migrate the billing tests."),
			rec("m-2", "m-1", "assistant", [{ type: "tool_use", id: "t1", name: "Bash", input: { command: "pnpm test billing" } }]),
			rec("m-3", "m-2", "user", [
				{ type: "tool_result", tool_use_id: "t1", content: "3 failed" },
				{ type: "text", text: "Use the real database for these, not mocks." },
			]),
			rec("m-4", "m-3", "user", "And keep the fixtures in tests/fixtures."),
			rec("m-5", "m-4", "assistant", [{ type: "tool_use", id: "t2", name: "Read", input: { file_path: "/w/a.ts" } }]),
			rec("m-6", "m-5", "user", [{ type: "tool_result", tool_use_id: "t2", content: "…" }]),
		];
		const result = await parse(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(rows(result).map((t) => [t.role, t.text])).toEqual([
			["user", "Migrate the billing tests."],
			["tool_call", 'Bash {"command":"pnpm test billing"}'],
			["tool_result", "3 failed"],
			["user", "Use the real database for these, not mocks."],
			["user", "And keep the fixtures in tests/fixtures."],
			["tool_call", 'Read {"file_path":"/w/a.ts"}'],
			["tool_result", "…"],
		]);
	});
});

describe("Codex rollouts as current builds write them", () => {
	it("drops every fragment Codex injects into user messages and keeps what the person typed", async () => {
		const result = await parse(fixture("codex-current.jsonl"));
		expect(result.agent).toBe("codex");
		expectWellFormed(result);
		expect(rows(result).filter((t) => t.role === "user")).toEqual([
			{ role: "user", text: "From now on run the integration tests against the real database, not the in-memory fake." },
			{ role: "user", text: "!git log -1 --oneline", kind: "command" },
			{ role: "user", text: "!cairn remember 'The API listens on port 8080'", kind: "command", agentWrite: true },
			{ role: "user", text: "Why does this chart dip on Mondays?" },
		]);
		expect(result.unknown).toBe(0);
	});

	it("flags MCP memory writes in every naming Codex uses and `cairn remember` in every shell tool", async () => {
		const result = await parse(fixture("codex-current.jsonl"));
		const calls = result.turns.filter((t) => t.role === "tool_call");
		expect(calls.map((t) => [t.tool, t.agentWrite ?? false, t.memoryName ?? null])).toEqual([
			["mcp__cairn__memory_write", true, "integration-tests-real-db"],
			["exec_command", true, "lint-before-push"],
			["shell", true, null],
			["mcp__cairn-memory__memory_write", true, "api-owner"],
			["exec_command", false, null],
			["shell", true, null],
		]);
		// Each write's output is part of the write.
		for (const call of calls) {
			const output = result.turns.find((t) => t.role === "tool_result" && t.callId === call.callId);
			expect(output?.agentWrite ?? false, call.callId).toBe(call.agentWrite ?? false);
		}
	});

	it("recognises Codex's injected fragments the way Codex does, and leaves the person's text alone", () => {
		for (const text of [
			"<environment_context>\n  <cwd>/w</cwd>\n</environment_context>",
			"# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nx\n</INSTRUCTIONS>",
			"<user_instructions>\nbe brief\n</user_instructions>",
			"<skill>\n<name>x</name>\n</skill>",
			"<subagent_notification>\n{}\n</subagent_notification>",
			"<SUBAGENT_NOTIFICATION>{}</subagent_notification>",
			"<turn_aborted>\ninterrupted\n</turn_aborted>",
			'<hook_prompt hook_run_id="stop:1">Keep going.</hook_prompt>',
			'<codex_internal_context source="goal">\nship it\n</codex_internal_context>',
			"<external_ticket>ABC-1</external_ticket>",
			"<task_capsule>\nnew fragment kinds are wrapped the same way\n</task_capsule>",
		]) {
			expect(isInjectedFragment(text), text).toBe(true);
		}
		for (const text of ["Use ruff instead of flake8.", "<div>why does this render twice?</div>", "Warning: this test is flaky, fix it"]) {
			expect(isInjectedFragment(text), text).toBe(false);
		}
	});

	it("tags the turns of a sub-agent's rollout as sidechain", async () => {
		const lines = [
			{
				timestamp: "2026-11-04T11:00:00.000Z",
				type: "session_meta",
				payload: {
					id: "019e2a12",
					cwd: "/srv/api",
					source: { subagent: { thread_spawn: { parent_thread_id: "019e2a11", depth: 1, agent_role: "explorer" } } },
				},
			},
			{
				timestamp: "2026-11-04T11:00:01.000Z",
				type: "response_item",
				payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Find every caller of charge()." }] },
			},
		];
		const result = await parse(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(result.turns.map((t) => [t.role, t.sidechain])).toEqual([["user", true]]);
	});
});

describe("agent-write detection", () => {
	it("knows memory_write under any MCP server name", () => {
		for (const name of ["mcp__cairn__memory_write", "mcp__plugin_cairn_cairn__memory_write", "cairn__memory_write", "memory_write"]) {
			expect(isMemoryWriteTool(name), name).toBe(true);
		}
		for (const name of ["mcp__cairn__memory_recall", "memory_writer", "mcp__cairn__memory_write_log", "Write"]) {
			expect(isMemoryWriteTool(name), name).toBe(false);
		}
	});

	it("finds `cairn remember` where a shell runs it, not where a command merely mentions it", () => {
		for (const command of [
			'cairn remember "use pnpm"',
			"cd /repo && cairn remember --name x 'y'",
			"npx -y cairn remember 'y'",
			"CAIRN_URL=http://localhost:8787 ./node_modules/.bin/cairn remember y",
			"bash -lc \"cairn remember 'y'\"",
			"echo y | cairn remember",
			"node packages/cli/cairn.mjs remember y",
		]) {
			expect(runsCairnRemember(command), command).toBe(true);
		}
		for (const command of ['grep -rn "cairn remember" docs', "cairn recall deploy", "cat cairn-remember.md", "echo remember cairn"]) {
			expect(runsCairnRemember(command), command).toBe(false);
		}
		// `cairn remember <name> --type … --description … [text…]`: the name is the first positional argument.
		for (const command of [
			"cairn remember deploy-freeze --type project --description 'Deploy freeze' 'No deploys on Fridays'",
			"cairn remember --type project --description 'Deploy freeze' deploy-freeze 'No deploys on Fridays'",
			"CAIRN_SESSION_ID=s1 npx cairn remember --team --type=project deploy-freeze < note.md",
		]) {
			expect(detectAgentWrite("Bash", { command }), command).toEqual({ agentWrite: true, memoryName: "deploy-freeze" });
		}
		expect(detectAgentWrite("shell", '{"command":["bash","-lc","cairn remember x --type user --description d y"]}')).toEqual({
			agentWrite: true,
			memoryName: "x",
		});
		expect(detectAgentWrite("Write", { file_path: "notes.md", content: "cairn remember x" })).toBeNull();
		// A patch that edits docs mentioning the command is not a run of it.
		expect(detectAgentWrite("apply_patch", "*** Begin Patch\n*** Update File: docs/cli.md\n cairn remember x\n*** End Patch")).toBeNull();
		expect(detectAgentWrite("bash", "cairn remember x --type user --description d y")).toEqual({ agentWrite: true, memoryName: "x" });
	});

	it("a file tool writing into the team folder or the agent's memory directory is the agent's own write, in both agents' formats", async () => {
		const team = "/home/ada/.claude/projects/-home-ada-src-api/memory/team/deploy-freeze.md";
		const own = "/home/ada/.claude/projects/-home-ada-src-api/memory/feedback_testing.md";
		const session = {
			sessionId: "9b2f6c1e-5a7d-4f3e-8c21-7e0d4b9a6f10",
			version: "2.1.197",
			cwd: "/home/ada/src/api",
			gitBranch: "main",
			userType: "external",
		};
		const assistant = (uuid: string, block: Record<string, unknown>) => ({
			parentUuid: null,
			isSidechain: false,
			...session,
			message: { model: "claude-opus-4-5", id: `msg_${uuid}`, type: "message", role: "assistant", content: [block], stop_reason: null },
			type: "assistant",
			uuid,
			timestamp: "2026-11-30T10:00:00.000Z",
		});
		const result = (uuid: string, id: string) => ({
			parentUuid: null,
			isSidechain: false,
			...session,
			type: "user",
			message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: "File created successfully" }] },
			uuid,
			timestamp: "2026-11-30T10:00:01.000Z",
		});
		const claude = [
			assistant("a1", {
				type: "tool_use",
				id: "toolu_w",
				name: "Write",
				input: { file_path: team, content: "---\nname: deploy-freeze\n---\nNo Friday deploys." },
			}),
			result("r1", "toolu_w"),
			assistant("a2", {
				type: "tool_use",
				id: "toolu_e",
				name: "Edit",
				input: { file_path: own, old_string: "mocks", new_string: "the real DB" },
			}),
			result("r2", "toolu_e"),
			assistant("a3", { type: "tool_use", id: "toolu_r", name: "Read", input: { file_path: own } }),
			result("r3", "toolu_r"),
			assistant("a4", {
				type: "tool_use",
				id: "toolu_x",
				name: "Write",
				input: { file_path: "/home/ada/src/api/docs/memory.md", content: "x" },
			}),
			result("r4", "toolu_x"),
		];
		const parsed = await parse(claude.map((r) => JSON.stringify(r)).join("\n"), "claude");
		expect(parsed.turns.filter((t) => t.role === "tool_call").map((t) => [t.tool, t.agentWrite ?? false, t.memoryName ?? null])).toEqual([
			["Write", true, "deploy-freeze"],
			["Edit", true, "feedback-testing"],
			["Read", false, null],
			["Write", false, null],
		]);
		const patch = `*** Begin Patch\n*** Add File: ${team}\n+---\n+name: deploy-freeze\n+---\n+No Friday deploys.\n*** End Patch\n`;
		const item = (payload: Record<string, unknown>) => ({ timestamp: "2026-11-30T10:00:00.000Z", type: "response_item", payload });
		const codex = [
			{
				timestamp: "2026-11-30T10:00:00.000Z",
				type: "session_meta",
				payload: { id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", cwd: "/home/ada/src/api", cli_version: "0.171.0" },
			},
			item({ type: "custom_tool_call", status: "completed", call_id: "call_p1", name: "apply_patch", input: patch }),
			item({
				type: "custom_tool_call_output",
				call_id: "call_p1",
				output: JSON.stringify({ output: `Success. Updated the following files:\nA ${team}\n`, metadata: { exit_code: 0 } }),
			}),
			item({
				type: "function_call",
				name: "shell",
				arguments: JSON.stringify({ command: ["apply_patch", patch.replace(team, "/home/ada/.codex/memories/api_owner.md")] }),
				call_id: "call_p2",
			}),
			item({ type: "function_call_output", call_id: "call_p2", output: '{"output":"Success.","metadata":{"exit_code":0}}' }),
			item({
				type: "custom_tool_call",
				status: "completed",
				call_id: "call_p3",
				name: "apply_patch",
				input: patch.replace(team, "src/memory.md"),
			}),
			item({ type: "custom_tool_call_output", call_id: "call_p3", output: '{"output":"Success.","metadata":{"exit_code":0}}' }),
		];
		const rollout = await parse(codex.map((r) => JSON.stringify(r)).join("\n"), "codex");
		expect(rollout.turns.filter((t) => t.role === "tool_call").map((t) => [t.tool, t.agentWrite ?? false, t.memoryName ?? null])).toEqual([
			["apply_patch", true, "deploy-freeze"],
			["shell", true, "api-owner"],
			["apply_patch", false, null],
		]);
		// The index is a memory file too, though it names no memory.
		expect(detectAgentWrite("Write", { file_path: "/home/ada/.claude/projects/-x/memory/MEMORY.md", content: "- x" })).toEqual({
			agentWrite: true,
		});
	});

	it("generic transcripts: a tool call named memory_write is flagged, and so is its result", async () => {
		const lines = [
			{ id: "1", role: "user", content: "Remember that the API owner is payments." },
			{ id: "2", role: "tool_call", name: "cairn.memory_write", call_id: "w1", content: { name: "api-owner", body: "payments" } },
			{ id: "3", role: "tool", name: "cairn.memory_write", call_id: "w1", content: "created" },
		];
		const result = await parse(lines.map((l) => JSON.stringify(l)).join("\n"));
		expect(rows(result).map((t) => [t.role, t.agentWrite ?? false])).toEqual([
			["user", false],
			["tool_call", true],
			["tool_result", true],
		]);
	});
});
