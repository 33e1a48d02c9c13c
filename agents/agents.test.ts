// The real agents, installed from npm at pinned versions (agents/package.json), against a local
// stand-in for their model APIs that records every request (agents/mock-models.mjs), with Cairn set up
// the README's way: the Claude Code plugin through its marketplace, the Codex hooks through the CLI
// and trusted the way Codex's /hooks records trust. What reached the model is asserted, not what the
// hooks printed. The service (`wrangler dev`) answers the session routes 2 s late, as a far deployment.
import { spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, eventually, gitRepo, type Loose, machine, slowService, tenant } from "../packages/cli/test/helpers.ts";
import { startMockModels } from "./mock-models.mjs";

const BIN = resolve("agents/node_modules/.bin");
const CLI = resolve("packages/cli/cairn.mjs");
const CHECKOUT = resolve(".");

type Mock = Awaited<ReturnType<typeof startMockModels>>;
let mock: Mock;
let service: Awaited<ReturnType<typeof slowService>>;

/** Runs a program without blocking this process (the stand-ins live here), with a deadline. */
function run(command: string, args: string[], options: { cwd: string; env: Record<string, string>; timeoutMs?: number }) {
	return new Promise<{ status: number | null; stdout: string; stderr: string; ms: number; exitedAt: number }>((done) => {
		const started = Date.now();
		const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["ignore", "pipe", "pipe"] });
		let stdout = "";
		let stderr = "";
		child.stdout.on("data", (d) => {
			stdout += d;
		});
		child.stderr.on("data", (d) => {
			stderr += d;
		});
		const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
		child.on("close", (status) => {
			clearTimeout(timer);
			done({ status, stdout, stderr, ms: Date.now() - started, exitedAt: Date.now() });
		});
	});
}

const sizeOf = (path: string): number =>
	!existsSync(path)
		? 0
		: statSync(path).isDirectory()
			? readdirSync(path).reduce((sum, e) => sum + sizeOf(join(path, e)), 0)
			: statSync(path).size;

/** Every text the model was sent in requests to `path`, one string per request. */
const sent = (path: string) => mock.requests.filter((r) => r.path.endsWith(path)).map((r) => JSON.stringify(r.body));

/**
 * The session-start block's parts as they reached the model: `texts` are the decoded texts the model was
 * sent (Claude Code joins the SessionStart hooks' texts under one label; Codex gives each its own message).
 * A part runs from its heading to the next part's heading or the end of its text.
 */
function partsIn(texts: string[]): string[] {
	const parts: string[] = [];
	for (const text of texts) {
		const starts = [...text.matchAll(/## Cairn memory, part \d of \d: /g)].map((m) => m.index ?? 0);
		// Claude Code may put another hook's context after the parts, under its own label.
		const labels = [...text.matchAll(/\w+ hook additional context: /g)].map((m) => m.index ?? 0);
		for (const [i, at] of starts.entries()) {
			// A part ends with its last section's closing fence; what follows in the same text is the agent's.
			const end = Math.min(starts[i + 1] ?? text.length, ...labels.filter((l) => l > at));
			const slice = text.slice(at, end);
			const fences = [...slice.matchAll(/^`{4,}$/gm)];
			const last = fences.at(-1);
			parts.push(last ? slice.slice(0, (last.index ?? 0) + last[0].length) : slice.trimEnd());
		}
	}
	return parts;
}

/**
 * Each part whole: all `of` parts there once, each within the agent's cap, each ending where a part ends
 * (its last section's closing fence), no line of the index in two parts, no truncation marker.
 */
function expectWholeParts(parts: string[], size: (s: string) => number) {
	expect(parts.map((p) => /^## Cairn memory, part (\d) of 3/.exec(p)?.[1]).sort()).toEqual(["1", "2", "3"]);
	for (const part of parts) {
		expect(size(part)).toBeLessThanOrEqual(10_000);
		// Whole: every fence a part opens is closed in it (a part cut short leaves its last section open).
		const opened = part.split("\n").filter((l) => /^`{4,}markdown$/.test(l)).length;
		const closed = part.split("\n").filter((l) => /^`{4,}$/.test(l)).length;
		expect(opened, "a part cut short").toBeGreaterThan(0);
		expect(closed, "a part cut short").toBe(opened);
		expect(part).not.toMatch(/truncated|persisted-output/i);
	}
	const lines = parts.flatMap((p) => p.split("\n").filter((l) => /^- [a-z0-9/.-]+ — /.test(l)));
	expect(new Set(lines).size).toBe(lines.length);
}

/** The texts of a Claude Code request's system entries and messages, decoded. */
const textsOf = (body: Loose): string[] => {
	const out: string[] = [];
	const walk = (v: unknown) => {
		if (typeof v === "string") out.push(v);
		else if (Array.isArray(v)) v.forEach(walk);
		else if (v && typeof v === "object") Object.values(v).forEach(walk);
	};
	walk(body);
	return out;
};

beforeAll(async () => {
	mock = await startMockModels();
	service = await slowService({ delayMs: 2000 });
});
afterAll(async () => {
	await mock?.close();
	await service?.close();
});

async function setUpUser(name: string) {
	const user = machine();
	// Nothing in the repository's context (directory, branch, commit subject) is about deploys: the memory comes with the prompt.
	const repo = gitRepo(`git@github.com:acme/${name}-${Date.now()}.git`, "Initial commit");
	const key = await tenant(name);
	const env = { ...user.env, CAIRN_URL: "", CAIRN_KEY: "" };
	const cairn = (args: string[]) => run(process.execPath, [CLI, ...args], { cwd: repo, env: user.env });
	for (const args of [
		["login", "--url", service.url, "--key", key],
		["init"],
		[
			"remember",
			"deploy-freeze",
			"--type",
			"feedback",
			"--description",
			"Never deploy to production on Fridays after 12:00 UTC",
			"Deploy freeze from Friday 12:00 UTC until Monday: no production deploys.",
		],
	]) {
		const r = await cairn(args);
		expect(r.status, `cairn ${args[0]}: ${r.stderr}`).toBe(0);
	}
	const projectId = Object.values(
		(await import(join(user.home, ".config/cairn/config.json"), { with: { type: "json" } })).default.projects,
	)[0] as string;
	// A project past what one start block can list: its index names the rest by topic and says how to reach it.
	for (let start = 0; start < 300; start += 100) {
		const memories = Array.from({ length: 100 }, (_, j) => ({
			name: `service-${start + j}-ownership`,
			type: "project",
			description: `Service ${start + j} is owned by the platform team and pages its on-call rotation`,
			body: "Ownership and paging live in the service catalogue.",
		}));
		const res = await api(key, "POST", `/v1/projects/${projectId}/memories/batch`, { memories });
		expect(res.status).toBe(200);
	}
	return { user, repo, key, env, projectId };
}

/**
 * A memory about code that the repository changed since it was written, and one about code that did not
 * change: what both agents' next sessions must mark, and leave alone, alike.
 */
async function codeThatMovedOn(setup: Awaited<ReturnType<typeof setUpUser>>) {
	const git = (...args: string[]) =>
		run("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", ...args], {
			cwd: setup.repo,
			env: { PATH: process.env.PATH ?? "" },
		});
	mkdirSync(join(setup.repo, "src", "queue"), { recursive: true });
	writeFileSync(join(setup.repo, "src", "queue", "worker.ts"), "export const MAX_RETRIES = 5;\n");
	writeFileSync(join(setup.repo, "src", "queue", "backoff.ts"), "export const BACKOFF_MS = 250;\n");
	expect((await git("add", ".")).status).toBe(0);
	expect((await git("commit", "-q", "-m", "Queue worker")).status).toBe(0);
	for (const [name, body] of [
		["queue-retries", "src/queue/worker.ts sets MAX_RETRIES = 5: the queue worker retries a job five times."],
		["queue-backoff", "BACKOFF_MS in src/queue/backoff.ts is 250: the queue worker waits that long between retries."],
	]) {
		const res = await api(setup.key, "PUT", `/v1/projects/${setup.projectId}/memories/${name}`, {
			type: "feedback",
			description: `How the queue worker ${name === "queue-retries" ? "retries" : "backs off"}`,
			body,
		});
		expect(res.status).toBe(201);
	}
	writeFileSync(join(setup.repo, "src", "queue", "worker.ts"), "export const MAX_RETRIES = 7;\n");
	const later = new Date(Date.now() + 60_000).toISOString();
	const commit = await run("git", ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qam", "More retries"], {
		cwd: setup.repo,
		env: { PATH: process.env.PATH ?? "", GIT_COMMITTER_DATE: later, GIT_AUTHOR_DATE: later },
	});
	expect(commit.status).toBe(0);
}
const CHANGED_MARK = "cites src/queue/worker.ts, changed since this was written — check it";
/** What the start block (as the model request carries it, JSON-escaped) says of the two memories: its line, or its file's heading and the two lines under it. */
const marksIn = (text: string) => {
	const lines = text.split("\\n");
	return ["queue-retries", "queue-backoff"].map((name) => {
		const at = lines.findIndex((l) => l.includes(name));
		if (at < 0) return "absent";
		const said = lines[at]?.includes("### ") ? lines.slice(at, at + 3).join("\n") : (lines[at] ?? "");
		return said.includes("cites") ? "marked" : "unmarked";
	});
};
const agreed: Record<string, string[]> = {};

describe("Claude Code 2.1.197 with the Cairn plugin", () => {
	let setup: Awaited<ReturnType<typeof setUpUser>>;
	let agentEnv: Record<string, string>;

	beforeAll(async () => {
		setup = await setUpUser("claude");
		agentEnv = {
			...setup.user.env,
			ANTHROPIC_BASE_URL: mock.url,
			ANTHROPIC_API_KEY: "sk-ant-test-not-a-key",
			DISABLE_TELEMETRY: "1",
			CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
			DISABLE_AUTOUPDATER: "1",
			// The plugin's MCP server (.mcp.json) reads the service and key from the environment.
			CAIRN_URL: service.url,
			CAIRN_KEY: setup.key,
		};
	});

	it("installs from the marketplace in this checkout: small and quick", async () => {
		// A checkout that has run `npm install` (and `npm start`): the marketplace must not copy it.
		expect(existsSync(join(CHECKOUT, "node_modules", "wrangler"))).toBe(true);
		const started = Date.now();
		const add = await run(join(BIN, "claude"), ["plugin", "marketplace", "add", CHECKOUT], { cwd: setup.repo, env: agentEnv });
		expect(add.status, add.stderr + add.stdout).toBe(0);
		const install = await run(join(BIN, "claude"), ["plugin", "install", "cairn@cairn"], { cwd: setup.repo, env: agentEnv });
		expect(install.status, install.stderr + install.stdout).toBe(0);
		const seconds = (Date.now() - started) / 1000;
		const bytes = sizeOf(join(setup.user.home, ".claude", "plugins", "cache"));
		console.log(`claude plugin marketplace add + install: ${seconds.toFixed(1)} s, plugin cache ${(bytes / 1024 / 1024).toFixed(2)} MB`);
		expect(bytes).toBeGreaterThan(0);
		expect(bytes).toBeLessThanOrEqual(20 * 1024 * 1024);
	});

	it("a session gets the session-start block and the prompt's memory; it is uploaded and ended within 10 s of exiting", async () => {
		const before = mock.requests.length;
		const session = await run(join(BIN, "claude"), ["-p", "deploy to production on Friday"], {
			cwd: setup.repo,
			env: agentEnv,
		});
		expect(session.status, session.stderr).toBe(0);
		const bodies = mock.requests
			.slice(before)
			.filter((r) => r.path.endsWith("/v1/messages"))
			.map((r) => JSON.stringify(r.body));
		const start = bodies.find((b) => b.includes("SessionStart hook additional context"));
		expect(start, "no model request carried the SessionStart block").toBeDefined();
		expect(start).toContain("# Memory Guidance");
		expect(start).toContain("memory://root/MEMORY.md");
		// The rule is listed; what does not fit is named by topic, one read away.
		expect(start).toContain("- deploy-freeze — Never deploy to production on Fridays after 12:00 UTC");
		expect(start).toMatch(/- topics\/[a-z0-9-]+\.md — /);
		expect(start).toContain("memory_read memory://root/topics/<topic>.md");
		// ...and the tools the map names are the model's to call.
		const tools = bodies.find((b) => /"name":"mcp__[a-z_]*cairn__memory_recall"/.test(b));
		expect(tools, "no model request offered Cairn's MCP tools").toBeDefined();
		expect(tools).toMatch(/"name":"mcp__[a-z_]*cairn__memory_read"/);
		const prompt = bodies.find((b) => b.includes("UserPromptSubmit hook additional context"));
		expect(prompt, "no model request carried the prompt's memory").toBeDefined();
		expect(prompt).toContain("memory://root/deploy-freeze.md");
		expect(prompt).toContain("Deploy freeze from Friday 12:00 UTC until Monday: no production deploys.");

		// Ended by the plugin's SessionEnd hook through the slow service, after the agent has exited.
		const sessions = async () => (await api(setup.key, "GET", `/v1/projects/${setup.projectId}/sessions`)).body.sessions as Loose[];
		const ended = await eventually(async () => (await sessions()).find((s) => s.status === "ended" && s.turns > 0), 10_000);
		console.log(
			`Claude Code session ${ended.id}: ended ${((Date.now() - session.exitedAt) / 1000).toFixed(1)} s after the process exited (at most)`,
		);
		expect(ended.agent).toBe("claude");
		// Every part of the start block reached the model whole, each within Claude Code's 10,000 characters.
		const request = mock.requests
			.slice(before)
			.find((r) => r.path.endsWith("/v1/messages") && JSON.stringify(r.body).includes("SessionStart hook additional context"));
		expectWholeParts(partsIn(textsOf(request?.body ?? {})), (s) => s.length);
	});

	it("after compaction the model gets the block again, this session's notes first", async () => {
		const sessions = (await api(setup.key, "GET", `/v1/projects/${setup.projectId}/sessions`)).body.sessions as Loose[];
		const id = sessions[0]?.id as string;
		for (const prompt of ["what else is frozen on Fridays?", "and the staging deploys?"]) {
			const r = await run(join(BIN, "claude"), ["-p", "--resume", id, prompt], { cwd: setup.repo, env: agentEnv });
			expect(r.status, r.stderr).toBe(0);
		}
		const compact = await run(join(BIN, "claude"), ["-p", "--resume", id, "/compact"], { cwd: setup.repo, env: agentEnv });
		expect(compact.status, compact.stderr).toBe(0);
		const before = mock.requests.length;
		const after = await run(join(BIN, "claude"), ["-p", "--resume", id, "and on Monday?"], { cwd: setup.repo, env: agentEnv });
		expect(after.status, after.stderr).toBe(0);
		const body = mock.requests
			.slice(before)
			.filter((r) => r.path.endsWith("/v1/messages"))
			.map((r) => JSON.stringify(r.body))
			.find((b) => b.includes("This session is being continued"));
		expect(body, "no request after compaction").toBeDefined();
		expect(body).toContain("SessionStart hook additional context");
		expect(body).toContain("This session so far");
		expect(body).toContain("# Memory Guidance");
	});
	it("a memory about code the repository changed since is marked in the block the model gets", async () => {
		await codeThatMovedOn(setup);
		const before = mock.requests.length;
		const session = await run(join(BIN, "claude"), ["-p", "how many times does the queue worker retry a job?"], {
			cwd: setup.repo,
			env: agentEnv,
		});
		expect(session.status, session.stderr).toBe(0);
		const start = mock.requests
			.slice(before)
			.filter((r) => r.path.endsWith("/v1/messages"))
			.map((r) => JSON.stringify(r.body))
			.find((b) => b.includes("SessionStart hook additional context"));
		expect(start, "no model request carried the SessionStart block").toBeDefined();
		expect(start).toContain(CHANGED_MARK);
		agreed.claude = marksIn(start ?? "");
		expect(agreed.claude).toEqual(["marked", "unmarked"]);
	});
});

describe("Codex 0.171.0 with Cairn's hooks", () => {
	let setup: Awaited<ReturnType<typeof setUpUser>>;
	let agentEnv: Record<string, string>;

	/** Codex's own list of hooks, as `/hooks` shows them: `codex app-server`'s hooks/list. */
	async function listHooks(): Promise<Loose[]> {
		const child = spawn(join(BIN, "codex"), ["app-server"], { cwd: setup.repo, env: agentEnv, stdio: ["pipe", "pipe", "ignore"] });
		let buffer = "";
		const answers = new Map<number, (m: Loose) => void>();
		child.stdout.on("data", (d) => {
			buffer += d;
			for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
				const line = buffer.slice(0, i);
				buffer = buffer.slice(i + 1);
				if (!line.trim()) continue;
				const message = JSON.parse(line) as Loose;
				answers.get(message.id)?.(message);
			}
		});
		let id = 0;
		const call = (method: string, params: unknown) =>
			new Promise<Loose>((done) => {
				id += 1;
				answers.set(id, done);
				child.stdin.write(`${JSON.stringify({ id, method, params })}\n`);
			});
		try {
			await call("initialize", { clientInfo: { name: "cairn-agents-test", version: "0.0.0" } });
			child.stdin.write(`${JSON.stringify({ method: "initialized" })}\n`);
			const list = await call("hooks/list", { cwds: [setup.repo] });
			return list.result.data[0].hooks as Loose[];
		} finally {
			child.kill();
		}
	}

	beforeAll(async () => {
		setup = await setUpUser("codex");
		agentEnv = { ...setup.user.env, CODEX_API_KEY: "sk-test-not-a-key", CAIRN_KEY: setup.key };
		mkdirSync(join(setup.user.home, ".codex"), { recursive: true });
		// Cairn's MCP server as `cairn setup` adds it for Codex.
		writeFileSync(
			join(setup.user.home, ".codex", "config.toml"),
			`model = "gpt-5-codex"\nmodel_provider = "mock"\n\n[model_providers.mock]\nname = "mock"\nbase_url = "${mock.url}/v1"\nwire_api = "responses"\n\n[mcp_servers.cairn]\nurl = "${service.url}/mcp"\nbearer_token_env_var = "CAIRN_KEY"\n`,
		);
		const install = await run(process.execPath, [CLI, "hooks", "install", "codex"], { cwd: setup.repo, env: setup.user.env });
		expect(install.status, install.stderr).toBe(0);
		expect(install.stdout).toContain("open /hooks in Codex and trust Cairn's");
	});

	it("untrusted hooks run nothing; once trusted as /hooks records it, the session gets both blocks and is uploaded", async () => {
		const hooks = await listHooks();
		// One per event, and the session start's three parts one each.
		expect(hooks.length).toBe(9);
		expect(hooks.filter((h) => / hook session-start --agent codex --part [123]\/3$/.test(h.command))).toHaveLength(3);
		expect(hooks.every((h) => h.trustStatus === "untrusted")).toBe(true);
		const prompt = "deploy to production on Friday";
		const untrusted = await run(join(BIN, "codex"), ["exec", "--skip-git-repo-check", prompt], { cwd: setup.repo, env: agentEnv });
		expect(untrusted.status, untrusted.stderr).toBe(0);
		expect(sent("/v1/responses").slice(-1)[0]).not.toContain("Memory Guidance");

		// `cairn doctor` sees it: Codex would skip these hooks without a word.
		const doctorEnv = { ...setup.user.env, PATH: `${BIN}:${setup.user.env.PATH}` };
		const trustLine = (stdout: string) => stdout.split("\n").findIndex((l) => /^(ok {2}|FAIL) {2}codex trust /.test(l));
		const before = await run(process.execPath, [CLI, "doctor"], { cwd: setup.repo, env: doctorEnv });
		expect(before.status).toBe(1);
		const lines = before.stdout.split("\n");
		expect(lines[trustLine(before.stdout)]).toMatch(/^FAIL {2}codex trust +9 of 9 Cairn hooks are not trusted/);
		expect(lines[trustLine(before.stdout) + 1]?.trim()).toBe(
			"fix: open Codex, run /hooks and trust Cairn's hooks (needed again whenever a hook changes)",
		);

		// What /hooks writes when the user trusts a hook: its key and the hash Codex reports for it.
		appendFileSync(
			join(setup.user.home, ".codex", "config.toml"),
			hooks.map((h) => `\n[hooks.state."${h.key}"]\ntrusted_hash = "${h.currentHash}"\n`).join(""),
		);
		expect((await listHooks()).every((h) => h.trustStatus === "trusted")).toBe(true);
		const after = await run(process.execPath, [CLI, "doctor"], { cwd: setup.repo, env: doctorEnv });
		expect(after.stdout.split("\n")[trustLine(after.stdout)]).toMatch(/^ok {4}codex trust +9 hooks trusted for their current hashes/);

		const sentBefore = mock.requests.length;
		const session = await run(join(BIN, "codex"), ["exec", "--skip-git-repo-check", prompt], { cwd: setup.repo, env: agentEnv });
		expect(session.status, session.stderr).toBe(0);
		const bodies = mock.requests.slice(sentBefore).filter((r) => r.path.endsWith("/v1/responses"));
		expect(bodies.length).toBeGreaterThan(0);
		const input = bodies[0]?.body.input as Loose[];
		const developer = input.filter((i) => i.role === "developer").map((i) => JSON.stringify(i.content));
		expect(developer.some((t) => t.includes("# Memory Guidance") && t.includes("memory://root/MEMORY.md"))).toBe(true);
		expect(developer.some((t) => t.includes("- deploy-freeze — Never deploy to production on Fridays after 12:00 UTC"))).toBe(true);
		expect(developer.some((t) => /- topics\/[a-z0-9-]+\.md — /.test(t))).toBe(true);
		const tools = JSON.stringify(bodies[0]?.body.tools ?? []);
		expect(tools).toContain("memory_recall");
		expect(tools).toContain("memory_read");
		expect(developer.some((t) => t.includes("memory://root/deploy-freeze.md") && t.includes("Memories for this prompt"))).toBe(true);
		// The prompt's block comes right after the prompt.
		const promptAt = input.findIndex((i) => i.role === "user" && JSON.stringify(i.content).includes(prompt));
		expect(JSON.stringify(input[promptAt + 1]?.content)).toContain("Memories for this prompt");

		const uploaded = await eventually(async () => {
			const sessions = (await api(setup.key, "GET", `/v1/projects/${setup.projectId}/sessions`)).body.sessions as Loose[];
			return sessions.find((s) => s.agent === "codex" && s.turns > 0);
		}, 15_000);
		expect(uploaded.turns).toBeGreaterThan(0);
		// Every part reached the model whole, each its own developer message within Codex's 10,000 bytes.
		const developerTexts = input.filter((i) => i.role === "developer").flatMap((i) => textsOf(i.content));
		expectWholeParts(partsIn(developerTexts), (s) => Buffer.byteLength(s));
	});

	it("a Korean-heavy project's start block reaches Codex whole: every part within 10,000 bytes", async () => {
		const repo = gitRepo(`git@github.com:acme/codex-ko-${Date.now()}.git`, "초기 커밋");
		const init = await run(process.execPath, [CLI, "init"], { cwd: repo, env: setup.user.env });
		expect(init.status, init.stderr).toBe(0);
		const config = JSON.parse(readFileSync(join(setup.user.home, ".config/cairn/config.json"), "utf8")) as Loose;
		const projectId = Object.entries(config.projects as Record<string, string>).find(
			([root]) => repo.endsWith(root) || root.endsWith(repo) || root === repo,
		)?.[1];
		expect(projectId).toBeDefined();
		const id = projectId as string;
		await api(setup.key, "PUT", `/v1/projects/${id}/settings`, { "memories.enabled": true });
		const services = ["결제", "정산", "알림", "배송", "회원", "쿠폰"];
		for (let start = 0; start < 240; start += 80) {
			const memories = Array.from({ length: 80 }, (_, j) => {
				const n = start + j;
				return {
					name: `ko-note-${n}`,
					type: n % 6 === 0 ? "feedback" : "project",
					description: `${services[n % services.length]} 서비스 ${n}번 메모: 포트, 담당자, 배포 시간과 호출 한도를 정리했습니다`,
					body: "자세한 내용은 서비스 카탈로그에 있습니다.",
				};
			});
			const res = await api(setup.key, "POST", `/v1/projects/${id}/memories/batch`, { memories });
			expect(res.status).toBe(200);
		}
		const before = mock.requests.length;
		const session = await run(join(BIN, "codex"), ["exec", "--skip-git-repo-check", "결제 서비스 배포는 언제 해?"], {
			cwd: repo,
			env: agentEnv,
		});
		expect(session.status, session.stderr).toBe(0);
		const input = mock.requests.slice(before).find((r) => r.path.endsWith("/v1/responses"))?.body.input as Loose[];
		const developerTexts = (input ?? []).filter((i) => i.role === "developer").flatMap((i) => textsOf(i.content));
		// Korean lines take about three bytes a character: the parts are cut by bytes, not characters.
		const parts = partsIn(developerTexts);
		expectWholeParts(parts, (s) => Buffer.byteLength(s));
		expect(parts.some((p) => Buffer.byteLength(p) > 1.5 * p.length)).toBe(true);
		const developer = developerTexts;
		expect(developer.join("\n")).not.toContain("truncated output");
	});
	it("a memory about code the repository changed since is marked the same way as in Claude Code", async () => {
		await codeThatMovedOn(setup);
		const before = mock.requests.length;
		const session = await run(join(BIN, "codex"), ["exec", "--skip-git-repo-check", "how many times does the queue worker retry a job?"], {
			cwd: setup.repo,
			env: agentEnv,
		});
		expect(session.status, session.stderr).toBe(0);
		const input = mock.requests.slice(before).find((r) => r.path.endsWith("/v1/responses"))?.body.input as Loose[];
		// The start block's parts, each its own developer message: the marked memory may be in any of them.
		const start =
			(input ?? [])
				.filter((i) => i.role === "developer")
				.map((i) => JSON.stringify(i.content))
				.filter((t) => t.includes("## Cairn memory, part "))
				.join("\n") || undefined;
		expect(start, "no developer input carried the SessionStart block").toBeDefined();
		expect(start).toContain(CHANGED_MARK);
		expect(marksIn(start ?? "")).toEqual(["marked", "unmarked"]);
		if (agreed.claude) expect(marksIn(start ?? "")).toEqual(agreed.claude);
	});
});
