import { beforeAll, describe, expect, it } from "vitest";
import { api, eventually, gitRepo, type Loose, machine, tenant, url } from "./helpers.ts";

const user = machine();
const repo = gitRepo(`git@github.com:acme/review-${Date.now()}.git`);
const cairn = (args: string[]) => user.runAsync(args, { cwd: repo });
let key = "";
let projectId = "";
const call = (method: string, path: string, body?: unknown) => api(key, method, path, body);

beforeAll(async () => {
	key = await tenant("review");
	expect((await cairn(["login", "--url", url, "--key", key])).status).toBe(0);
	const init = await cairn(["init"]);
	expect(init.status, init.stderr).toBe(0);
	projectId = /project (prj_\w+)/.exec(init.stdout)?.[1] ?? "";
	expect(projectId).toMatch(/^prj_/);
});

describe("cairn review", () => {
	it("lists a team rule waiting for promotion, shows it, approves it once; the rule is then a team memory", async () => {
		expect((await cairn(["review"])).stdout).toContain("no pending review items");

		// A session in which the user states a team rule: extracted, consolidated, proposed for team scope.
		const ndjson = [
			{ id: "1", role: "user", content: "From now on never push directly to main. That's a team rule.", ts: "2026-11-28T10:00:00Z" },
			{ id: "2", role: "assistant", content: "Understood.", ts: "2026-11-28T10:00:05Z" },
		]
			.map((r) => JSON.stringify(r))
			.join("\n");
		const posted = await fetch(`${url}/v1/projects/${projectId}/sessions/review-1/transcript`, {
			method: "POST",
			headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/x-ndjson" },
			body: `${ndjson}\n`,
		});
		expect(posted.status).toBe(200);
		expect((await call("POST", `/v1/projects/${projectId}/sessions/review-1/end`)).status).toBe(202);
		await eventually(async () => {
			const outputs = (await call("GET", `/v1/projects/${projectId}/candidates`)).body.outputs as Loose[];
			return outputs.some((o) => o.sessionId === "review-1") ? true : undefined;
		});
		expect((await call("POST", `/v1/projects/${projectId}/consolidate`)).status).toBe(202);
		const item = await eventually(async () => {
			const { items } = (await call("GET", `/v1/projects/${projectId}/reviews`)).body;
			return (items as Loose[])[0];
		});
		expect(item).toMatchObject({ kind: "promote", status: "pending", proposal: { op: "promote", scope: "team" } });
		const name = item.memory.name as string;

		const list = await cairn(["review", "list"]);
		expect(list.status, list.stderr).toBe(0);
		expect(list.stdout).toContain(`${item.id}  pending   promote ${name} to team`);
		const show = await cairn(["review", "show", item.id]);
		expect(show.status, show.stderr).toBe(0);
		expect(show.stdout).toContain(`memory: ${name} (personal, proposed against version 1, now 1)`);
		expect(show.stdout).toContain("sessions: review-1");

		const approve = await cairn(["review", "approve", item.id]);
		expect(approve.status, approve.stderr).toBe(0);
		expect(approve.stdout).toContain(`approved ${item.id}: ${name} is now a team memory`);
		const team = (await call("GET", `/v1/projects/${projectId}/memories?scope=team`)).body.memories as Loose[];
		expect(team.map((m) => m.name)).toEqual([name]);
		expect(
			((await call("GET", `/v1/projects/${projectId}/memories?scope=personal`)).body.memories as Loose[]).map((m) => m.name),
		).not.toContain(name);

		const again = await cairn(["review", "approve", item.id]);
		expect(again.status).toBe(1);
		expect(again.stderr).toMatch(/already approved \(conflict\)/);
		expect((await cairn(["review", "list", "--status", "approved"])).stdout).toContain(`${item.id}  approved  promote ${name} to team`);
		// The login's key posted the session's transcript (an agent session's key), so the promoted rule is a
		// team proposal: a person vouches for it with a key of their own before teammates are served it.
		expect(approve.stdout).toContain("(a proposal: a person approves it from their own terminal)");
		const pending = await cairn(["review"]);
		const proposal = new RegExp(`^(rev_\\w+)  pending   team proposal ${name}:`, "m").exec(pending.stdout)?.[1] ?? "";
		expect(proposal).toMatch(/^rev_/);
		expect(pending.stdout).toContain("1 team memory awaits review");
		const refused = await cairn(["review", "approve", proposal]);
		expect(refused.status).toBe(1);
		expect(refused.stderr).toContain("used by an agent session in this project");
		const reviewKey = (await call("POST", "/v1/keys", { scopes: ["read", "write"], name: "ada's review key" })).body.key.token as string;
		const vouched = await cairn(["review", "approve", proposal, "--key", reviewKey]);
		expect(vouched.status, vouched.stderr).toBe(0);
		expect(vouched.stdout).toContain(`approved ${proposal}: ${name} is served to every teammate`);
		expect((await cairn(["review"])).stdout).toContain("no pending review items");

		const missing = await cairn(["review", "reject", "rev_doesnotexist0000"]);
		expect(missing.status).toBe(1);
		expect(missing.stderr).toContain("(not_found)");
		expect((await cairn(["review", "approve"])).stderr).toContain("usage: cairn review");
	});
});
