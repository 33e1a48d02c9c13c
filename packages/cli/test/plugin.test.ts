// The Claude Code plugin in this repository (plugin/, the marketplace's source): manifests with the
// fields Claude Code requires, a copy of the CLI identical to packages/cli, nothing else, and hook
// commands that work from wherever Claude Code puts the plugin (it copies the folder into its cache).
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI_FILES, CLI_SOURCE, listFiles, PLUGIN_CLI, pluginHooks } from "../../../scripts/plugin-sync.mjs";
import { START_PARTS } from "../lib/hook-output.mjs";
import { gitRepo, type Loose, machine, NODE, tenant, url } from "./helpers.ts";

const root = resolve("plugin");
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8")) as Loose;
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** Written literally in the plugin's files; Claude Code expands it. */
const PLUGIN_ROOT = "$" + "{CLAUDE_PLUGIN_ROOT}";
const CAIRN_KEY = "$" + "{CAIRN_KEY}";
/** Everything the plugin folder holds: Claude Code copies all of it. */
const PLUGIN_FILES = [".claude-plugin", ".mcp.json", "cli", "commands", "hooks"];
const CLAUDE_EVENTS = ["SessionStart", "UserPromptSubmit", "PostToolUse", "Stop", "SubagentStop", "PreCompact", "SessionEnd"];

describe("the Claude Code plugin", () => {
	it("plugin.json and marketplace.json hold the fields Claude Code requires; the marketplace entry resolves to the plugin", () => {
		const plugin = json(".claude-plugin/plugin.json");
		expect(plugin.name).toMatch(KEBAB);
		expect(plugin.version).toMatch(/^\d+\.\d+\.\d+$/);
		expect(typeof plugin.description).toBe("string");
		expect(typeof plugin.author?.name).toBe("string");
		const market = JSON.parse(readFileSync(resolve(".claude-plugin/marketplace.json"), "utf8")) as Loose;
		expect(market.name).toMatch(KEBAB);
		expect(typeof market.owner?.name).toBe("string");
		expect(market.plugins).toHaveLength(1);
		const [entry] = market.plugins;
		expect(entry.name).toBe(plugin.name);
		// The plugin folder, never the repository: Claude Code copies the source whole and installs its dependencies.
		expect(entry.source).toBe("./plugin");
		expect(JSON.parse(readFileSync(resolve(entry.source, ".claude-plugin/plugin.json"), "utf8")).name).toBe(plugin.name);
		expect(entry.version).toBe(plugin.version);
		expect(JSON.parse(readFileSync(resolve("packages/cli/package.json"), "utf8")).version).toBe(plugin.version);
	});

	it("holds only what its hooks, commands and MCP entry need, its CLI identical to packages/cli (npm run plugin:sync)", () => {
		expect(readdirSync(root).sort()).toEqual(PLUGIN_FILES);
		const source = CLI_FILES.flatMap((f) => (f.includes(".") ? [f] : listFiles(CLI_SOURCE, f)));
		expect(listFiles(PLUGIN_CLI)).toEqual([...source].sort());
		for (const f of source)
			expect(readFileSync(join(PLUGIN_CLI, f), "utf8"), `${f}: run npm run plugin:sync`).toBe(readFileSync(join(CLI_SOURCE, f), "utf8"));
	});

	it("hooks.json, .mcp.json and the commands name no path of any machine", () => {
		const hooks = json("hooks/hooks.json");
		expect(Object.keys(hooks).every((k) => ["description", "hooks"].includes(k))).toBe(true);
		expect(Object.keys(hooks.hooks).sort()).toEqual([...CLAUDE_EVENTS].sort());
		for (const groups of Object.values(hooks.hooks) as Loose[][]) {
			for (const h of groups.flatMap((g) => g.hooks)) {
				expect(h.type).toBe("command");
				expect(h.command).toMatch(/^node "\$\{CLAUDE_PLUGIN_ROOT\}\/cli\/cairn\.mjs" hook [a-z-]+ --agent claude( --part \d+\/\d+)?$/);
				expect(h.timeout).toBeGreaterThanOrEqual(3);
			}
		}
		// The session-start block in START_PARTS parts, one hook each (each arrives whole; Claude Code keeps no order between them).
		const starts = (hooks.hooks.SessionStart as Loose[]).flatMap((g) => g.hooks);
		expect(starts.map((h: Loose) => h.command.replace(/^.* hook /, "hook "))).toEqual(
			Array.from({ length: START_PARTS }, (_, i) => `hook session-start --agent claude --part ${i + 1}/${START_PARTS}`),
		);
		expect(starts.map((h: Loose) => h.timeout)).toEqual(Array(START_PARTS).fill(10));
		// Written from the CLI's CLAUDE_HOOKS by `npm run plugin:sync`.
		expect(hooks.hooks, "run npm run plugin:sync").toEqual(pluginHooks());
		// Only file-writing tools run the team push; every other tool call costs nothing.
		expect(hooks.hooks.PostToolUse.map((g: Loose) => g.matcher)).toEqual(["Write|Edit|MultiEdit"]);
		const mcp = json(".mcp.json").mcpServers.cairn;
		expect(mcp.type).toBe("http");
		expect(mcp.url).toMatch(/^\$\{CAIRN_URL(:-[^}]*)?\}\/mcp$/);
		expect(mcp.headers.Authorization).toBe(`Bearer ${CAIRN_KEY}`);
		const commands = readdirSync(join(root, "commands"));
		expect(commands.sort()).toEqual(["recall.md", "remember.md", "view.md"]);
		for (const file of [
			".claude-plugin/plugin.json",
			"../.claude-plugin/marketplace.json",
			"hooks/hooks.json",
			".mcp.json",
			...commands.map((c) => `commands/${c}`),
		]) {
			const text = readFileSync(join(root, file), "utf8");
			expect(text, file).not.toMatch(/(\/home\/|\/Users\/|\/root\/|\/tmp\/|\/work\/|[A-Z]:\\)/);
			if (file.startsWith("commands/")) {
				expect(text).toMatch(/^---\ndescription: .+\n/);
				expect(text).toContain(`node "${PLUGIN_ROOT}/cli/cairn.mjs"`);
			}
		}
	});

	describe("hook commands from a copy of the plugin placed elsewhere", () => {
		const user = machine();
		const repo = gitRepo(`https://github.com/acme/plugin-${Date.now()}.git`);
		const copy = mkdtempSync(join(tmpdir(), "cairn-plugin-cache-"));
		let env: Record<string, string> = {};
		let projectId = "";

		beforeAll(async () => {
			for (const f of PLUGIN_FILES) cpSync(join(root, f), join(copy, f), { recursive: true });
			const key = await tenant("plugin");
			env = { ...user.env, CAIRN_URL: url, CAIRN_KEY: key, CLAUDE_PLUGIN_ROOT: copy };
			const init = user.run(["init"], { cwd: repo, env });
			expect(init.status, init.stderr).toBe(0);
			projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
		});

		/** Runs a hooks.json command as Claude Code does: through the shell, ${CLAUDE_PLUGIN_ROOT} expanded, payload on stdin. */
		const runHook = (event: string, payload: Loose, nth = 0) => {
			const hooks = JSON.parse(readFileSync(join(copy, "hooks", "hooks.json"), "utf8")) as Loose;
			const command = (hooks.hooks[event][0].hooks[nth].command as string).replaceAll(PLUGIN_ROOT, copy);
			// The machine's Node first on PATH: the `node` in the command is the user's.
			const path = `${NODE.replace(/\/node$/, "")}:${process.env.PATH}`;
			return spawnSync("sh", ["-c", command], {
				cwd: repo,
				env: { ...env, PATH: path },
				input: JSON.stringify({
					session_id: "plugin-1",
					transcript_path: join(repo, "none.jsonl"),
					cwd: repo,
					permission_mode: "default",
					hook_event_name: event,
					...payload,
				}),
				encoding: "utf8",
			});
		};

		it("SessionStart's hooks print the memory block, each its part within Claude Code's 10,000 characters", () => {
			expect(existsSync(join(copy, "cli/test"))).toBe(false);
			const texts = Array.from({ length: START_PARTS }, (_, nth) => {
				const run = runHook("SessionStart", { source: "startup" }, nth);
				expect(run.status, run.stderr).toBe(0);
				expect(run.stderr).toBe("");
				if (!run.stdout) return ""; // a part with nothing in it prints nothing
				const output = JSON.parse(run.stdout);
				expect(output.hookSpecificOutput.hookEventName).toBe("SessionStart");
				expect(output.hookSpecificOutput.additionalContext.length).toBeLessThanOrEqual(10_000);
				return output.hookSpecificOutput.additionalContext as string;
			});
			expect(texts.join("\n")).toContain("memory://root/MEMORY.md");
		});

		it("SessionStart pulls team memory into Claude Code's memory directory; an Edit there pushes it", async () => {
			const team = { Authorization: `Bearer ${env.CAIRN_KEY}`, "Content-Type": "application/json" };
			const content = "---\nname: releases\ndescription: Releases are cut on Tuesdays\ntype: project\n---\n\nCut releases on Tuesdays.\n";
			const put = await fetch(`${url}/v1/projects/${projectId}/team-memory`, {
				method: "PUT",
				headers: team,
				body: JSON.stringify({ entries: [{ path: "releases.md", content }] }),
			});
			expect(put.status).toBe(200);
			expect(runHook("SessionStart", { source: "startup" }).status).toBe(0);
			const top = spawnSync("git", ["rev-parse", "--show-toplevel"], { cwd: repo, encoding: "utf8" }).stdout.trim();
			const file = join(user.home, ".claude", "projects", top.replace(/[^a-zA-Z0-9]/g, "-"), "memory", "team", "releases.md");
			expect(readFileSync(file, "utf8")).toBe(content);

			writeFileSync(file, content.replace("Tuesdays.\n", "Tuesdays.\nHotfix releases any day.\n"));
			const edit = runHook("PostToolUse", {
				tool_name: "Edit",
				tool_input: { file_path: file, old_string: "Tuesdays.", new_string: "Tuesdays.\nHotfix releases any day." },
				tool_response: { filePath: file, success: true },
				tool_use_id: "toolu_plugin",
			});
			expect(edit.status, edit.stderr).toBe(0);
			expect(edit.stdout).toBe("");
			const server = (await (await fetch(`${url}/v1/projects/${projectId}/team-memory`, { headers: team })).json()) as Loose;
			expect(server.entries["releases.md"].content).toContain("Hotfix releases any day.");
		});

		it("every other event exits 0 with nothing on stdout", () => {
			for (const event of CLAUDE_EVENTS.filter((e) => e !== "SessionStart")) {
				const run = runHook(event, { prompt: "an unrelated question", trigger: "manual", reason: "other" });
				expect(run.status, `${event}: ${run.stderr}`).toBe(0);
				expect(run.stderr, event).toBe("");
				expect(run.stdout, event).toBe("");
			}
		});
	});
});
