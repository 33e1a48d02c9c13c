import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import { readTurns } from "../src/ingest/ingest";
import { agentWriteTurns, processRange } from "../src/pipeline/consumer";
import type { ProjectCoordinator } from "../src/project/object";
import type { Turn } from "../src/sessions/turns";
import { call, createProject, createTenant, json, type Loose, projectDb, putMemory, type Tenant } from "./helpers";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
const fixture = (name: string) => own[`./fixtures/transcripts/${name}`] as string;

let tenant: Tenant;
let projectId: string;

const post = (sessionId: string, body: string) =>
	call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		token: tenant.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body,
	});
const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), fn);
const turnsOf = (sessionId: string, to = 10_000) => inProject((i) => readTurns(i.penv, projectId, sessionId, 0, to));
const outputs = async (sessionId: string) =>
	(
		await projectDb(projectId)
			.prepare("SELECT * FROM stage1_outputs WHERE project_id = ? AND session_id = ? ORDER BY from_seq")
			.bind(projectId, sessionId)
			.all<Loose>()
	).results;
const extract = (sessionId: string, toSeq: number, model: MockLanguageModelV4 | null) =>
	inProject((i) => processRange(i.penv, { projectId, sessionId, fromSeq: 0, toSeq }, { model, markDirty: async () => {} }));

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
function scripted(text: string) {
	const prompts: string[] = [];
	const model = new MockLanguageModelV4({
		doGenerate: async (options) => {
			prompts.push(JSON.stringify(options.prompt));
			return { content: [{ type: "text", text }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
		},
	});
	return { model, prompts };
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("sub-agent transcripts", () => {
	it("a Claude Code subagents/agent-<id>.jsonl posted to its session joins it: nothing clobbered, nothing twice", async () => {
		const main = await json(await post("cc-main", fixture("claude-current.jsonl")));
		expect(main).toMatchObject({ agent: "claude", duplicates: 0, unknown: 0 });
		const sub = await json(await post("cc-main", fixture("claude-subagent-agent-a3f9c2e.jsonl")));
		expect(sub).toMatchObject({ accepted: 4, duplicates: 0, turns: main.turns + 4, agent: "claude" });
		// Posting either file again adds nothing; the main file's growth after the sub-agent's still appends.
		expect(await json(await post("cc-main", fixture("claude-subagent-agent-a3f9c2e.jsonl")))).toMatchObject({
			accepted: 0,
			turns: main.turns + 4,
		});
		expect(await json(await post("cc-main", fixture("claude-current.jsonl")))).toMatchObject({ accepted: 0, turns: main.turns + 4 });

		const turns = await turnsOf("cc-main");
		expect(turns.map((t) => t.seq)).toEqual([...Array(main.turns + 4).keys()]);
		const sidechain = turns.filter((t) => t.sidechain);
		expect(sidechain.map((t) => [t.role, t.agentId])).toEqual([
			["user", "a3f9c2e"],
			["tool_call", "a3f9c2e"],
			["tool_result", "a3f9c2e"],
			["assistant", "a3f9c2e"],
		]);
		// The main transcript's turns are untouched by the sub-agent's.
		expect(turns.slice(0, main.turns).some((t) => t.sidechain)).toBe(false);
		expect(turns[0]?.text).toBe("We ship with `make ship`. Never run npm publish by hand; remember that.");
		const session = (await json(await call(`/v1/projects/${projectId}/sessions/cc-main`, { token: tenant.token }))).session;
		expect(session).toMatchObject({ turns: main.turns + 4, cwd: "/home/dev/shop", branch: "main", agent: "claude" });
	});
});

describe("stage 1 around the agent's own memory writes", () => {
	it("offline: the writes (call and result) are left out and recorded; candidates from the rest of the range survive", async () => {
		const posted = await json(await post("cc-writes", fixture("claude-current.jsonl")));
		const turns = await turnsOf("cc-writes");
		const writes = turns.filter((t) => t.agentWrite).map((t) => t.seq);
		// The MCP write and its result, the `!cairn remember` the user typed, the CLI write and its result.
		expect(writes.length).toBe(5);
		expect(await extract("cc-writes", posted.turns - 1, null)).toBe("extracted");
		const [row] = await outputs("cc-writes");
		expect(row).toMatchObject({ from_seq: 0, to_seq: posted.turns - 1, extractor: "offline", consolidated_at: null });
		expect(JSON.parse(row?.agent_write_turns)).toEqual(writes);
		const candidates = JSON.parse(row?.candidates_json) as Loose[];
		// What the user said in the same range is still extracted…
		expect(candidates.some((c) => c.description.startsWith("Never run npm publish by hand"))).toBe(true);
		// …and nothing cites a turn of the agent's writes.
		for (const c of candidates) for (const e of c.evidence) expect(writes).not.toContain(Number(e.slice(1)));
		expect((await projectDb(projectId).prepare("SELECT cursor FROM sessions WHERE id = 'cc-writes'").first<Loose>())?.cursor).toBe(
			posted.turns,
		);
	});

	it("with a model: the written content never reaches the prompt, the user's words around it do", async () => {
		const posted = await json(await post("cx-writes", fixture("codex-current.jsonl")));
		const { model, prompts } = scripted(JSON.stringify({ raw_memory: "", summary: "Testing rules.", candidates: [] }));
		expect(await extract("cx-writes", posted.turns - 1, model)).toBe("extracted");
		expect(prompts.length).toBe(1);
		const prompt = prompts[0] ?? "";
		expect(prompt).toContain("From now on run the integration tests against the real database");
		expect(prompt).toContain("Why does this chart dip on Mondays?");
		// The bodies the agent wrote itself (MCP, CLI in three shells, the user's `!cairn remember`).
		for (const written of [
			"Run integration tests against the real database",
			"integration-tests-real-db",
			"Run make lint before pushing",
			"Deploys freeze on Fridays",
			"The payments team owns",
			"The staging DB is read-only",
			"The API listens on port 8080",
		]) {
			expect(prompt).not.toContain(written);
		}
		// A command that only mentions the CLI is ordinary work and stays.
		expect(prompt).toContain("docs/memory.md:12");
		const [row] = await outputs("cx-writes");
		expect(row?.extractor).toBe("model");
		expect(JSON.parse(row?.agent_write_turns).length).toBe(11);
	});

	it("a range made only of the agent's writes commits an empty output without calling the model", async () => {
		const lines = [
			{ id: "1", role: "tool_call", name: "mcp__cairn__memory_write", call_id: "w1", content: { name: "a-rule", body: "x" } },
			{ id: "2", role: "tool", call_id: "w1", content: "created" },
		];
		await post("only-writes", lines.map((l) => JSON.stringify(l)).join("\n"));
		const { model, prompts } = scripted("{}");
		expect(await extract("only-writes", 1, model)).toBe("extracted");
		expect(prompts.length).toBe(0);
		const [row] = await outputs("only-writes");
		expect(row).toMatchObject({ extractor: "model", candidates_json: "[]", agent_write_turns: "[0,1]" });
	});

	it("a write recorded with X-Cairn-Session whose call the transcript does not show suppresses nothing", async () => {
		await post("plain", JSON.stringify({ id: "1", role: "user", content: "From now on always use pnpm." }));
		expect((await putMemory(tenant.token, projectId, "pnpm-only", "Use pnpm.", { headers: { "X-Cairn-Session": "plain" } })).status).toBe(
			201,
		);
		await post("plain", JSON.stringify({ id: "2", role: "user", content: "And never commit to main directly." }));
		await extract("plain", 1, null);
		const [row] = await outputs("plain");
		expect(row?.agent_write_turns).toBe("[]");
		expect(JSON.parse(row?.candidates_json).map((c: Loose) => c.evidence)).toEqual([["t0"], ["t1"]]);
	});
});

describe("which turns a recorded write suppresses", () => {
	const t = (seq: number, role: Turn["role"], text: string, extra: Partial<Turn> = {}): Turn => ({
		seq,
		id: String(seq),
		role,
		text,
		ts: null,
		...extra,
	});
	const range = [
		t(0, "user", "Remember that deploys freeze on Fridays."),
		t(1, "tool_call", 'Bash {"command":"npm run deploy-freeze-check"}', { callId: "a" }),
		t(2, "tool_result", "ok", { callId: "a" }),
		t(3, "tool_call", 'save_note {"title":"deploy-freeze","text":"Fridays"}', { callId: "b", tool: "save_note" }),
		t(4, "tool_result", "saved", { callId: "b" }),
		t(5, "tool_call", 'Bash {"command":"curl -X PUT https://cairn.example/v1/projects/p/memories/deploy-freeze"}', { callId: "c" }),
		t(6, "tool_result", "201", { callId: "c" }),
		t(7, "user", "Thanks."),
	];

	it("the call at or after the recorded turn that writes that memory, and its result", () => {
		expect([...agentWriteTurns(range, [{ seq: 1, memory_name: "deploy-freeze" }])]).toEqual([5, 6]);
	});

	it("a call ingested before the write landed is found looking back", () => {
		expect([...agentWriteTurns(range, [{ seq: 7, memory_name: "deploy-freeze" }])]).toEqual([5, 6]);
	});

	it("a detected write is preferred, and writes the transcript flagged are always left out", () => {
		const flagged = [
			...range,
			t(8, "tool_call", "mcp__c__memory_write {}", { callId: "d", agentWrite: true, memoryName: "deploy-freeze" }),
		];
		expect([...agentWriteTurns(flagged, [{ seq: 1, memory_name: "deploy-freeze" }])].sort((a, b) => a - b)).toEqual([8]);
		expect([...agentWriteTurns(flagged, [])]).toEqual([8]);
	});

	it("no call names the memory: nothing is suppressed", () => {
		expect([...agentWriteTurns(range, [{ seq: 0, memory_name: "ports" }])]).toEqual([]);
	});
});
