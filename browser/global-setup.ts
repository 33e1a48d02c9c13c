// Starts two Workers under `wrangler dev` for the console's browser tests, each in a throwaway
// persistence directory with the migrations applied: the ordinary offline configuration, and one whose
// extraction model is misconfigured so that sessions fail extraction (for the retry flow).
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

export const ADMIN_TOKEN = "browser-test-admin-token";

const freePort = () =>
	new Promise<number>((resolve, reject) => {
		const server = createServer();
		server.listen(0, "127.0.0.1", () => {
			const address = server.address();
			server.close(() => (typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"))));
		});
	});

const workers: { process: ChildProcess; persist: string }[] = [];

async function startWorker(vars: Record<string, string>): Promise<string> {
	const persist = mkdtempSync(join(tmpdir(), "cairn-console-worker-"));
	const wrangler = join(process.cwd(), "node_modules", ".bin", "wrangler");
	const env = { ...process.env, CI: "1", WRANGLER_SEND_METRICS: "false" };
	const migrate = spawnSync(wrangler, ["d1", "migrations", "apply", "DB", "--local", "--persist-to", persist], { env, encoding: "utf8" });
	if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr || migrate.stdout}`);
	const port = await freePort();
	// Two Workers run at once: each needs its own inspector port as well.
	const inspector = await freePort();
	const args = ["dev", "--local", "--ip", "127.0.0.1", "--port", String(port), "--inspector-port", String(inspector), "--persist-to", persist, "--show-interactive-dev-session=false"];
	for (const [k, v] of Object.entries({ CAIRN_ADMIN_TOKEN: ADMIN_TOKEN, CAIRN_CONSOLE_SECRET: "browser-test-console-secret", ...vars })) {
		args.push("--var", `${k}:${v}`);
	}
	const child = spawn(wrangler, args, { env, stdio: ["ignore", "pipe", "pipe"], detached: true });
	workers.push({ process: child, persist });
	let log = "";
	child.stdout?.on("data", (d) => {
		log += d;
	});
	child.stderr?.on("data", (d) => {
		log += d;
	});
	const url = `http://127.0.0.1:${port}`;
	const deadline = Date.now() + 90_000;
	for (;;) {
		try {
			if ((await fetch(`${url}/health`)).ok) return url;
		} catch {
			// not up yet
		}
		if (Date.now() > deadline || child.exitCode !== null) throw new Error(`wrangler dev did not start:\n${log.slice(-3000)}`);
		await new Promise((r) => setTimeout(r, 250));
	}
}

export async function setup(project: TestProject) {
	const main = await startWorker({});
	const failing = await startWorker({ CAIRN_MODEL_DEFAULT: "misconfigured" });
	project.provide("cairnUrl", main);
	project.provide("failingUrl", failing);
	project.provide("adminToken", ADMIN_TOKEN);
}

export async function teardown() {
	for (const w of workers) {
		if (w.process.pid) {
			try {
				process.kill(-w.process.pid, "SIGTERM");
			} catch {
				w.process.kill("SIGTERM");
			}
		}
	}
	await new Promise((r) => setTimeout(r, 500));
	for (const w of workers) rmSync(w.persist, { recursive: true, force: true });
}

declare module "vitest" {
	export interface ProvidedContext {
		cairnUrl: string;
		failingUrl: string;
		adminToken: string;
	}
}
