// The session-start block in parts: agents cap each hook's text (Claude Code 10,000 characters, Codex
// 10,000 UTF-8 bytes), not the event's, so the block comes over START_PARTS SessionStart hook entries,
// `cairn hook session-start --part i/n`, each asking the service for its own part. Here: `--part` and its
// bad values, the request each part builds, and the installs that write the parts over older ones.

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRequest } from "../lib/hook.mjs";
import { INJECT_LIMITS, MAX_PARTS, parsePart, START_PARTS } from "../lib/hook-output.mjs";
import { CLAUDE_HOOKS, CODEX_HOOKS, installHooks, partCommands, startCommands, startPartsProblem, uninstallHooks } from "../lib/hooks.mjs";
import { RESPONSE_MARGIN_MS } from "../lib/prompt-hook.mjs";
import { gitRepo, type Loose, machine } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "cairn-start-parts-"));
const context = { folder: "shop", branch: "main", commits: ["Add refunds"], files: ["src/refund.ts"] };
const code = { files: [{ path: "src/refund.ts", blob: "a".repeat(40) }], renames: true };

describe("--part", () => {
	it("is 1/n … n/n; three parts by default", () => {
		expect(START_PARTS).toBe(3);
		expect(parsePart("1/3")).toEqual({ index: 1, of: 3 });
		expect(parsePart("3/3")).toEqual({ index: 3, of: 3 });
		expect(parsePart(" 2/3 ")).toEqual({ index: 2, of: 3 });
		expect(parsePart("1/1")).toEqual({ index: 1, of: 1 });
		expect(parsePart(`${MAX_PARTS}/${MAX_PARTS}`)).toEqual({ index: MAX_PARTS, of: MAX_PARTS });
	});

	it("refuses anything else, naming the form and what it got", () => {
		for (const bad of ["0/3", "4/3", "1/0", "3", "1/3/3", "a/3", "-1/3", "1.5/3", "", `1/${MAX_PARTS + 1}`, "--agent", true]) {
			expect(() => parsePart(bad), String(bad)).toThrow(
				/^--part must be i\/n, this hook's part of the session-start block: 1 <= i <= n <= 8, e\.g\. --part 1\/3 \(got /,
			);
		}
		expect(() => parsePart(true)).toThrow("(got nothing)");
		expect(() => parsePart("4/3")).toThrow('(got "4/3"); continuing without memory');
	});
});

describe("the session-start request of each part", () => {
	const deadline = 10_000;
	const now = 8_000;

	it("part 1 carries the context, the session, the cited-code check, sessionMemory after compaction, its part and waitMs", () => {
		const body = startRequest({
			agent: "claude",
			context,
			sessionId: "s1",
			part: { index: 1, of: 3 },
			code,
			sessionMemory: true,
			deadline,
			now,
		});
		expect(body).toEqual({
			context,
			sessionId: "s1",
			code,
			sessionMemory: true,
			part: { index: 1, of: 3 },
			maxChars: 9500,
			waitMs: 2_000 - RESPONSE_MARGIN_MS,
		});
	});

	it("parts 2..n carry no code and no sessionMemory, whatever they are given", () => {
		for (const index of [2, 3]) {
			const body = startRequest({
				agent: "claude",
				context,
				sessionId: "s1",
				part: { index, of: 3 },
				code,
				sessionMemory: true,
				deadline,
				now,
			});
			expect(body).toEqual({ context, sessionId: "s1", part: { index, of: 3 }, maxChars: 9500, waitMs: 2_000 - RESPONSE_MARGIN_MS });
		}
	});

	it("Codex asks in UTF-8 bytes (it counts bytes / 4 as tokens), not characters or tokens; waitMs is never negative", () => {
		expect(INJECT_LIMITS.codex).toEqual({ maxBytes: 9500 });
		const body = startRequest({ agent: "codex", context, sessionId: null, part: { index: 2, of: 3 }, deadline, now: deadline + 500 });
		expect(body).toEqual({ context, part: { index: 2, of: 3 }, maxBytes: 9500, waitMs: 0 });
	});

	it("each part names the start's source when the agent gave a known one; the whole block does not", () => {
		for (const source of ["startup", "resume", "clear", "compact"])
			expect(startRequest({ agent: "claude", context, sessionId: "s1", part: { index: 2, of: 3 }, source, deadline, now }).source).toBe(
				source,
			);
		for (const source of ["reboot", 3, null, undefined])
			expect(
				startRequest({ agent: "claude", context, sessionId: "s1", part: { index: 1, of: 3 }, source, deadline, now }),
			).not.toHaveProperty("source");
		expect(startRequest({ agent: "claude", context, sessionId: "s1", part: null, source: "startup", deadline, now })).not.toHaveProperty(
			"source",
		);
	});

	it("without --part: the whole block as before, no part and no waitMs", () => {
		const body = startRequest({ agent: "claude", context, sessionId: "s1", part: null, code, sessionMemory: true, deadline, now });
		expect(body).toEqual({ context, sessionId: "s1", code, sessionMemory: true, maxChars: 9500 });
		// sessionMemory only with a session to read it from.
		expect(startRequest({ agent: "claude", context, sessionId: null, part: null, sessionMemory: true, deadline, now })).toEqual({
			context,
			maxChars: 9500,
		});
	});
});

describe("installs write the parts", () => {
	const command = (sub: string) => `cairn hook ${sub} --agent codex`;
	const starts = (file: string) => (JSON.parse(readFileSync(file, "utf8")).hooks.SessionStart as Loose[]).flatMap((g) => g.hooks);

	it("both agents' installs run the session start in START_PARTS parts, one hook each, side by side in one group", () => {
		expect(CLAUDE_HOOKS.SessionStart.parts).toBe(START_PARTS);
		expect(CODEX_HOOKS.SessionStart.parts).toBe(START_PARTS);
		expect(partCommands("cairn hook session-start --agent codex", 3)).toEqual([
			"cairn hook session-start --agent codex --part 1/3",
			"cairn hook session-start --agent codex --part 2/3",
			"cairn hook session-start --agent codex --part 3/3",
		]);
		expect(partCommands("cairn hook stop --agent codex")).toEqual(["cairn hook stop --agent codex"]);
	});

	it("over an old single entry (and a duplicate of it), in its place and beside the user's own hook; again: nothing changes; uninstall removes every part", () => {
		const file = join(dir, "old-hooks.json");
		const old = {
			hooks: {
				SessionStart: [
					{
						matcher: "startup|resume",
						hooks: [
							{ type: "command", command: "echo mine", timeout: 5 },
							{ type: "command", command: "cairn hook session-start --agent codex", timeout: 10 },
							{ type: "command", command: "cairn hook session-start --agent codex", timeout: 10 },
						],
					},
				],
				Stop: [{ hooks: [{ type: "command", command: "cairn hook stop --agent codex", timeout: 10 }] }],
			},
		};
		writeFileSync(file, JSON.stringify(old));
		const first = installHooks(file, CODEX_HOOKS, command);
		expect(first.updated).toEqual(["SessionStart"]);
		expect(first.added).toEqual(["UserPromptSubmit", "PostToolUse", "SubagentStop", "PreCompact", "SessionEnd"]);
		const written = JSON.parse(readFileSync(file, "utf8"));
		expect(written.hooks.SessionStart).toEqual([
			{
				matcher: "startup|resume",
				hooks: [
					{ type: "command", command: "echo mine", timeout: 5 },
					...[1, 2, 3].map((i) => ({ type: "command", command: `cairn hook session-start --agent codex --part ${i}/3`, timeout: 10 })),
				],
			},
		]);
		expect(installHooks(file, CODEX_HOOKS, command)).toEqual({ added: [], updated: [] });
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(written);

		// One part lost (a hand edit): the install puts it back, the others stay as they are.
		const lost = structuredClone(written);
		lost.hooks.SessionStart[0].hooks.splice(2, 1);
		writeFileSync(file, JSON.stringify(lost));
		expect(installHooks(file, CODEX_HOOKS, command).updated).toEqual(["SessionStart"]);
		expect(JSON.parse(readFileSync(file, "utf8"))).toEqual(written);

		expect(new Set(uninstallHooks(file))).toEqual(new Set(Object.keys(CODEX_HOOKS)));
		expect(starts(file)).toEqual([{ type: "command", command: "echo mine", timeout: 5 }]);
	});

	it("what doctor reads: every part once is right; a part missing, the old single entry or parts of another split are named", () => {
		const file = join(dir, "parts.json");
		installHooks(file, CODEX_HOOKS, command);
		const all = startCommands(file);
		expect(all).toHaveLength(3);
		expect(startPartsProblem(all)).toBeNull();
		expect(startPartsProblem([])).toBeNull(); // no session start at all: reported as a missing event
		expect(startPartsProblem([all[0] ?? "", all[2] ?? ""])).toBe("SessionStart lacks part 2/3 of the session-start block");
		expect(startPartsProblem([all[0] ?? ""])).toBe("SessionStart lacks parts 2/3, 3/3 of the session-start block");
		expect(startPartsProblem(["cairn hook session-start --agent codex"])).toBe(
			"SessionStart runs the single session-start hook of older installs, not the block's 3 parts (--part 1/3 … 3/3): the model sees at most one hook's worth",
		);
		expect(startPartsProblem([...all, "cairn hook session-start --agent codex"])).toBe(
			"SessionStart also runs the single session-start hook of older installs (the block would come twice)",
		);
		expect(
			startPartsProblem(["cairn hook session-start --agent codex --part 1/2", "cairn hook session-start --agent codex --part 2/2"]),
		).toBe("SessionStart lacks parts 1/3, 2/3, 3/3 of the session-start block; SessionStart runs parts 1/2, 2/2, not parts of 3");
	});
});

describe("cairn hook session-start --part, as the agents run it", () => {
	const requests: { path: string; body: Loose }[] = [];
	const server = createServer(async (req: IncomingMessage, res) => {
		let text = "";
		for await (const c of req) text += c;
		requests.push({ path: `${req.method} ${req.url}`, body: text ? JSON.parse(text) : null });
		res.writeHead(200, { "Content-Type": "application/json" });
		const part = text ? JSON.parse(text).part : undefined;
		res.end(JSON.stringify(req.url?.endsWith("/inject") ? { text: part ? `part ${part.index} of ${part.of}` : "the whole block" } : {}));
	});
	const user = machine();
	const repo = gitRepo(null);
	let env: Record<string, string> = {};
	const payload = (agent: "claude" | "codex") =>
		JSON.stringify({
			session_id: `${agent}-parts`,
			transcript_path: null,
			cwd: repo,
			hook_event_name: "SessionStart",
			source: "startup",
			...(agent === "claude" ? { permission_mode: "default" } : { model: "gpt-5-codex" }),
		});

	beforeAll(async () => {
		await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
		env = { CAIRN_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}`, CAIRN_KEY: "k", CAIRN_PROJECT: "prj_parts" };
	});
	afterAll(() => new Promise<void>((r) => server.close(() => r())));

	it("a bad --part: exits 0 with one line on stderr and nothing for the model (Codex: {}), before any request", async () => {
		requests.length = 0;
		for (const [agent, bad] of [
			["claude", "4/3"],
			["codex", "0/3"],
			["codex", "x"],
		] as const) {
			const run = await user.runAsync(["hook", "session-start", "--agent", agent, "--part", bad], {
				cwd: repo,
				env,
				input: payload(agent),
			});
			expect(run.status).toBe(0);
			expect(run.stdout).toBe(agent === "codex" ? "{}\n" : "");
			expect(run.stderr).toBe(
				`cairn: --part must be i/n, this hook's part of the session-start block: 1 <= i <= n <= 8, e.g. --part 1/3 (got "${bad}"); continuing without memory\n`,
			);
		}
		// `--part` with nothing after it.
		const none = await user.runAsync(["hook", "session-start", "--agent", "codex", "--part"], { cwd: repo, env, input: payload("codex") });
		expect(none.stdout).toBe("{}\n");
		expect(none.stderr).toContain("(got nothing)");
		expect(requests).toEqual([]);
	});

	it("each part prints its own text; the requests are as the service expects them", async () => {
		for (const agent of ["claude", "codex"] as const) {
			requests.length = 0;
			const runs = await Promise.all(
				[1, 2, 3].map((i) =>
					user.runAsync(["hook", "session-start", "--agent", agent, "--part", `${i}/3`], {
						cwd: repo,
						env: { ...env, CAIRN_TEAM_SYNC: "0" },
						input: payload(agent),
					}),
				),
			);
			runs.forEach((run, i) => {
				expect(run.status, run.stderr).toBe(0);
				expect(run.stderr).toBe("");
				expect(JSON.parse(run.stdout).hookSpecificOutput).toEqual({
					hookEventName: "SessionStart",
					additionalContext: `part ${i + 1} of 3`,
				});
			});
			const injects = requests.filter((r) => r.path === "POST /v1/projects/prj_parts/inject").map((r) => r.body);
			expect(injects).toHaveLength(3);
			for (const body of injects) {
				expect(Object.keys(body).sort()).toEqual(
					["context", "part", agent === "claude" ? "maxChars" : "maxBytes", "sessionId", "source", "waitMs"].sort(),
				);
				expect(body.context.folder).toBe(repo.split("/").at(-1));
				expect(body.sessionId).toBe(`${agent}-parts`);
				// Every part names what started the session: one start's parts share a layout, the next start gets its own.
				expect(body.source).toBe("startup");
				expect(body[agent === "claude" ? "maxChars" : "maxBytes"]).toBe(9500);
				expect(Number.isInteger(body.waitMs)).toBe(true);
				expect(body.waitMs).toBeGreaterThan(0);
				expect(body.waitMs).toBeLessThanOrEqual(2_800 - 150 - RESPONSE_MARGIN_MS);
			}
			expect(injects.map((b) => b.part).sort((a, b) => a.index - b.index)).toEqual([1, 2, 3].map((index) => ({ index, of: 3 })));
		}
	});

	it("without --part: one request for the whole block, as before", async () => {
		requests.length = 0;
		const run = await user.runAsync(["hook", "session-start", "--agent", "codex"], { cwd: repo, env, input: payload("codex") });
		expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toBe("the whole block");
		const injects = requests.filter((r) => r.path.endsWith("/inject")).map((r) => r.body);
		expect(injects).toHaveLength(1);
		expect(injects[0]).not.toHaveProperty("part");
		expect(injects[0]).not.toHaveProperty("waitMs");
		expect(injects[0].maxBytes).toBe(9500);
	});
});
