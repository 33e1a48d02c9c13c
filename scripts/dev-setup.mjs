// Prepares a checkout for `npm start` (scripts/start.mjs calls `prepare`): local secrets from the
// committed example, then local D1 migrations, applied quietly — one line when some were applied,
// wrangler's whole output only when applying failed. CI=1 keeps wrangler from asking for confirmation
// in an interactive terminal.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";

/** `.dev.vars` from `.dev.vars.example`, or the example's variables a `.dev.vars` made before them lacks (values set are kept). */
export function devVars() {
	if (!existsSync(".dev.vars")) {
		copyFileSync(".dev.vars.example", ".dev.vars");
		console.log("created .dev.vars from .dev.vars.example (local development only)");
		return;
	}
	const names = (/** @type {string} */ text) =>
		new Set(
			text
				.split("\n")
				.map((l) => (l.split("=")[0] ?? "").trim())
				.filter(Boolean),
		);
	const have = names(readFileSync(".dev.vars", "utf8"));
	const missing = readFileSync(".dev.vars.example", "utf8")
		.split("\n")
		.filter((l) => l.includes("=") && !have.has((l.split("=")[0] ?? "").trim()));
	if (missing.length) {
		const current = readFileSync(".dev.vars", "utf8");
		appendFileSync(".dev.vars", `${current.endsWith("\n") || !current ? "" : "\n"}${missing.join("\n")}\n`);
		console.log(`added ${missing.map((l) => l.split("=")[0]).join(", ")} to .dev.vars from .dev.vars.example`);
	}
}

/**
 * How many migrations wrangler's output says it applied (0 when there were none to apply).
 * @param {string} output
 */
export function appliedCount(output) {
	return Number(/About to apply (\d+) migration/.exec(output)?.[1] ?? 0);
}

/**
 * Applies the local D1 migrations (to `persistTo` when `npm start` was given `--persist-to`).
 * @param {{ env: NodeJS.ProcessEnv, persistTo?: string | undefined }} options
 */
export function migrate({ env, persistTo }) {
	const run = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local", ...(persistTo ? ["--persist-to", persistTo] : [])], {
		env: { ...env, CI: "1" },
		encoding: "utf8",
		maxBuffer: 16 * 1024 * 1024,
		shell: process.platform === "win32",
	});
	const output = `${run.stdout ?? ""}${run.stderr ?? ""}`;
	if (run.status !== 0) {
		process.stderr.write(output);
		process.stderr.write(`npm start: applying the local D1 migrations failed (${run.error?.message ?? `exit code ${run.status}`})\n`);
		process.exit(run.status || 1);
	}
	const applied = appliedCount(output);
	if (applied > 0)
		console.log(`applied ${applied} migration${applied === 1 ? "" : "s"} to the local database (${persistTo ?? ".wrangler/state"})`);
}

/** Everything `npm start` needs before wrangler runs. @param {{ env: NodeJS.ProcessEnv, persistTo?: string | undefined }} options */
export function prepare(options) {
	devVars();
	migrate(options);
}
