// The review queue (proposed changes to memories written on purpose, proposed team promotions) and the
// retry of a failed session's extraction, through the real Worker and the project's object.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Candidate } from "../src/extract/schema";
import type { ProjectCoordinator } from "../src/project/object";
import {
	addStageOneOutput,
	call,
	createProject,
	createTenant,
	expectError,
	json,
	type Loose,
	projectDb,
	putMemory,
	scriptedModel,
	type Tenant,
} from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;
let projectId: string;

const scripted = scriptedModel;

const coordinator = () => env.PROJECT_COORDINATOR.getByName(projectId);
const configure = (setup: (instance: ProjectCoordinator) => void) =>
	runInDurableObject(coordinator(), async (instance: ProjectCoordinator) => setup(instance));

/** A stage-1 output for the tenant's user, as the extractor would have committed it. */
const addOutput = (sessionId: string, candidates: Candidate[], activity?: string, fromSeq?: number) =>
	addStageOneOutput(projectId, tenant.userId, sessionId, candidates, activity, fromSeq);

/** One consolidation run with this model (null: the offline consolidator). */
async function consolidate(model: ReturnType<typeof scripted> | null) {
	await configure((i) => {
		setSeams(i, { model: model });
	});
	await coordinator().requestRun(projectId);
	await runDurableObjectAlarm(coordinator());
	const status = (await json(await call(`/v1/projects/${projectId}/status`, { token: tenant.token }))).pipeline;
	expect(status.lastRun.outcome).toBe("succeeded");
}

/** The scripted plan: consolidation wants to rewrite the explicit memory "testing". */
const rewriteTesting = (description: string, sessionId: string) =>
	scripted({
		operations: [
			{
				op: "update",
				name: "testing",
				type: "feedback",
				description,
				body: `${description}.`,
				reason: "seen in a tool result",
				evidence: [sessionId],
			},
		],
		skills: [],
		summary: "",
	});
/** A candidate the user did not state (it came from tool output): not enough to change an explicit memory. */
const toolDerived = (description: string): Candidate => ({
	name: "testing",
	type: "feedback",
	description,
	body: `${description}.`,
	evidence: ["t0"],
	userStated: false,
});

const base = () => `/v1/projects/${projectId}`;
const reviews = async (query = "", token = tenant.token) =>
	(await json(await call(`${base()}/reviews${query}`, { token }))).items as Loose[];
const decide = (id: string, decision: "approve" | "reject", token = tenant.token) =>
	call(`${base()}/reviews/${id}/${decision}`, { method: "POST", token });
const memory = async (name: string, scope = "personal", token = tenant.token) =>
	call(`${base()}/memories/${name}?scope=${scope}`, { token, headers: { Accept: "application/json" } });

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("proposed changes to memories written on purpose", () => {
	it("a change consolidation may not make alone waits for review; approve applies it, reject leaves the memory, stale is refused", async () => {
		expect((await putMemory(tenant.token, projectId, "testing", "Use the real database.")).status).toBe(201);
		const later = () => new Date(Date.now() + 1000).toISOString();

		// 1. Proposed, not applied.
		await addOutput("s-1", [toolDerived("Tests use mocks")], later());
		await consolidate(rewriteTesting("Tests use mocks", "s-1"));
		const [item, ...rest] = await reviews();
		expect(rest).toEqual([]);
		expect(item).toMatchObject({
			kind: "change",
			status: "pending",
			memory: { name: "testing", scope: "personal", baseVersion: 1, currentVersion: 1 },
			proposal: { op: "update", type: "feedback", description: "Tests use mocks", body: "Tests use mocks.", from: [], scope: null },
			reason: "seen in a tool result",
			evidence: ["s-1"],
			decidedAt: null,
			decidedBy: null,
		});
		expect(item?.id).toMatch(/^rev_[a-z0-9]{16}$/);
		const untouched = await json(await memory("testing"));
		expect(untouched.memory).toMatchObject({ version: 1, description: "About testing" });
		expect(untouched.memory.body).toBe("Use the real database.\n");
		const events = await json(await call(`${base()}/memories/testing/events`, { token: tenant.token }));
		expect(events.events[0]).toMatchObject({ op: "update", outcome: "proposed", reason: "written explicitly; proposed for review" });

		// A newer proposal for the same memory replaces the pending one.
		await addOutput("s-2", [toolDerived("Tests use fakes")], later());
		await consolidate(rewriteTesting("Tests use fakes", "s-2"));
		const replaced = await reviews();
		expect(replaced.map((r) => r.proposal.description)).toEqual(["Tests use fakes"]);
		expect(replaced[0]?.id).not.toBe(item?.id);
		await expectError(await call(`${base()}/reviews/${item?.id}`, { token: tenant.token }), 404, "not_found");
		const pendingId = replaced[0]?.id as string;

		// 2. Approve: the ordinary write path, a new version, history keeps the old one.
		const approved = await decide(pendingId, "approve");
		expect(approved.status).toBe(200);
		const decision = await json(approved);
		expect(decision.item).toMatchObject({ id: pendingId, status: "approved", decidedBy: tenant.userId });
		expect(decision.item.decidedAt).toEqual(expect.any(String));
		expect(decision.memory).toMatchObject({ name: "testing", version: 2, description: "Tests use fakes", source: "user" });
		const after = await json(await memory("testing"));
		expect(after.memory.body).toBe("Tests use fakes.\n");
		const history = await json(await call(`${base()}/memories/testing/history`, { token: tenant.token }));
		expect(history.versions.map((v: Loose) => v.version)).toEqual([2, 1]);
		const old = await call(`${base()}/memories/testing/history/1`, { token: tenant.token, headers: { Accept: "text/markdown" } });
		expect(await old.text()).toContain("Use the real database.");
		// Deciding again is a conflict; the decision is in the memory's events.
		await expectError(await decide(pendingId, "approve"), 409, "conflict");
		await expectError(await decide(pendingId, "reject"), 409, "conflict");
		expect((await reviews()).length).toBe(0);
		expect((await reviews("?status=approved")).map((r) => r.id)).toEqual([pendingId]);
		const audit = await json(await call(`${base()}/memories/testing/events`, { token: tenant.token }));
		expect(audit.events[0]).toMatchObject({ runId: pendingId, op: "review-update", outcome: "approved" });

		// 3. Reject: the memory stays as it is.
		await addOutput("s-3", [toolDerived("Tests use stubs")], later());
		await consolidate(rewriteTesting("Tests use stubs", "s-3"));
		const [third] = await reviews();
		expect(third?.memory).toMatchObject({ baseVersion: 2 });
		const rejected = await decide(third?.id, "reject");
		expect(rejected.status).toBe(200);
		expect((await json(rejected)).item).toMatchObject({ status: "rejected", decidedBy: tenant.userId });
		expect((await json(await memory("testing"))).memory).toMatchObject({ version: 2, description: "Tests use fakes" });
		expect((await reviews("?status=rejected")).map((r) => r.id)).toEqual([third?.id]);

		// 4. Stale: the memory changed after the proposal; approving changes nothing.
		await addOutput("s-4", [toolDerived("Tests use doubles")], later());
		await consolidate(rewriteTesting("Tests use doubles", "s-4"));
		const [fourth] = await reviews();
		expect((await putMemory(tenant.token, projectId, "testing", "Real database, always.", { headers: { "If-Match": '"2"' } })).status).toBe(
			200,
		);
		expect((await reviews())[0]?.memory).toMatchObject({ baseVersion: 2, currentVersion: 3 });
		const conflict = await expectError(await decide(fourth?.id, "approve"), 412, "version_conflict");
		expect(conflict.error.details).toEqual({ currentVersion: 3 });
		expect((await json(await memory("testing"))).memory.body).toBe("Real database, always.\n");
		expect((await reviews())[0]).toMatchObject({ id: fourth?.id, status: "pending" });
	});

	it("a proposed delete of an explicit memory, approved, deletes it; items are the owner's alone", async () => {
		expect((await putMemory(tenant.token, projectId, "testing", "Use the real database.")).status).toBe(201);
		await addOutput("s-d", [toolDerived("Tests use mocks")], new Date(Date.now() + 1000).toISOString());
		await consolidate(
			scripted({ operations: [{ op: "delete", name: "testing", reason: "obsolete", evidence: ["s-d"] }], skills: [], summary: "" }),
		);
		const [item] = await reviews();
		expect(item).toMatchObject({ kind: "change", proposal: { op: "delete", type: null, body: null } });

		const bob = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bob" } }))).key.token;
		expect(await reviews("", bob)).toEqual([]);
		await expectError(await call(`${base()}/reviews/${item?.id}`, { token: bob }), 404, "not_found");
		await expectError(await decide(item?.id, "approve", bob), 404, "not_found");
		await expectError(await call(`${base()}/reviews/${encodeURIComponent("bad id!")}`, { token: tenant.token }), 400, "invalid_request");
		await expectError(await call(`${base()}/reviews/rev_doesnotexist0000`, { token: tenant.token }), 404, "not_found");
		await expectError(await call(`${base()}/reviews?status=maybe`, { token: tenant.token }), 400, "invalid_request");
		const readOnly = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }))).key.token;
		expect((await reviews("", readOnly)).length).toBe(1);
		await expectError(await decide(item?.id, "approve", readOnly), 403, "forbidden");

		const approved = await json(await decide(item?.id, "approve"));
		expect(approved).toMatchObject({ item: { status: "approved" }, memory: null });
		expect((await memory("testing")).status).toBe(404);
	});
});

describe("memories proposed for team scope", () => {
	const teamRule: Candidate = {
		name: "never-push-main",
		type: "feedback",
		description: "Never push directly to main",
		body: "Never push directly to main.",
		evidence: ["t0"],
		userStated: true,
		team: true,
	};

	it("a team rule waits for promotion; approve moves it to team scope, visible to the rest of the tenant", async () => {
		await addOutput("s-team", [teamRule]);
		await consolidate(null);
		const personal = await json(await memory("never-push-main"));
		expect(personal.memory).toMatchObject({ scope: "personal", proposedScope: "team" });
		const [item, ...rest] = await reviews();
		expect(rest).toEqual([]);
		expect(item).toMatchObject({
			kind: "promote",
			status: "pending",
			memory: { name: "never-push-main", scope: "personal", baseVersion: 1, currentVersion: 1 },
			proposal: { op: "promote", scope: "team", from: [] },
			evidence: ["s-team"],
		});
		expect(await reviews("?kind=change")).toEqual([]);

		// The same rule again: still one pending promotion.
		await addOutput("s-team-2", [teamRule]);
		await consolidate(null);
		expect((await reviews()).map((r) => r.id)).toEqual([item?.id]);

		const approved = await decide(item?.id, "approve");
		expect(approved.status).toBe(200);
		const decision = await json(approved);
		expect(decision.item).toMatchObject({ status: "approved", decidedBy: tenant.userId });
		expect(decision.memory).toMatchObject({ name: "never-push-main", scope: "team", proposedScope: null, source: "user" });
		expect((await memory("never-push-main")).status).toBe(404);

		const bea = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bea" } }))).key.token;
		const listed = await json(await call(`${base()}/memories?scope=team`, { token: bea }));
		expect(listed.memories.map((m: Loose) => m.name)).toEqual(["never-push-main"]);
		expect((await json(await memory("never-push-main", "team", bea))).memory.body).toContain("Never push directly to main.");
	});

	it("with team memory switched off, approving a promotion is refused as a team write is; rejecting clears the proposal", async () => {
		await addOutput("s-team", [teamRule]);
		await consolidate(null);
		const [item] = await reviews();
		await call("/v1/admin/policy", { token: tenant.token, method: "PUT", json: { "memories.teamMemory": false } });

		const write = await call(`${base()}/memories/other-rule?scope=team`, {
			method: "PUT",
			token: tenant.token,
			json: { type: "feedback", description: "A team rule", body: "Team rule." },
		});
		const teamWrite = await expectError(write, 403, "feature_disabled");
		const refused = await expectError(await decide(item?.id, "approve"), 403, "feature_disabled");
		expect(refused.error.message).toBe(teamWrite.error.message);
		expect((await reviews())[0]).toMatchObject({ id: item?.id, status: "pending" });
		expect((await json(await memory("never-push-main"))).memory).toMatchObject({ scope: "personal", proposedScope: "team" });
		expect((await memory("never-push-main", "team")).status).toBe(404);

		const rejected = await json(await decide(item?.id, "reject"));
		expect(rejected.item.status).toBe("rejected");
		expect(rejected.memory).toMatchObject({ scope: "personal", proposedScope: null });
		expect((await json(await memory("never-push-main"))).memory.proposedScope).toBeNull();
		expect(await reviews()).toEqual([]);
	});

	it("clearing the project's memory removes its review items", async () => {
		await addOutput("s-team", [teamRule]);
		await consolidate(null);
		expect((await reviews()).length).toBe(1);
		const cleared = await call(`${base()}/memory?confirm=${projectId}`, { method: "DELETE", token: tenant.token });
		expect(cleared.status).toBe(204);
		const { n } = (await projectDb(projectId).prepare("SELECT count(*) AS n FROM review_items").first<{ n: number }>()) ?? { n: -1 };
		expect(n).toBe(0);
	});
});

describe("retrying a failed session", () => {
	async function session(sessionId: string, token = tenant.token) {
		const ndjson = [
			{ id: "1", role: "user", content: "From now on always use pnpm, never npm.", ts: "2026-11-28T10:00:00Z" },
			{ id: "2", role: "assistant", content: "Switched to pnpm.", ts: "2026-11-28T10:00:05Z" },
		]
			.map((r) => JSON.stringify(r))
			.join("\n");
		const res = await call(`${base()}/sessions/${sessionId}/transcript`, {
			token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: `${ndjson}\n`,
		});
		expect(res.status).toBe(200);
	}
	const setState = (sessionId: string, state: string) =>
		projectDb(projectId)
			.prepare(
				"UPDATE sessions SET extraction_state = ?, last_error = 'extraction failed (attempt 4 of 4)' WHERE project_id = ? AND id = ?",
			)
			.bind(state, projectId, sessionId)
			.run();
	const retry = (sessionId: string, token = tenant.token) => call(`${base()}/sessions/${sessionId}/retry`, { method: "POST", token });

	it("re-queues a dead-lettered session; idle is a conflict; another user's session is not found; off is refused", async () => {
		await session("s-dead");
		await setState("s-dead", "dead_letter");
		const res = await retry("s-dead");
		expect(res.status).toBe(202);
		const body = await json(res);
		expect(body.session).toMatchObject({ id: "s-dead", turns: 2, cursor: 0, extraction: { state: "queued" } });
		const row = await projectDb(projectId)
			.prepare("SELECT extraction_state, queued_at FROM sessions WHERE project_id = ? AND id = ?")
			.bind(projectId, "s-dead")
			.first<Loose>();
		expect(row).toMatchObject({ extraction_state: "queued", queued_at: expect.any(String) });
		// Queued now: nothing to retry.
		await expectError(await retry("s-dead"), 409, "conflict");

		await session("s-retrying");
		await setState("s-retrying", "retrying");
		expect((await retry("s-retrying")).status).toBe(202);

		await session("s-idle");
		await setState("s-idle", "idle");
		await expectError(await retry("s-idle"), 409, "conflict");

		const bob = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bob" } }))).key.token;
		await session("s-bob", bob);
		await setState("s-bob", "dead_letter");
		await expectError(await retry("s-bob"), 404, "not_found");
		await expectError(await retry("no-such-session"), 404, "not_found");

		await setState("s-idle", "dead_letter");
		await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": false } });
		await expectError(await retry("s-idle"), 403, "feature_disabled");
	});
});
