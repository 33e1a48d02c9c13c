// Acceptance: the real CLI driven through the hook sequence of a real Claude Code session and a real
// Codex rollout, with stdin payloads shaped as each agent sends them, against the local Worker. What
// is asserted is what the agent would see at each step, and what the service ends up holding.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import {
	api,
	eventually,
	gitRepo,
	KILLED_AFTER_MS,
	type Loose,
	machine,
	type Run,
	serviceFetch,
	tenant,
	transcript,
	url,
} from "./helpers.ts";

interface Seed {
	name: string;
	type: string;
	description: string;
	body: string;
	/** The prompt it is relevant to; none for a memory no prompt concerns. */
	concerns?: RegExp;
}

/** A memory's body carries a marker, so the test can tell which topic files the agent was shown. */
const marker = (name: string) => `MARK-${name.toUpperCase()}`;
const seed = async (key: string, projectId: string, seeds: Seed[]) => {
	for (const s of seeds) {
		const res = await api(key, "PUT", `/v1/projects/${projectId}/memories/${s.name}`, {
			type: s.type,
			description: s.description,
			body: `${s.body}\n\n${marker(s.name)}\n`,
		});
		expect(res.status, JSON.stringify(res.body)).toBe(201);
	}
};

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A memory about what one of the session's own prompts asks, whatever transcript is replayed (the bench's
 * or the committed fixture): its description repeats the prompt's distinctive words, so recall must bring
 * it to that prompt.
 */
function derivedSeed(prompts: string[], name: string): Seed | null {
	for (const prompt of prompts) {
		const words = [...new Set(prompt.toLowerCase().match(/[a-z][a-z0-9-]{2,}/g) ?? [])].slice(0, 12);
		if (words.filter((w) => w.length >= 5).length < 2) continue;
		return {
			name,
			type: "project",
			description: `What we settled about ${words.join(" ")}`,
			body: `Earlier sessions settled how to handle ${words.join(", ")}.`,
			concerns: new RegExp(`^${escapeRegExp(prompt.slice(0, 60))}`),
		};
	}
	return null;
}

/** The prompts a person typed in a Claude Code transcript (not meta, tool results, commands or sidechains). */
function claudePrompts(all: string[]): { line: number; text: string }[] {
	const prompts: { line: number; text: string }[] = [];
	all.forEach((l, i) => {
		const r = JSON.parse(l) as Loose;
		if (r.type !== "user" || r.isMeta || r.isSidechain || r.isCompactSummary) return;
		const c = r.message?.content;
		if (Array.isArray(c) && c.some((b: Loose) => b.type === "tool_result")) return;
		const text =
			typeof c === "string"
				? c
				: Array.isArray(c)
					? c
							.filter((b: Loose) => b.type === "text")
							.map((b: Loose) => b.text)
							.join(" ")
					: "";
		if (text && !/^\s*(<command-|<local-command-|\[Request interrupted)/.test(text)) prompts.push({ line: i, text });
	});
	return prompts;
}

/** One hook call as the agent makes it: the payload on stdin, the installed command's arguments. */
interface Step {
	event: string;
	index?: number;
	run: Run;
	context: string;
}

const lines = (file: string) =>
	readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => `${l}\n`);
const uploadedBytes = (stderr: string) => [...stderr.matchAll(/cairn: uploaded (\d+) bytes/g)].reduce((sum, m) => sum + Number(m[1]), 0);
const backgroundBytes = (home: string) => {
	const log = join(home, ".config", "cairn", "state", "sync.log");
	return existsSync(log) ? [...readFileSync(log, "utf8").matchAll(/uploaded (\d+) bytes/g)].reduce((s, m) => s + Number(m[1]), 0) : 0;
};

/** The turns a transcript makes when posted whole, into a session of its own. */
async function referenceTurns(key: string, projectId: string, file: string, format: string, id: string) {
	// Posting a transcript again changes nothing, so a request cut off by a closed connection is simply sent again.
	const res = await serviceFetch(`${url}/v1/projects/${projectId}/sessions/${id}/transcript?format=${format}`, {
		method: "POST",
		headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/x-ndjson" },
		body: readFileSync(file, "utf8"),
	});
	return ((await res.json()) as { turns: number }).turns;
}

/**
 * Codex validates a hook's stdout against the event's output schema (codex-rs/hooks/schema/generated):
 * an object, only the fields that event knows, additionalProperties false at both levels.
 */
function assertCodexOutput(event: string, stdout: string) {
	const output = JSON.parse(stdout) as Loose;
	expect(typeof output === "object" && output !== null && !Array.isArray(output)).toBe(true);
	const universal = ["continue", "stopReason", "suppressOutput", "systemMessage"];
	const allowed: Record<string, string[]> = {
		SessionStart: [...universal, "hookSpecificOutput"],
		UserPromptSubmit: [...universal, "decision", "reason", "hookSpecificOutput"],
		Stop: [...universal, "decision", "reason"],
		PreCompact: universal,
		SubagentStop: [...universal, "decision", "reason"],
		SessionEnd: universal,
	};
	for (const k of Object.keys(output)) expect(allowed[event], `${event} output field ${k}`).toContain(k);
	if (output.hookSpecificOutput) {
		const specific = output.hookSpecificOutput as Loose;
		expect(specific.hookEventName).toBe(event);
		for (const k of Object.keys(specific)) expect(["hookEventName", "additionalContext"]).toContain(k);
		expect(typeof specific.additionalContext).toBe("string");
		// Codex spills text over 2,500 tokens to a file, counting ceil(bytes / 4).
		expect(Math.ceil(Buffer.byteLength(specific.additionalContext) / 4)).toBeLessThanOrEqual(2_500);
	}
	return (output.hookSpecificOutput?.additionalContext as string | undefined) ?? "";
}

/** Claude Code: nothing, or hookSpecificOutput whose text stays under the 10,000-character cut. */
function claudeContext(event: string, stdout: string) {
	if (stdout === "") return "";
	const output = JSON.parse(stdout) as Loose;
	expect(Object.keys(output)).toEqual(["hookSpecificOutput"]);
	expect(output.hookSpecificOutput.hookEventName).toBe(event);
	const text = output.hookSpecificOutput.additionalContext as string;
	expect(text.length).toBeGreaterThan(0);
	expect(text.length).toBeLessThanOrEqual(10_000);
	return text;
}

/**
 * What the agent saw: each seeded memory's body at most once before compaction, a memory that
 * concerns a prompt shown (if at all) by the time that prompt was answered, and no memory that concerns
 * no prompt ever attached to a prompt. Whether a memory that concerns a prompt reaches it is recall
 * quality, measured by the per-prompt benchmark (bench/prompts): the relevance decision is calibrated
 * to stay silent when in doubt, so this test checks the hooks' path, not the ranking.
 */
function assertServedOnce(steps: Step[], seeds: Seed[], prompts: string[]) {
	const beforeCompact = steps.slice(
		0,
		steps.findIndex((s) => s.event === "PreCompact"),
	);
	for (const s of seeds) {
		const shown = beforeCompact.filter((step) => step.context.includes(marker(s.name)));
		expect(shown.length, `${s.name} shown ${shown.length} times before compaction`).toBeLessThanOrEqual(1);
		if (!s.concerns) {
			expect(
				shown.filter((step) => step.event === "UserPromptSubmit"),
				`${s.name} concerns no prompt`,
			).toEqual([]);
			continue;
		}
		const promptIndex = prompts.findIndex((p) => s.concerns?.test(p));
		if (promptIndex < 0) continue; // the fallback fixture has other prompts
		const answered = beforeCompact.findIndex((step) => step.event === "UserPromptSubmit" && step.index === promptIndex);
		if (shown.length === 0) continue;
		expect(beforeCompact.indexOf(shown[0] as Step), `${s.name} shown after its prompt`).toBeLessThanOrEqual(answered);
	}
}

describe("a real Claude Code session, replayed through the hooks", () => {
	const user = machine();
	const repo = gitRepo(`https://github.com/acme/replay-${Date.now()}.git`);
	const source = transcript("claude", "claude-sidechain.jsonl", (files) => files.find((f) => f.includes("196820da")) ?? files[0]);
	const sessionId = "0f7d6c52-91b4-4a5e-9a44-5d1b1c6e2f01";
	const seeds: Seed[] = [
		{
			name: "clear-command-new-session",
			type: "project",
			description:
				"Running /clear in Claude Code starts a new session file in the same directory; session tracking must close the old session",
			body: "When the user runs /clear, Claude Code writes a new session jsonl next to the old one. Tracking completes the previous session and starts a fresh one.",
			concerns: /runs \/clear command/,
		},
		{
			name: "parallel-tabs",
			type: "project",
			description: "Several processes can run at once from different terminal tabs; never assume a single process",
			body: "Users start the wrapper in several tabs; processes overlap and must not share state.",
			concerns: /several processes of codemie-claude/,
		},
		{
			name: "specs-folder",
			type: "feedback",
			description: "Design write-ups belong in specs as markdown documents",
			body: "Write-ups and plans: markdown under /specs, one document per feature.",
			concerns: /document in \/specs folder/,
		},
		{
			name: "friday-deploy-freeze",
			type: "project",
			description: "No production deploys on Fridays after noon UTC",
			body: "Deploy freeze from Friday 12:00 UTC until Monday.",
		},
		{
			name: "python-black",
			type: "feedback",
			description: "Format Python with black at line length 100",
			body: "black --line-length 100 before committing Python.",
		},
	];
	const derived = derivedSeed(
		claudePrompts(lines(source)).map((p) => p.text),
		"settled-from-prompt",
	);
	if (derived) seeds.push(derived);
	let key = "";
	let projectId = "";
	const env: Record<string, string> = { CAIRN_VERBOSE: "1" };

	beforeAll(async () => {
		key = await tenant("replay-claude");
		Object.assign(env, { CAIRN_URL: url, CAIRN_KEY: key });
		const init = user.run(["init"], { cwd: repo, env });
		expect(init.status, init.stderr).toBe(0);
		projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
		await seed(key, projectId, seeds);
	});

	it("the agent sees relevant memories once each, within its limit, and the session is uploaded exactly once", async () => {
		const all = lines(source);
		const prompts = claudePrompts(all);
		expect(prompts.length).toBeGreaterThanOrEqual(1);

		const dir = join(user.home, ".claude", "projects", "-replay");
		mkdirSync(dir, { recursive: true });
		const file = join(dir, `${sessionId}.jsonl`);
		writeFileSync(file, all.slice(0, prompts[0]?.line).join(""));
		const base = { session_id: sessionId, transcript_path: file, cwd: repo, permission_mode: "default" };
		const steps: Step[] = [];
		const hook = (sub: string, event: string, payload: Loose, index?: number) => {
			const run = user.run(["hook", sub, "--agent", "claude"], {
				cwd: repo,
				env,
				input: JSON.stringify({ ...base, hook_event_name: event, ...payload }),
			});
			expect(run.status, `${event}: ${run.stderr}`).toBe(0);
			expect(run.stderr.replace(/cairn: (uploaded .*|the final upload and the end continue in the background)\n/g, ""), event).toBe("");
			expect(run.ms, `${event} took ${run.ms} ms`).toBeLessThan(
				event === "UserPromptSubmit" ? KILLED_AFTER_MS.prompt : KILLED_AFTER_MS.other,
			);
			const step = { event, index, run, context: claudeContext(event, run.stdout) };
			steps.push(step);
			return step;
		};

		const start = hook("session-start", "SessionStart", { source: "startup", model: "claude-opus-4-5" });
		expect(start.context).toContain("memory://root/MEMORY.md");
		for (const [k, p] of prompts.entries()) {
			hook("user-prompt-submit", "UserPromptSubmit", { prompt: p.text }, k);
			// The turn runs: the transcript grows line by line up to the next prompt, then Stop.
			for (const l of all.slice(p.line, prompts[k + 1]?.line ?? all.length)) appendFileSync(file, l);
			hook("stop", "Stop", { stop_hook_active: false });
		}
		// The same prompt again in the same session: everything relevant was shown already, so nothing is printed.
		const repeated = hook("user-prompt-submit", "UserPromptSubmit", { prompt: prompts[0]?.text ?? "" }, 0);
		hook("pre-compact", "PreCompact", { trigger: "auto", custom_instructions: "" });
		const compacted = hook("session-start", "SessionStart", { source: "compact" });
		hook("session-end", "SessionEnd", { reason: "prompt_input_exit" });

		assertServedOnce(
			steps,
			seeds,
			prompts.map((p) => p.text),
		);
		// After compaction the model has lost what it saw: the block comes again, this session's notes first.
		expect(compacted.context).toContain("memory://root/MEMORY.md");
		const promptOutputs = steps.filter((s) => s.event === "UserPromptSubmit");
		expect(promptOutputs.some((s) => s.context !== "")).toBe(true);
		expect(repeated.run.stdout).toBe(""); // nothing new: nothing printed

		// Uploaded exactly once: every byte once (hooks and any background run), the turns of the whole file.
		const reference = await referenceTurns(key, projectId, source, "claude", "reference-claude");
		const session = await eventually(async () => {
			const s = (await api(key, "GET", `/v1/projects/${projectId}/sessions/${sessionId}`)).body.session as Loose;
			return s.turns === reference && s.status === "ended" ? s : undefined;
		});
		expect(session.turns).toBe(reference);
		const total = readFileSync(file).length;
		expect(steps.reduce((sum, s) => sum + uploadedBytes(s.run.stderr), 0) + backgroundBytes(user.home)).toBe(total);
		const again = hook("stop", "Stop", { stop_hook_active: false });
		expect(again.run.stderr).toContain("cairn: uploaded 0 bytes, 0 new turns");
		expect(((await api(key, "GET", `/v1/projects/${projectId}/sessions/${sessionId}`)).body.session as Loose).turns).toBe(reference);
	});

	it("SubagentStop uploads the subagent's transcript into the same session", async () => {
		const subagent = join(user.home, "agent-a3f9c2e.jsonl");
		writeFileSync(subagent, readFileSync(resolve("test/fixtures/transcripts/claude-subagent-agent-a3f9c2e.jsonl")));
		const before = ((await api(key, "GET", `/v1/projects/${projectId}/sessions/${sessionId}`)).body.session as Loose).turns;
		const run = user.run(["hook", "subagent-stop", "--agent", "claude"], {
			cwd: repo,
			env,
			input: JSON.stringify({
				session_id: sessionId,
				transcript_path: join(user.home, "main.jsonl"),
				cwd: repo,
				permission_mode: "default",
				hook_event_name: "SubagentStop",
				stop_hook_active: false,
				agent_id: "a3f9c2e",
				agent_type: "Explore",
				agent_transcript_path: subagent,
			}),
		});
		expect(run.status).toBe(0);
		expect(run.stdout).toBe("");
		expect(uploadedBytes(run.stderr)).toBe(readFileSync(subagent).length);
		const after = ((await api(key, "GET", `/v1/projects/${projectId}/sessions/${sessionId}`)).body.session as Loose).turns;
		expect(after).toBeGreaterThan(before);
	});
});

describe("a real Codex rollout, replayed through the hooks", () => {
	const user = machine();
	const repo = gitRepo(`git@github.com:acme/replay-codex-${Date.now()}.git`);
	const source = transcript("codex", "codex-current.jsonl", (files) => files.find((f) => f.includes("rollout-")) ?? files[0]);
	const seeds: Seed[] = [
		{
			name: "compact-threshold-env",
			type: "project",
			description: "The default context compact threshold is read from an env var; change the default there",
			body: "CODEMIE_COMPACT_THRESHOLD sets when the context is compacted; the default lives in the env var loader.",
			concerns: /context compart to 90 in env var|compact/i,
		},
		{
			name: "grafana-latency",
			type: "reference",
			description: "Oncall watches the Grafana api-latency board",
			body: "grafana.internal/d/api-latency",
		},
		{
			name: "friday-deploy-freeze",
			type: "project",
			description: "No production deploys on Fridays after noon UTC",
			body: "Deploy freeze from Friday 12:00 UTC until Monday.",
		},
	];
	let key = "";
	let projectId = "";
	const env: Record<string, string> = { CAIRN_VERBOSE: "1" };

	beforeAll(async () => {
		key = await tenant("replay-codex");
		Object.assign(env, { CAIRN_URL: url, CAIRN_KEY: key });
		const init = user.run(["init"], { cwd: repo, env });
		expect(init.status, init.stderr).toBe(0);
		projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
		await seed(key, projectId, seeds);
	});

	it("every output is a JSON object Codex accepts, within 2,500 tokens; relevant memories come once; the rollout is uploaded once", async () => {
		const all = lines(source);
		const records = all.map((l) => JSON.parse(l) as Loose);
		const sessionId = (records[0]?.payload?.id ?? records[0]?.id) as string;
		const model = (records.find((r) => r.type === "turn_context")?.payload?.model as string | undefined) ?? "gpt-5.5";
		// Turns: from task_started (or the user message, in older rollouts) to task_complete.
		const turns: { start: number; end: number; id: string; prompt: string }[] = [];
		records.forEach((r, i) => {
			if (r.type === "event_msg" && r.payload?.type === "task_started")
				turns.push({ start: i, end: all.length - 1, id: r.payload.turn_id, prompt: "" });
			if (r.type === "event_msg" && r.payload?.type === "user_message" && turns.at(-1))
				(turns.at(-1) as { prompt: string }).prompt ||= r.payload.message;
			if (r.type === "event_msg" && r.payload?.type === "task_complete" && turns.at(-1)) (turns.at(-1) as { end: number }).end = i;
		});
		expect(turns.length).toBeGreaterThanOrEqual(1);

		const dir = join(user.home, ".codex", "sessions", "2026", "05", "11");
		mkdirSync(dir, { recursive: true });
		// Named as Codex names rollouts, so a hook payload without transcript_path finds it by thread id.
		const file = join(dir, `rollout-2026-05-11T11-26-55-${sessionId}.jsonl`);
		writeFileSync(file, all.slice(0, turns[0]?.start).join(""));
		const base = { session_id: sessionId, transcript_path: file, cwd: repo, model, permission_mode: "default" };
		const steps: Step[] = [];
		const hook = (sub: string, event: string, payload: Loose, index?: number) => {
			const run = user.run(["hook", sub, "--agent", "codex"], {
				cwd: repo,
				env,
				input: JSON.stringify({ ...base, hook_event_name: event, ...payload }),
			});
			expect(run.status, `${event}: ${run.stderr}`).toBe(0);
			expect(run.stderr.replace(/cairn: (uploaded .*|the final upload and the end continue in the background)\n/g, ""), event).toBe("");
			expect(run.ms, `${event} took ${run.ms} ms`).toBeLessThan(
				event === "UserPromptSubmit" ? KILLED_AFTER_MS.prompt : KILLED_AFTER_MS.other,
			);
			const step = { event, index, run, context: assertCodexOutput(event, run.stdout) };
			steps.push(step);
			return step;
		};

		const start = hook("session-start", "SessionStart", { source: "startup" });
		expect(start.context).toContain("memory://root/MEMORY.md");
		for (const [k, t] of turns.entries()) {
			hook("user-prompt-submit", "UserPromptSubmit", { turn_id: t.id, prompt: t.prompt }, k);
			for (const l of all.slice(t.start, turns[k + 1]?.start ?? all.length)) appendFileSync(file, l);
			hook("stop", "Stop", { turn_id: t.id, stop_hook_active: false, last_assistant_message: "done" });
		}
		hook("pre-compact", "PreCompact", { turn_id: turns.at(-1)?.id, trigger: "auto" });
		hook("session-start", "SessionStart", { source: "compact" });
		hook("session-end", "SessionEnd", { reason: "other" });

		assertServedOnce(
			steps,
			seeds,
			turns.map((t) => t.prompt),
		);
		for (const s of steps.filter((x) => !["SessionStart", "UserPromptSubmit"].includes(x.event)))
			expect(JSON.parse(s.run.stdout)).toEqual({});

		const reference = await referenceTurns(key, projectId, source, "codex", "reference-codex");
		const session = await eventually(async () => {
			const s = (await api(key, "GET", `/v1/projects/${projectId}/sessions/${sessionId}`)).body.session as Loose;
			return s.turns === reference && s.status === "ended" ? s : undefined;
		});
		expect(session.agent).toBe("codex");
		const total = readFileSync(file).length;
		expect(steps.reduce((sum, s) => sum + uploadedBytes(s.run.stderr), 0) + backgroundBytes(user.home)).toBe(total);
		const again = hook("stop", "Stop", { turn_id: "again", stop_hook_active: false, last_assistant_message: null });
		expect(again.run.stderr).toContain("cairn: uploaded 0 bytes, 0 new turns");
	});

	it("a hook payload without transcript_path finds the rollout under CODEX_HOME by thread id", async () => {
		const records = lines(source).map((l) => JSON.parse(l) as Loose);
		const sessionId = (records[0]?.payload?.id ?? records[0]?.id) as string;
		const run = user.run(["hook", "stop", "--agent", "codex"], {
			cwd: repo,
			env,
			input: JSON.stringify({
				session_id: sessionId,
				transcript_path: null,
				cwd: repo,
				hook_event_name: "Stop",
				model: "gpt-5.5",
				turn_id: "t",
			}),
		});
		expect(run.status).toBe(0);
		expect(JSON.parse(run.stdout)).toEqual({});
		expect(run.stderr).toContain("cairn: uploaded 0 bytes"); // found, and already up to date
	});
});

describe("a backlog larger than the hook's deadline", () => {
	const user = machine();
	const repo = gitRepo(null);
	let key = "";

	beforeAll(async () => {
		key = await tenant("backlog");
	});

	it("continues in a detached background process; side-by-side hooks never send a line twice", async () => {
		const env = { CAIRN_URL: url, CAIRN_KEY: key, CAIRN_VERBOSE: "1", CAIRN_HOOK_BUDGET_MS: "700" };
		expect(user.run(["init"], { cwd: repo, env }).status).toBe(0);
		const source = transcript("claude", "claude-current.jsonl", (files) => files.find((f) => f.includes("196820da")) ?? files[0]);
		const file = join(user.home, "big.jsonl");
		writeFileSync(file, readFileSync(source));
		const payload = JSON.stringify({
			session_id: "backlog-1",
			transcript_path: file,
			cwd: repo,
			permission_mode: "default",
			hook_event_name: "Stop",
		});
		// Two Stop hooks at once (two terminals, a retry): one uploads, the other leaves it to the lock holder.
		const [a, b] = await Promise.all([
			user.runAsync(["hook", "stop", "--agent", "claude"], { cwd: repo, env, input: payload }),
			user.runAsync(["hook", "stop", "--agent", "claude"], { cwd: repo, env, input: payload }),
		]);
		for (const r of [a, b]) {
			expect(r.status).toBe(0);
			expect(r.ms).toBeLessThan(KILLED_AFTER_MS.prompt);
		}
		const projectId = JSON.parse(readFileSync(join(user.home, ".config", "cairn", "config.json"), "utf8")).projects[repo];
		const reference = await referenceTurns(key, projectId, source, "claude", "reference-backlog");
		await eventually(async () => {
			const res = await api(key, "GET", `/v1/projects/${projectId}/sessions/backlog-1`);
			return res.status === 200 && res.body.session.turns === reference ? true : undefined;
		});
		// Let any follower finish, then count: every byte went up exactly once.
		await eventually(async () =>
			backgroundBytes(user.home) + uploadedBytes(a.stderr + b.stderr) >= readFileSync(file).length ? true : undefined,
		);
		await new Promise((r) => setTimeout(r, 1500));
		expect(backgroundBytes(user.home) + uploadedBytes(a.stderr + b.stderr)).toBe(readFileSync(file).length);
		const status = user.run(["status"], { cwd: repo, env });
		expect(status.stdout).toMatch(/last background upload: .* backlog-1 uploaded/);
	});
});
