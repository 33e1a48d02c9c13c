import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import {
	approveTeamProposals,
	call,
	createProject,
	createTenant,
	expectError,
	json,
	type Loose,
	putMemory,
	type Tenant,
	topicFile,
} from "./helpers";

let tenant: Tenant;
let projectId: string;
let bob: string;

const hashes = async (token = tenant.token) =>
	(await json(await call(`/v1/projects/${projectId}/team-memory?view=hashes`, { token }))).entries as Record<string, string>;
const pull = async (token = tenant.token) =>
	(await json(await call(`/v1/projects/${projectId}/team-memory`, { token }))).entries as Record<
		string,
		{ content: string; sha256: string }
	>;
const push = (entries: Loose[], token = tenant.token) =>
	call(`/v1/projects/${projectId}/team-memory`, { token, method: "PUT", json: { entries } });
const file = (name: string, body: string) => topicFile(name, `About ${name}`, "feedback", body);

/** A client's local copy of the team files, as a sync tool keeps it. */
class Client {
	files = new Map<string, { content: string; base: string }>();
	constructor(readonly token: string) {}
	async pull() {
		this.files = new Map(Object.entries(await pull(this.token)).map(([p, e]) => [p, { content: e.content, base: e.sha256 }]));
	}
	edit(path: string, content: string) {
		const current = this.files.get(path);
		this.files.set(path, { content, base: current?.base ?? "" });
	}
	async push(path: string) {
		const f = this.files.get(path) as { content: string; base: string };
		const res = await push([{ path, content: f.content, ...(f.base ? { baseSha256: f.base } : {}) }], this.token);
		if (res.status === 200) {
			const [result] = (await json(res)).results;
			this.files.set(path, { content: f.content, base: result.sha256 });
		}
		return res;
	}
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	bob = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bob" } }))).key.token;
});

describe("team memory sync", () => {
	it("hashes view, full pull and push of new files", async () => {
		expect(await hashes()).toEqual({});
		const res = await push([
			{ path: "testing.md", content: file("testing", "Use the real database.") },
			{ path: "deploys.md", content: file("deploys", "No deploys on Fridays.") },
		]);
		expect(res.status).toBe(200);
		const { results } = await json(res);
		expect(results.map((r: Loose) => [r.path, r.status])).toEqual([
			["testing.md", "created"],
			["deploys.md", "created"],
		]);
		// The team folder is an agent's channel: its files are proposals, pulled by their writer only, until a person approves them.
		expect(await hashes(bob)).toEqual({});
		expect(Object.keys(await hashes()).sort()).toEqual(["deploys.md", "testing.md"]);
		expect((await approveTeamProposals(tenant.token, projectId)).sort()).toEqual(["deploys", "testing"]);
		const view = await hashes(bob);
		expect(Object.keys(view).sort()).toEqual(["deploys.md", "testing.md"]);
		expect(view["testing.md"]).toBe(results[0].sha256);
		const full = await pull(bob);
		expect(full["testing.md"]).toEqual({ content: file("testing", "Use the real database."), sha256: results[0].sha256 });
		// Pushing the same content again changes nothing.
		const again = await json(
			await push([{ path: "testing.md", content: file("testing", "Use the real database."), baseSha256: results[0].sha256 }]),
		);
		expect(again.results[0].status).toBe("unchanged");
	});

	it("two clients with interleaved edits never lose an edit: the loser gets 412 and succeeds after re-reading", async () => {
		await push([{ path: "rules.md", content: file("rules", "- Use pnpm.") }]);
		await approveTeamProposals(tenant.token, projectId);
		const alice = new Client(tenant.token);
		const bobClient = new Client(bob);
		await alice.pull();
		await bobClient.pull();
		alice.edit("rules.md", file("rules", "- Use pnpm.\n- Squash-merge."));
		bobClient.edit("rules.md", file("rules", "- Use pnpm.\n- Never push to main."));
		expect((await alice.push("rules.md")).status).toBe(200);
		// Alice's edit awaits review: Bob's push waits for it, without seeing its hash.
		const waiting = await expectError(await bobClient.push("rules.md"), 412, "version_conflict");
		expect(waiting.error.details.conflicts).toEqual([{ path: "rules.md", serverSha256: null, awaitingReview: true }]);
		await approveTeamProposals(tenant.token, projectId);
		const lost = await bobClient.push("rules.md");
		const conflict = await expectError(lost, 412, "version_conflict");
		expect(conflict.error.details.conflicts).toEqual([{ path: "rules.md", serverSha256: (await hashes())["rules.md"] }]);
		// Bob re-reads, merges his line into the server copy, pushes again.
		await bobClient.pull();
		bobClient.edit("rules.md", file("rules", "- Use pnpm.\n- Squash-merge.\n- Never push to main."));
		expect((await bobClient.push("rules.md")).status).toBe(200);
		await approveTeamProposals(tenant.token, projectId);
		const final = (await pull())["rules.md"]?.content ?? "";
		expect(final).toContain("Squash-merge.");
		expect(final).toContain("Never push to main.");
		// A push without a base over an existing, different file is a conflict too.
		await expectError(await push([{ path: "rules.md", content: file("rules", "Overwrite.") }]), 412, "version_conflict");
	});

	it("a pushed secret is refused per path, naming the rule, and nothing of the push is stored", async () => {
		const token = `ghp_${"R8xk2LmQ9v".repeat(3)}Wz4Tb7`;
		const res = await push([
			{ path: "fine.md", content: file("fine", "Nothing secret.") },
			{ path: "leak.md", content: file("leak", `CI token: ${token}`) },
		]);
		const body = await expectError(res, 422, "secret_detected");
		expect(body.error.details.paths).toEqual([{ path: "leak.md", rules: expect.arrayContaining([expect.stringMatching(/github/)]) }]);
		expect(JSON.stringify(body)).not.toContain(token);
		expect(await hashes()).toEqual({});
		const stored = await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/` });
		for (const o of stored.objects) expect(await (await env.FILES.get(o.key))?.text()).not.toContain(token);
	});

	it("a local delete followed by a pull restores the file; only an explicit delete removes it", async () => {
		await push([{ path: "keep.md", content: file("keep", "Keep me.") }]);
		const client = new Client(tenant.token);
		await client.pull();
		client.files.delete("keep.md");
		await client.pull();
		expect(client.files.get("keep.md")?.content).toBe(file("keep", "Keep me."));
		const del = await call(`/v1/projects/${projectId}/team-memory/keep.md`, { token: tenant.token, method: "DELETE" });
		expect(del.status).toBe(204);
		expect(await hashes()).toEqual({});
		await expectError(
			await call(`/v1/projects/${projectId}/team-memory/keep.md`, { token: tenant.token, method: "DELETE" }),
			404,
			"not_found",
		);
	});

	it("policy disabling team sync wins over project settings; session and personal memory keep working", async () => {
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.teamMemory": true } });
		await call("/v1/admin/policy", { token: tenant.token, method: "PUT", json: { "memories.teamMemory": false } });
		const off = await expectError(
			await call(`/v1/projects/${projectId}/team-memory?view=hashes`, { token: tenant.token }),
			403,
			"feature_disabled",
		);
		expect(off.error.message).toContain("memories.teamMemory, set by policy");
		await expectError(await push([{ path: "x.md", content: file("x", "X.") }]), 403, "feature_disabled");
		await expectError(
			await call(`/v1/projects/${projectId}/team-memory/x.md`, { token: tenant.token, method: "DELETE" }),
			403,
			"feature_disabled",
		);
		expect((await putMemory(tenant.token, projectId, "mine", "Personal still works.")).status).toBe(201);
		await call(`/v1/projects/${projectId}/sessions/s1/transcript`, {
			token: tenant.token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: JSON.stringify({ id: "1", role: "user", content: "Hello." }),
		});
		expect((await call(`/v1/projects/${projectId}/sessions/s1/memory`, { token: tenant.token })).status).toBe(200);
	});

	it("bad input: paths, names, frontmatter, duplicates, size, scope", async () => {
		await expectError(await push([{ path: "../x.md", content: file("x", "X.") }]), 400, "invalid_request");
		await expectError(await push([{ path: "Upper.md", content: file("upper", "X.") }]), 400, "invalid_request");
		const mismatch = await expectError(await push([{ path: "a.md", content: file("b", "X.") }]), 400, "invalid_request");
		expect(mismatch.error.message).toContain("a.md");
		const noFront = await expectError(await push([{ path: "a.md", content: "just text" }]), 400, "invalid_request");
		expect(noFront.error.details.path).toBe("a.md");
		await expectError(await push([{ path: "a.md", content: file("a", "X."), baseSha256: "nothex" }]), 400, "invalid_request");
		await expectError(
			await push([
				{ path: "a.md", content: file("a", "X.") },
				{ path: "a.md", content: file("a", "Y.") },
			]),
			400,
			"invalid_request",
		);
		await expectError(await push([]), 400, "invalid_request");
		const big = await push([{ path: "a.md", content: file("a", "x".repeat(210 * 1024)) }]);
		await expectError(big, 413, "payload_too_large");
		const readOnly = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key.token;
		await expectError(await push([{ path: "a.md", content: file("a", "X.") }], readOnly), 403, "forbidden");
		await expectError(await call(`/v1/projects/${projectId}/team-memory?view=diff`, { token: tenant.token }), 400, "invalid_request");
		await expectError(
			await call(`/v1/projects/${projectId}/team-memory/a.txt`, { token: tenant.token, method: "DELETE" }),
			400,
			"invalid_request",
		);
	});
});
