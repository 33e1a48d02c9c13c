// Memories about code, checked where the repository is: a real git repository, memories citing its files
// (read from their text, and given with `cairn remember --cite`), then the code deleted, renamed and
// changed; the next session's hooks — Claude Code's and Codex's, with the payloads they send — mark each
// memory (or not) in their blocks, and only paths and blob ids leave the machine.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { api, gitRepo, type Loose, machine, slowService, tenant } from "./helpers.ts";

const user = machine();
const repo = gitRepo(`git@github.com:acme/code-${Date.now()}.git`);
let key = "";
let projectId = "";
const call = (method: string, path: string, body?: unknown) => api(key, method, path, body);

const git = (args: string[], env: Record<string, string> = {}) => {
	const r = spawnSync("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
		cwd: repo,
		encoding: "utf8",
		env: { ...process.env, ...env },
	});
	if (r.status !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr}`);
	return r.stdout;
};
const write = (path: string, text: string) => {
	mkdirSync(join(repo, path, ".."), { recursive: true });
	writeFileSync(join(repo, path), text);
};
/** Commits dated a minute ahead: after every memory written now, whatever the clock's second. */
const later = () => {
	const date = new Date(Date.now() + 60_000).toISOString();
	return { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date };
};

const payload = (agent: "claude" | "codex", event: string, sessionId: string, extra: Loose = {}) =>
	JSON.stringify(
		agent === "claude"
			? {
					session_id: sessionId,
					transcript_path: join(user.home, `${sessionId}.jsonl`),
					cwd: repo,
					permission_mode: "default",
					hook_event_name: event,
					...extra,
				}
			: {
					session_id: sessionId,
					transcript_path: null,
					cwd: repo,
					hook_event_name: event,
					model: "gpt-5-codex",
					...(event === "UserPromptSubmit" ? { turn_id: "turn-1" } : {}),
					...extra,
				},
	);
const contextOf = (stdout: string): string => (stdout.trim() ? (JSON.parse(stdout).hookSpecificOutput?.additionalContext ?? "") : "");
/** What a block says of a memory: its index line, or its file's heading with the two lines under it. */
const lineOf = (text: string, name: string) => {
	const lines = text.split("\n");
	const i = lines.findIndex((l) => l.includes(name));
	if (i < 0) return "";
	return lines[i]?.startsWith("### ") ? lines.slice(i, i + 3).join("\n") : (lines[i] ?? "");
};

beforeAll(async () => {
	key = await tenant("code-check");
	write("src/payments/refund.ts", "export function computeRefund(c: number) { return Math.round(c); }\n");
	write("src/queue/worker.ts", "export const MAX_RETRIES = 5;\n");
	write("src/auth/session.ts", "export const SESSION_TTL_HOURS = 12;\n");
	write("src/lib/parse.ts", "export function parseConfig(text: string) { return JSON.parse(text); }\n");
	git(["add", "."]);
	git(["commit", "-q", "-m", "Payments, queue, auth and config parsing"]);
	const login = user.run(["login", "--url", (await import("./helpers.ts")).url, "--key", key], { cwd: repo });
	expect(login.status, login.stderr).toBe(0);
	const init = user.run(["init"], { cwd: repo });
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
});

describe("a memory about code knows its code", () => {
	it("marks deleted, renamed and changed code in both agents' blocks, leaves unchanged, untracked and uncited memories alone", async () => {
		const memories: [string, string, string?][] = [
			["refund-rounding", "computeRefund in src/payments/refund.ts rounds half-up."],
			["queue-retries", "src/queue/worker.ts sets MAX_RETRIES = 5; the worker gives up after that."],
			["session-ttl", "SESSION_TTL_HOURS in src/auth/session.ts is 12."],
			["planned-importer", "The importer will live in src/importer/main.ts once it is written."],
			["commit-style", "Write commit subjects in the imperative mood."],
			["team-retries", "Retries: src/queue/worker.ts decides how often a job runs again.", "team"],
		];
		for (const [name, body, scope] of memories) {
			const res = await call("PUT", `/v1/projects/${projectId}/memories/${name}${scope ? "?scope=team" : ""}`, {
				type: "project",
				description: `About ${name.replace(/-/g, " ")}`,
				body,
			});
			expect(res.status, name).toBe(201);
		}
		// Given by the writer, with the blob id git has for the file now.
		const remembered = user.run(
			[
				"remember",
				"config-parsing",
				"--type",
				"project",
				"--description",
				"How configuration is parsed",
				"--cite",
				"src/lib/parse.ts#parseConfig",
			],
			{ cwd: repo, input: "Configuration is parsed as JSON, strictly." },
		);
		expect(remembered.status, remembered.stderr).toBe(0);
		const stored = await call("GET", `/v1/projects/${projectId}/memories/config-parsing`);
		expect(stored.body).toContain("Configuration is parsed");
		const parseBlob = git(["ls-files", "-s", "src/lib/parse.ts"]).split(/\s+/)[1];
		const listed = await call("GET", `/v1/projects/${projectId}/memories?limit=50`);
		const citations = Object.fromEntries(listed.body.memories.map((m: Loose) => [m.name, m.citations]));
		expect(citations["config-parsing"]).toEqual([{ path: "src/lib/parse.ts", symbol: "parseConfig", blob: parseBlob, source: "writer" }]);
		expect(citations["refund-rounding"]).toEqual([{ path: "src/payments/refund.ts", symbol: "computeRefund", source: "text" }]);
		expect(citations["commit-style"]).toEqual([]);

		// Then the code moves on: the refund file is deleted, the retry limit changes, the parser is renamed.
		git(["rm", "-q", "src/payments/refund.ts"]);
		write("src/queue/worker.ts", "export const MAX_RETRIES = 7;\nexport const BACKOFF_MS = 250;\n");
		mkdirSync(join(repo, "src/config"));
		git(["mv", "src/lib/parse.ts", "src/config/parse.ts"]);
		git(["add", "."]);
		git(["commit", "-q", "-m", "Drop refunds, raise retries, move the parser"], later());

		// The next sessions, through a stand-in that records every request the hooks make.
		const service = await slowService({ delayMs: 0, match: /^$/ });
		const env = { CAIRN_URL: service.url, CAIRN_KEY: key };
		const blocks: Record<string, string> = {};
		for (const agent of ["claude", "codex"] as const) {
			// Each agent's hook does the whole check: what the last one told the service is forgotten first.
			rmSync(join(user.home, ".config", "cairn", "citations"), { recursive: true, force: true });
			// Not spawnSync: the recording stand-in answers on this process's event loop.
			const run = await user.runAsync(["hook", "session-start", "--agent", agent], {
				cwd: repo,
				env,
				input: payload(agent, "SessionStart", `${agent}-code-1`, { source: "startup" }),
			});
			expect(run.status, run.stderr).toBe(0);
			expect(run.stderr, agent).toBe("");
			blocks[agent] = contextOf(run.stdout);
		}
		await service.close();
		const claude = blocks.claude ?? "";
		expect(claude).toContain("Memory index");
		expect(lineOf(claude, "queue-retries")).toContain("cites src/queue/worker.ts, changed since this was written — check it");
		expect(lineOf(claude, "team-retries")).toContain("cites src/queue/worker.ts, changed since this was written — check it");
		expect(lineOf(claude, "config-parsing")).toContain(
			"cites src/lib/parse.ts, moved to src/config/parse.ts since this was written — check it",
		);
		// Every cited file gone: out of the start block, into the review queue.
		expect(claude).not.toContain("refund-rounding");
		for (const name of ["session-ttl", "planned-importer", "commit-style"]) {
			expect(lineOf(claude, name), name).not.toBe("");
			expect(lineOf(claude, name), name).not.toContain("cites");
		}
		// Both agents' sessions agree on every mark.
		const marks = (text: string) =>
			["queue-retries", "team-retries", "config-parsing", "session-ttl", "planned-importer", "commit-style", "refund-rounding"].map(
				(name) => `${name}: ${/cites [^\]\n]*/.exec(lineOf(text, name))?.[0] ?? (lineOf(text, name) ? "unmarked" : "absent")}`,
			);
		expect(marks(blocks.codex ?? "")).toEqual(marks(claude));
		expect(marks(claude).filter((m) => m.includes(": cites"))).toHaveLength(3);

		const reviews = await call("GET", `/v1/projects/${projectId}/reviews?kind=code`);
		expect(reviews.body.items.map((i: Loose) => [i.memory.name, i.proposal.op])).toEqual([["refund-rounding", "delete"]]);

		// Only paths and blob ids left the machine: no request carries the files' contents.
		const sent = service.events.map((e) => e.body).join("\n");
		for (const content of ["MAX_RETRIES = 7", "BACKOFF_MS", "JSON.parse(text)", "SESSION_TTL_HOURS = 12", "Math.round"])
			expect(sent).not.toContain(content);
		const checks = service.events.filter((e) => e.path.endsWith("/inject")).map((e) => JSON.parse(e.body).code);
		expect(checks).toHaveLength(2);
		for (const code of checks)
			for (const file of code.files) {
				expect(Object.keys(file).every((k) => ["path", "blob", "blobAtWrite", "movedTo", "movedBlob"].includes(k))).toBe(true);
				for (const k of ["blob", "blobAtWrite", "movedBlob"]) if (file[k]) expect(file[k]).toMatch(/^[0-9a-f]{40}$/);
			}
		const never = checks[0].files.find((f: Loose) => f.path === "src/importer/main.ts");
		expect(never).toEqual({ path: "src/importer/main.ts", blob: null, blobAtWrite: null });
		// The second hook finds the blobs at write time set by the first: the same paths and blob ids, nothing asked of history.
		const current = (code: Loose) => code.files.map((f: Loose) => [f.path, f.blob, f.movedTo ?? null]);
		expect(current(checks[1])).toEqual(current(checks[0]));
		expect(checks[1].files.filter((f: Loose) => "blobAtWrite" in f).map((f: Loose) => f.path)).toEqual([]);

		// The next session start tells the service only what changed since — here nothing — and its block says the same.
		const cache = join(user.home, ".config", "cairn", "citations", `${projectId}.json`);
		expect(existsSync(cache)).toBe(true);
		expect(Object.keys(JSON.parse(readFileSync(cache, "utf8")).known).sort()).toEqual(checks[0].files.map((f: Loose) => f.path).sort());
		const again = await slowService({ delayMs: 0, match: /^$/ });
		const next = await user.runAsync(["hook", "session-start", "--agent", "claude"], {
			cwd: repo,
			env: { CAIRN_URL: again.url, CAIRN_KEY: key },
			input: payload("claude", "SessionStart", "claude-code-4", { source: "startup" }),
		});
		await again.close();
		const injected = again.events.filter((e) => e.path.endsWith("/inject")).map((e) => JSON.parse(e.body));
		expect(injected).toHaveLength(1);
		// No listing, no git: the injection names the list it checked last, and nothing changed.
		expect(injected[0].code).toEqual({ files: [], stamp: expect.stringMatching(/^\d+\.\d+\.\d+$/) });
		expect(again.events.filter((e) => e.path.includes("/citations"))).toEqual([]);
		expect(next.stderr).toBe("");
		expect(marks(contextOf(next.stdout))).toEqual(marks(claude));

		// A memory written since cites a file that changed after it was written: the next session start hears the
		// list changed, and the one after lists and checks it.
		expect(
			(
				await call("PUT", `/v1/projects/${projectId}/memories/session-refresh`, {
					type: "project",
					description: "About session refresh",
					body: "refreshSession in src/auth/session.ts extends the TTL.",
				})
			).status,
		).toBe(201);
		write("src/auth/session.ts", "export const SESSION_TTL_HOURS = 24;\n");
		git(["commit", "-qam", "Longer sessions"], later());
		for (const id of ["claude-code-5", "claude-code-6"]) {
			const run = await user.runAsync(["hook", "session-start", "--agent", "claude"], {
				cwd: repo,
				input: payload("claude", "SessionStart", id, { source: "startup" }),
			});
			expect(run.status, run.stderr).toBe(0);
		}
		const last = await user.runAsync(["hook", "session-start", "--agent", "claude"], {
			cwd: repo,
			input: payload("claude", "SessionStart", "claude-code-7", { source: "startup" }),
		});
		expect(lineOf(contextOf(last.stdout), "session-refresh")).toContain("cites src/auth/session.ts, changed since this was written");
		expect(lineOf(contextOf(last.stdout), "session-ttl")).toContain("cites src/auth/session.ts, changed since this was written");
		// Put back for the tests that follow.
		write("src/auth/session.ts", "export const SESSION_TTL_HOURS = 12;\n");
		git(["commit", "-qam", "Sessions back to 12 hours"], later());
	});

	it("the prompt hooks of both agents say it next to the memory they serve, with the code as it is at that prompt", async () => {
		for (const agent of ["claude", "codex"] as const) {
			const run = user.run(["hook", "user-prompt-submit", "--agent", agent], {
				cwd: repo,
				env: { CAIRN_URL: (await import("./helpers.ts")).url, CAIRN_KEY: key },
				input: payload(agent, "UserPromptSubmit", `${agent}-code-2`, {
					prompt: "How many times does the queue worker retry a job? Check MAX_RETRIES in src/queue/worker.ts",
				}),
			});
			expect(run.status, run.stderr).toBe(0);
			const text = contextOf(run.stdout);
			expect(text, agent).toContain("retries");
			expect(text, agent).toContain("cites src/queue/worker.ts, changed since this was written — check it");
		}
		// The file put back as it was: the next prompt's block no longer marks it.
		write("src/queue/worker.ts", "export const MAX_RETRIES = 5;\n");
		git(["add", "."]);
		const run = user.run(["hook", "user-prompt-submit", "--agent", "claude"], {
			cwd: repo,
			input: payload("claude", "UserPromptSubmit", "claude-code-3", {
				prompt: "How many times does the queue worker retry a job? Check MAX_RETRIES in src/queue/worker.ts",
			}),
		});
		expect(run.status, run.stderr).toBe(0);
		const text = contextOf(run.stdout);
		expect(text).toContain("retries");
		expect(text).not.toContain("cites src/queue/worker.ts");
		write("src/queue/worker.ts", "export const MAX_RETRIES = 7;\nexport const BACKOFF_MS = 250;\n");
		git(["add", "."]);
	});

	it("cairn doctor lists the memories whose code changed; cairn status counts them", () => {
		const doctor = user.run(["doctor"], { cwd: repo });
		expect(doctor.stdout).toContain("cited code");
		expect(doctor.stdout).toContain("memory://root/queue-retries.md — src/queue/worker.ts changed");
		expect(doctor.stdout).toContain("memory://root/config-parsing.md — src/lib/parse.ts moved to src/config/parse.ts");
		expect(doctor.stdout).toContain(
			"memory://root/refund-rounding.md (every cited file gone: in the review queue) — src/payments/refund.ts gone",
		);
		expect(doctor.stdout).not.toContain("session-ttl");
		const status = user.run(["status"], { cwd: repo });
		expect(status.status, status.stderr).toBe(0);
		expect(status.stdout).toMatch(/cited code: 4 memories cite code that changed since written \(1 with every cited file gone\)/);
	});

	const invoice = 'export function invoiceNumber(n: number) { return "INV-" + String(n); }\n';
	it("reads the working tree: an edit not yet staged, or a file removed without git, is marked at the next session start", async () => {
		write("src/billing/invoice.ts", invoice);
		git(["add", "."]);
		git(["commit", "-q", "-m", "Invoices"], later());
		expect(
			(
				await call("PUT", `/v1/projects/${projectId}/memories/invoice-numbers`, {
					type: "project",
					description: "About invoice numbers",
					body: "invoiceNumber in src/billing/invoice.ts prefixes INV-.",
				})
			).status,
		).toBe(201);
		const start = async (agent: "claude" | "codex", id: string) => {
			const run = await user.runAsync(["hook", "session-start", "--agent", agent], {
				cwd: repo,
				input: payload(agent, "SessionStart", id, { source: "startup" }),
			});
			expect(run.status, run.stderr).toBe(0);
			expect(run.stderr).toBe("");
			return contextOf(run.stdout);
		};
		// The list changed: the first session start hears it, the next one checks the new memory's file.
		await start("claude", "claude-tree-1");
		const before = await start("claude", "claude-tree-2");
		expect(lineOf(before, "invoice-numbers")).not.toBe("");
		expect(lineOf(before, "invoice-numbers")).not.toContain("cites");
		expect(lineOf(before, "session-ttl")).not.toContain("cites");

		// Nothing staged, nothing committed: the index is as it was, only the files on disk moved on.
		const indexBefore = git(["ls-files", "-s"]);
		write("src/auth/session.ts", "export const SESSION_TTL_HOURS = 48;\n");
		rmSync(join(repo, "src/billing/invoice.ts"));
		for (const [agent, id] of [
			["claude", "claude-tree-3"],
			["codex", "codex-tree-3"],
		] as const) {
			const text = await start(agent, id);
			expect(lineOf(text, "session-ttl"), agent).toContain("cites src/auth/session.ts, changed since this was written — check it");
			expect(lineOf(text, "session-refresh"), agent).toContain("cites src/auth/session.ts, changed since this was written");
			// Its only cited file gone from the working tree: out of the start block, into the review queue.
			expect(text, agent).not.toContain("invoice-numbers");
			expect(lineOf(text, "commit-style"), agent).not.toBe("");
		}
		expect(git(["ls-files", "-s"])).toBe(indexBefore);
		const gone = await call("GET", `/v1/projects/${projectId}/reviews?kind=code`);
		expect(gone.body.items.map((i: Loose) => i.memory.name).sort()).toEqual(["invoice-numbers", "refund-rounding"]);

		// A memory written now about the edited file cites the blob on disk, not the index's.
		const remembered = user.run(
			[
				"remember",
				"session-ttl-draft",
				"--type",
				"project",
				"--description",
				"Session length being tried",
				"--cite",
				"src/auth/session.ts",
			],
			{ cwd: repo, input: "Sessions are being tried at 48 hours." },
		);
		expect(remembered.status, remembered.stderr).toBe(0);
		const onDisk = git(["hash-object", "src/auth/session.ts"]).trim();
		expect(onDisk).not.toBe(git(["ls-files", "-s", "src/auth/session.ts"]).split(/\s+/)[1]);
		const listed = await call("GET", `/v1/projects/${projectId}/memories?limit=50`);
		const draft = listed.body.memories.find((m: Loose) => m.name === "session-ttl-draft");
		expect(draft.citations).toEqual([{ path: "src/auth/session.ts", blob: onDisk, source: "writer" }]);

		// Put back by hand, as they were: the marks go, and the memory whose file returned leaves the review queue.
		write("src/auth/session.ts", "export const SESSION_TTL_HOURS = 12;\n");
		write("src/billing/invoice.ts", invoice);
		await start("claude", "claude-tree-4");
		const after = await start("claude", "claude-tree-5");
		expect(lineOf(after, "session-ttl")).not.toContain("cites");
		expect(lineOf(after, "invoice-numbers")).not.toBe("");
		expect(lineOf(after, "invoice-numbers")).not.toContain("cites");
		// The draft was written about the 48-hour file: back at 12 hours, it is the one marked now.
		expect(lineOf(after, "session-ttl-draft")).toContain("cites src/auth/session.ts, changed since this was written");
		const back = await call("GET", `/v1/projects/${projectId}/reviews?kind=code`);
		expect(back.body.items.map((i: Loose) => i.memory.name)).toEqual(["refund-rounding"]);
	});

	it("the session start in parts: part 1 checks the cited code and sends it, parts 2 and 3 only ask for their part", async () => {
		// Forgotten what this machine told the service: part 1 lists the cited paths and checks them all.
		rmSync(join(user.home, ".config", "cairn", "citations"), { recursive: true, force: true });
		const service = await slowService({ delayMs: 0, match: /^$/ });
		const envFile = join(user.home, "parts-env.sh");
		const id = "claude-parts-1";
		/** Runs these parts side by side, as Claude Code runs its SessionStart hooks; the inject bodies they sent. */
		const parts = async (indexes: number[], source: string) => {
			service.events.length = 0;
			const runs = await Promise.all(
				indexes.map((i) =>
					user.runAsync(["hook", "session-start", "--agent", "claude", "--part", `${i}/3`], {
						cwd: repo,
						env: { CAIRN_URL: service.url, CAIRN_KEY: key, CLAUDE_ENV_FILE: envFile },
						input: payload("claude", "SessionStart", id, { source }),
					}),
				),
			);
			for (const run of runs) {
				expect(run.status, run.stderr).toBe(0);
				expect(run.stderr).toBe("");
			}
			const injects = service.events.filter((e) => e.path.endsWith("/inject")).map((e) => JSON.parse(e.body));
			expect(injects.map((b) => b.part.index).sort()).toEqual(indexes);
			return (index: number) => injects.find((b) => b.part?.index === index);
		};
		const others = (of: (index: number) => Loose, context: Loose) => {
			for (const index of [2, 3]) {
				const body = of(index);
				expect(Object.keys(body).sort(), `part ${index}`).toEqual(["context", "maxChars", "part", "sessionId", "source", "waitMs"]);
				expect(body.part).toEqual({ index, of: 3 });
				expect(body.context).toEqual(context);
				expect(body.sessionId).toBe(id);
				expect(body.maxChars).toBe(9500);
				expect(body.waitMs).toBeGreaterThan(0);
			}
		};
		try {
			// Parts 2 and 3 alone: no listing of cited paths, no team pull, nothing told to the session's shell.
			const late = await parts([2, 3], "startup");
			expect(service.events.map((e) => e.path).filter((p) => !p.endsWith("/inject"))).toEqual([]);
			expect(existsSync(envFile)).toBe(false);
			// Part 1 does the session start's other duties and carries the check of the cited code.
			const first = (await parts([1], "startup"))(1);
			expect(first.part).toEqual({ index: 1, of: 3 });
			expect(first.code.renames).toBe(true);
			expect(first.code.files.map((f: Loose) => f.path)).toContain("src/queue/worker.ts");
			expect(service.events.filter((e) => e.path.includes("/citations"))).toHaveLength(1);
			expect(service.events.filter((e) => e.path.includes("/team-memory")).length).toBeGreaterThan(0);
			expect(readFileSync(envFile, "utf8")).toBe(`export CAIRN_SESSION_ID=${id}\nexport CAIRN_PROJECT=${projectId}\n`);
			others(late, first.context);

			// After compaction, all three side by side: only part 1 asks for the session's own notes.
			const compacted = await parts([1, 2, 3], "compact");
			expect(compacted(1).sessionMemory).toBe(true);
			others(compacted, first.context);
		} finally {
			await service.close();
		}
	});

	it("cairn remember --cite refuses a path outside the repository or missing", () => {
		for (const cite of ["../elsewhere.ts", "src/missing.ts"]) {
			const run = user.run(["remember", "bad-cite", "--type", "project", "--description", "x", "--cite", cite], {
				cwd: repo,
				input: "text",
			});
			expect(run.status).toBe(1);
			expect(run.stderr).toContain("not a file in this repository");
		}
	});
});
