// Starts the Worker under `wrangler dev` (local D1, R2, Queues and Durable Objects, in a throwaway
// persistence directory with the migrations applied) for the CLI tests, and stops it afterwards.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

export const ADMIN_TOKEN = "cli-test-admin-token";

const freePort = () =>
	new Promise<number>((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
		});
	});

let worker: ChildProcess | null = null;
let persist = "";

export async function setup(project: TestProject) {
	persist = mkdtempSync(join(tmpdir(), "cairn-cli-worker-"));
	const wrangler = join(process.cwd(), "node_modules", ".bin", "wrangler");
	const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" };
	const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], { env, encoding: "utf8" });
	if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr || migrate.stdout}`);
	const port = await freePort();
	worker = spawn(
		wrangler,
		[
			"dev",
			"--local",
			"--ip",
			"127.0.0.1",
			"--port",
			String(port),
			"--persist-to",
			persist,
			"--var",
			`CAIRN_ADMIN_TOKEN:${ADMIN_TOKEN}`,
			"--show-interactive-dev-session=false",
		],
		{ env, stdio: ["ignore", "pipe", "pipe"], detached: true },
	);
	let log = "";
	worker.stdout?.on("data", (d) => {
		log += d;
	});
	worker.stderr?.on("data", (d) => {
		log += d;
	});
	const url = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 90_000;
	for (;;) {
		try {
			if ((await fetch(`${url}/health`)).ok) break;
		} catch {
			// not up yet
		}
		if (Date.now() > deadline || worker.exitCode !== null) throw new Error(`wrangler dev did not start:\n${log.slice(-3000)}`);
		await new Promise((r) => setTimeout(r, 250));
	}
	project.provide("cairnUrl", url);
	project.provide("adminToken", ADMIN_TOKEN);
}

export async function teardown() {
	if (worker?.pid) {
		try {
			process.kill(-worker.pid, "SIGTERM");
		} catch {
			worker.kill("SIGTERM");
		}
	}
	if (persist) rmSync(persist, { recursive: true, force: true });
}

declare module "vitest" {
	export interface ProvidedContext {
		cairnUrl: string;
		adminToken: string;
	}
}
