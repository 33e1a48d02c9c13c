// `npm run plugin:sync`: copies the CLI's runtime files (cairn.mjs, lib/, package.json) into the Claude
// Code plugin at plugin/cli/. The marketplace points at plugin/, and Claude Code copies that folder
// whole into its cache, so it holds only what the hooks, commands and MCP entry need — never the
// repository. A test (packages/cli/test/plugin.test.ts) fails when the copy differs from the CLI.
import { cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";

export const CLI_SOURCE = "packages/cli";
export const PLUGIN_CLI = "plugin/cli";
/** What the plugin carries of the CLI: its entry, its modules and its manifest (for `--version`). */
export const CLI_FILES = ["cairn.mjs", "lib", "package.json"];

export function listFiles(dir, base = "") {
	if (!existsSync(join(dir, base))) return [];
	return readdirSync(join(dir, base), { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? listFiles(dir, join(base, e.name)) : [join(base, e.name)]))
		.sort();
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "")) {
	rmSync(PLUGIN_CLI, { recursive: true, force: true });
	for (const f of CLI_FILES) cpSync(join(CLI_SOURCE, f), join(PLUGIN_CLI, f), { recursive: true });
	console.log(`copied ${listFiles(PLUGIN_CLI).length} files of ${CLI_SOURCE} into ${PLUGIN_CLI}`);
}
