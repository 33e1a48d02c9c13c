// Prepares a checkout for `npm start`: local secrets from the committed example, then local D1
// migrations. CI=1 keeps wrangler from asking for confirmation in an interactive terminal.
import { spawnSync } from "node:child_process";
import { appendFileSync, copyFileSync, existsSync, readFileSync } from "node:fs";

if (!existsSync(".dev.vars")) {
	copyFileSync(".dev.vars.example", ".dev.vars");
	console.log("created .dev.vars from .dev.vars.example (local development only)");
} else {
	// A .dev.vars made before a variable was added to the example gets that variable (values already set are kept).
	const names = (text) =>
		new Set(
			text
				.split("\n")
				.map((l) => l.split("=")[0].trim())
				.filter(Boolean),
		);
	const have = names(readFileSync(".dev.vars", "utf8"));
	const missing = readFileSync(".dev.vars.example", "utf8")
		.split("\n")
		.filter((l) => l.includes("=") && !have.has(l.split("=")[0].trim()));
	if (missing.length) {
		const current = readFileSync(".dev.vars", "utf8");
		appendFileSync(".dev.vars", `${current.endsWith("\n") || !current ? "" : "\n"}${missing.join("\n")}\n`);
		console.log(`added ${missing.map((l) => l.split("=")[0]).join(", ")} to .dev.vars from .dev.vars.example`);
	}
}

const migrate = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local"], {
	stdio: "inherit",
	env: { ...process.env, CI: "1" },
	shell: process.platform === "win32",
});
if (migrate.status !== 0) process.exit(migrate.status ?? 1);
