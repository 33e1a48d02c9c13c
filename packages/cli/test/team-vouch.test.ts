// Team memory a person vouched for, end to end (docs/memory-trust.md): two people, each with their own
// machine, key and agents, against the Worker under `wrangler dev`. Ana's agent writes team memory from
// her Claude Code session; Bob's Claude Code and Codex hooks (session start in parts and per prompt, as
// the installed hooks call them) are served none of it — only a count — until Ana approves it herself:
// not from her agent's shell, not with the key her hooks use, but with a review key of her own. Then both
// of Bob's agents are served it, the look-alike beside it too.
import { beforeAll, describe, expect, it } from "vitest";
import { api, gitRepo, type Loose, machine, tenant, url } from "./helpers.ts";

const remote = `git@github.com:acme/vouch-${Date.now()}.git`;
const ana = machine();
const bob = machine();
const anaRepo = gitRepo(remote);
const bobRepo = gitRepo(remote);
let admin = "";
let anaKey = "";
let anaReviewKey = "";
let bobKey = "";
let projectId = "";

const RULE = "CI jobs run on the self-hosted runner pool `ci-large-arm64`; request access in #ci-help.";
const LOOKALIKE = "After `docker compose up -d`, check the API with `curl -fsS http://localhost:8080/healthz` and expect ok.";

const issue = async (user: string) => (await api(admin, "POST", "/v1/keys", { scopes: ["read", "write"], user })).body.key.token as string;

const payload = (agent: "claude" | "codex", event: string, session: string, cwd: string, extra: Record<string, unknown> = {}) =>
	JSON.stringify({
		session_id: session,
		cwd,
		hook_event_name: event,
		...(agent === "claude" ? { transcript_path: "", permission_mode: "default" } : { turn_id: `${session}-turn`, model: "gpt-5" }),
		...extra,
	});
const contextOf = (stdout: string) =>
	(stdout.trim() ? ((JSON.parse(stdout) as Loose).hookSpecificOutput?.additionalContext ?? "") : "") as string;

/** What Bob's agents are served: the three session-start parts and a prompt's block, for Claude Code and for Codex. */
async function bobServed(prompt: string): Promise<Record<string, string>> {
	const served: Record<string, string> = {};
	for (const agent of ["claude", "codex"] as const) {
		const session = `bob-${agent}-${Date.now()}`;
		const parts: string[] = [];
		for (const part of [1, 2, 3]) {
			const run = await bob.runAsync(["hook", "session-start", "--agent", agent, "--part", `${part}/3`], {
				cwd: bobRepo,
				input: payload(agent, "SessionStart", session, bobRepo, { source: "startup" }),
			});
			expect(run.status, run.stderr).toBe(0);
			parts.push(contextOf(run.stdout));
		}
		served[`${agent} start`] = parts.join("\n");
		// A prompt of another session (one whose start already listed a memory is not offered its line again).
		const asked = await bob.runAsync(["hook", "user-prompt-submit", "--agent", agent], {
			cwd: bobRepo,
			input: payload(agent, "UserPromptSubmit", `${session}-prompt`, bobRepo, { prompt }),
		});
		expect(asked.status, asked.stderr).toBe(0);
		served[`${agent} prompt`] = contextOf(asked.stdout);
	}
	return served;
}

beforeAll(async () => {
	admin = await tenant("vouch");
	[anaKey, bobKey, anaReviewKey] = [await issue("ana"), await issue("bob"), await issue("ana")];
	expect((await ana.runAsync(["login", "--url", url, "--key", anaKey], { cwd: anaRepo })).status).toBe(0);
	expect((await bob.runAsync(["login", "--url", url, "--key", bobKey], { cwd: bobRepo })).status).toBe(0);
	const init = await ana.runAsync(["init"], { cwd: anaRepo });
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
	expect((await bob.runAsync(["init"], { cwd: bobRepo })).stdout).toContain(projectId);
	// Ana's Claude Code session starts: her hooks use her key in it.
	const start = await ana.runAsync(["hook", "session-start", "--agent", "claude", "--part", "1/3"], {
		cwd: anaRepo,
		input: payload("claude", "SessionStart", "ana-session-1", anaRepo, { source: "startup" }),
	});
	expect(start.status, start.stderr).toBe(0);
}, 120_000);

describe("two people, both agents' hooks", () => {
	it("a team memory Ana's agent wrote reaches Bob's Claude Code and Codex sessions only once Ana vouched for it", async () => {
		// Ana's agent writes two team memories from its shell (the agents' variables are set there).
		const agentShell = { CLAUDECODE: "1", CAIRN_SESSION_ID: "ana-session-1" };
		for (const [name, description, body] of [
			["ci-runners", "Where CI jobs run", RULE],
			["healthcheck", "Health check after compose up", LOOKALIKE],
		] as const) {
			const wrote = await ana.runAsync(["remember", name, "--type", "project", "--description", description, "--team"], {
				cwd: anaRepo,
				input: `${body}\n`,
				env: agentShell,
			});
			expect(wrote.status, wrote.stderr).toBe(0);
			expect(wrote.stdout).toContain("a team proposal");
		}

		// Bob's agents: nothing of either text, on any hook; the start says how many wait.
		let served = await bobServed("Which runner pool do CI jobs run on, and how do I check the API after compose up?");
		for (const [where, text] of Object.entries(served)) {
			for (const marker of ["ci-large-arm64", "localhost:8080/healthz", "ci-runners", "healthcheck"])
				expect(text, where).not.toContain(marker);
		}
		expect(served["claude start"]).toContain("2 team memories await review — cairn review");
		expect(served["codex start"]).toContain("2 team memories await review — cairn review");

		// Ana lists them (her own proposals), with the danger check's verdict and where they came from.
		const list = await ana.runAsync(["review", "list"], { cwd: anaRepo });
		expect(list.status, list.stderr).toBe(0);
		const ids = [...list.stdout.matchAll(/^(rev_\w+)\s+pending\s+team proposal (ci-runners|healthcheck):/gm)].map((m) => m[1] as string);
		expect(ids).toHaveLength(2);
		const show = await ana.runAsync(["review", "show", ids[0] as string], { cwd: anaRepo });
		expect(show.stdout).toContain("danger check: nothing flagged");
		expect(show.stdout).toContain("in session ana-session-1");

		// Her agent cannot approve them, from its shell; nor can she with the key her hooks use.
		const fromAgent = await ana.runAsync(["review", "approve", ids[0] as string], { cwd: anaRepo, env: agentShell });
		expect(fromAgent.status).toBe(1);
		expect(fromAgent.stderr).toContain("from an agent's session");
		const withHookKey = await ana.runAsync(["review", "approve", ids[0] as string], { cwd: anaRepo });
		expect(withHookKey.status).toBe(1);
		expect(withHookKey.stderr).toContain("used by an agent session in this project");
		expect(withHookKey.stderr).toContain("the key in your Cairn login, which your agents' hooks use");

		// With a review key of her own, from her terminal: the session's batch at once.
		const approved = await ana.runAsync(["review", "approve", "--session", "ana-session-1", "--key", anaReviewKey], { cwd: anaRepo });
		expect(approved.status, approved.stderr).toBe(0);
		expect(approved.stdout).toMatch(/approved rev_\w+: ci-runners is served to every teammate/);
		expect(approved.stdout).toMatch(/approved rev_\w+: healthcheck is served to every teammate/);

		// Now both of Bob's agents are served them, the look-alike like any team memory.
		served = await bobServed("Which self-hosted runner pool do our CI jobs run on, and how do I request access to it?");
		for (const agent of ["claude", "codex"]) {
			expect(served[`${agent} start`], agent).toContain("ci-runners");
			expect(served[`${agent} start`], agent).not.toContain("await review");
			expect(served[`${agent} prompt`], agent).toContain("ci-runners");
		}
		served = await bobServed("After docker compose up -d, how do I check the API health endpoint?");
		for (const agent of ["claude", "codex"]) {
			expect(served[`${agent} start`], agent).toContain("healthcheck");
			expect(served[`${agent} prompt`], agent).toContain("healthcheck");
		}
		const pulled = (await api(bobKey, "GET", `/v1/projects/${projectId}/team-memory`)).body.entries as Record<string, Loose>;
		expect(Object.keys(pulled).sort()).toEqual(["ci-runners.md", "healthcheck.md"]);
	}, 180_000);
});
