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

/** Calls the local Worker; writes are idempotent, so a 503 from a restarting runtime is retried once. */
export async function api(worker: LocalWorker, path: string, init: RequestInit & { token: string }, retried = false): Promise<Response> {
	const res = await fetch(`${worker.base}${path}`, {
		...init,
		headers: { Authorization: `Bearer ${init.token}`, "Content-Type": "application/json", ...(init.headers ?? {}) },
	});
	if (res.status === 503 && !retried) return api(worker, path, init, true);
	if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${await res.text()}`);
	return res;
}

export async function createTenant(worker: LocalWorker): Promise<string> {
	const res = await fetch(`${worker.base}/v1/admin/tenants`, {
		method: "POST",
		headers: { Authorization: `Bearer ${worker.adminToken}`, "Content-Type": "application/json" },
		body: JSON.stringify({ name: "bench", user: "bench" }),
	});
	return ((await res.json()) as { key: { token: string } }).key.token;
}

export interface SeedMemory {
	name: string;
	type: string;
	description: string;
	body: string;
}

/** Registers a project with memories on, and fills it through the batch endpoint. Returns its id and fill time. */
export async function seedProject(worker: LocalWorker, token: string, remote: string, memories: SeedMemory[]) {
	const res = await api(worker, "/v1/projects", {
		method: "POST",
		token,
		body: JSON.stringify({ name: remote, gitRemote: `git@bench.local:${remote}.git` }),
	});
	const id = ((await res.json()) as { project: { id: string } }).project.id;
	await api(worker, `/v1/projects/${id}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	const t0 = performance.now();
	for (let i = 0; i < memories.length; i += 100) {
		const res = await api(worker, `/v1/projects/${id}/memories/batch`, {
			method: "POST",
			token,
			body: JSON.stringify({ memories: memories.slice(i, i + 100) }),
		});
		const { results } = (await res.json()) as { results: { status: string; error?: { code: string } }[] };
		const failed = results.filter((r) => r.status === "error");
		if (failed.length > 0) throw new Error(`seeding ${remote}: ${failed.length} items failed (${failed[0]?.error?.code})`);
	}
	return { id, fillSeconds: (performance.now() - t0) / 1000 };
}
