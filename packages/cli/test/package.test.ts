// The CLI as users get it: `npm pack` in packages/cli, the tarball installed into an empty directory
// with no registry (it has no dependencies), `cairn` run by the machine's Node (20 here).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { NODE } from "./helpers.ts";

describe("the @cairn/cli package", () => {
	it("packs to a tarball that installs offline and runs on the machine's Node", () => {
		const out = mkdtempSync(join(tmpdir(), "cairn-pack-"));
		const pack = spawnSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: resolve("packages/cli"), encoding: "utf8" });
		expect(pack.status, pack.stderr).toBe(0);
		const [info] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
		const files = info?.files.map((f) => f.path).sort() ?? [];
		expect(files).toContain("cairn.mjs");
		expect(files).toContain("lib/hook.mjs");
		expect(files.every((f) => ["cairn.mjs", "package.json", "README.md"].includes(f) || f.startsWith("lib/"))).toBe(true);

		const target = mkdtempSync(join(tmpdir(), "cairn-install-"));
		const tarball = join(out, readdirSync(out)[0] as string);
		const install = spawnSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", tarball], {
			cwd: target,
			encoding: "utf8",
			env: { ...process.env, npm_config_cache: join(target, ".npm-cache") },
		});
		expect(install.status, install.stderr).toBe(0);

		// Through the installed bin and its `#!/usr/bin/env node`, with only the machine's Node on PATH.
		const path = `${dirname(NODE)}:/usr/bin:/bin`;
		const version = spawnSync("node", ["--version"], { env: { PATH: path }, encoding: "utf8" }).stdout.trim();
		expect(Number(/^v(\d+)/.exec(version)?.[1])).toBeGreaterThanOrEqual(20);
		const help = spawnSync(join(target, "node_modules", ".bin", "cairn"), ["--help"], {
			env: { PATH: path, HOME: target },
			encoding: "utf8",
		});
		expect(help.status, help.stderr).toBe(0);
		expect(help.stdout).toContain("cairn remember <name>");
		const hook = spawnSync(join(target, "node_modules", ".bin", "cairn"), ["hook", "user-prompt-submit", "--agent", "codex"], {
			env: { PATH: path, HOME: target },
			input: JSON.stringify({ session_id: "s", turn_id: "t", cwd: target, hook_event_name: "UserPromptSubmit", prompt: "hi" }),
			encoding: "utf8",
		});
		expect(hook.status).toBe(0);
		expect(JSON.parse(hook.stdout)).toEqual({}); // not logged in: one line on stderr, and still a valid object
		expect(hook.stderr).toContain("not logged in");
	});
});
