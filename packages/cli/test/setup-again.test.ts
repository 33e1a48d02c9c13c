// `cairn setup` run again never strands memories: three runs against one service and a project with
// memories keep one tenant, one key and one project, and say so; a new tenant only when asked, with the
// old login kept; `cairn doctor` finds memories left under another tenant and says how to get back; and
// doctor checks the MCP entries the agents will use (their URL and key come from environment variables).
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { gitRepo, type Loose, machine, NODE, tenant, url } from "./helpers.ts";

const adminToken = inject("adminToken");
const user = machine();
const repo = gitRepo(`git@github.com:acme/setup-again-${Date.now()}.git`);
const configFile = join(user.home, ".config", "cairn", "config.json");
const config = () => JSON.parse(readFileSync(configFile, "utf8")) as Loose;
const cairn = (args: string[], env: Record<string, string> = {}) => user.run(args, { cwd: repo, env });
/** The doctor's line for one check, and the fix printed under it. */
const line = (stdout: string, name: string) => {
	const lines = stdout.split("\n");
	const at = lines.findIndex((l) => new RegExp(`^(ok  |skip|FAIL)  ${name} `).test(l));
	return { line: lines[at] ?? "", fix: /^\s+fix: /.test(lines[at + 1] ?? "") ? (lines[at + 1] ?? "").trim() : "" };
};
/** What setup tells the user to put in their shell profile, as variables. */
const profile = (stdout: string) => {
	const m = /export CAIRN_URL=(\S+) CAIRN_KEY=(\S+)/.exec(stdout);
	expect(m, stdout).not.toBeNull();
	return { CAIRN_URL: m?.[1] ?? "", CAIRN_KEY: m?.[2] ?? "" };
};

/**
 * A Cairn checkout whose `npm start` says it serves at `serves` (its launcher alive: this test's pid) and
 * whose .dev.vars holds the operator token.
 */
function checkout(serves: string) {
	const dir = mkdtempSync(join(tmpdir(), "cairn-checkout-"));
	mkdirSync(join(dir, ".wrangler"));
	writeFileSync(join(dir, ".wrangler", "cairn-dev.json"), JSON.stringify({ url: serves, pid: process.pid }));
	writeFileSync(join(dir, ".dev.vars"), `CAIRN_ADMIN_TOKEN=${adminToken}\n`);
	return dir;
}

describe("cairn setup, three times in a row", () => {
	let first: Loose = {};
	let projectId = "";

	beforeAll(() => {
		const setup = cairn(["setup", "--checkout", checkout(url), "--name", "again-tenant"]);
		expect(setup.status, setup.stderr).toBe(0);
		expect(setup.stdout).toContain("created tenant again-tenant");
		first = config();
		expect(first.tenant).toMatchObject({ name: "again-tenant" });
		projectId = Object.values(first.projects as Record<string, string>)[0] ?? "";
		for (const text of ["we use pnpm, never npm", "No deploys on Fridays after 12:00 UTC"])
			expect(cairn(["remember", text]).status).toBe(0);
	});

	it("reuses the saved tenant, key and project, says so, and the memories stay in view; doctor passes", () => {
		// The checkout's npm start now names another URL: the saved login's wins.
		const elsewhere = checkout("http://127.0.0.1:9");
		for (const run of [2, 3]) {
			const setup = cairn(["setup", "--checkout", elsewhere]);
			expect(setup.status, `run ${run}: ${setup.stderr}`).toBe(0);
			expect(setup.stdout).not.toContain("created tenant");
			expect(setup.stdout).toContain(
				`reusing the saved login's key ${first.key.replace(/^(cairn_[a-z0-9]+)_.*$/, "$1")}_… (tenant again-tenant) at ${url}: it works, so no new tenant (\`cairn setup --new-tenant\` makes one)`,
			);
			expect(setup.stdout).toContain(`login unchanged in ${configFile}`);
			expect(setup.stdout).toContain(`project ${projectId} (git@github.com:acme/`);
			expect(setup.stdout).toContain("already registered, 2 memories; memories are on");
			expect(setup.stdout).toContain("(already there)");
			expect(profile(setup.stdout)).toEqual({ CAIRN_URL: url, CAIRN_KEY: first.key });
			const now = config();
			expect(now.key).toBe(first.key);
			expect(now.url).toBe(url);
			expect(now.tenant).toEqual(first.tenant);
			expect(now.projects).toEqual(first.projects);
			expect(now.previous ?? []).toEqual([]);
		}
		const list = cairn(["list"]);
		expect(list.stdout).toContain("pnpm-never-npm (feedback, personal, v1)");
		expect(list.stdout).toContain("2 memories;");
		const toml = readFileSync(join(user.home, ".codex", "config.toml"), "utf8");
		expect(toml.match(/\[mcp_servers\.cairn\]/g)).toHaveLength(1);
		const doctor = cairn(["doctor"], profile(cairn(["setup"]).stdout));
		expect(doctor.status, doctor.stdout).toBe(0);
		expect(line(doctor.stdout, "project").line).toBe(`ok    project       ${projectId}, memory on, 2 memories`);
		expect(doctor.stdout).toContain("all checks passed");
	});

	it("--new-tenant makes another and keeps the old login; doctor finds the memories under it and says how to get back", () => {
		const fresh = cairn(["setup", "--new-tenant", "--checkout", checkout(url), "--name", "again-tenant"]);
		expect(fresh.status, fresh.stderr).toBe(0);
		expect(fresh.stdout).toContain("created tenant again-tenant");
		expect(fresh.stdout).toContain(`is kept in ${configFile} under "previous"`);
		expect(fresh.stdout).toContain("0 memories; memories are on");
		const now = config();
		expect(now.key).not.toBe(first.key);
		expect(now.previous[0]).toMatchObject({ url, key: first.key, tenant: first.tenant, projects: first.projects });

		const doctor = cairn(["doctor"]);
		expect(doctor.status).toBe(1);
		const project = line(doctor.stdout, "project");
		expect(project.line).toMatch(
			new RegExp(
				`^FAIL {2}project +prj_\\w+ holds no memories under key cairn_\\w+_… \\(tenant again-tenant\\), while the login replaced \\d{4}-\\d\\d-\\d\\d \\(key cairn_\\w+_…, tenant again-tenant\\) holds 2 for this repository in project ${projectId}$`,
			),
		);
		expect(project.fix).toContain(`fix: run \`cairn login --url ${url} --key ${first.key}\` to use them again`);

		// The fix it names puts it right.
		const back = cairn(["login", "--url", url, "--key", first.key]);
		expect(back.status, back.stderr).toBe(0);
		expect(cairn(["init"]).stdout).toContain(`project ${projectId}`);
		const after = cairn(["doctor"]);
		expect(line(after.stdout, "project").line).toBe(`ok    project       ${projectId}, memory on, 2 memories`);
		expect(cairn(["list"]).stdout).toContain("2 memories;");
	});

	it("a key of another tenant saved over the project's (what setup once did): doctor and setup name the cause and how to get back", async () => {
		const saved = config();
		// As an earlier setup left it: a second tenant's key saved, the repository's project id kept.
		const stranger = await tenant("again-tenant");
		writeFileSync(configFile, JSON.stringify({ url, key: stranger, projects: saved.projects }));
		try {
			const doctor = cairn(["doctor"]);
			expect(doctor.status).toBe(1);
			const project = line(doctor.stdout, "project");
			expect(project.line).toContain(
				`this repository was registered as project ${projectId}, which key ${stranger.replace(/^(cairn_[a-z0-9]+)_.*$/, "$1")}_… cannot see: the project is another tenant's`,
			);
			expect(project.fix).toContain(`log in with that tenant's key: \`cairn login --url ${url} --key <key>\``);
			expect(project.fix).toContain("`cairn init` would start an empty project instead");

			const setup = cairn(["setup"]);
			expect(setup.status).toBe(1);
			expect(setup.stdout).not.toContain("created tenant");
			expect(setup.stderr).toContain(`this repository was registered as project ${projectId}`);
			expect(setup.stderr).toContain("nothing more was changed. To get back: log in with that tenant's key");
			expect(config().projects).toEqual(saved.projects);

			// With the login it replaced kept (as setup and login now keep one), doctor names that key.
			writeFileSync(
				configFile,
				JSON.stringify({
					url,
					key: stranger,
					projects: saved.projects,
					previous: [{ url, key: saved.key, replacedAt: new Date().toISOString() }],
				}),
			);
			expect(line(cairn(["doctor"]).stdout, "project").fix).toContain(
				`holds it, with 2 memories: run \`cairn login --url ${url} --key ${saved.key}\``,
			);
		} finally {
			writeFileSync(configFile, JSON.stringify(saved));
		}
	});

	it("a saved key the service refuses is not reused: a new tenant, the refused key kept aside", () => {
		const saved = config();
		const other = machine();
		mkdirSync(join(other.home, ".config", "cairn"), { recursive: true });
		const refused = "cairn_abcdefghijklmnop_revokedOrWrong000000000000000";
		writeFileSync(join(other.home, ".config", "cairn", "config.json"), JSON.stringify({ url, key: refused }));
		const r = other.run(["setup", "--checkout", checkout(url), "--name", "refused-tenant"], { cwd: repo });
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain(
			`the saved login's key cairn_abcdefghijklmnop_… was refused by ${url} (unauthorized), so it cannot be reused`,
		);
		expect(r.stdout).toContain("created tenant refused-tenant");
		expect(JSON.parse(readFileSync(join(other.home, ".config", "cairn", "config.json"), "utf8")).previous[0].key).toBe(refused);
		expect(config().key).toBe(saved.key);
	});
});

describe("cairn doctor: the agents' MCP entries", () => {
	/** Claude Code's record of the cairn plugin, installed from this checkout's plugin folder. */
	function installPlugin() {
		const cache = mkdtempSync(join(tmpdir(), "cairn-plugin-installed-"));
		cpSync(resolve("plugin"), cache, { recursive: true });
		mkdirSync(join(user.home, ".claude", "plugins"), { recursive: true });
		writeFileSync(
			join(user.home, ".claude", "plugins", "installed_plugins.json"),
			JSON.stringify({ version: 2, plugins: { "cairn@cairn": [{ scope: "user", installPath: cache, version: "0.3.0" }] } }),
		);
	}

	/**
	 * A `codex` on PATH that answers `codex app-server`'s hooks/list as Codex does, every Cairn hook in
	 * $CODEX_HOME/hooks.json trusted; returns the PATH to run doctor with.
	 */
	function fakeCodex() {
		const bin = mkdtempSync(join(tmpdir(), "cairn-fake-codex-"));
		const script = `#!${NODE}
const { readFileSync } = require("node:fs");
const hooks = JSON.parse(readFileSync(process.env.CODEX_HOME + "/hooks.json", "utf8")).hooks;
const list = Object.entries(hooks).flatMap(([eventName, groups]) => groups.flatMap((g) => g.hooks).map((h, i) => ({ key: eventName + i, command: h.command, eventName, currentHash: "h", trustStatus: "trusted" })));
let buffer = "";
process.stdin.on("data", (d) => {
	buffer += d;
	for (let i = buffer.indexOf("\\n"); i >= 0; i = buffer.indexOf("\\n")) {
		const m = JSON.parse(buffer.slice(0, i));
		buffer = buffer.slice(i + 1);
		if (m.id === 1) process.stdout.write(JSON.stringify({ id: 1, result: {} }) + "\\n");
		if (m.id === 2) process.stdout.write(JSON.stringify({ id: 2, result: { data: [{ hooks: list }] } }) + "\\n");
	}
});
`;
		writeFileSync(join(bin, "codex"), script);
		chmodSync(join(bin, "codex"), 0o755);
		return `${bin}:${user.env.PATH}`;
	}

	it("the plugin's entry: its key variable unset, or its URL elsewhere than the CLI's, fails with exactly what to set; set as setup says, it passes", () => {
		installPlugin();
		const { key } = config();
		const unset = cairn(["doctor"]);
		expect(unset.status).toBe(1);
		const missing = line(unset.stdout, "claude mcp");
		expect(missing.line).toBe(
			"FAIL  claude mcp    Claude Code's cairn MCP server sends its key from CAIRN_KEY, which is not set in this environment: it cannot connect",
		);
		expect(missing.fix).toBe(
			`fix: add to your shell profile: export CAIRN_URL=${url} CAIRN_KEY=${key}, then start Claude Code again from that shell`,
		);

		// The key set but not the URL: the plugin's default (8787) is not where the CLI and hooks go.
		const noUrl = line(cairn(["doctor"], { CAIRN_KEY: key }).stdout, "claude mcp");
		expect(noUrl.line).toContain(
			`Claude Code's cairn MCP server goes to http://127.0.0.1:8787/mcp (from the default in the cairn plugin's`,
		);
		expect(noUrl.line).toContain(`as CAIRN_URL is not set), while the CLI and hooks use ${url}`);
		expect(noUrl.fix).toBe(
			`fix: add to your shell profile: export CAIRN_URL=${url} CAIRN_KEY=${key}, then start Claude Code again from that shell`,
		);

		const both = { CAIRN_URL: url, CAIRN_KEY: key };
		const good = cairn(["doctor"], both);
		expect(line(good.stdout, "claude mcp").line).toMatch(
			new RegExp(
				`^ok {4}claude mcp +${url.replace(/[.]/g, "\\.")}/mcp \\(URL from CAIRN_URL .*key from CAIRN_KEY\\) answers MCP's initialize$`,
			),
		);
		expect(good.status, good.stdout).toBe(0);
	});

	it("Codex's entry: the URL in config.toml and the key from its bearer_token_env_var must reach the service and be taken", () => {
		const { key } = config();
		const PATH = fakeCodex();
		const env = { PATH, CAIRN_URL: url, CAIRN_KEY: key };
		const good = cairn(["doctor"], env);
		expect(line(good.stdout, "codex trust").line).toMatch(/^ok /);
		expect(line(good.stdout, "codex mcp").line).toContain(
			`${url}/mcp (URL from url in ${join(user.home, ".codex", "config.toml")}, key from CAIRN_KEY) answers`,
		);
		expect(good.status, good.stdout).toBe(0);

		const refused = cairn(["doctor"], { PATH, CAIRN_URL: url, CAIRN_KEY: "cairn_abcdefghijklmnop_notAValidSecretAtAll0000000000" });
		const mcp = line(refused.stdout, "codex mcp");
		expect(mcp.line).toBe(
			`FAIL  codex mcp     Codex's cairn MCP server is refused by ${url}/mcp (HTTP 401): the key in CAIRN_KEY is not valid there`,
		);
		expect(mcp.fix).toContain("set CAIRN_KEY to a valid key in your shell profile");

		const toml = join(user.home, ".codex", "config.toml");
		const before = readFileSync(toml, "utf8");
		try {
			writeFileSync(toml, before.replace(`url = "${url}/mcp"`, 'url = "http://127.0.0.1:9/mcp"'));
			const moved = cairn(["doctor"], env);
			expect(line(moved.stdout, "codex mcp").line).toContain(
				`goes to http://127.0.0.1:9/mcp (from url in ${toml}), while the CLI and hooks use ${url}`,
			);
			expect(line(moved.stdout, "codex mcp").fix).toBe("fix: run `cairn setup` again: it rewrites the entry's URL to the saved login's");
			// And it does.
			const again = cairn(["setup"], env);
			expect(again.stdout).toContain(`(its URL was http://127.0.0.1:9/mcp; now ${url}/mcp)`);
			expect(cairn(["doctor"], env).status).toBe(0);
		} finally {
			writeFileSync(toml, before);
		}
	});
});
