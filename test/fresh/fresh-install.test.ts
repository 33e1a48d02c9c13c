/**
 * A newcomer's first minutes, as the README tells them: a fresh clone of this commit, an empty home
 * directory and an empty npm cache (no user npm configuration, so no `nodedir` pointing at local Node
 * headers), and the README's agent path ("Start here") run command by command — read from the README's
 * `sh` blocks between its `agent-path` markers, so the README and this test cannot drift. `npm start` runs
 * on a free port that is not the default (PORT), and it is watched: it must make no request outside the
 * machine (Node's DNS and socket calls in every Node process it starts, a recording proxy for anything
 * that honours HTTPS_PROXY, and `strace` of every process — workerd included — where strace exists), its
 * start line must come after wrangler is ready and the service answers, and a second start on the same
 * port must be refused without touching the first one's state. Run by `npm run test:fresh` (and `.ci/run`);
 * it downloads every package.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "cairn-fresh-"));
const home = join(root, "home");
const clone = join(root, "cairn");
const globalPrefix = join(root, "npm-global");
const hookFile = join(root, "net-hook.cjs");
const hookLog = join(root, "net-hook.log");
const traceLog = join(root, "strace.log");
let service: ChildProcess | null = null;
let serviceLog = "";
let proxy: Server | null = null;
const proxied: string[] = [];

/** The README of the commit being cloned: its agent path, every command of its `sh` blocks in order. */
const readme = execFileSync("git", ["show", "HEAD:README.md"], { encoding: "utf8" });

/** A shell line without its trailing comment (a `#` after a space, outside quotes). */
function withoutComment(line: string): string {
	let quote: string | null = null;
	for (let i = 0; i < line.length; i++) {
		const ch = line[i];
		if (quote) {
			if (ch === quote) quote = null;
		} else if (ch === '"' || ch === "'") quote = ch;
		else if (ch === "#" && (i === 0 || /\s/.test(line[i - 1] ?? ""))) return line.slice(0, i).trimEnd();
	}
	return line.trimEnd();
}

function agentPath(text: string): string[] {
	const from = text.indexOf("<!-- agent-path:start");
	const to = text.indexOf("<!-- agent-path:end -->");
	if (from < 0 || to < from) return [];
	return [...text.slice(from, to).matchAll(/^```sh\n([\s\S]*?)^```$/gm)]
		.flatMap((m) => (m[1] ?? "").split("\n"))
		.map(withoutComment)
		.filter((l) => l.trim() !== "");
}
const commands = agentPath(readme);

/**
 * The environment of someone who has just cloned: the machine's PATH without this checkout's
 * node_modules/.bin (so `node` is the machine's own), HOME and the npm cache in empty folders, global
 * installs (`npm install -g`) under the test's folder with their bin on PATH, and none of the npm_*
 * variables npm hands the scripts it runs (they carry this machine's npm configuration) or of the test
 * runner's own.
 */
const env = {
	...Object.fromEntries(
		Object.entries(process.env).filter(
			(e): e is [string, string] =>
				e[1] !== undefined &&
				!/^npm_/i.test(e[0]) &&
				// Vitest's own (NODE_ENV=test makes Miniflare skip work a newcomer's start does, such as the Request.cf download).
				!/^(CAIRN_|CODEX_HOME$|XDG_CONFIG_HOME$|NODE_OPTIONS$|PORT$|HOST$|NODE_ENV$|VITEST|TEST$)/.test(e[0]),
		),
	),
	PATH: [join(globalPrefix, "bin"), ...(process.env.PATH ?? "").split(delimiter).filter((p) => !p.includes("node_modules"))].join(
		delimiter,
	),
	HOME: home,
	npm_config_cache: join(root, "npm-cache"),
	npm_config_prefix: globalPrefix,
	CI: "1",
} as Record<string, string> as NodeJS.ProcessEnv; // the Worker's typings add its variables to ProcessEnv

const freePort = () =>
	new Promise<number>((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
		});
	});

const run = (cmd: string, args: string[], cwd: string, timeout = 60_000, extra: Record<string, string> = {}) =>
	spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 });

/**
 * Loaded into every Node process `npm start` runs (NODE_OPTIONS): records each DNS lookup and socket
 * connect to anything but this machine, with the process's command line.
 */
const NET_HOOK = `
const fs = require("node:fs"), dns = require("node:dns"), net = require("node:net");
const out = ${JSON.stringify(hookLog)};
const local = (h) => !h || h === "localhost" || /^127\\./.test(h) || h === "::1" || h === "0.0.0.0" || h === "::" || /^::ffff:127\\./.test(h);
const note = (what) => { try { fs.appendFileSync(out, what + " (" + process.argv.slice(1, 3).join(" ") + ")\\n"); } catch {} };
for (const [obj, name] of [[dns, "lookup"], [dns.promises, "lookup"], [dns, "resolve"], [dns, "resolve4"], [dns, "resolve6"], [dns.promises, "resolve"]]) {
	const original = obj[name];
	obj[name] = function (host, ...rest) { if (!local(host)) note("dns " + name + " " + host); return original.call(this, host, ...rest); };
}
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
	const first = Array.isArray(args[0]) ? args[0][0] : args[0];
	const host = typeof first === "object" && first ? (first.path ? null : first.host ?? "localhost") : typeof args[1] === "string" ? args[1] : "localhost";
	if (host !== null && !local(host)) note("connect " + host + ":" + (typeof first === "object" && first ? first.port : first));
	return connect.apply(this, args);
};
`;

/** Whether strace can follow `npm start` here (it needs ptrace), and with which options. */
function straceArgs(): string[] | null {
	for (const options of [["--seccomp-bpf", "-f"], ["-f"]]) {
		const probe = spawnSync("strace", [...options, "-qq", "-e", "trace=connect", "-o", "/dev/null", "true"], { encoding: "utf8" });
		if (probe.status === 0) return [...options, "-qq", "-e", "trace=connect", "-o", traceLog];
	}
	return null;
}

/** Connects strace saw to an address outside this machine (a DNS server's included: a lookup is a request). */
function outboundInTrace(): string[] {
	if (!existsSync(traceLog)) return [];
	return readFileSync(traceLog, "utf8")
		.split("\n")
		.filter((l) => /connect\(/.test(l) && /AF_INET6?/.test(l))
		.filter((l) => {
			const v4 = /inet_addr\("([^"]+)"\)/.exec(l)?.[1];
			const v6 = /inet_pton\(AF_INET6, "([^"]+)"/.exec(l)?.[1];
			const address = v4 ?? v6 ?? "";
			return !/^(127\.|0\.0\.0\.0$|::1$|::$|::ffff:127\.)/.test(address);
		});
}

beforeAll(async () => {
	mkdirSync(home);
	writeFileSync(hookFile, NET_HOOK);
	const cloned = run("git", ["clone", "--quiet", process.cwd(), clone], root);
	expect(cloned.status, cloned.stderr).toBe(0);
	// The repository the README's `cd ~/src/your-project` goes to: the one the agent works in.
	const repo = join(home, "src", "your-project");
	mkdirSync(repo, { recursive: true });
	run("git", ["init", "-q", "-b", "main"], repo);
	run("git", ["remote", "add", "origin", "git@github.com:acme/first-ten-minutes.git"], repo);
	// A proxy that records what reaches it and forwards nothing: a client that honours HTTPS_PROXY says where it was going.
	proxy = createServer((socket) => {
		socket.once("data", (d) => {
			proxied.push(String(d).split("\r\n")[0] ?? "");
			socket.end("HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
		});
		socket.on("error", () => {});
	});
	await new Promise<void>((resolve) => proxy?.listen(0, "127.0.0.1", resolve));
});

afterAll(() => {
	if (service?.pid) {
		try {
			process.kill(-service.pid, "SIGTERM");
		} catch {
			service.kill("SIGTERM");
		}
	}
	proxy?.close();
	rmSync(root, { recursive: true, force: true });
});

describe("a fresh clone, an empty home and npm cache: the README's agent path", () => {
	let port = 0;
	let cwd = clone;
	let tracedWith = "";
	let readyIndex = -1;
	let answeredAtReady: Promise<boolean> | null = null;
	const outputs: { command: string; stdout: string; stderr: string }[] = [];

	it("the README has an agent path: install, start, the CLI, setup, a memory, what the agent sees", () => {
		expect(commands[0]).toBe("npm install");
		for (const step of ["npm start", "cairn setup"]) expect(commands).toContain(step);
		expect(commands.some((c) => c.startsWith("cairn remember "))).toBe(true);
	});

	/** `npm start` in the background, watched for outbound requests; resolves once its start line is printed. */
	async function start(command: string) {
		port = await freePort();
		expect(port).not.toBe(8787);
		const address = proxy?.address();
		const proxyUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 9}`;
		const startEnv: NodeJS.ProcessEnv = {
			...env,
			PORT: String(port),
			NODE_OPTIONS: `--require ${hookFile}`,
			HTTPS_PROXY: proxyUrl,
			HTTP_PROXY: proxyUrl,
			https_proxy: proxyUrl,
			http_proxy: proxyUrl,
			NO_PROXY: "127.0.0.1,localhost,::1",
			no_proxy: "127.0.0.1,localhost,::1",
		};
		const strace = straceArgs();
		tracedWith = strace ? "strace, " : "";
		const child = spawn(strace ? "strace" : "bash", strace ? [...strace, "bash", "-c", command] : ["-c", command], {
			cwd,
			env: startEnv,
			detached: true,
			stdio: ["ignore", "pipe", "pipe"],
		});
		service = child;
		const ready = `Cairn is running at http://127.0.0.1:${port} — console at http://127.0.0.1:${port}/console`;
		const onData = (d: Buffer) => {
			serviceLog += d;
			if (readyIndex < 0 && serviceLog.includes(ready)) {
				readyIndex = serviceLog.indexOf(ready);
				// Asked the moment the line appears, once: the service must already answer.
				answeredAtReady = fetch(`http://127.0.0.1:${port}/health`).then(
					(r) => r.ok,
					() => false,
				);
			}
		};
		child.stdout?.on("data", onData);
		child.stderr?.on("data", onData);
		const deadline = Date.now() + 240_000;
		while (readyIndex < 0) {
			if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start printed no start line:\n${serviceLog.slice(-3000)}`);
			await new Promise((r) => setTimeout(r, 200));
		}
		console.log(
			`npm start: the start line after ${serviceLog.length} characters of output; watched with ${tracedWith}Node's DNS and sockets, a proxy`,
		);
	}

	it.each(commands)("runs `%s` as the README shows it", async (command) => {
		if (command === "npm install") {
			const config = run("npm", ["config", "get", "nodedir"], clone);
			expect(config.stdout.trim()).toMatch(/^(null|undefined|)$/);
		}
		if (/^npm start\b/.test(command)) return start(command);
		const cd = /^cd\s+(.+)$/.exec(command);
		if (cd) {
			const to = run("bash", ["-c", `cd ${cd[1]} && pwd`], cwd);
			expect(to.status, to.stderr).toBe(0);
			cwd = to.stdout.trim();
			return;
		}
		const started = Date.now();
		const result = run("bash", ["-c", command], cwd, command === "npm install" ? 20 * 60_000 : 120_000);
		const output = `${result.stdout}\n${result.stderr}`;
		outputs.push({ command, stdout: result.stdout, stderr: result.stderr });
		expect(result.status, `${command}:\n${output.slice(-4000)}`).toBe(0);
		if (command === "npm install") {
			console.log(`npm install from an empty cache: ${((Date.now() - started) / 1000).toFixed(0)} s`);
			expect(output).not.toMatch(/node-gyp|prebuild-install|gyp ERR/);
			// On a supported Node (README: 22.12 or newer) npm has nothing to warn about engines; on an older one
			// (this machine's 20) it warns about packages that run on the pinned Node 22, and still installs.
			const version = run("node", ["--version"], clone).stdout.trim();
			const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
			if (major > 22 || (major === 22 && minor >= 12)) expect(output, version).not.toContain("EBADENGINE");
		}
		if (command === "cairn setup") {
			// Found the checkout's running service on its port, from another repository.
			expect(result.stdout).toContain(`logged in to http://127.0.0.1:${port}`);
			expect(result.stdout).toContain(`http://127.0.0.1:${port}/console`);
		}
		const remembered = /^cairn remember "([^"]+)"/.exec(command)?.[1];
		if (remembered) expect(result.stdout).toMatch(/^remembered /);
		if (command === "cairn view") {
			// What the agent sees at its next session start holds the memory just written, among the rules.
			const text = outputs.find((o) => o.command.startsWith("cairn remember "))?.command.match(/"([^"]+)"/)?.[1] ?? "";
			expect(result.stdout.toLowerCase()).toContain(text.toLowerCase());
			expect(result.stdout).toContain("### Rules and preferences");
		}
	});

	it("npm start printed its start line once, after wrangler was ready, when the service already answered", async () => {
		expect(readyIndex).toBeGreaterThan(0);
		expect(await answeredAtReady).toBe(true);
		const wranglerReady = serviceLog.indexOf(`Ready on http://127.0.0.1:${port}`);
		expect(wranglerReady, serviceLog.slice(0, 3000)).toBeGreaterThanOrEqual(0);
		expect(wranglerReady).toBeLessThan(readyIndex);
		expect(serviceLog.split("Cairn is running at").length - 1).toBe(1);
	});

	it("the local start made no request outside the machine, and said nothing of one", () => {
		const hooked = existsSync(hookLog) ? readFileSync(hookLog, "utf8").trim().split("\n").filter(Boolean) : [];
		expect(hooked, "DNS lookups or connects to outside hosts from Node processes of npm start").toEqual([]);
		expect(proxied, "requests sent through the (recording) proxy").toEqual([]);
		expect(outboundInTrace(), "connects strace saw to addresses outside this machine").toEqual([]);
		for (const sign of ["workers.cloudflare.com", "ENOTFOUND", "getaddrinfo", "Request.cf", "may incur usage charges", "AI bindings"])
			expect(serviceLog, sign).not.toContain(sign);
	});

	it("migrations were applied once and quietly: one line, no tables", () => {
		expect(serviceLog.match(/applied \d+ migrations? to the local database/g)?.length).toBe(1);
		expect(serviceLog).not.toContain("Migrations to be applied");
	});

	it("a second npm start on the busy port is refused: the port, the running URL, the fix; no start line; nothing changed", () => {
		const file = join(clone, ".wrangler", "cairn-dev.json");
		const before = readFileSync(file, "utf8");
		expect(JSON.parse(before).url).toBe(`http://127.0.0.1:${port}`);
		const second = run("npm", ["start"], clone, 60_000, { PORT: String(port) });
		const output = `${second.stdout}\n${second.stderr}`;
		expect(second.status, output).not.toBe(0);
		expect(output).toContain(`port ${port} is already in use`);
		expect(output).toContain(`http://127.0.0.1:${port}`);
		expect(output).toMatch(/npm start -- --port \d+/);
		expect(output).not.toContain("Cairn is running at");
		expect(readFileSync(file, "utf8")).toBe(before);
	});

	it("cairn doctor passes in the repository the README connected", () => {
		const doctor = run("cairn", ["doctor"], cwd);
		expect(doctor.status, doctor.stdout).toBe(0);
		expect(doctor.stdout).toContain(`http://127.0.0.1:${port} answers`);
		expect(doctor.stdout).toContain("all checks passed");
	});
});
