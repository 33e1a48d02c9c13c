// Team memory a person vouched for (docs/memory-trust.md, src/trust/vouch.ts), through the real Worker:
// every path that writes team scope leaves a proposal — its writer's sessions see it marked unreviewed,
// a teammate's only a count — until a person approves it from outside any agent session; then it reaches
// every teammate. Keys an agent session used never vouch or approve; the publish setting is an audited
// admin act; upgrading keeps serving what teammates were served.

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { migrateProjectSchema, PROJECT_MIGRATIONS } from "../src/storage/schema";
import {
	addStageOneOutput,
	approveTeamProposals,
	call,
	createProject,
	createTenant,
	expectError,
	json,
	keyFor,
	type Loose,
	projectDb,
	type Tenant,
	topicFile,
} from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;
let projectId: string;
/** Ana's agent: the write key her hooks and MCP client hold (used in her sessions). */
let ana: string;
/** Bob, a teammate (his hooks' key). */
let bob: string;
/** A key of Ana's no agent session uses: what she reviews with from her terminal. */
let anaReview: string;
let anaId: string;

const base = () => `/v1/projects/${projectId}`;
const RULE = "Run the integration tests against the real database with `make test-db` before merging.";

const put = (token: string, name: string, body = RULE, headers: Record<string, string> = {}, query = "?scope=team") =>
	call(`${base()}/memories/${name}${query}`, {
		method: "PUT",
		token,
		headers: { "Content-Type": "text/markdown", ...headers },
		body: topicFile(name, `About ${name}`, "feedback", body),
	});
const startBlock = async (token: string, sessionId?: string) =>
	(await json(await call(`${base()}/inject`, { token, json: { maxChars: 60_000, ...(sessionId ? { sessionId } : {}) } }))).text as string;
const promptBlock = async (token: string, query: string) =>
	(await json(await call(`${base()}/inject`, { token, json: { query, include: "memories" } }))).text as string;
const recallNames = async (token: string, query: string) =>
	((await json(await call(`${base()}/recall`, { token, json: { query } }))).memories as Loose[]).map((m) => m.name as string);
const listNames = async (token: string) =>
	((await json(await call(`${base()}/memories?limit=200`, { token }))).memories as Loose[]).map((m) => m.name as string);
const pullNames = async (token: string) =>
	Object.keys((await json(await call(`${base()}/team-memory`, { token }))).entries as Record<string, unknown>).sort();
const pending = async (token: string) => (await json(await call(`${base()}/reviews?kind=vouch`, { token }))).items as Loose[];

async function mcp(token: string, session?: string) {
	const transport = new StreamableHTTPClientTransport(new URL("https://cairn.test/mcp"), {
		fetch: (url, init) => exports.default.fetch(new Request(url, init)),
		requestInit: {
			headers: { Authorization: `Bearer ${token}`, "X-Cairn-Project": projectId, ...(session ? { "X-Cairn-Session": session } : {}) },
		},
	});
	const client = new Client({ name: "cairn-vouch-test", version: "1.0.0" });
	await client.connect(transport);
	return client;
}
const textOf = (result: Loose) => ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");

/** Where `name`'s text (marked by `marker`) reaches `token`: start and prompt blocks, memory://, MCP read, recall, list, team pull. */
async function reach(token: string, name: string, marker: string, query: string): Promise<string[]> {
	const reached: string[] = [];
	const start = await startBlock(token);
	if (start.includes(marker) || start.includes(name)) reached.push("start");
	if ((await promptBlock(token, query)).includes(marker)) reached.push("prompt");
	const resolved = await call(`${base()}/resolve?url=${encodeURIComponent(`memory://root/team/${name}.md`)}`, { token });
	if (resolved.status === 200 && (await resolved.text()).includes(marker)) reached.push("resolve");
	const client = await mcp(token);
	const read = await client.callTool({ name: "memory_read", arguments: { url: `memory://root/team/${name}.md` } });
	if (!(read as Loose).isError && textOf(read as Loose).includes(marker)) reached.push("mcp-read");
	const listed = await client.callTool({ name: "memory_list", arguments: {} });
	if (textOf(listed as Loose).includes(name)) reached.push("mcp-list");
	await client.close();
	if ((await recallNames(token, query)).includes(name)) reached.push("recall");
	if ((await listNames(token)).includes(name)) reached.push("list");
	if ((await pullNames(token)).includes(`${name}.md`)) reached.push("team-pull");
	return reached;
}
const EVERYWHERE = ["start", "prompt", "resolve", "mcp-read", "mcp-list", "recall", "list", "team-pull"];

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	const issued = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "ana" } }));
	ana = issued.key.token;
	anaId = issued.key.userId;
	bob = await keyFor(tenant.token, "bob");
	anaReview = await keyFor(tenant.token, "ana");
	// Their hooks: each session start names the session, which marks the key as one an agent session uses.
	await startBlock(ana, "ana-session");
	await startBlock(bob, "bob-session");
});

describe("a team memory an agent wrote is a proposal until a person vouches for it", () => {
	it("through every path that writes team scope: the writer sees it unreviewed, a teammate a count, nothing else", async () => {
		expect((await put(ana, "rest-single", `${RULE} (rest)`, { "X-Cairn-Session": "ana-session" })).status).toBe(201);
		expect((await put(ana, "rest-nosession", `${RULE} (no session)`)).status).toBe(201);
		const batch = await json(
			await call(`${base()}/memories/batch?scope=team`, {
				token: ana,
				json: { memories: [{ name: "batch-one", type: "feedback", description: "Batch", body: `${RULE} (batch)` }] },
			}),
		);
		expect(batch.results[0].status).toBe("created");
		const imported = await json(
			await call(`${base()}/memories/batch?scope=team&source=import`, {
				token: ana,
				json: { memories: [{ name: "import-one", type: "feedback", description: "Import", body: `${RULE} (import)` }] },
			}),
		);
		expect(imported.results[0].status).toBe("created");
		const client = await mcp(ana, "ana-session");
		const written = await client.callTool({
			name: "memory_write",
			arguments: { name: "mcp-one", type: "feedback", description: "MCP", body: `${RULE} (mcp)`, scope: "team" },
		});
		expect(textOf(written as Loose)).toContain("team proposal");
		await client.close();
		const pushed = await json(
			await call(`${base()}/team-memory`, {
				token: ana,
				method: "PUT",
				json: { entries: [{ path: "folder-one.md", content: topicFile("folder-one", "Folder", "feedback", `${RULE} (folder)`) }] },
			}),
		);
		expect(pushed.results[0].status).toBe("created");

		const names = ["batch-one", "folder-one", "import-one", "mcp-one", "rest-nosession", "rest-single"];
		// The metadata says so; the queue holds one vouch item per proposal, with its text, for its writer.
		const meta = await json(
			await call(`${base()}/memories/rest-single?scope=team`, { token: ana, headers: { Accept: "application/json" } }),
		);
		expect(meta.memory.awaitingReview).toBe(true);
		expect((await pending(ana)).map((i) => i.memory.name).sort()).toEqual(names);
		expect((await pending(ana)).every((i) => i.proposal.body?.startsWith(RULE))).toBe(true);
		// A teammate is served none of them on any surface, and is told how many wait.
		for (const name of names)
			expect(await reach(bob, name, `(${name.split("-")[0]}`, "integration tests real database merging")).toEqual([]);
		expect(await startBlock(bob)).toContain("6 team memories await review — cairn review");
		// Not even through the queue, nor with an admin key an agent session used.
		expect(await pending(bob)).toEqual([]);
		// The writer's sessions see their own, marked unreviewed.
		const own = await startBlock(ana);
		for (const name of names) expect(own).toMatch(new RegExp(`${name} \\(team · [^)]*unreviewed proposal\\)`));
		expect(own).toContain("unreviewed proposal");

		// A person approves them, from outside any session: then every teammate is served them everywhere.
		expect((await approveTeamProposals(anaReview, projectId)).sort()).toEqual(names);
		expect(await reach(bob, "rest-single", "(rest)", "integration tests real database merging rest")).toEqual(EVERYWHERE);
		expect(await startBlock(bob)).not.toContain("await review");
		const approved = await json(
			await call(`${base()}/memories/rest-single?scope=team`, { token: bob, headers: { Accept: "application/json" } }),
		);
		expect(approved.memory.awaitingReview).toBe(false);
	});

	it("a promotion approved from an agent's session lands as a proposal; consolidation's team outputs wait for a person", async () => {
		const rule = {
			name: "never-push-main",
			type: "feedback" as const,
			description: "Never push directly to main",
			body: "Never push directly to main.",
			evidence: ["t0"],
			userStated: true,
			team: true,
		};
		await addStageOneOutput(projectId, anaId, "s-team", [rule]);
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (instance: ProjectCoordinator) => {
			setSeams(instance, { model: null });
			await instance.requestRun(projectId);
		});
		await runDurableObjectAlarm(env.PROJECT_COORDINATOR.getByName(projectId));
		const [promote] = (await json(await call(`${base()}/reviews?kind=promote`, { token: ana }))).items as Loose[];
		expect(promote).toMatchObject({ kind: "promote", memory: { name: "never-push-main" } });
		// Approved by the agent (its session's key): written to team scope as a proposal, not served to Bob.
		const decided = await json(
			await call(`${base()}/reviews/${promote?.id}/approve`, { token: ana, method: "POST", headers: { "X-Cairn-Session": "ana-session" } }),
		);
		expect(decided.memory).toMatchObject({ scope: "team", awaitingReview: true });
		expect(await reach(bob, "never-push-main", "Never push directly to main.", "push directly to main")).toEqual([]);
		expect(await approveTeamProposals(anaReview, projectId)).toEqual(["never-push-main"]);
		expect(await reach(bob, "never-push-main", "Never push directly to main.", "push directly to main")).toContain("start");
	});
});

describe("who vouches", () => {
	it("an approval from an agent's session or with a key one used is a clear 403; a person's own key approves", async () => {
		await put(ana, "deploys", RULE, { "X-Cairn-Session": "ana-session" });
		const [item] = await pending(ana);
		const approve = (token: string, headers: Record<string, string> = {}) =>
			call(`${base()}/reviews/${item?.id}/approve`, { token, method: "POST", headers });
		// The writer's own session, by its session header or by `cairn` in the agent's shell.
		const fromSession = await expectError(await approve(ana, { "X-Cairn-Session": "ana-session" }), 403, "forbidden");
		expect(fromSession.error.details.reason).toBe("agent_session");
		expect(fromSession.error.message).toContain("from an agent's session");
		// (`cairn` in an agent's shell says so; that marks its key too, so this one is a key of its own.)
		await expectError(await approve(await keyFor(tenant.token, "ana"), { "X-Cairn-Agent": "claude" }), 403, "forbidden");
		// The key her hooks use, even from a terminal; the tenant's admin key once a session used it.
		const hookKey = await expectError(await approve(ana), 403, "forbidden");
		expect(hookKey.error.details.reason).toBe("session_key");
		expect(hookKey.error.message).toContain("used by an agent session in this project");
		await startBlock(tenant.token, "admin-session");
		await expectError(await approve(tenant.token), 403, "forbidden");
		// Nothing changed meanwhile; Ana's own review key approves it.
		expect(await reach(bob, "deploys", "make test-db", "real database merging")).toEqual([]);
		const ok = await json(await approve(anaReview));
		expect(ok.item).toMatchObject({ status: "approved", decidedBy: ok.item.decidedBy });
		expect(ok.memory).toMatchObject({ name: "deploys", awaitingReview: false });
		expect(await reach(bob, "deploys", "make test-db", "real database merging")).toContain("start");
		// Recorded as such in the memory's history: the version, and the audit event.
		const history = await projectDb(projectId)
			.prepare(
				"SELECT v.version, v.vouched_by, v.reviewed_by FROM memory_versions v JOIN memories m ON m.id = v.memory_id WHERE m.name = 'deploys'",
			)
			.all();
		expect(history.results).toEqual([{ version: 1, vouched_by: expect.stringMatching(/^usr_/), reviewed_by: null }]);
		const events = (await json(await call(`${base()}/memories/deploys/events?scope=team`, { token: bob }))).events as Loose[];
		expect(events.map((e) => [e.op, e.outcome])).toContainEqual(["review-vouch", "approved"]);
	});

	it("what marks a key: the hooks' session requests, not a person reading or retrying a session", async () => {
		const lee = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		const marked = async () =>
			(await projectDb(projectId).prepare("SELECT count(*) AS n FROM session_keys WHERE key_id = ?").bind(lee.split("_")[1]).first<Loose>())
				?.n;
		await call(`${base()}/sessions`, { token: lee });
		await call(`${base()}/sessions/ana-session`, { token: lee });
		await call(`${base()}/sessions/ana-session/retry`, { token: lee, method: "POST" });
		await call(`${base()}/inject`, { token: lee, json: { query: "deploys", include: "memories" } });
		expect(await marked()).toBe(0);
		await call(`${base()}/sessions/lee-1/transcript`, {
			token: lee,
			method: "POST",
			body: `${JSON.stringify({ id: "1", role: "user", content: "hi", ts: "2026-12-01T10:00:00Z" })}\n`,
			headers: { "Content-Type": "application/x-ndjson" },
		});
		expect(await marked()).toBe(1);
	});

	it("an admin key outside any session vouches by writing; the same key once a session used it does not", async () => {
		const admin = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		expect((await put(admin, "release-tags", "Tag releases as vYYYY.MM.DD.")).status).toBe(201);
		expect(await reach(bob, "release-tags", "vYYYY.MM.DD", "tag releases")).toContain("start");
		// From a session, or a session header: a proposal.
		expect((await put(admin, "from-session", "Squash-merge feature branches.", { "X-Cairn-Session": "lee-1" })).status).toBe(201);
		expect(await reach(bob, "from-session", "Squash-merge feature branches.", "squash merge feature branches")).toEqual([]);
		// Its key is now one an agent session used: even without the header, no longer vouches.
		expect((await put(admin, "after-session", "Rebase before merging.")).status).toBe(201);
		expect(await reach(bob, "after-session", "Rebase before merging.", "rebase before merging")).toEqual([]);
	});

	it("a new version of a vouched memory is a new proposal unless its writer may vouch; rejecting serves the vouched text again", async () => {
		const admin = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		await put(admin, "deploys", "Deploy with `make deploy ENV=stg`.");
		expect(await reach(bob, "deploys", "make deploy ENV=stg", "deploy")).toContain("start");
		// Ana's agent edits it: teammates are no longer served it, and are told it waits.
		expect((await put(ana, "deploys", "Deploy with `make ship ENV=stg`.", { "X-Cairn-Session": "ana-session" })).status).toBe(200);
		expect(await reach(bob, "deploys", "make ship", "deploy ship")).toEqual([]);
		expect(await reach(bob, "deploys", "make deploy ENV=stg", "deploy")).toEqual([]);
		expect(await startBlock(bob)).toContain("1 team memory awaits review");
		// Rejected: the text a person vouched for is served again, as a new version.
		const [item] = await pending(ana);
		const rejectedRes = await call(`${base()}/reviews/${item?.id}/reject`, { token: anaReview, method: "POST" });
		const rejected = await json(rejectedRes);
		expect(rejectedRes.status, JSON.stringify(rejected)).toBe(200);
		expect(rejected.item).toMatchObject({ status: "rejected", proposal: { body: null } });
		expect(rejected.memory).toMatchObject({ version: 3, awaitingReview: false });
		expect(await reach(bob, "deploys", "make deploy ENV=stg", "deploy")).toContain("start");
		// An admin's own new version outside a session is vouched at once.
		await put(admin, "deploys", "Deploy with `make deploy ENV=prod` after stg.");
		expect(await reach(bob, "deploys", "make deploy ENV=prod", "deploy")).toContain("start");
		// A proposal with nothing vouched before it goes when rejected.
		await put(ana, "fresh", "Use pnpm.", { "X-Cairn-Session": "ana-session" });
		const [fresh] = await pending(ana);
		const gone = await json(await call(`${base()}/reviews/${fresh?.id}/reject`, { token: ana, method: "POST" }));
		expect(gone.memory).toBeNull();
		expect(await listNames(ana)).not.toContain("fresh");
	});
});

describe("archived and restored", () => {
	it("a new version of an archived team memory is served again only to its writer until vouched for", async () => {
		const admin = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		await put(admin, "archived-rule", "Rotate the staging database password monthly.");
		await projectDb(projectId).prepare("UPDATE memories SET archived_at = '2026-12-01T00:00:00Z' WHERE name = 'archived-rule'").run();
		await projectDb(projectId)
			.prepare("DELETE FROM memory_visibility WHERE memory_id = (SELECT id FROM memories WHERE name = 'archived-rule')")
			.run();
		await put(ana, "archived-rule", "Rotate the staging database password weekly via `make rotate-staging`.", {
			"X-Cairn-Session": "ana-session",
		});
		expect(await reach(bob, "archived-rule", "make rotate-staging", "rotate staging database password")).toEqual([]);
		expect(await recallNames(ana, "rotate staging database password")).toContain("archived-rule");
		await approveTeamProposals(anaReview, projectId);
		expect(await recallNames(bob, "rotate staging database password")).toContain("archived-rule");
	});
});

describe("the publish setting", () => {
	it("is an audited admin act, never a user's own, never from an agent's session; on, team writes are served at once", async () => {
		const set = (token: string, value: boolean | null, path = `${base()}/settings`, headers: Record<string, string> = {}) =>
			call(path, { token, method: "PUT", json: { "memories.teamPublishUnreviewed": value }, headers });
		await expectError(await set(ana, true, "/v1/settings"), 400, "invalid_request");
		await expectError(await set(bob, true), 403, "forbidden");
		const fromSession = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		await expectError(await set(fromSession, true, `${base()}/settings`, { "X-Cairn-Session": "lee-1" }), 403, "forbidden");
		const admin = await keyFor(tenant.token, "kim", ["read", "write", "admin"]);
		await startBlock(tenant.token, "admin-session");
		await expectError(await set(tenant.token, true), 403, "forbidden");
		expect((await set(admin, true)).status).toBe(200);
		const audit = await projectDb(projectId)
			.prepare("SELECT op, target, outcome, reason FROM consolidation_events WHERE op = 'setting'")
			.all<Loose>();
		expect(audit.results).toEqual([
			{ op: "setting", target: "memories.teamPublishUnreviewed", outcome: "true", reason: expect.stringContaining("set to true by usr_") },
		]);
		await put(ana, "published", "Review PRs within a day.", { "X-Cairn-Session": "ana-session" });
		expect(await reach(bob, "published", "Review PRs within a day.", "review PRs")).toContain("start");
		const row = await projectDb(projectId).prepare("SELECT vouched_by FROM memories WHERE name = 'published'").first<Loose>();
		expect(row?.vouched_by).toBe("cairn:setting");
		// Off again: the next write is a proposal.
		expect((await set(admin, false)).status).toBe(200);
		await put(ana, "unpublished", "Keep PRs small.", { "X-Cairn-Session": "ana-session" });
		expect(await reach(bob, "unpublished", "Keep PRs small.", "keep PRs small")).toEqual([]);
	});
});

describe("upgrading", () => {
	it("keeps serving the team memories teammates were served, recorded as vouched for at upgrade", async () => {
		const admin = await keyFor(tenant.token, "lee", ["read", "write", "admin"]);
		await put(admin, "old-rule", "Keep the changelog in CHANGELOG.md.");
		await put(admin, "old-rule", "Keep the changelog in CHANGELOG.md, newest first.");
		// Back to the schema before vouching: no vouch recorded anywhere.
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (_i: ProjectCoordinator, state) => {
			const sql = state.storage.sql;
			sql.exec("DROP INDEX memories_awaiting");
			sql.exec("DROP TABLE session_keys");
			sql.exec("ALTER TABLE memories DROP COLUMN vouched_by");
			sql.exec("ALTER TABLE memory_versions DROP COLUMN vouched_by");
			sql.exec("ALTER TABLE session_writes DROP COLUMN origin_checked_at");
			// And of every version after it (found by its SQL, not by a number later versions shift).
			sql.exec("DROP TABLE topic_labels");
			sql.exec("DROP TABLE topic_labelling");
			sql.exec("DROP TABLE session_topics");
			const before = PROJECT_MIGRATIONS.findIndex((m) => m.includes("ADD COLUMN vouched_by"));
			sql.exec("UPDATE _cairn_schema SET version = ?", before);
			expect(migrateProjectSchema(state.storage)).toBe(before);
		});
		expect(await reach(bob, "old-rule", "newest first", "changelog")).toContain("start");
		const versions = await projectDb(projectId)
			.prepare(
				"SELECT v.version, v.vouched_by FROM memory_versions v JOIN memories m ON m.id = v.memory_id WHERE m.name = 'old-rule' ORDER BY v.version",
			)
			.all();
		expect(versions.results).toEqual([
			{ version: 1, vouched_by: "cairn:upgrade" },
			{ version: 2, vouched_by: "cairn:upgrade" },
		]);
		const events = (await json(await call(`${base()}/memories/old-rule/events?scope=team`, { token: bob }))).events as Loose[];
		expect(events.map((e) => [e.op, e.outcome])).toContainEqual(["vouch", "vouched"]);
		// Only new writes follow the rule.
		await put(ana, "old-rule", "Keep no changelog.", { "X-Cairn-Session": "ana-session" });
		expect(await reach(bob, "old-rule", "Keep no changelog.", "changelog")).toEqual([]);
	});
});

describe("review that keeps up", () => {
	it("findings and provenance beside the text, how many wait, a session's or a writer's batch at once", async () => {
		for (const name of ["one", "two", "three"]) await put(ana, `s-${name}`, `${RULE} (${name})`, { "X-Cairn-Session": "ana-session" });
		await put(ana, "other", "Squash-merge feature branches.", { "X-Cairn-Session": "ana-other" });
		const listed = await json(await call(`${base()}/reviews?kind=vouch`, { token: anaReview }));
		expect(listed.awaiting).toBe(4);
		const first = (listed.items as Loose[]).find((i) => i.memory.name === "s-one");
		expect(first).toMatchObject({
			kind: "vouch",
			writer: anaId,
			findings: [],
			provenance: { tier: "agent", session: "ana-session", fromToolOutput: [], turns: [] },
			proposal: { body: `${RULE} (one)\n` },
		});
		// Bob (his hooks' key) is told how many wait, never what.
		const bobs = await json(await call(`${base()}/reviews?kind=vouch`, { token: bob }));
		expect(bobs).toMatchObject({ items: [], awaiting: 4 });
		// A batch is refused as one approval is, before anything is decided.
		const refused = await expectError(
			await call(`${base()}/reviews/approve`, { token: ana, json: { session: "ana-session" } }),
			403,
			"forbidden",
		);
		expect(refused.error.details.reason).toBe("session_key");
		await expectError(await call(`${base()}/reviews/approve`, { token: anaReview, json: {} }), 400, "invalid_request");
		const session = await json(await call(`${base()}/reviews/approve`, { token: anaReview, json: { session: "ana-session" } }));
		expect((session.approved as Loose[]).map((i) => i.memory.name).sort()).toEqual(["s-one", "s-three", "s-two"]);
		expect(session.failed).toEqual([]);
		expect((await json(await call(`${base()}/reviews?kind=vouch`, { token: anaReview }))).awaiting).toBe(1);
		const writer = await json(await call(`${base()}/reviews/approve`, { token: anaReview, json: { writer: anaId } }));
		expect((writer.approved as Loose[]).map((i) => i.memory.name)).toEqual(["other"]);
		expect((await json(await call(`${base()}/reviews?kind=vouch`, { token: bob }))).awaiting).toBe(0);
		expect(await reach(bob, "s-two", "(two)", "integration tests real database merging two")).toContain("start");
	});

	it("the console shows the findings and the provenance, says how many wait and approves a session's batch", async () => {
		for (const name of ["one", "two"]) await put(ana, `c-${name}`, `${RULE} (${name})`, { "X-Cairn-Session": "ana-session" });
		const signIn = await exports.default.fetch(
			new Request("https://cairn.test/console/sign-in", {
				method: "POST",
				headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://cairn.test" },
				body: new URLSearchParams({ key: anaReview }).toString(),
				redirect: "manual",
			}),
		);
		const jar = (signIn.headers.get("Set-Cookie") ?? "").split(";")[0] as string;
		const page = await (
			await exports.default.fetch(new Request(`https://cairn.test/console/projects/${projectId}/reviews`, { headers: { Cookie: jar } }))
		).text();
		expect(page).toContain("2 team memories wait for review");
		expect(page).toContain("Team proposal: approving serves this text to every teammate");
		expect(page).toContain("<dt>Danger check</dt><dd>nothing flagged</dd>");
		expect(page).toContain("in session <code>ana-session</code>");
		expect(page).toContain("Approve all 2 team proposals from session ana-session");
		const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "";
		const approved = await exports.default.fetch(
			new Request(`https://cairn.test/console/projects/${projectId}/reviews/batch`, {
				method: "POST",
				headers: { Cookie: jar, "Content-Type": "application/x-www-form-urlencoded", Origin: "https://cairn.test" },
				body: new URLSearchParams({ _csrf: csrf, session: "ana-session" }).toString(),
				redirect: "manual",
			}),
		);
		expect(approved.status).toBe(303);
		expect(await reach(bob, "c-one", "(one)", "integration tests real database merging one")).toContain("start");
		expect(await startBlock(bob)).not.toContain("await review");
	});
});
