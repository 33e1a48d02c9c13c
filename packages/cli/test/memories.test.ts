// The memories themselves from the CLI: `cairn remember "free text"` (name, type and description picked
// from the text, offline), the explicit form beside it, `cairn list`, `show`, `edit` (a scripted $EDITOR,
// written back with If-Match) and `forget`, each with --json — checked against what the service holds.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { api, gitRepo, type Loose, machine, NODE, tenant, url } from "./helpers.ts";

const user = machine();
const repo = gitRepo(`git@github.com:acme/memories-${Date.now()}.git`);
const cairn = (args: string[], options: { input?: string; env?: Record<string, string> } = {}) => user.run(args, { cwd: repo, ...options });
let key = "";
let projectId = "";
const call = (method: string, path: string, body?: unknown) => api(key, method, path, body);
const memory = async (name: string, scope = "personal") =>
	(await call("GET", `/v1/projects/${projectId}/memories?scope=${scope}`)).body.memories.find((m: Loose) => m.name === name) as
		| Loose
		| undefined;

/** An $EDITOR: a node script that edits the file it is given as `change` says (before writing, it may run `also`). */
function editor(change: string, also = "") {
	const dir = mkdtempSync(join(tmpdir(), "cairn-editor-"));
	const script = join(dir, "edit.mjs");
	writeFileSync(
		script,
		`import { readFileSync, writeFileSync } from "node:fs";\nimport { execFileSync } from "node:child_process";\nconst file = process.argv[2];\nconst text = readFileSync(file, "utf8");\n${also}\nwriteFileSync(file, (${change})(text));\n`,
	);
	return `"${NODE}" "${script}"`;
}

beforeAll(async () => {
	key = await tenant("memories");
	expect(cairn(["login", "--url", url, "--key", key]).status).toBe(0);
	const init = cairn(["init"]);
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
	expect(projectId).toMatch(/^prj_/);
});

describe("cairn remember", () => {
	it("free text: picks a name from its key words, a type by its cues and its first sentence as the description", async () => {
		const r = cairn(["remember", "we use pnpm, never npm"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain("remembered pnpm-never-npm (feedback, personal, version 1)");
		expect(r.stdout).toContain(
			'picked name, type, description from the text: "We use pnpm, never npm" — `cairn edit pnpm-never-npm` changes them',
		);
		expect(await memory("pnpm-never-npm")).toMatchObject({ type: "feedback", description: "We use pnpm, never npm", source: "user" });
		const body = (await call("GET", `/v1/projects/${projectId}/memories/pnpm-never-npm`)).body as unknown as string;
		expect(body).toContain("we use pnpm, never npm");

		for (const [text, name, type] of [
			["I prefer short commit messages in the imperative", "prefer-short-commit-messages", "user"],
			["The staging database lives at https://db.example.com/staging", "staging-database-lives", "reference"],
			["Releases go out every second Tuesday. Ana manages them.", "releases-go-second-tuesday", "project"],
		]) {
			const j = cairn(["remember", text ?? "", "--json"]);
			expect(j.status, j.stderr).toBe(0);
			const out = JSON.parse(j.stdout);
			expect(out.memory).toMatchObject({ name, type, scope: "personal", version: 1 });
			expect(out.picked).toEqual(["name", "type", "description"]);
		}
		expect((await memory("releases-go-second-tuesday"))?.description).toBe("Releases go out every second Tuesday.");
	});

	it("free text never replaces a memory of the picked name: another name, unless it is the very same text", async () => {
		const other = cairn(["remember", "We use pnpm and never npm!", "--json"]);
		expect(JSON.parse(other.stdout).memory.name).toBe("pnpm-never-npm-2");
		const same = cairn(["remember", "we use pnpm, never npm", "--json"]);
		expect(JSON.parse(same.stdout).memory).toMatchObject({ name: "pnpm-never-npm", version: 1 });
	});

	it("free text with some fields given keeps those; the explicit form works as before", async () => {
		const given = cairn(["remember", "Run the linter before pushing", "--type", "project", "--name", "lint-first", "--json"]);
		expect(given.status, given.stderr).toBe(0);
		expect(JSON.parse(given.stdout)).toMatchObject({ memory: { name: "lint-first", type: "project" }, picked: ["description"] });
		const explicit = cairn(["remember", "deploy-freeze", "--type", "project", "--description", "No deploys on Fridays"], {
			input: "Deploy freeze from Friday 12:00 UTC.\n",
		});
		expect(explicit.status, explicit.stderr).toBe(0);
		expect(explicit.stdout.trim()).toBe("remembered deploy-freeze (project, personal, version 1)");
		expect(await memory("deploy-freeze")).toMatchObject({ type: "project", description: "No deploys on Fridays" });
	});

	it("a mistyped --type is refused with the nearest, and nothing is written", async () => {
		const r = cairn(["remember", "always squash merges", "--type", "feedbak"]);
		expect(r.status).toBe(1);
		expect(r.stderr.trim()).toBe(
			'cairn: unknown --type "feedbak"; did you mean `--type feedback`? (one of user, feedback, project, reference)',
		);
		expect(await memory("always-squash-merges")).toBeUndefined();
		const json = cairn(["remember", "always squash merges", "--type", "feedbak", "--json"]);
		expect(JSON.parse(json.stdout).error.message).toContain("did you mean `--type feedback`?");
	});
});

describe("cairn list, show, edit, forget", () => {
	beforeAll(async () => {
		expect(
			(
				await call("PUT", `/v1/projects/${projectId}/memories/ci-runner?scope=team`, {
					type: "reference",
					description: "CI runs on the self-hosted pool",
					body: "Jobs run on the pool `ci-large`.",
				})
			).status,
		).toBe(201);
	});

	it("list: one line per memory, personal and team; --type and --scope filter; --json is the service's list", async () => {
		const r = cairn(["list"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toContain("pnpm-never-npm (feedback, personal, v1) — We use pnpm, never npm\n");
		expect(r.stdout).toContain("team/ci-runner (reference, team, v1) — CI runs on the self-hosted pool\n");
		const all = (await call("GET", `/v1/projects/${projectId}/memories`)).body.memories as Loose[];
		expect(r.stdout).toContain(`${all.length} memories;`);
		const json = JSON.parse(cairn(["list", "--json"]).stdout);
		expect(json.memories.map((m: Loose) => `${m.scope}/${m.name}`).sort()).toEqual(all.map((m) => `${m.scope}/${m.name}`).sort());
		expect(JSON.parse(cairn(["list", "--team", "--json"]).stdout).memories.map((m: Loose) => m.name)).toEqual(["ci-runner"]);
		const feedback = JSON.parse(cairn(["list", "--type", "feedback", "--json"]).stdout).memories as Loose[];
		expect(feedback.length).toBeGreaterThan(0);
		expect(feedback.every((m) => m.type === "feedback")).toBe(true);
		expect(cairn(["list", "--scope", "tem"]).stderr).toContain(
			'unknown --scope "tem"; did you mean `--scope team`? (one of personal, team)',
		);
	});

	it("show: the topic file as stored; --json its metadata and body; a mistyped name gets the nearest", () => {
		const r = cairn(["show", "pnpm-never-npm"]);
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout).toMatch(/^---\n/);
		expect(r.stdout).toContain("name: pnpm-never-npm");
		expect(r.stdout).toContain("we use pnpm, never npm");
		const json = JSON.parse(cairn(["show", "ci-runner", "--json"]).stdout);
		expect(json.memory).toMatchObject({ name: "ci-runner", scope: "team", version: 1 });
		expect(json.memory.body).toContain("ci-large");
		const typo = cairn(["show", "pnpm-nevr-npm"]);
		expect(typo.status).toBe(1);
		expect(typo.stderr).toContain(`no memory named "pnpm-nevr-npm" in project ${projectId}; did you mean \`pnpm-never-npm\`?`);
	});

	it("edit: $EDITOR on the topic file, written back with If-Match on the version read; unchanged writes nothing", async () => {
		const r = cairn(["edit", "deploy-freeze"], { env: { EDITOR: editor('(t) => t.replace("12:00 UTC", "11:00 UTC")') } });
		expect(r.status, r.stderr).toBe(0);
		expect(r.stdout.trim()).toBe("saved deploy-freeze (project, personal, version 1 → 2)");
		expect((await call("GET", `/v1/projects/${projectId}/memories/deploy-freeze`)).body).toContain("Friday 11:00 UTC");

		const json = cairn(["edit", "ci-runner", "--json"], { env: { EDITOR: editor('(t) => t.replace("ci-large", "ci-xl")') } });
		expect(json.status, json.stderr).toBe(0);
		expect(JSON.parse(json.stdout).memory).toMatchObject({ name: "ci-runner", scope: "team", version: 2 });

		const same = cairn(["edit", "deploy-freeze", "--json"], { env: { EDITOR: editor("(t) => t") } });
		expect(JSON.parse(same.stdout)).toMatchObject({ unchanged: true, memory: { version: 2 } });
		expect((await memory("deploy-freeze"))?.version).toBe(2);
	});

	it("edit: a version written meanwhile (412) says so, writes nothing and keeps the edited text in a file it names", async () => {
		// While the editor is open, someone else writes the memory.
		const meanwhile = `execFileSync(${JSON.stringify(NODE)}, [${JSON.stringify(join(process.cwd(), "packages/cli/cairn.mjs"))}, "remember", "deploy-freeze", "--type", "project", "--description", "No deploys on Fridays", "Freeze starts Friday 10:00 UTC."], { stdio: "ignore" });`;
		const r = cairn(["edit", "deploy-freeze"], { env: { EDITOR: editor('(t) => t + "\\nAsk Ana first.\\n"', meanwhile) } });
		expect(r.status).toBe(1);
		expect(r.stderr).toContain("deploy-freeze changed on the service since you opened it at version 2");
		expect(r.stderr).toContain("nothing was written — your edited text is in ");
		const kept = /your edited text is in (\S+\.md)/.exec(r.stderr)?.[1] ?? "";
		expect(readFileSync(kept, "utf8")).toContain("Ask Ana first.");
		const now = (await call("GET", `/v1/projects/${projectId}/memories/deploy-freeze`)).body as unknown as string;
		expect(now).toContain("Freeze starts Friday 10:00 UTC.");
		expect(now).not.toContain("Ask Ana first.");

		const json = cairn(["edit", "deploy-freeze", "--json"], {
			env: { EDITOR: editor('(t) => t + "\\nAgain.\\n"', meanwhile.replace("10:00", "09:00")) },
		});
		expect(json.status).toBe(1);
		const error = JSON.parse(json.stdout).error;
		expect(error.code).toBe("version_conflict");
		expect(readFileSync(error.file, "utf8")).toContain("Again.");
	});

	it("edit: no editor set and no terminal: says to set EDITOR", () => {
		const r = cairn(["edit", "deploy-freeze"], { env: { EDITOR: "", VISUAL: "" } });
		expect(r.status).toBe(1);
		expect(r.stderr).toContain("no editor: set EDITOR (or VISUAL)");
	});

	it("forget: deletes the memory; a team memory only with --team; --json says what went", async () => {
		const team = cairn(["forget", "ci-runner"]);
		expect(team.status).toBe(1);
		expect(team.stderr).toContain(
			"ci-runner is a team memory, not a personal one: `cairn forget ci-runner --team` deletes it for everyone",
		);
		expect(await memory("ci-runner", "team")).toBeDefined();
		const r = cairn(["forget", "ci-runner", "--team", "--json"]);
		expect(r.status, r.stderr).toBe(0);
		expect(JSON.parse(r.stdout)).toEqual({ forgotten: { name: "ci-runner", scope: "team" } });
		expect(await memory("ci-runner", "team")).toBeUndefined();
		const personal = cairn(["forget", "pnpm-never-npm-2"]);
		expect(personal.stdout.trim()).toBe("forgot pnpm-never-npm-2 and its history");
		expect(await memory("pnpm-never-npm-2")).toBeUndefined();
		const again = cairn(["forget", "pnpm-never-npm-2", "--json"]);
		expect(again.status).toBe(1);
		expect(JSON.parse(again.stdout).error.message).toContain('no personal memory named "pnpm-never-npm-2"');
		expect(existsSync(join(user.home, ".config", "cairn", "config.json"))).toBe(true);
	});
});
