// Starts the real Worker under `wrangler dev --local` with its own throw-away state directory.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface LocalWorker {
	base: string;
	adminToken: string;
	stop: () => void;
}

export async function startWorker(port: number): Promise<LocalWorker> {
	const state = mkdtempSync(join(tmpdir(), "cairn-bench-"));
	const adminToken = `bench-${Math.random().toString(36).slice(2)}`;
	const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local", "--persist-to", state], {
		env: { ...process.env, CI: "1" },
		encoding: "utf8",
	});
	if (migrate.status !== 0) throw new Error(`migrations failed: ${migrate.stderr}`);
	const child: ChildProcess = spawn(
		"wrangler",
		[
			"dev",
			"--local",
			"--ip",
			"127.0.0.1",
			"--port",
			String(port),
			"--persist-to",
			state,
			"--var",
			`CAIRN_ADMIN_TOKEN:${adminToken}`,
			"--log-level",
			"warn",
		],
		{ env: { ...process.env, CI: "1" }, stdio: ["ignore", "ignore", "inherit"], detached: true },
	);
	const base = `http://127.0.0.1:${port}`;
	const stop = () => {
		try {
			if (child.pid) process.kill(-child.pid, "SIGTERM");
		} catch {}
		rmSync(state, { recursive: true, force: true });
	};
	for (let i = 0; i < 120; i++) {
		try {
			if ((await fetch(`${base}/health`)).ok) return { base, adminToken, stop };
		} catch {}
		await new Promise((r) => setTimeout(r, 500));
	}
	stop();
	throw new Error("the local Worker did not start");
}

export function percentile(values: number[], p: number): number {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}
