// What every CLI test needs: the CLI run as a user runs it (the machine's Node, its own HOME and
// config dir, stdin payloads), and the service's API for setting up and checking.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inject } from "vitest";

export const CLI = resolve("packages/cli/cairn.mjs");
export const url = inject("cairnUrl");
export const benchDir = resolve("../shared/bench/transcripts");

/**
 * The Node a user has: the first `node` on PATH outside this checkout's node_modules (the toolchain
 * pins Node 22 for npm scripts; the CLI promises Node 20).
 */
export const NODE =
	spawnSync("which", ["-a", "node"], { encoding: "utf8" })
		.stdout.split("\n")
		.map((p) => p.trim())
		.find((p) => p && !p.includes("node_modules")) ?? process.execPath;

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies loosely.
export type Loose = Record<string, any>;

export interface Run {
	status: number | null;
	stdout: string;
	stderr: string;
	ms: number;
}

/** A user's machine: its own HOME, config dir and Codex home; no inherited CAIRN_* variables. */
export function machine() {
	const home = mkdtempSync(join(tmpdir(), "cairn-cli-home-"));
	const base: Record<string, string> = {
		PATH: process.env.PATH ?? "",
		HOME: home,
		XDG_CONFIG_HOME: join(home, ".config"),
		CODEX_HOME: join(home, ".codex"),
	};
	const run = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}): Run => {
		const started = Date.now();
		const r = spawnSync(NODE, [CLI, ...args], {
			cwd: options.cwd ?? home,
			env: { ...base, ...options.env },
			input: options.input ?? "",
			encoding: "utf8",
			timeout: 60_000,
		});
		return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: Date.now() - started };
	};
	/** The same, without blocking the test's event loop (for hooks run side by side). */
	const runAsync = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) =>
		new Promise<Run>((done) => {
			const started = Date.now();
			const child = spawn(NODE, [CLI, ...args], { cwd: options.cwd ?? home, env: { ...base, ...options.env } });
			let stdout = "";
			let stderr = "";
			child.stdout.on("data", (d) => {
				stdout += d;
			});
			child.stderr.on("data", (d) => {
				stderr += d;
			});
			child.on("close", (status) => done({ status, stdout, stderr, ms: Date.now() - started }));
			child.stdin.end(options.input ?? "");
		});
	return { home, env: base, run, runAsync };
}

/**
 * fetch against the test's Worker, sent again once when the connection was closed under it: Node keeps
 * idle connections open, and workerd may close one just as a request (after a long run of CLI
 * processes) starts on it ("other side closed", EPIPE). Only for requests that are safe to repeat.
 */
export async function serviceFetch(input: string, init?: RequestInit): Promise<Response> {
	try {
		return await fetch(input, init);
	} catch (err) {
		const code = (err as { cause?: { code?: string } }).cause?.code;
		if (!(err instanceof TypeError) || !["UND_ERR_SOCKET", "EPIPE", "ECONNRESET"].includes(code ?? "")) throw err;
		return fetch(input, init);
	}
}

export async function api(key: string, method: string, path: string, body?: unknown) {
	const res = await serviceFetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const type = res.headers.get("Content-Type") ?? "";
	return { status: res.status, body: (type.includes("json") ? await res.json() : await res.text()) as Loose };
}

/** A fresh tenant and its admin key. */
export async function tenant(name: string): Promise<string> {
	const res = await fetch(`${url}/v1/admin/tenants`, {
		method: "POST",
		headers: { Authorization: `Bearer ${inject("adminToken")}`, "Content-Type": "application/json" },
		body: JSON.stringify({ name, user: "ada" }),
	});
	return ((await res.json()) as { key: { token: string } }).key.token;
}

/** A git repository with a remote (a URL, a local path) or none, and one commit. */
export function gitRepo(remote: string | null, subject = "Initial commit") {
	const dir = mkdtempSync(join(tmpdir(), "cairn-cli-repo-"));
	const git = (...args: string[]) => spawnSync("git", args, { cwd: dir, encoding: "utf8" });
	git("init", "-q", "-b", "main");
	if (remote) git("remote", "add", "origin", remote);
	git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", subject);
	return dir;
}

/** The first transcript of a kind in the shared bench material, else the committed fixture. */
export function transcript(kind: "claude" | "codex", fallback: string, pick = (files: string[]) => files[0]) {
	try {
		const files = readdirSync(join(benchDir, kind)).sort();
		const chosen = pick(files);
		if (chosen) return join(benchDir, kind, chosen);
	} catch {
		// no bench material on this machine
	}
	return resolve("test/fixtures/transcripts", fallback);
}

/** Polls until `check` returns a value that is not undefined, or fails after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
	const until = Date.now() + ms;
	for (;;) {
		const value = await check();
		if (value !== undefined) return value;
		if (Date.now() > until) throw new Error("condition not met in time");
		await new Promise((r) => setTimeout(r, 250));
	}
}

/**
 * When the agents give up on a hook: the timeouts the plugin's hooks/hooks.json sets (UserPromptSubmit 5 s,
 * the others 10 s). A hook that has not returned by then has hung. Its own, shorter budget (hookBudgetMs:
 * 1.4 s per prompt, 2.8 s otherwise) is timed where the service is slow or gone (cli.test.ts) — the
 * budget itself is the limit.
 */
export const KILLED_AFTER_MS = { prompt: 5_000, other: 10_000 } as const;

export interface ProxyEvent {
	method: string;
	path: string;
	status: number;
	arrivedAt: number;
	answeredAt: number;
	/** What the request carried, as sent. */
	body: string;
}

/**
 * The service behind a stand-in that answers the session routes (`/sessions/…`) `delayMs` late, or
 * refuses them while `refuse` is set: a far or cold deployment, or one that is briefly down. Records
 * every request it answered.
 */
export async function slowService(options: { delayMs: number; match?: RegExp }) {
	const { createServer } = await import("node:http");
	const match = options.match ?? /\/sessions\//;
	const events: ProxyEvent[] = [];
	const state = { refuse: false, delayMs: options.delayMs };
	const server = createServer(async (req, res) => {
		const arrivedAt = Date.now();
		const path = req.url ?? "/";
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		const slow = match.test(path);
		if (slow && state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
		let status: number;
		if (slow && state.refuse) {
			status = 503;
			res.writeHead(503, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ error: { code: "unavailable", message: "service unavailable" } }));
		} else {
			const headers: Record<string, string> = {};
			for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string" && k !== "host" && k !== "connection") headers[k] = v;
			const upstream = await fetch(`${url}${path}`, {
				method: req.method,
				headers,
				body: chunks.length && req.method !== "GET" ? Buffer.concat(chunks) : undefined,
			});
			status = upstream.status;
			const body = Buffer.from(await upstream.arrayBuffer());
			res.writeHead(upstream.status, { "Content-Type": upstream.headers.get("Content-Type") ?? "application/octet-stream" });
			res.end(body);
		}
		events.push({
			method: req.method ?? "",
			path,
			status,
			arrivedAt,
			answeredAt: Date.now(),
			body: Buffer.concat(chunks).toString("utf8"),
		});
	});
	await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
	const port = (server.address() as { port: number }).port;
	return {
		url: `http://127.0.0.1:${port}`,
		events,
		state,
		close: () => new Promise<void>((r) => server.close(() => r())),
	};
}
