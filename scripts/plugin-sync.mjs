// `npm run plugin:sync`: copies the CLI's runtime files (cairn.mjs, lib/, package.json) into the Claude
// Code plugin at plugin/cli/, and writes the hook entries of plugin/hooks/hooks.json from the CLI's
// CLAUDE_HOOKS (the events, timeouts, matchers and the session start's parts, START_PARTS). The
// marketplace points at plugin/, and Claude Code copies that folder whole into its cache, so it holds
// only what the hooks, commands and MCP entry need — never the repository. A test
// (packages/cli/test/plugin.test.ts) fails when the copy or the hook entries differ from the CLI.
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CLAUDE_HOOKS, partCommands } from "../packages/cli/lib/hooks.mjs";

export const CLI_SOURCE = "packages/cli";
export const PLUGIN_CLI = "plugin/cli";
export const PLUGIN_HOOKS = "plugin/hooks/hooks.json";
/** What the plugin carries of the CLI: its entry, its modules and its manifest (for `--version`). */
export const CLI_FILES = ["cairn.mjs", "lib", "package.json"];

export function listFiles(dir, base = "") {
	if (!existsSync(join(dir, base))) return [];
	return readdirSync(join(dir, base), { withFileTypes: true })
		.flatMap((e) => (e.isDirectory() ? listFiles(dir, join(base, e.name)) : [join(base, e.name)]))
		.sort();
}

/**
 * The plugin's hook entries: the CLI from the plugin's own folder (no `cairn` on PATH needed), one
 * matcher group per event, the session start's parts side by side in its group.
 */
export function pluginHooks() {
	const command = (/** @type {string} */ sub) => `node "\${CLAUDE_PLUGIN_ROOT}/cli/cairn.mjs" hook ${sub} --agent claude`;
	return Object.fromEntries(
		Object.entries(CLAUDE_HOOKS).map(([event, spec]) => {
			const { sub, timeout } = spec;
			const hooks = partCommands(command(sub), "parts" in spec ? spec.parts : undefined).map((c) => ({
				type: "command",
				command: c,
				timeout,
			}));
			return [event, ["matcher" in spec ? { matcher: spec.matcher, hooks } : { hooks }]];
		}),
	);
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop() ?? "")) {
	rmSync(PLUGIN_CLI, { recursive: true, force: true });
	for (const f of CLI_FILES) cpSync(join(CLI_SOURCE, f), join(PLUGIN_CLI, f), { recursive: true });
	console.log(`copied ${listFiles(PLUGIN_CLI).length} files of ${CLI_SOURCE} into ${PLUGIN_CLI}`);
	const manifest = JSON.parse(readFileSync(PLUGIN_HOOKS, "utf8"));
	const next = `${JSON.stringify({ ...manifest, hooks: pluginHooks() }, null, "\t")}\n`;
	if (next !== readFileSync(PLUGIN_HOOKS, "utf8")) {
		writeFileSync(PLUGIN_HOOKS, next);
		console.log(`wrote the hook entries of ${PLUGIN_HOOKS} from the CLI's CLAUDE_HOOKS`);
	}
}
