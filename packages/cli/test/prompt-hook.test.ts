// The prompt hook sends the tools the session just used (read from the tail of its transcript, in
// Claude Code's and Codex's formats as they write them) and what is left of its budget (`waitMs`).
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { injectRequest, RESPONSE_MARGIN_MS } from "../lib/prompt-hook.mjs";
import { MAX_RECENT_TOOLS, recentTools, TAIL_BYTES } from "../lib/recent-tools.mjs";
import { type Loose, machine, transcript } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-recent-tools-"));
const jsonl = (name: string, records: unknown[]) => {
	const file = join(dir, name);
	writeFileSync(file, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
	return file;
};

// Claude Code session records, as Claude Code writes them.
const claudeAssistant = (uuid: string, content: unknown[]) => ({
	parentUuid: null,
	isSidechain: false,
	userType: "external",
	cwd: "/home/dev/shop",
	sessionId: "4f1c2a1e-8d3b-4b8e-9a55-0b6a1c9d2e11",
	version: "2.1.197",
	gitBranch: "main",
	message: { model: "claude-opus-4-5", id: `msg_${uuid}`, type: "message", role: "assistant", content, stop_reason: null, usage: {} },
	type: "assistant",
	uuid,
	timestamp: "2026-11-30T10:00:00.000Z",
});
const claudeToolResult = (uuid: string, id: string) => ({
	parentUuid: null,
	isSidechain: false,
	userType: "external",
	cwd: "/home/dev/shop",
	sessionId: "4f1c2a1e-8d3b-4b8e-9a55-0b6a1c9d2e11",
	version: "2.1.197",
	type: "user",
	message: { role: "user", content: [{ tool_use_id: id, type: "tool_result", content: "ok" }] },
	uuid,
	timestamp: "2026-11-30T10:00:01.000Z",
});
const toolUse = (id: string, name: string, input: Loose) => ({ type: "tool_use", id, name, input });

// Codex rollout items, in the envelope Codex writes today.
const codexItem = (payload: Loose) => ({ timestamp: "2026-11-30T10:00:00.000Z", type: "response_item", payload });

describe("recent tools from the transcript's tail", () => {
	it("Claude Code: tool_use blocks, Bash with its command, most recent first, no repeats", () => {
		const file = jsonl("claude.jsonl", [
			{ type: "user", message: { role: "user", content: "run the tests" }, uuid: "u0" },
			claudeAssistant("a1", [toolUse("t1", "Bash", { command: "pnpm test", description: "Run tests" })]),
			claudeToolResult("r1", "t1"),
			claudeAssistant("a2", [
				toolUse("t2", "Edit", { file_path: "/home/dev/shop/src/a.ts", old_string: "a", new_string: "b" }),
				toolUse("t3", "mcp__github__create_issue", { title: "Flaky test" }),
			]),
			claudeToolResult("r2", "t2"),
			claudeAssistant("a3", [toolUse("t4", "Bash", { command: "pnpm test", description: "Run tests again" })]),
			claudeAssistant("a4", [{ type: "text", text: "Done." }]),
		]);
		expect(recentTools(file)).toEqual(["Bash(pnpm test)", "mcp__github__create_issue", "Edit"]);
	});

	it("Codex rollouts: shell and exec_command with their command, apply_patch, MCP tools by namespace; envelope and legacy", () => {
		const items = [
			{ type: "message", role: "user", content: [{ type: "input_text", text: "fix the build" }] },
			{
				type: "function_call",
				name: "shell",
				arguments: JSON.stringify({ command: ["bash", "-lc", "cargo build --release"], workdir: "/srv/api" }),
				call_id: "c1",
			},
			{ type: "function_call_output", call_id: "c1", output: '{"output":"ok","metadata":{"exit_code":0}}' },
			{ type: "custom_tool_call", status: "completed", call_id: "c2", name: "apply_patch", input: "*** Begin Patch\n*** End Patch\n" },
			{ type: "function_call", name: "memory_write", namespace: "mcp__cairn", arguments: '{"name":"x"}', call_id: "c3" },
			{
				type: "function_call",
				name: "exec_command",
				arguments: JSON.stringify({ cmd: "pnpm lint --fix", workdir: "/srv/api", yield_time_ms: 1000 }),
				call_id: "c4",
			},
			{ type: "reasoning", id: "rs_1", summary: [] },
		];
		const expected = ["exec_command(pnpm lint --fix)", "mcp__cairn__memory_write", "apply_patch", "shell(cargo build --release)"];
		const envelope = jsonl("rollout-2026-11-30T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl", [
			{
				timestamp: "2026-11-30T10:00:00.000Z",
				type: "session_meta",
				payload: { id: "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", cwd: "/srv/api", cli_version: "0.171.0" },
			},
			...items.map(codexItem),
		]);
		expect(recentTools(envelope)).toEqual(expected);
		const legacy = jsonl("legacy.jsonl", [
			{ id: "fx", timestamp: "2025-06-01T09:00:00.000Z", instructions: null },
			{ record_type: "state" },
			...items,
		]);
		expect(recentTools(legacy)).toEqual(expected);
	});

	it("the committed fixtures and a real session give tools within the service's limits", () => {
		expect(recentTools(resolve("test/fixtures/transcripts/claude-current.jsonl"))).toEqual([
			'Bash(grep -rn "cairn remember" docs/)',
			expect.stringMatching(/^Bash\(cd \/home\/dev\/shop && npx cairn remember docs-site-pnpm/),
			"Bash(pnpm test)",
			"mcp__cairn__memory_write",
		]);
		const codex = recentTools(resolve("test/fixtures/transcripts/codex-current.jsonl"));
		expect(codex[0]).toBe("local_shell(cairn remember The staging DB is read-only)");
		expect(codex).toContain('exec_command(rg -n "cairn remember" docs)');
		expect(codex).toContain("shell(cairn remember 'Deploys freeze on Fridays after 12:00 UTC')");
		// A real session, cut just after its last tool call (its own last 64 KB are tool results and text).
		const lines = readFileSync(transcript("claude", "claude-current.jsonl"), "utf8").split("\n");
		const last = lines.findLastIndex((l) => l.includes('"type":"assistant"') && l.includes('"type":"tool_use"'));
		const cut = join(dir, "real-cut.jsonl");
		writeFileSync(cut, `${lines.slice(0, last + 1).join("\n")}\n`);
		const real = recentTools(cut);
		expect(real.length).toBeGreaterThan(0);
		expect(real.every((t) => /^[\w.-]+(\(.*\))?$/s.test(t))).toBe(true);
		for (const tools of [codex, real]) {
			expect(tools.length).toBeLessThanOrEqual(MAX_RECENT_TOOLS);
			for (const t of tools) expect(t.length).toBeLessThanOrEqual(200);
		}
	});

	it("reads only the last 64 KB: older calls are not seen, a cut first line is skipped, at most 20 come back", () => {
		const file = jsonl("long.jsonl", [claudeAssistant("old", [toolUse("t0", "Bash", { command: "terraform apply" })])]);
		const filler = claudeToolResult("f", "t0");
		(filler.message.content[0] as Loose).content = "x".repeat(TAIL_BYTES);
		appendFileSync(file, `${JSON.stringify(filler)}\n`);
		for (let i = 0; i < 30; i++)
			appendFileSync(file, `${JSON.stringify(claudeAssistant(`a${i}`, [toolUse(`t${i}`, "Bash", { command: `make step-${i}` })]))}\n`);
		const tools = recentTools(file);
		expect(tools).toHaveLength(MAX_RECENT_TOOLS);
		expect(tools[0]).toBe("Bash(make step-29)");
		expect(tools).not.toContain("Bash(terraform apply)");
		// A long command is cut to the service's 200 characters.
		const long = jsonl("long-command.jsonl", [claudeAssistant("l", [toolUse("t", "Bash", { command: `echo ${"a".repeat(500)}` })])]);
		expect(recentTools(long)[0]).toHaveLength(200);
		expect(recentTools(join(dir, "missing.jsonl"))).toEqual([]);
		expect(recentTools(null)).toEqual([]);
	});
});

describe("the inject request", () => {
	it("carries waitMs: what is left of the budget minus the response margin, never negative", () => {
		const payload = { session_id: "s1", prompt: "bump axios", transcript_path: "" };
		const body = injectRequest({ agent: "claude", payload, deadline: 2_000, now: 1_000 });
		expect(body).toEqual({
			query: "bump axios",
			include: "memories",
			sessionId: "s1",
			onlyNew: true,
			maxChars: 9500,
			waitMs: 1_000 - RESPONSE_MARGIN_MS,
		});
		expect(injectRequest({ agent: "codex", payload, deadline: 1_000, now: 1_000 }).waitMs).toBe(0);
	});

	it("the hook process sends one request with the prompt, the recent tools and waitMs within its 1.4 s budget", async () => {
		const bodies: Loose[] = [];
		const paths: string[] = [];
		const server = createServer(async (req: IncomingMessage, res) => {
			let text = "";
			for await (const c of req) text += c;
			paths.push(`${req.method} ${req.url}`);
			bodies.push(JSON.parse(text));
			res.writeHead(200, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ text: "<memory>use pnpm</memory>", tokens: 5 }));
		});
		await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
		const port = (server.address() as { port: number }).port;
		try {
			const user = machine();
			const transcript = join(dir, "claude.jsonl");
			const run = await user.runAsync(["hook", "user-prompt-submit", "--agent", "claude"], {
				env: { CAIRN_URL: `http://127.0.0.1:${port}`, CAIRN_KEY: "k", CAIRN_PROJECT: "prj_test" },
				input: JSON.stringify({
					session_id: "4f1c2a1e-8d3b-4b8e-9a55-0b6a1c9d2e11",
					transcript_path: transcript,
					cwd: user.home,
					permission_mode: "default",
					hook_event_name: "UserPromptSubmit",
					prompt: "bump axios",
				}),
			});
			expect(run.status).toBe(0);
			expect(run.stderr).toBe("");
			expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toBe("<memory>use pnpm</memory>");
			expect(paths).toEqual(["POST /v1/projects/prj_test/inject"]);
			const [body] = bodies;
			expect(body).toMatchObject({ query: "bump axios", include: "memories", onlyNew: true, maxChars: 9500 });
			expect(body?.recentTools).toEqual(recentTools(transcript));
			expect(Number.isInteger(body?.waitMs)).toBe(true);
			expect(body?.waitMs).toBeGreaterThan(0);
			expect(body?.waitMs).toBeLessThanOrEqual(1_400 - 150 - RESPONSE_MARGIN_MS);
		} finally {
			server.close();
		}
	});
});
