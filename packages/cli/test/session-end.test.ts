// Sessions always end: SessionEnd hands the final upload and the end to a detached process at once
// (Claude Code cancels a plugin's SessionEnd hook after 1.5 s), and what fails is retried from the
// backlog by the next hook or `cairn status` — never by the prompt hook. Every CLI run here is
// asynchronous: the slow stand-in for the service lives in this process.
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, gitRepo, type Loose, machine, slowService, tenant, transcript } from "./helpers.ts";

const user = machine();
const repo = gitRepo(`git@github.com:acme/session-end-${Date.now()}.git`);
let key = "";
let projectId = "";
let service: Awaited<ReturnType<typeof slowService>>;

const payload = (event: string, transcriptPath: string, session: string, extra: Record<string, unknown> = {}) =>
	JSON.stringify({
		session_id: session,
		transcript_path: transcriptPath,
		cwd: repo,
		hook_event_name: event,
		permission_mode: "default",
		...extra,
	});
const session = async (id: string) => (await api(key, "GET", `/v1/projects/${projectId}/sessions/${id}`)).body.session as Loose | undefined;
const backlog = () => readdirSync(join(user.home, ".config", "cairn", "state")).filter((n) => n.startsWith("pending-"));

beforeAll(async () => {
	key = await tenant("session-end");
	// The session routes answer 2 s late; everything else (project registration) at once.
	service = await slowService({ delayMs: 2000 });
	const login = await user.runAsync(["login", "--url", service.url, "--key", key], { cwd: repo });
	expect(login.status, login.stderr).toBe(0);
	const init = await user.runAsync(["init"], { cwd: repo });
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (\S+)/.exec(init.stdout)?.[1] ?? "";
});

afterAll(() => service.close());

describe("SessionEnd with the service answering 2 s late", () => {
	it("returns before any session request is answered; the session is uploaded whole and ended within 10 s", async () => {
		const copy = join(repo, "late.jsonl");
		writeFileSync(copy, readFileSync(transcript("claude", "claude-sidechain.jsonl")));
		const end = await user.runAsync(["hook", "session-end", "--agent", "claude"], {
			cwd: repo,
			input: payload("SessionEnd", copy, "late-end", { reason: "prompt_input_exit" }),
		});
		expect(end.status).toBe(0);
		expect(end.stdout).toBe("");
		// The hook waited for nothing: no session request had been answered when it exited (the stand-in records a request once answered).
		expect(service.events.filter((e) => e.path.includes("/sessions/"))).toEqual([]);
		const ended = await eventually(async () => {
			const s = await session("late-end");
			return s?.status === "ended" ? s : undefined;
		}, 10_000);
		expect(ended.turns).toBeGreaterThan(0);
		const paths = service.events.map((e) => `${e.method} ${e.path.replace(/\?.*/, "")}`);
		expect(paths).toContain(`POST /v1/projects/${projectId}/sessions/late-end/transcript`);
		expect(paths).toContain(`POST /v1/projects/${projectId}/sessions/late-end/end`);
		// Done, so nothing is left in the backlog.
		await eventually(async () => (backlog().length === 0 ? true : undefined), 5_000);
	});

	it("an end the service refuses stays in the backlog; the prompt hook leaves it, the next Stop hook finishes it", async () => {
		const copy = join(repo, "refused.jsonl");
		writeFileSync(copy, readFileSync(transcript("claude", "claude-sidechain.jsonl")));
		service.state.refuse = true;
		service.state.delayMs = 0;
		const end = await user.runAsync(["hook", "session-end", "--agent", "claude"], {
			cwd: repo,
			input: payload("SessionEnd", copy, "refused-end"),
		});
		expect(end.status).toBe(0);
		// The background run tries three times, then records the failure and leaves the job for later.
		const log = join(user.home, ".config", "cairn", "state", "sync.log");
		await eventually(
			async () => (existsSync(log) && readFileSync(log, "utf8").includes("refused-end uploaded 0 bytes, then failed") ? true : undefined),
			20_000,
		);
		expect(backlog()).toHaveLength(1);
		expect((await session("refused-end"))?.status ?? "absent").not.toBe("ended");
		service.state.refuse = false;
		const before = service.events.length;
		const prompt = await user.runAsync(["hook", "user-prompt-submit", "--agent", "claude"], {
			cwd: repo,
			input: payload("UserPromptSubmit", copy, "other-session", { prompt: "what next?" }),
		});
		expect(prompt.status).toBe(0);
		await new Promise((r) => setTimeout(r, 1500));
		expect(service.events.slice(before).filter((e) => e.path.includes("refused-end"))).toEqual([]);
		expect(backlog()).toHaveLength(1);
		// The next Stop hook (of another session) resumes it in the background.
		const other = join(repo, "other.jsonl");
		writeFileSync(other, "");
		const stop = await user.runAsync(["hook", "stop", "--agent", "claude"], { cwd: repo, input: payload("Stop", other, "other-session") });
		expect(stop.status).toBe(0);
		const ended = await eventually(async () => {
			const s = await session("refused-end");
			return s?.status === "ended" ? s : undefined;
		}, 10_000);
		expect(ended.turns).toBeGreaterThan(0);
		await eventually(async () => (backlog().length === 0 ? true : undefined), 5_000);
	});

	it("cairn status retries the backlog and says so", async () => {
		const copy = join(repo, "status.jsonl");
		writeFileSync(copy, readFileSync(transcript("claude", "claude-sidechain.jsonl")));
		service.state.refuse = true;
		await user.runAsync(["hook", "session-end", "--agent", "claude"], { cwd: repo, input: payload("SessionEnd", copy, "status-end") });
		const log = join(user.home, ".config", "cairn", "state", "sync.log");
		await eventually(
			async () => (readFileSync(log, "utf8").includes("status-end uploaded 0 bytes, then failed") ? true : undefined),
			20_000,
		);
		service.state.refuse = false;
		const status = await user.runAsync(["status"], { cwd: repo });
		expect(status.status, status.stderr).toBe(0);
		expect(status.stdout).toContain("unfinished uploads: 1 session (status-end: service unavailable); retrying 1 in the background");
		await eventually(async () => ((await session("status-end"))?.status === "ended" ? true : undefined), 10_000);
	});
});
