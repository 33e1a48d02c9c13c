// `npm start`'s launcher: the port and host from flags or PORT / HOST, refused clearly when malformed; a
// busy port refused before anything is touched; the URL file owned by one running instance; wrangler kept local.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

type Running = { url: string; pid: number } | null;
// Plain JavaScript outside the type-checked tree: loaded by path.
const launcher: {
	startOptions: (argv: string[], env: Record<string, string | undefined>) => { port: number; host: string; rest: string[] };
	localUrl: (host: string, port: number) => string;
	busyPortMessage: (o: { host: string; port: number; running: Running; cairnThere: boolean; free: number }) => string;
	runningInstance: (file?: string) => Running;
	portFree: (host: string, port: number) => Promise<boolean>;
	configuresAi: (toml: string) => boolean;
	persistTo: (rest: string[]) => string | undefined;
	readyLine: (url: string) => string;
	LOCAL_ENV: Record<string, string>;
} = await import(resolve("scripts/start.mjs"));
const { startOptions, localUrl, busyPortMessage, runningInstance, portFree, configuresAi, persistTo, readyLine, LOCAL_ENV } = launcher;
const setup: { appliedCount: (output: string) => number } = await import(resolve("scripts/dev-setup.mjs"));

/** A server on a free loopback port; with `health`, it answers /health as Cairn does. */
const listening = (health: boolean) =>
	new Promise<{ server: Server; port: number }>((done) => {
		const server = createServer((socket) => {
			socket.once("data", () =>
				socket.end(
					health
						? 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 15\r\nConnection: close\r\n\r\n{"status":"ok"}'
						: "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
				),
			);
		});
		server.listen(0, "127.0.0.1", () => done({ server, port: (server.address() as { port: number }).port }));
	});

describe("npm start's port and host", () => {
	it("defaults to 127.0.0.1:8787; PORT / HOST set them; flags win; other flags go to wrangler", () => {
		expect(startOptions([], {})).toEqual({ port: 8787, host: "127.0.0.1", rest: [] });
		expect(startOptions([], { PORT: "8795", HOST: "0.0.0.0" })).toEqual({ port: 8795, host: "0.0.0.0", rest: [] });
		expect(startOptions(["--port", "8796", "--persist-to", "/tmp/x"], { PORT: "8795" })).toEqual({
			port: 8796,
			host: "127.0.0.1",
			rest: ["--persist-to", "/tmp/x"],
		});
		expect(startOptions(["--port=8797", "--ip", "::1"], {})).toMatchObject({ port: 8797, host: "::1" });
	});

	it("refuses a port or host it cannot use, saying what it expects", () => {
		expect(() => startOptions(["--port"], {})).toThrow("--port expects a value, e.g. --port 8795");
		expect(() => startOptions(["--port", "eighty"], {})).toThrow("the port must be a whole number from 1 to 65535");
		expect(() => startOptions([], { PORT: "70000" })).toThrow("e.g. PORT=8795 npm start");
		expect(() => startOptions(["--host", "a b"], {})).toThrow("the host must be an address or host name");
	});

	it("links to a wildcard address through the loopback", () => {
		expect(localUrl("127.0.0.1", 8795)).toBe("http://127.0.0.1:8795");
		expect(localUrl("0.0.0.0", 8795)).toBe("http://127.0.0.1:8795");
		expect(localUrl("::1", 8795)).toBe("http://[::1]:8795");
	});
});

describe("a start on a busy port", () => {
	it("names the port, what holds it and the fix with a free port", () => {
		const url = "http://127.0.0.1:8787";
		const ours = busyPortMessage({ host: "127.0.0.1", port: 8787, running: { url, pid: 4242 }, cairnThere: true, free: 8788 });
		expect(ours).toContain("port 8787 is already in use");
		expect(ours).toContain(`Cairn from this checkout is already running there: ${url} (console ${url}/console`);
		expect(ours).toContain("npm start -- --port 8788");
		expect(ours).toContain("Nothing was started or changed.");
		const other = busyPortMessage({ host: "127.0.0.1", port: 8787, running: null, cairnThere: true, free: 8790 });
		expect(other).toContain(`a Cairn service already answers there: ${url}`);
		const program = busyPortMessage({
			host: "127.0.0.1",
			port: 8787,
			running: { url: "http://127.0.0.1:8795", pid: 1 },
			cairnThere: false,
			free: 8788,
		});
		expect(program).toContain("another program is listening on it; this checkout's Cairn runs at http://127.0.0.1:8795");
		expect(program).toContain("Start another on a free port: npm start -- --port 8788");
	});

	it("tells a free port from a taken one", async () => {
		const { server, port } = await listening(false);
		try {
			expect(await portFree("127.0.0.1", port)).toBe(false);
		} finally {
			server.close();
		}
		expect(await portFree("127.0.0.1", port)).toBe(true);
	});

	it("exits 1 before touching anything: no success line, the running instance's file and the checkout unchanged", async () => {
		const { server, port } = await listening(true);
		const dir = mkdtempSync(join(tmpdir(), "cairn-start-"));
		const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
		try {
			mkdirSync(join(dir, ".wrangler"));
			const file = join(dir, ".wrangler", "cairn-dev.json");
			const owned = `${JSON.stringify({ url: `http://127.0.0.1:${port}`, pid: sleeper.pid })}\n`;
			writeFileSync(file, owned);
			const second = spawnSync(process.execPath, [resolve("scripts/start.mjs"), "--port", String(port)], {
				cwd: dir,
				encoding: "utf8",
				timeout: 20_000,
			});
			expect(second.status, second.stderr).toBe(1);
			expect(second.stderr).toContain(
				`port ${port} is already in use — Cairn from this checkout is already running there: http://127.0.0.1:${port}`,
			);
			expect(second.stderr).toMatch(/npm start -- --port \d+/);
			expect(`${second.stdout}${second.stderr}`).not.toContain("Cairn is running at");
			expect(readFileSync(file, "utf8")).toBe(owned);
			expect(existsSync(join(dir, ".dev.vars"))).toBe(false);
		} finally {
			sleeper.kill();
			server.close();
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe("the URL file", () => {
	it("belongs to a running launcher; a file left by one that is gone belongs to no one", async () => {
		const dir = mkdtempSync(join(tmpdir(), "cairn-url-file-"));
		const file = join(dir, "cairn-dev.json");
		try {
			expect(runningInstance(file)).toBeNull();
			const sleeper = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"]);
			writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:8795", pid: sleeper.pid }));
			expect(runningInstance(file)).toEqual({ url: "http://127.0.0.1:8795", pid: sleeper.pid });
			sleeper.kill();
			await new Promise((r) => sleeper.once("exit", r));
			expect(runningInstance(file)).toBeNull();
			// This process's own record is not "another instance".
			writeFileSync(file, JSON.stringify({ url: "http://127.0.0.1:8795", pid: process.pid }));
			expect(runningInstance(file)).toBeNull();
		} finally {
			rmSync(dir, { recursive: true, force: true });
		}
	});
});

describe("wrangler kept local", () => {
	it("turns off telemetry, the Request.cf download and the update check", () => {
		expect(LOCAL_ENV).toEqual({ WRANGLER_SEND_METRICS: "false", CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_HIDE_BANNER: "true" });
	});

	it("lets wrangler reach Cloudflare only for a Workers AI binding configured at the top level", () => {
		expect(configuresAi(readFileSync("wrangler.toml", "utf8"))).toBe(false);
		expect(configuresAi('name = "x"\n[ai]\nbinding = "AI"\nremote = true\n')).toBe(true);
		expect(configuresAi('name = "x"\n[env.production]\nname = "y"\n[env.production.ai]\nbinding = "AI"\n')).toBe(false);
	});

	it("applies migrations where wrangler dev keeps its data, and counts them quietly", () => {
		expect(persistTo(["--persist-to", "/tmp/x"])).toBe("/tmp/x");
		expect(persistTo(["--persist-to=/tmp/y", "--log-level", "warn"])).toBe("/tmp/y");
		expect(persistTo([])).toBeUndefined();
		expect(setup.appliedCount("Migrations to be applied:\n…\n? About to apply 8 migration(s)\n")).toBe(8);
		expect(setup.appliedCount("✅ No migrations to apply!")).toBe(0);
	});

	it("says where the service is and what to do next", () => {
		expect(readyLine("http://127.0.0.1:8795")).toMatch(
			/^Cairn is running at http:\/\/127\.0\.0\.1:8795 — console at http:\/\/127\.0\.0\.1:8795\/console\n.*cairn setup/,
		);
	});
});
