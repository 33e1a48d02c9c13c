#!/usr/bin/env node
import { writeSync } from "node:fs";
// @ts-check
// `cairn`: connect coding agents to a Cairn memory service. Node ≥ 20, no dependencies.
// Every prompt waits for the prompt hook, so it loads only its own few modules; every other command
// loads lib/cli.mjs.
import module from "node:module";

const isHook = process.argv[2] === "hook";
// A reader that stops early (`cairn recall pnpm | head -1`) closes the pipe: the rest of the output has
// nowhere to go, which is no failure. End quietly with the status so far, for every command.
for (const stream of [process.stdout, process.stderr])
	stream.on("error", (/** @type {NodeJS.ErrnoException} */ err) => {
		if (err.code !== "EPIPE") throw err;
		process.exit(typeof process.exitCode === "number" ? process.exitCode : 0);
	});
const major = Number(process.versions.node.split(".")[0]);
if (major < 20) {
	process.stderr.write(`cairn needs Node.js 20 or newer (this is ${process.versions.node})\n`);
	if (isHook && process.argv.includes("codex")) writeSync(1, "{}\n");
	process.exit(isHook ? 0 : 1);
}
// Node 22.1 and later keep the compiled code of these modules on disk between runs (a no-op before).
/** @type {{ enableCompileCache?: () => unknown }} */ (module).enableCompileCache?.();

if (isHook && process.argv[3] === "user-prompt-submit") (await import("./lib/prompt-hook.mjs")).promptHook(process.argv.slice(4));
else (await import("./lib/cli.mjs")).run();
