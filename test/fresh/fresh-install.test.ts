/**
 * A newcomer's first minutes, as the README tells them: a fresh clone of this commit installed with an
 * empty home directory and an empty npm cache (no user npm configuration, so no `nodedir` pointing at
 * local Node headers), the service started on a port that is not the default, then `cairn setup` and
 * `cairn doctor` against it. Run by `npm run test:fresh` (and `.ci/run`); it downloads every package.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = mkdtempSync(join(tmpdir(), "cairn-fresh-"));
const home = join(root, "home");
const clone = join(root, "cairn");
const repo = join(root, "project");
let service: ChildProcess | null = null;
let serviceLog = "";

/**
 * The environment of someone who has just cloned: the machine's PATH without this checkout's
 * node_modules/.bin (so `node` is the machine's own), HOME and the npm cache in empty folders, and none
 * of the npm_* variables npm hands the scripts it runs (they carry this machine's npm configuration).
 */
const env = {
	...Object.fromEntries(
		Object.entries(process.env).filter(
			(e): e is [string, string] => e[1] !== undefined && !/^npm_/i.test(e[0]) && !/^(CAIRN_|CODEX_HOME$|XDG_CONFIG_HOME$)/.test(e[0]),
		),
	),
	PATH: (process.env.PATH ?? "")
		.split(delimiter)
		.filter((p) => !p.includes("node_modules"))
		.join(delimiter),
	HOME: home,
	npm_config_cache: join(root, "npm-cache"),
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

const run = (cmd: string, args: string[], cwd: string, timeout = 60_000) =>
	spawnSync(cmd, args, { cwd, env, encoding: "utf8", timeout, maxBuffer: 64 * 1024 * 1024 });

beforeAll(() => {
	mkdirSync(home);
	const cloned = run("git", ["clone", "--quiet", process.cwd(), clone], root);
	expect(cloned.status, cloned.stderr).toBe(0);
	mkdirSync(repo);
	run("git", ["init", "-q", "-b", "main"], repo);
	run("git", ["remote", "add", "origin", "git@github.com:acme/first-ten-minutes.git"], repo);
});

afterAll(() => {
	if (service?.pid) {
		try {
			process.kill(-service.pid, "SIGTERM");
		} catch {
			service.kill("SIGTERM");
		}
	}
	rmSync(root, { recursive: true, force: true });
});

describe("a fresh clone, an empty home and npm cache", () => {
	let port = 0;

	it("npm install succeeds with no user npm configuration and builds nothing from source", () => {
		const config = run("npm", ["config", "get", "nodedir"], clone);
		expect(config.stdout.trim()).toMatch(/^(null|undefined|)$/);
		const started = Date.now();
		const install = run("npm", ["install", "--no-audit", "--no-fund"], clone, 20 * 60_000);
		const output = `${install.stdout}\n${install.stderr}`;
		console.log(`npm install from an empty cache: ${((Date.now() - started) / 1000).toFixed(0)} s`);
		expect(install.status, output.slice(-4000)).toBe(0);
		expect(output).not.toMatch(/node-gyp|prebuild-install|gyp ERR/);
		// On a supported Node (README: 22.12 or newer) npm has nothing to warn about engines; on an older one
		// (this machine's 20) it warns about packages that run on the pinned Node 22, and still installs.
		const version = run("node", ["--version"], clone).stdout.trim();
		const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
		if (major > 22 || (major === 22 && minor >= 12)) expect(output, version).not.toContain("EBADENGINE");
	});

	it("npm start serves on the port it is given", async () => {
		port = await freePort();
		const child = spawn("npm", ["start", "--", "--port", String(port)], {
			cwd: clone,
			env,
			detached: true,
			stdio: ["ignore", "pipe", "pipe"],
		});
		service = child;
		child.stdout?.on("data", (d) => {
			serviceLog += d;
		});
		child.stderr?.on("data", (d) => {
			serviceLog += d;
		});
		const deadline = Date.now() + 180_000;
		for (;;) {
			try {
				if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
			} catch {
				// not up yet
			}
			if (Date.now() > deadline || child.exitCode !== null) throw new Error(`npm start did not serve:\n${serviceLog.slice(-3000)}`);
			await new Promise((r) => setTimeout(r, 500));
		}
		// The start line comes once the service answers, which may be a moment after /health first did.
		const ready = `Cairn is running at http://127.0.0.1:${port} — console at http://127.0.0.1:${port}/console`;
		for (let i = 0; i < 50 && !serviceLog.includes(ready); i++) await new Promise((r) => setTimeout(r, 100));
		expect(serviceLog).toContain(ready);
	});

	it("cairn setup finds that service and cairn doctor passes against it", () => {
		const cairn = join(clone, "packages", "cli", "cairn.mjs");
		const setup = run("node", [cairn, "setup"], repo);
		expect(setup.status, `${setup.stdout}\n${setup.stderr}`).toBe(0);
		expect(setup.stdout).toContain(`logged in to http://127.0.0.1:${port}`);
		expect(setup.stdout).toContain(`The console: http://127.0.0.1:${port}/console`);
		const doctor = run("node", [cairn, "doctor"], repo);
		expect(doctor.status, doctor.stdout).toBe(0);
		expect(doctor.stdout).toContain(`http://127.0.0.1:${port} answers`);
		expect(doctor.stdout).toContain("all checks passed");
	});
});
