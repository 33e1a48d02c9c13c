// `cairn team pull|push|status` and `cairn enqueue` against the Worker under `wrangler dev`: two people
// (two machines, two clones of one repository) sharing team memory, and the plugin's hooks driving it.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, gitRepo, KILLED_AFTER_MS, type Loose, machine, tenant, url } from "./helpers.ts";

const remote = `git@github.com:acme/team-${Date.now()}.git`;
const ada = machine();
const bob = machine();
const adaRepo = gitRepo(remote);
const bobRepo = gitRepo(remote);
let key = "";
let projectId = "";
const call = (method: string, path: string, body?: unknown) => api(key, method, path, body);
const sha = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");

/** Where Claude Code keeps a repository's memory on a machine, hence the default team folder. */
const teamFolder = (home: string, repo: string) => {
	const root = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: repo, encoding: "utf8" }).stdout.trim();
	return join(home, ".claude", "projects", root.replace(/[^a-zA-Z0-9]/g, "-"), "memory", "team");
};
const adaTeam = teamFolder(ada.home, adaRepo);
const bobTeam = join(bob.home, "shared-team"); // Bob keeps his team folder elsewhere: --dir

const topic = (name: string, description: string, body: string) =>
	`---\nname: ${name}\ndescription: ${description}\ntype: project\n---\n\n${body}\n`;
const serverTeam = async () => (await call("GET", `/v1/projects/${projectId}/team-memory`)).body.entries as Record<string, Loose>;

/** A pass-through to the service that keeps every request body it forwards. */
const seen: string[] = [];
let proxy: Server;
let proxyUrl = "";

beforeAll(async () => {
	key = await tenant("team");
	proxy = createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const body = Buffer.concat(chunks);
		seen.push(`${req.method} ${req.url}\n${body.toString("utf8")}`);
		const upstream = await fetch(`${url}${req.url}`, {
			method: req.method,
			headers: Object.fromEntries(
				Object.entries(req.headers).filter(([k]) => !["host", "content-length", "connection"].includes(k)),
			) as Record<string, string>,
			body: body.length ? body : undefined,
		});
		res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") ?? "text/plain" });
		res.end(Buffer.from(await upstream.arrayBuffer()));
	});
	await new Promise<void>((r) => proxy.listen(0, "127.0.0.1", r));
	const address = proxy.address();
	proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
	for (const [m, repo] of [
		[ada, adaRepo],
		[bob, bobRepo],
	] as const) {
		const login = await m.runAsync(["login", "--url", proxyUrl, "--key", key], { cwd: repo });
		expect(login.status, login.stderr).toBe(0);
	}
	const init = await ada.runAsync(["init"], { cwd: adaRepo });
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
	expect((await bob.runAsync(["init"], { cwd: bobRepo })).stdout).toContain(projectId);
});

afterAll(() => {
	proxy?.close();
});

describe("cairn team", () => {
	const adaCli = (args: string[]) => ada.runAsync(["team", ...args], { cwd: adaRepo });
	const bobCli = (args: string[]) => bob.runAsync(["team", ...args, "--dir", bobTeam], { cwd: bobRepo });

	it("push sends new files in canonical form and never sends a file with a secret", async () => {
		mkdirSync(adaTeam, { recursive: true });
		writeFileSync(join(adaTeam, "deploys.md"), topic("deploys", "'Deploy rules'", "- No deploys on Fridays."));
		const secret = "ghp_Zx81LmQ02rTy4UiOp6AsDf8GhJk0LzXc3VbN";
		writeFileSync(join(adaTeam, "ci-access.md"), topic("ci-access", "How CI reaches GitHub", `CI uses the token ${secret}.`));
		writeFileSync(join(adaTeam, "MEMORY.md"), "- [deploys](deploys.md)\n");
		const before = seen.length;

		const push = await adaCli(["push"]);
		expect(push.status).toBe(1); // one file was not sent
		expect(push.stdout).toContain("created  deploys.md");
		expect(push.stderr).toMatch(/skipped ci-access\.md: it looks like it contains a secret \(github-token\)/);
		expect(seen.slice(before).join("\n")).not.toContain(secret);
		expect(seen.slice(before).join("\n")).not.toContain("ci-access");

		const entries = await serverTeam();
		expect(Object.keys(entries)).toEqual(["deploys.md"]);
		// The local file now holds the canonical text: it hashes exactly as the server's copy.
		const local = readFileSync(join(adaTeam, "deploys.md"), "utf8");
		expect(local).toBe(entries["deploys.md"].content);
		expect(sha(local)).toBe(entries["deploys.md"].sha256);
		expect(local).toContain("description: Deploy rules\n");

		const status = await adaCli(["status"]);
		expect(status.status, status.stderr).toBe(0);
		expect(status.stdout).toMatch(/new\s+ci-access\.md\s+\(looks like it contains a secret: never pushed\)/);
		expect(status.stdout).toContain("1 in sync");
		unlinkSync(join(adaTeam, "ci-access.md"));
	});

	it("pull writes files that hash as the server's; a second person's stale push is a conflict until merged", async () => {
		const pull = await bobCli(["pull"]);
		expect(pull.status, pull.stderr).toBe(0);
		expect(pull.stdout).toContain("new  deploys.md");
		const server = (await serverTeam())["deploys.md"];
		expect(sha(readFileSync(join(bobTeam, "deploys.md"), "utf8"))).toBe(server.sha256);

		// Both edit the same file; Ada pushes first.
		writeFileSync(
			join(adaTeam, "deploys.md"),
			`${readFileSync(join(adaTeam, "deploys.md"), "utf8")}- Ada: staging deploys need a ticket.\n`,
		);
		writeFileSync(
			join(bobTeam, "deploys.md"),
			`${readFileSync(join(bobTeam, "deploys.md"), "utf8")}- Bob: roll back with make rollback.\n`,
		);
		expect((await adaCli(["status"])).stdout).toMatch(/modified\s+deploys\.md/);
		expect((await bobCli(["status"])).stdout).toMatch(/modified\s+deploys\.md/);
		const adaPush = await adaCli(["push"]);
		expect(adaPush.status, adaPush.stderr).toBe(0);
		expect(adaPush.stdout).toContain("pushed   deploys.md");
		expect((await bobCli(["status"])).stdout).toMatch(/conflict\s+deploys\.md/);

		const stale = await bobCli(["push"]);
		expect(stale.status).toBe(1);
		expect(stale.stderr).toContain("conflict: deploys.md changed on the server since your last sync");
		expect(stale.stderr).toContain("- - Ada: staging deploys need a ticket.");
		expect(stale.stderr).toContain("+ - Bob: roll back with make rollback.");
		// Nothing of Bob's was written over Ada's, and pushing again unchanged is still a conflict.
		expect((await serverTeam())["deploys.md"].content).not.toContain("Bob:");
		expect((await bobCli(["push"])).status).toBe(1);
		expect((await serverTeam())["deploys.md"].content).not.toContain("Bob:");
		expect((await bobCli(["status"])).stdout).toMatch(/conflict\s+deploys\.md/);

		// Bob merges by hand (Ada's line into his file) and pushes again: both edits are on the server.
		const mine = readFileSync(join(bobTeam, "deploys.md"), "utf8");
		writeFileSync(join(bobTeam, "deploys.md"), mine.replace("- Bob:", "- Ada: staging deploys need a ticket.\n- Bob:"));
		const merged = await bobCli(["push"]);
		expect(merged.status, merged.stderr).toBe(0);
		const after = (await serverTeam())["deploys.md"].content;
		expect(after).toContain("- Ada: staging deploys need a ticket.");
		expect(after).toContain("- Bob: roll back with make rollback.");

		// Ada's next pull brings Bob's merge; both are in sync.
		const adaPull = await adaCli(["pull"]);
		expect(adaPull.stdout).toContain("updated  deploys.md");
		expect(readFileSync(join(adaTeam, "deploys.md"), "utf8")).toBe(after);
		expect((await adaCli(["status"])).stdout).toContain("1 in sync");
	});

	it("--merge writes both versions with conflict markers, and a file with markers is never pushed", async () => {
		const edit = (dir: string, line: string) =>
			writeFileSync(join(dir, "deploys.md"), readFileSync(join(dir, "deploys.md"), "utf8").replace("- No deploys on Fridays.", line));
		edit(adaTeam, "- No deploys on Fridays or holidays.");
		expect((await adaCli(["push"])).status).toBe(0);
		edit(bobTeam, "- No deploys on Fridays after 12:00 UTC.");
		const pull = await bobCli(["pull", "--merge"]);
		expect(pull.status).toBe(1);
		const marked = readFileSync(join(bobTeam, "deploys.md"), "utf8");
		expect(marked).toContain(
			"<<<<<<< local\n- No deploys on Fridays after 12:00 UTC.\n=======\n- No deploys on Fridays or holidays.\n>>>>>>> server\n",
		);
		const refused = await bobCli(["push"]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain("skipped deploys.md: it still has conflict markers");
		writeFileSync(
			join(bobTeam, "deploys.md"),
			marked.replace(/<<<<<<< local\n[\s\S]*>>>>>>> server\n/, "- No deploys on Fridays after 12:00 UTC or on holidays.\n"),
		);
		expect((await bobCli(["push"])).status).toBe(0);
		expect((await serverTeam())["deploys.md"].content).toContain("after 12:00 UTC or on holidays");
		expect((await adaCli(["pull"])).status).toBe(0);
	});

	it("deleting a local file deletes nothing on the server", async () => {
		unlinkSync(join(adaTeam, "deploys.md"));
		const push = await adaCli(["push"]);
		expect(push.status, push.stderr).toBe(0);
		expect(Object.keys(await serverTeam())).toEqual(["deploys.md"]);
		expect(seen.some((s) => s.startsWith("DELETE"))).toBe(false);
		expect((await adaCli(["status"])).stdout).toMatch(/deleted-locally\s+deploys\.md/);
		// A pull leaves it deleted here while the server's copy is the one deleted; status keeps saying so.
		await adaCli(["pull"]);
		expect(existsSync(join(adaTeam, "deploys.md"))).toBe(false);
	});

	it("is explained in one line when team memory is off", async () => {
		expect((await call("PUT", `/v1/projects/${projectId}/settings`, { "memories.teamMemory": false })).status).toBe(200);
		const pull = await bobCli(["pull"]);
		expect(pull.status).toBe(1);
		expect(pull.stderr.trim().split("\n")).toHaveLength(1);
		expect(pull.stderr).toContain("team memory sync is off (memories.teamMemory");
		expect((await call("PUT", `/v1/projects/${projectId}/settings`, { "memories.teamMemory": true })).status).toBe(200);
	});
});

describe("the plugin's hooks drive team sync", () => {
	const payload = (event: string, extra: Record<string, unknown> = {}) =>
		JSON.stringify({
			session_id: "team-hook-session",
			transcript_path: join(bob.home, "no-transcript.jsonl"),
			cwd: bobRepo,
			permission_mode: "default",
			hook_event_name: event,
			...extra,
		});
	const bobDefault = teamFolder(bob.home, bobRepo);

	it("SessionStart pulls team memory into the memory directory; PostToolUse on a team file pushes it", async () => {
		const start = await bob.runAsync(["hook", "session-start", "--agent", "claude"], {
			cwd: bobRepo,
			input: payload("SessionStart", { source: "startup" }),
		});
		expect(start.status).toBe(0);
		expect(start.ms).toBeLessThan(KILLED_AFTER_MS.other);
		const server = (await serverTeam())["deploys.md"];
		expect(readFileSync(join(bobDefault, "deploys.md"), "utf8")).toBe(server.content);

		// The agent edits the team file with Edit; Claude Code then sends PostToolUse.
		const file = join(bobDefault, "deploys.md");
		writeFileSync(file, readFileSync(file, "utf8").replace("on holidays.", "on holidays.\n- Hotfixes need two reviewers."));
		const edited = await bob.runAsync(["hook", "post-tool-use", "--agent", "claude"], {
			cwd: bobRepo,
			input: payload("PostToolUse", {
				tool_name: "Edit",
				tool_input: { file_path: file, old_string: "on holidays.", new_string: "on holidays.\n- Hotfixes need two reviewers." },
				tool_response: { filePath: file, success: true },
				tool_use_id: "toolu_01",
			}),
		});
		expect(edited.status).toBe(0);
		expect(edited.stdout).toBe("");
		expect((await serverTeam())["deploys.md"].content).toContain("Hotfixes need two reviewers.");

		// A Write outside the team folder costs no request at all.
		const before = seen.length;
		const other = await bob.runAsync(["hook", "post-tool-use", "--agent", "claude"], {
			cwd: bobRepo,
			input: payload("PostToolUse", {
				tool_name: "Write",
				tool_input: { file_path: join(bobRepo, "notes.md"), content: "x" },
				tool_response: { filePath: join(bobRepo, "notes.md"), success: true },
				tool_use_id: "toolu_02",
			}),
		});
		expect(other.status).toBe(0);
		expect(seen.length).toBe(before);
	});

	it("a conflicting edit is left for a person and the agent is told", async () => {
		// Ada's copy was deleted locally; the server's changed since, so her pull restores it.
		expect((await adaCli(["pull"])).stdout).toContain("restored");
		writeFileSync(
			join(adaTeam, "deploys.md"),
			readFileSync(join(adaTeam, "deploys.md"), "utf8").replace("two reviewers", "three reviewers"),
		);
		expect((await adaCli(["push"])).status).toBe(0);
		const file = join(bobDefault, "deploys.md");
		writeFileSync(file, readFileSync(file, "utf8").replace("two reviewers", "one reviewer"));
		const edited = await bob.runAsync(["hook", "post-tool-use", "--agent", "claude"], {
			cwd: bobRepo,
			input: payload("PostToolUse", {
				tool_name: "Write",
				tool_input: { file_path: file, content: "…" },
				tool_response: {},
				tool_use_id: "t3",
			}),
		});
		expect(edited.status).toBe(0);
		const out = JSON.parse(edited.stdout);
		expect(out.hookSpecificOutput.hookEventName).toBe("PostToolUse");
		expect(out.hookSpecificOutput.additionalContext).toContain("conflict: deploys.md");
		expect((await serverTeam())["deploys.md"].content).toContain("three reviewers");
	});

	function adaCli(args: string[]) {
		return ada.runAsync(["team", ...args], { cwd: adaRepo });
	}
});

describe("cairn enqueue", () => {
	it("queues extraction of pending sessions and starts consolidation; memory off is one line", async () => {
		const ndjson = [
			{ id: "1", role: "user", content: "From now on always use pnpm, never npm, in this repository.", ts: "2026-11-28T10:00:00Z" },
			{ id: "2", role: "assistant", content: "Switched the scripts to pnpm.", ts: "2026-11-28T10:00:05Z" },
		]
			.map((r) => JSON.stringify(r))
			.join("\n");
		const res = await fetch(`${url}/v1/projects/${projectId}/sessions/enqueue-1/transcript`, {
			method: "POST",
			headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/x-ndjson" },
			body: `${ndjson}\n`,
		});
		expect(res.status).toBe(200);
		const run = await ada.runAsync(["enqueue"], { cwd: adaRepo });
		expect(run.status, run.stderr).toBe(0);
		expect(run.stdout).toContain("queued extraction for 1 session");
		expect(run.stdout).toContain("consolidation started");
		await eventually(async () => {
			const outputs = (await call("GET", `/v1/projects/${projectId}/candidates`)).body.outputs as Loose[];
			const status = (await call("GET", `/v1/projects/${projectId}/status`)).body.pipeline;
			return outputs.some((o) => o.sessionId === "enqueue-1") || status.lastRun ? true : undefined;
		});

		expect((await call("PUT", `/v1/projects/${projectId}/settings`, { "memories.enabled": false })).status).toBe(200);
		const off = await ada.runAsync(["enqueue"], { cwd: adaRepo });
		expect(off.status).toBe(1);
		expect(off.stderr.trim().split("\n")).toHaveLength(1);
		expect(off.stderr).toMatch(/nothing queued: extraction is off \(memories\.enabled/);
		expect((await call("PUT", `/v1/projects/${projectId}/settings`, { "memories.enabled": true })).status).toBe(200);
	});
});
