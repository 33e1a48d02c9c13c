// Citations from the transcript: the files Claude Code and Codex read or edited around the turns a
// memory rests on become its citations, through the Worker's own queue consumer and consolidation with
// no model; and consolidation's model is shown which memories' cited code changed since they were written.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import { repositoryPath, stampCitedFiles } from "../src/consolidate/transcript-citations";
import { parseClaude } from "../src/ingest/claude";
import { parseCodex } from "../src/ingest/codex";
import { detectFileAccess, dropSecretPaths, shellFiles } from "../src/ingest/file-access";
import type { ProjectCoordinator } from "../src/project/object";
import type { RawRecord, Turn } from "../src/sessions/turns";
import { resolveCitations } from "../src/text/citations";
import { addStageOneOutput, call, createProject, createTenant, json, type Loose, projectDb, until } from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;
let projectId: string;
type Tenant = Awaited<ReturnType<typeof createTenant>>;

const lines = (records: Loose[]) => records.map((r) => JSON.stringify(r)).join("\n");
const raw = (records: Loose[]): RawRecord[] => records.map((value, i) => ({ line: i + 1, hash: `h${i}`, value }));

// Claude Code: every record carries the session's cwd; tool calls are assistant `tool_use` blocks with
// absolute `file_path`s, their results user records with `tool_result` blocks.
const CC_CWD = "/home/dev/shop";
let ccSeq = 0;
const cc = (type: "user" | "assistant", content: unknown, extra: Loose = {}) => {
	ccSeq++;
	return {
		parentUuid: ccSeq > 1 ? `cc-${ccSeq - 1}` : null,
		isSidechain: false,
		userType: "external",
		cwd: CC_CWD,
		sessionId: "5b1f0c2e-7d4a-4e2b-9a55-0c1d2e3f4a5b",
		version: "2.1.250",
		gitBranch: "main",
		type,
		message:
			type === "user"
				? { role: "user", content }
				: { id: `msg_${ccSeq}`, type: "message", role: "assistant", model: "claude-opus-4-5", content, stop_reason: null },
		uuid: `cc-${ccSeq}`,
		timestamp: new Date(Date.UTC(2026, 10, 3, 9, 0, ccSeq)).toISOString(),
		...extra,
	};
};
const ccTool = (id: string, name: string, input: Loose) => [
	cc("assistant", [{ type: "tool_use", id, name, input }]),
	cc("user", [{ tool_use_id: id, type: "tool_result", content: "ok" }], { toolUseResult: { type: "text" } }),
];
function claudeTranscript(): Loose[] {
	ccSeq = 0;
	return [
		cc("user", "The refund totals are off by a cent, look at the rounding."),
		...ccTool("toolu_01", "Read", { file_path: `${CC_CWD}/src/payments/refund.ts` }),
		...ccTool("toolu_02", "Edit", {
			file_path: `${CC_CWD}/src/payments/refund.ts`,
			old_string: "Math.round(cents)",
			new_string: "roundHalfUp(cents)",
			replace_all: false,
		}),
		cc("assistant", [{ type: "text", text: "Fixed: computeRefund now rounds half-up." }]),
		cc("user", "From now on always round money half-up in this repo, never with Math.round on cents."),
		...ccTool("toolu_03", "Read", { file_path: `${CC_CWD}/src/payments/currency.ts` }),
		...ccTool("toolu_04", "MultiEdit", {
			file_path: `${CC_CWD}/src/payments/currency.ts`,
			edits: [{ old_string: "Math.round(", new_string: "roundHalfUp(", replace_all: true }],
		}),
		...ccTool("toolu_05", "Write", { file_path: `${CC_CWD}/docs/money.md`, content: "Money rounds half-up.\n" }),
		...ccTool("toolu_06", "Read", { file_path: "/home/dev/.zshrc" }),
		...ccTool("toolu_07", "Read", { file_path: `${CC_CWD}/../billing/src/x.ts` }),
		...ccTool("toolu_08", "Read", { file_path: `${CC_CWD}/.git/config` }),
		...ccTool("toolu_09", "Bash", {
			command: "sed -n '1,40p' src/payments/ledger.ts && cat /etc/hosts | head -5",
			description: "Read the ledger",
		}),
		...ccTool("toolu_10", "Grep", { pattern: "Math.round", path: `${CC_CWD}/src` }),
		cc("assistant", [{ type: "text", text: "Done: all money paths round half-up." }]),
	];
}

// Codex: `session_meta` and `turn_context` give the cwd; reads are shell calls (`exec_command {cmd,
// workdir}`, `shell {command: argv}`), edits `apply_patch` custom tool calls with the patch as input.
let cxSeq = 0;
const cx = (type: string, payload: Loose) => ({
	timestamp: new Date(Date.UTC(2026, 10, 4, 10, 0, ++cxSeq)).toISOString(),
	type,
	payload,
});
const cxCall = (call_id: string, name: string, args: Loose) => [
	cx("response_item", { type: "function_call", name, arguments: JSON.stringify(args), call_id }),
	cx("response_item", { type: "function_call_output", call_id, output: "ok" }),
];
const cxUser = (text: string) => cx("response_item", { type: "message", role: "user", content: [{ type: "input_text", text }] });
function codexTranscript(): Loose[] {
	cxSeq = 0;
	return [
		cx("session_meta", {
			id: "019e2a11-4c3d-7e21-9f00-aa11bb22cc44",
			timestamp: "2026-11-04T10:00:00.000Z",
			cwd: "/srv/api",
			originator: "codex-tui",
			cli_version: "0.131.0",
			source: "cli",
			model_provider: "openai",
			git: { commit_hash: "0123456789abcdef0123456789abcdef01234567", branch: "main", repository_url: "git@github.com:acme/api.git" },
		}),
		cx("turn_context", { turn_id: "t1", cwd: "/srv/api", approval_policy: "on-request", model: "gpt-5.3-codex" }),
		cxUser("Retries feel too aggressive, look at the worker."),
		...cxCall("call_a1", "exec_command", { cmd: "sed -n '1,80p' src/queue/worker.ts", workdir: "/srv/api", yield_time_ms: 1000 }),
		cx("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "MAX_RETRIES is 5 today." }] }),
		cx("turn_context", { turn_id: "t2", cwd: "/srv/api", approval_policy: "on-request", model: "gpt-5.3-codex" }),
		cxUser("From now on always keep MAX_RETRIES at 3 in the queue worker, never higher."),
		...cxCall("call_b1", "exec_command", { cmd: 'rg -n "MAX_RETRIES" src && cat src/queue/backoff.ts', workdir: "/srv/api" }),
		cx("response_item", {
			type: "custom_tool_call",
			status: "completed",
			call_id: "call_b2",
			name: "apply_patch",
			input:
				"*** Begin Patch\n*** Update File: src/queue/worker.ts\n@@\n-export const MAX_RETRIES = 5;\n+export const MAX_RETRIES = 3;\n*** Add File: src/queue/limits.md\n+Retries: 3\n*** End Patch\n",
		}),
		cx("response_item", {
			type: "custom_tool_call_output",
			call_id: "call_b2",
			output: "Success. Updated the following files:\nM src/queue/worker.ts",
		}),
		...cxCall("call_b3", "shell", { command: ["bash", "-lc", "head -n 20 config/queue.toml"], workdir: "/srv/api" }),
		...cxCall("call_b4", "exec_command", { cmd: "cat notes.md", workdir: "/tmp" }),
		...cxCall("call_b5", "exec_command", { cmd: "cat ../shared/retry.ts", workdir: "/srv/api" }),
		cx("response_item", { type: "message", role: "assistant", content: [{ type: "output_text", text: "MAX_RETRIES is 3 now." }] }),
	];
}

const post = async (sessionId: string, body: string) => {
	const res = await call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		token: tenant.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body,
	});
	expect(res.status).toBe(200);
	expect((await call(`/v1/projects/${projectId}/sessions/${sessionId}/end`, { token: tenant.token, method: "POST" })).status).toBe(202);
};
const memoryList = async () =>
	(await json(await call(`/v1/projects/${projectId}/memories?limit=100`, { token: tenant.token }))).memories as Loose[];

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("the files a tool call read or edited", () => {
	it("reads Claude Code's file tools and Codex's shell reads and patches as the agents record them", () => {
		const claude = parseClaude(raw(claudeTranscript())).turns.filter((t) => t.files);
		expect(claude.map((t) => [t.tool, t.files])).toEqual([
			["Read", [`${CC_CWD}/src/payments/refund.ts`]],
			["Edit", [`${CC_CWD}/src/payments/refund.ts`]],
			["Read", [`${CC_CWD}/src/payments/currency.ts`]],
			["MultiEdit", [`${CC_CWD}/src/payments/currency.ts`]],
			["Write", [`${CC_CWD}/docs/money.md`]],
			["Read", ["/home/dev/.zshrc"]],
			["Read", [`${CC_CWD}/../billing/src/x.ts`]],
			["Read", [`${CC_CWD}/.git/config`]],
			["Bash", ["src/payments/ledger.ts", "/etc/hosts"]],
		]);
		const codex = parseCodex(raw(codexTranscript())).turns.filter((t) => t.files);
		expect(codex.map((t) => [t.tool, t.files])).toEqual([
			["exec_command", ["/srv/api/src/queue/worker.ts"]],
			["exec_command", ["/srv/api/src/queue/backoff.ts"]],
			["apply_patch", ["src/queue/worker.ts", "src/queue/limits.md"]],
			["shell", ["/srv/api/config/queue.toml"]],
			["exec_command", ["/tmp/notes.md"]],
			["exec_command", ["/srv/api/../shared/retry.ts"]],
		]);
		// A local_shell_call's action, a function-style apply_patch, a heredoc'd patch; searches are not reads.
		expect(detectFileAccess("local_shell", { type: "exec", command: ["cat", "README.md"], working_directory: "/srv/api" })).toEqual({
			files: ["/srv/api/README.md"],
		});
		expect(detectFileAccess("apply_patch", JSON.stringify({ input: "*** Begin Patch\n*** Delete File: old.ts\n*** End Patch" }))).toEqual({
			files: ["old.ts"],
		});
		expect(shellFiles("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a/b.ts\n*** Move to: a/c.ts\n*** End Patch\nEOF")).toEqual([
			"a/b.ts",
			"a/c.ts",
		]);
		expect(shellFiles("tail -n 50 logs/app.log; sed -e 's/a/b/' -n x.conf; head -20 y.txt | nl")).toEqual([
			"logs/app.log",
			"x.conf",
			"y.txt",
		]);
		expect(shellFiles('cat "$FILE" src/*.ts; grep -rn foo src; ls src')).toEqual([]);
		expect(detectFileAccess("Grep", { pattern: "x", path: "/srv/api" })).toBeNull();
		expect(detectFileAccess("Read", { file_path: 42 })).toBeNull();
	});

	it("does not keep a path that carries what looks like a secret", async () => {
		const token = ["ghp", "R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq"].join("_");
		const turns: { files?: string[] }[] = [{ files: ["/srv/api/src/a.ts", `/srv/api/keys/${token}.txt`] }, { files: [`${token}.md`] }, {}];
		await dropSecretPaths(turns);
		expect(turns).toEqual([{ files: ["/srv/api/src/a.ts"] }, {}, {}]);
	});

	it("keeps a path only when it lies inside the session's working directory", () => {
		expect(repositoryPath("/srv/api/src/a.ts", "/srv/api")).toBe("src/a.ts");
		expect(repositoryPath("/srv/api/src/../lib/./a.ts", "/srv/api/")).toBe("lib/a.ts");
		expect(repositoryPath("./src/a.ts", "/srv/api")).toBe("src/a.ts");
		expect(repositoryPath("C:\\work\\api\\src\\a.ts", "c:\\Work\\api")).toBe("src/a.ts");
		for (const [path, cwd] of [
			["/srv/api-old/src/a.ts", "/srv/api"],
			["/srv/api/../x.ts", "/srv/api"],
			["../x.ts", "/srv/api"],
			["/srv/api/src/a.ts", undefined],
			["/srv/api/.git/HEAD", "/srv/api"],
			["/srv/api", "/srv/api"],
			["~/x.ts", "/srv/api"],
		] as const)
			expect([path, repositoryPath(path, cwd)]).toEqual([path, null]);
	});

	it("stamps a candidate with the files of the exchanges its evidence cites, never the model's own list", () => {
		const turn = (seq: number, role: Turn["role"], extra: Partial<Turn> = {}): Turn => ({
			seq,
			id: `x${seq}`,
			role,
			text: "…",
			ts: null,
			cwd: "/r",
			...extra,
		});
		const turns = [
			turn(0, "user"),
			turn(1, "tool_call", { files: ["/r/a.ts"], callId: "c1" }),
			turn(2, "tool_result", { callId: "c1" }),
			turn(3, "user"),
			turn(4, "tool_call", { files: ["/r/b.ts", "/elsewhere/c.ts"], callId: "c2" }),
			turn(5, "tool_result", { callId: "c2" }),
			turn(6, "tool_call", { files: ["/r/c.ts"], callId: "c3", sidechain: true }),
			turn(7, "assistant"),
			turn(8, "user"),
		];
		const candidate = (evidence: string[]) => ({
			name: "x",
			type: "project" as const,
			description: "d",
			body: "b",
			cues: [],
			evidence,
			files: ["from/the-model.ts"],
		});
		const out = stampCitedFiles({ candidates: [candidate(["t3"]), candidate(["t7"]), candidate(["t2"]), candidate(["t8"])] }, turns);
		expect(out.candidates.map((c) => c.files)).toEqual([["b.ts", "c.ts"], ["b.ts", "c.ts"], ["a.ts"], undefined]);
	});

	it("orders a write's citations: the writer's kept, the text's, this transcript's, then earlier transcripts'", () => {
		const stored = {
			citations: JSON.stringify([
				{ path: "w.ts", source: "writer" },
				{ path: "old.ts", source: "transcript" },
				{ path: "gone-from-text.ts", source: "text" },
			]),
		};
		const got = resolveCitations({ description: "d", body: "see src/t.ts" }, undefined, stored, [
			{ path: "src/t.ts", source: "transcript" },
			{ path: "new.ts", source: "transcript" },
		]);
		expect(got.map((c) => [c.path, c.source])).toEqual([
			["w.ts", "writer"],
			["src/t.ts", "text"],
			["new.ts", "transcript"],
			["old.ts", "transcript"],
		]);
		// Citations the writer gives replace them all.
		expect(resolveCitations({ description: "d", body: "b" }, [], stored, [{ path: "new.ts", source: "transcript" }])).toEqual([]);
	});
});

describe("a memory written from a session cites the files of its turns", () => {
	it("Claude Code and Codex sessions, through the queue consumer and consolidation with no model", async () => {
		await post("cc-money", lines(claudeTranscript()));
		await post("cx-retries", lines(codexTranscript()));
		await until(
			async () => (await json(await call(`/v1/projects/${projectId}/sessions`, { token: tenant.token }))).sessions as Loose[],
			(list) => list.length === 2 && list.every((s) => s.cursor === s.turns),
		);
		expect((await call(`/v1/projects/${projectId}/consolidate`, { token: tenant.token, method: "POST" })).status).toBe(202);
		await until(
			async () => (await json(await call(`/v1/projects/${projectId}/status`, { token: tenant.token }))).pipeline,
			(p: Loose) => p.pendingOutputs === 0 && p.lastRun?.outcome === "succeeded" && !p.running,
		);
		const memories = await memoryList();
		const money = memories.find((m) => /half-up/i.test(m.description));
		const retries = memories.find((m) => /MAX_RETRIES at 3/i.test(m.description));
		expect(money, JSON.stringify(memories.map((m) => m.description))).toBeDefined();
		expect(retries).toBeDefined();
		// The files of the exchange the statement opened; none outside the repository, none of git's own.
		expect(money?.citations).toEqual([
			{ path: "src/payments/currency.ts", source: "transcript" },
			{ path: "docs/money.md", source: "transcript" },
			{ path: "src/payments/ledger.ts", source: "transcript" },
		]);
		expect(retries?.citations).toEqual([
			{ path: "src/queue/backoff.ts", source: "transcript" },
			{ path: "src/queue/worker.ts", source: "transcript" },
			{ path: "src/queue/limits.md", source: "transcript" },
			{ path: "config/queue.toml", source: "transcript" },
		]);
		// Listed for the hooks' check like any citation, waiting for the blob each file had when it was written.
		const cited = await json(await call(`/v1/projects/${projectId}/citations`, { token: tenant.token }));
		const paths = (cited.paths as Loose[]).map((p) => p.path);
		for (const path of ["src/payments/currency.ts", "src/queue/worker.ts", "config/queue.toml"]) expect(paths).toContain(path);
		expect(paths.some((p) => /zshrc|hosts|notes\.md|retry\.ts|\.git\//.test(p))).toBe(false);
		const versions = await projectDb(projectId)
			.prepare("SELECT v.citations FROM memory_versions v JOIN memories m ON m.id = v.memory_id WHERE m.name = ?")
			.bind(retries?.name)
			.all<{ citations: string }>();
		expect(versions.results.map((v) => JSON.parse(v.citations).length)).toEqual([4]);
	});
});

describe("consolidation's model is shown the code state", () => {
	it("a memory whose cited code changed or went carries the mark in the prompt; one whose code is as written does not", async () => {
		const BLOB = (c: string) => c.repeat(40);
		const write = (name: string, description: string, body: string) =>
			call(`/v1/projects/${projectId}/memories/${name}?scope=personal`, {
				method: "PUT",
				token: tenant.token,
				json: { type: "project", description, body },
			});
		expect((await write("queue-retries", "Queue retry limit", "src/queue/worker.ts sets MAX_RETRIES = 5.")).status).toBe(201);
		expect((await write("session-ttl", "Session lifetime", "SESSION_TTL_HOURS in src/auth/session.ts is 12.")).status).toBe(201);
		expect((await write("refund-rounding", "Refund rounding", "computeRefund in src/payments/refund.ts rounds half-up.")).status).toBe(201);
		expect((await write("config-parsing", "Configuration parsing", "src/lib/parse.ts parses the configuration.")).status).toBe(201);
		const checked = await call(`/v1/projects/${projectId}/citations/check`, {
			token: tenant.token,
			json: {
				files: [
					{ path: "src/queue/worker.ts", blob: BLOB("3"), blobAtWrite: BLOB("2") },
					{ path: "src/auth/session.ts", blob: BLOB("1"), blobAtWrite: BLOB("1") },
					{ path: "src/payments/refund.ts", blob: null, blobAtWrite: BLOB("4") },
					{ path: "src/lib/parse.ts", blob: null, blobAtWrite: BLOB("5"), movedTo: "src/config/parse.ts", movedBlob: BLOB("5") },
				],
			},
		});
		expect(checked.status).toBe(200);

		const prompts: string[] = [];
		const model = new MockLanguageModelV4({
			doGenerate: async (options) => {
				for (const m of options.prompt)
					for (const part of Array.isArray(m.content) ? m.content : []) if (part.type === "text") prompts.push(part.text);
				return {
					content: [{ type: "text", text: JSON.stringify({ operations: [], skills: [], retiredSkills: [], summary: "" }) }],
					finishReason: { unified: "stop", raw: "stop" },
					usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
					warnings: [],
				};
			},
		});
		const coordinator = env.PROJECT_COORDINATOR.getByName(projectId);
		await runInDurableObject(coordinator, async (i: ProjectCoordinator) => setSeams(i, { model }));
		await addStageOneOutput(projectId, tenant.userId, "s-limits", [
			{ name: "queue-retries", type: "project", description: "Queue retry limit", body: "The worker retries 3 times.", evidence: ["t0"] },
			{ name: "session-ttl", type: "project", description: "Session lifetime", body: "Sessions last 12 hours.", evidence: ["t0"] },
			{ name: "refund-rounding", type: "project", description: "Refund rounding", body: "Refunds round half-up.", evidence: ["t0"] },
			{
				name: "config-parsing",
				type: "project",
				description: "Configuration parsing",
				body: "Configuration is parsed once.",
				evidence: ["t0"],
			},
		]);
		expect((await call(`/v1/projects/${projectId}/consolidate`, { token: tenant.token, method: "POST" })).status).toBe(202);
		await runDurableObjectAlarm(coordinator);
		expect(prompts).toHaveLength(1);
		const text = prompts[0] ?? "";
		const existing = JSON.parse(text.slice(text.indexOf("<existing_memories>") + 19, text.indexOf("</existing_memories>"))) as Loose[];
		const byName = new Map(existing.map((m) => [m.name, m]));
		expect(byName.get("queue-retries")?.code).toEqual({
			state: "changed",
			note: "code this memory cites changed in the repository since it was written",
			changed: ["src/queue/worker.ts"],
		});
		// Every file it cites gone (out of the start block): still shown to consolidation, so it can propose the update.
		expect(byName.get("refund-rounding")?.code).toEqual({
			state: "gone",
			note: "every file this memory cites is gone from the repository since it was written",
			gone: ["src/payments/refund.ts"],
		});
		expect(byName.get("config-parsing")?.code).toEqual({
			state: "changed",
			note: "code this memory cites changed in the repository since it was written",
			moved: ["src/lib/parse.ts -> src/config/parse.ts"],
		});
		expect(byName.has("session-ttl")).toBe(true);
		expect(byName.get("session-ttl")?.code).toBeUndefined();
		// The instructions say what to do with it.
		expect(text).toContain("An existing memory with `code` cites repository files that changed");
	});
});
