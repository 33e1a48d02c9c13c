// Project identity from the CLI's side: a hosted remote, a remote that is a path on this machine, no
// remote at all, and CAIRN_PROJECT for scripts — each gets hook output, never an error.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { api, gitRepo, machine, tenant, url } from "./helpers.ts";

const user = machine();
let apiKey = "";
let env: Record<string, string> = {};

beforeAll(async () => {
	apiKey = await tenant("identity");
	env = { CAIRN_URL: url, CAIRN_KEY: apiKey };
});

const sessionStart = (cwd: string, extraEnv: Record<string, string> = {}) =>
	user.run(["hook", "session-start", "--agent", "claude"], {
		cwd,
		env: { ...env, ...extraEnv },
		input: JSON.stringify({
			session_id: "id-1",
			transcript_path: join(cwd, "t.jsonl"),
			cwd,
			permission_mode: "default",
			hook_event_name: "SessionStart",
			source: "startup",
		}),
	});

describe("project identity", () => {
	it.each([
		["a local-path remote", "/srv/git/tool.git", () => "path:/srv/git/tool"],
		["a file:// remote", "file:///srv/git/tool.git", () => "path:/srv/git/tool"],
		["a relative-path remote", "../shared-tool.git", (repo: string) => `path:${dirname(repo)}/shared-tool`],
		["no remote", null, (repo: string) => `path:${repo}`],
	])("a repository with %s is registered and gets hook output", async (_label, remote, key) => {
		const repo = gitRepo(remote);
		const init = user.run(["init"], { cwd: repo, env });
		expect(init.status, init.stderr).toBe(0);
		const projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
		const project = (await api(apiKey, "GET", `/v1/projects/${projectId}`)).body.project;
		expect(project.canonicalKey).toBe(key(repo));
		const run = sessionStart(repo);
		expect(run.status).toBe(0);
		expect(run.stderr).toBe("");
		expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain("memory://root/MEMORY.md");
	});

	it("every clone of one repository on this machine maps to one project", () => {
		const id = (s: string) => /project (prj_\w+)/.exec(s)?.[1];
		const a = user.run(["init"], { cwd: gitRepo("/srv/git/app.git"), env });
		const b = user.run(["init"], { cwd: gitRepo("/srv/git/app"), env });
		expect(id(a.stdout)).toBeDefined();
		expect(id(a.stdout)).toBe(id(b.stdout));
	});

	it("every clone of a hosted remote maps to one project", async () => {
		const remote = `git@github.com:acme/identity-${Date.now()}.git`;
		const a = user.run(["init"], { cwd: gitRepo(remote), env });
		const b = user.run(["init"], { cwd: gitRepo(remote.replace("git@github.com:", "https://github.com/")), env });
		const id = (s: string) => /project (prj_\w+)/.exec(s)?.[1];
		expect(id(a.stdout)).toBeDefined();
		expect(id(a.stdout)).toBe(id(b.stdout));
	});

	it("CAIRN_PROJECT names the project outright, even outside any repository", async () => {
		const repo = gitRepo(null);
		const projectId = /project (prj_\w+)/.exec(user.run(["init"], { cwd: repo, env }).stdout)?.[1] ?? "";
		const elsewhere = mkdtempSync(join(tmpdir(), "cairn-no-repo-"));
		const write = user.run(["remember", "scripted", "--type", "reference", "--description", "Written by a script", "From CI."], {
			cwd: elsewhere,
			env: { ...env, CAIRN_PROJECT: projectId },
		});
		expect(write.status, write.stderr).toBe(0);
		expect((await api(apiKey, "GET", `/v1/projects/${projectId}/memories/scripted`)).status).toBe(200);
		const run = sessionStart(elsewhere, { CAIRN_PROJECT: projectId });
		expect(JSON.parse(run.stdout).hookSpecificOutput.additionalContext).toContain("scripted");
	});
});
