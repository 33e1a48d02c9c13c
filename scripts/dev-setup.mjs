// Prepares a checkout for `npm start`: local secrets from the committed example, then local D1
// migrations. CI=1 keeps wrangler from asking for confirmation in an interactive terminal.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync } from "node:fs";

if (!existsSync(".dev.vars")) {
	copyFileSync(".dev.vars.example", ".dev.vars");
	console.log("created .dev.vars from .dev.vars.example (local development only)");
}

const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
	stdio: "inherit",
	env: { ...process.env, CI: "1" },
	shell: process.platform === "win32",
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);
