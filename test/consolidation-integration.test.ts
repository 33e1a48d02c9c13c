import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import type { ConsolidationFaults } from "../src/consolidate/run";
import type { Candidate } from "../src/extract/schema";
import { objectKey } from "../src/memory/paths";
import { currentText } from "../src/memory/value-history";
import { projectStore } from "../src/project/client";
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

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
const scripted = scriptedModel;

const coordinator = () => env.PROJECT_COORDINATOR.getByName(projectId);
/** Sets the coordinator's test seams (model, faults, a hook at run start). */
const configure = (setup: (instance: ProjectCoordinator) => void) =>
	runInDurableObject(coordinator(), async (instance: ProjectCoordinator) => setup(instance));
const statement = (description: string, type: Candidate["type"] = "feedback", name?: string): Candidate => ({
	name:
		name ??
		description
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, "-")
			.slice(0, 40)
			.replace(/-+$/, ""),
	type,
	description,
	body: `${description}.`,
	evidence: ["t0"],
	userStated: true,
});

/** A stage-1 output for the tenant's user, as the extractor would have committed it. */
const addOutput = (sessionId: string, candidates: Candidate[], activity?: string, fromSeq?: number) =>
	addStageOneOutput(projectId, tenant.userId, sessionId, candidates, activity, fromSeq);

const status = async () => (await json(await call(`/v1/projects/${projectId}/status`, { token: tenant.token }))).pipeline;
const memories = async () => {
	const { results } = await projectDb(projectId)
		.prepare(
			"SELECT m.name, m.type, m.description, m.version, m.source, m.content_hash, m.verified_at, m.updated_at, f.body FROM memories m JOIN memories_fts f ON f.rowid = m.id WHERE m.project_id = ? ORDER BY m.name",
		)
		.bind(projectId)
		.all<Loose>();
	return results;
};
const memoryView = async () => (await memories()).map(({ name, type, description, body }) => ({ name, type, description, body }));

async function seedThreeSessions() {
	await addOutput("s-a", [statement("From now on always use pnpm, never npm", "feedback", "use-pnpm-never-npm")]);
	await addOutput("s-b", [statement("Never commit directly to main", "feedback", "never-commit-directly-main")]);
	await addOutput("s-c", [
		statement("From now on always use pnpm, never npm", "feedback", "use-pnpm-never-npm"),
		statement("The billing service owns the invoices table", "project", "billing-service-owns-invoices"),
	]);
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	await configure((i) => {
		setSeams(i, { model: null });
	});
});

describe("the project's coordinator", () => {
	it("ten concurrent triggers make one run over all inputs; runs never overlap", async () => {
		await seedThreeSessions();
		await Promise.all(Array.from({ length: 10 }, () => coordinator().markDirty(projectId)));
		expect(await projectStore(env, projectId).status(projectId)).toMatchObject({ generation: 10, dirty: true, running: false });
		const [first, second] = await Promise.all([runDurableObjectAlarm(coordinator()), runDurableObjectAlarm(coordinator())]);
		expect([first, second].filter(Boolean).length).toBe(1);
		const state = await projectStore(env, projectId).status(projectId);
		expect(state.history.length).toBe(1);
		expect(state.lastRun).toMatchObject({ outcome: "succeeded", outputs: 3, error: null });
		expect(state).toMatchObject({ dirty: false, running: false });
		expect(await runDurableObjectAlarm(coordinator())).toBe(false);
		expect(await memoryView()).toEqual([
			{
				name: "billing-service-owns-invoices",
				type: "project",
				description: "The billing service owns the invoices table",
				body: "The billing service owns the invoices table.\n\nSources: session s-c.",
			},
			{
				name: "never-commit-directly-main",
				type: "feedback",
				description: "Never commit directly to main",
				body: "Never commit directly to main.\n\nSources: session s-b.",
			},
			{
				name: "use-pnpm-never-npm",
				type: "feedback",
				description: "From now on always use pnpm, never npm",
				body: "From now on always use pnpm, never npm.\n\nSources: session s-a, session s-c.",
			},
		]);
		expect((await status()).pendingOutputs).toBe(0);
	});

	it("a trigger during a run causes exactly one re-run", async () => {
		await seedThreeSessions();
		await coordinator().markDirty(projectId);
		let triggered = false;
		await configure((i) => {
			setSeams(i, {
				onRunStart: async () => {
					if (triggered) return;
					triggered = true;
					await i.markDirty(projectId);
				},
			});
		});
		expect(await runDurableObjectAlarm(coordinator())).toBe(true);
		expect(await projectStore(env, projectId).status(projectId)).toMatchObject({ dirty: true, running: false });
		expect(await runDurableObjectAlarm(coordinator())).toBe(true);
		expect(await runDurableObjectAlarm(coordinator())).toBe(false);
		const state = await projectStore(env, projectId).status(projectId);
		expect(state.history.map((h) => h.outcome)).toEqual(["succeeded", "nothing to do"]);
		for (let i = 1; i < state.history.length; i++) {
			expect(state.history[i]?.startedAt).toBeGreaterThanOrEqual(state.history[i - 1]?.endedAt ?? 0);
		}
	});

	for (const point of ["afterObjectPut", "afterBatch", "beforeMarkConsolidated"] as const) {
		it(`a fault ${point} fails the run; the retried run converges with nothing lost, dangling or duplicated`, async () => {
			// The same inputs consolidated without a fault, in another project, are the reference.
			const reference = { projectId };
			await seedThreeSessions();
			await coordinator().markDirty(projectId);
			await runDurableObjectAlarm(coordinator());
			const expected = await memoryView();

			tenant = await createTenant();
			projectId = await createProject(tenant.token);
			await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
			expect(projectId).not.toBe(reference.projectId);
			await seedThreeSessions();
			let fired = 0;
			await configure((i) => {
				setSeams(i, { model: null });
				setSeams(i, {
					faults: {
						[point]: () => {
							if (fired++ === 0) throw new Error(`injected fault ${point}`);
						},
					} as ConsolidationFaults,
				});
			});
			await coordinator().markDirty(projectId);
			await runDurableObjectAlarm(coordinator());
			const failed = await status();
			expect(failed.lastRun).toMatchObject({ outcome: "failed", error: "consolidation failed on an internal error" });
			expect(failed.pendingOutputs).toBe(3);
			expect(failed.dirty).toBe(true);

			expect(await runDurableObjectAlarm(coordinator())).toBe(true);
			const after = await status();
			expect(after.lastRun.outcome).toBe("succeeded");
			expect(after.pendingOutputs).toBe(0);
			expect(await memoryView()).toEqual(expected);
			for (const m of await memories()) {
				expect(await env.FILES.head(objectKey(tenant.tenantId, projectId, m.content_hash)), `object of ${m.name}`).not.toBeNull();
			}
		});
	}

	it("malformed model output: the run fails, memories are untouched, the error is in status", async () => {
		expect((await putMemory(tenant.token, projectId, "testing", "Use the real database.")).status).toBe(201);
		await addOutput("s-1", [statement("Integration tests may use mocks", "feedback", "testing")]);
		await configure((i) => {
			setSeams(i, { model: scripted("{ this is not json") });
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		const s = await status();
		expect(s.lastRun).toMatchObject({ outcome: "failed", error: "the consolidation model's answer was not valid consolidation JSON" });
		expect(s.pendingOutputs).toBe(1);
		const [memory] = await memories();
		expect(memory).toMatchObject({ name: "testing", version: 1, body: "Use the real database.\n" });
	});
});

describe("freshness", () => {
	const STAGING = "The staging API lives at api-staging.internal:8080";

	async function correctStaging() {
		const put = await call(`/v1/projects/${projectId}/memories/staging-api`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "project", description: STAGING, body: `${STAGING}.` },
		});
		expect(put.status).toBe(201);
		const before = (await memories())[0] as Loose;
		await new Promise((r) => setTimeout(r, 5));
		// A later session: the user says the API moved.
		await addOutput(
			"s-moved",
			[statement("The staging API lives at api-staging.internal:9090 now", "project", "staging-api-lives-api-staging-internal")],
			new Date(Date.now() + 1000).toISOString(),
		);
		return before;
	}

	async function expectCorrected(before: Loose) {
		const after = (await memories())[0] as Loose;
		expect(after.name).toBe("staging-api");
		expect(after.description).toContain("9090");
		expect(after.body).toContain("9090");
		// The old value stays only as history ("was … until <date>"), never as what the memory says now.
		expect(currentText(after.body)).not.toContain("8080");
		expect(after.body).toMatch(/\nEarlier:\n- was "[^"]*8080[^"]*".* until \d{4}-\d{2}-\d{2}/);
		expect(after.version).toBe(2);
		expect(after.verified_at > before.verified_at).toBe(true);
		const history = await json(await call(`/v1/projects/${projectId}/memories/staging-api/history`, { token: tenant.token }));
		expect(history.versions.map((v: Loose) => [v.version, v.sessionId])).toEqual([
			[2, "s-moved"],
			[1, null],
		]);
		const v1 = await call(`/v1/projects/${projectId}/memories/staging-api/history/1`, { token: tenant.token });
		expect(await v1.text()).toContain("8080");
		const inject = await json(
			await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query: "where does the staging API live" } }),
		);
		expect(inject.text).toContain("api-staging.internal:9090");
		expect(inject.text).not.toContain("api-staging.internal:8080");
	}

	it("offline: a later session's correction updates the memory in place, history keeps the old value", async () => {
		const before = await correctStaging();
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await status()).lastRun.outcome).toBe("succeeded");
		await expectCorrected(before);
	});

	it("with a model: the update operation is applied in place with the correcting session linked", async () => {
		const before = await correctStaging();
		await configure((i) => {
			setSeams(i, {
				model: scripted({
					operations: [
						{
							op: "update",
							name: "staging-api",
							type: "project",
							description: "The staging API lives at api-staging.internal:9090",
							body: "The staging API lives at api-staging.internal:9090 (moved from the old port).",
							reason: "the user said it moved",
							evidence: ["s-moved"],
						},
					],
					skills: [],
					summary: "# Memory summary\n\n- Staging API: memory://root/staging-api.md",
				}),
			});
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await status()).lastRun.outcome).toBe("succeeded");
		await expectCorrected(before);
		const events = await projectDb(projectId)
			.prepare("SELECT op, target, outcome, reason, evidence_json FROM consolidation_events WHERE project_id = ?")
			.bind(projectId)
			.all<Loose>();
		expect(events.results).toEqual([
			{ op: "update", target: "staging-api", outcome: "applied", reason: "the user said it moved", evidence_json: '["s-moved"]' },
		]);
	});

	it("an explicit memory is not overwritten without a newer explicit statement", async () => {
		expect((await putMemory(tenant.token, projectId, "testing", "Use the real database.")).status).toBe(201);
		await addOutput(
			"s-old",
			[{ ...statement("Tests use mocks", "feedback", "testing"), userStated: false }],
			new Date(Date.now() + 1000).toISOString(),
		);
		await configure((i) => {
			setSeams(i, {
				model: scripted({
					operations: [
						{
							op: "update",
							name: "testing",
							type: "feedback",
							description: "Tests use mocks",
							body: "Mocks.",
							reason: "seen",
							evidence: ["s-old"],
						},
					],
					skills: [],
					summary: "",
				}),
			});
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await memories())[0]).toMatchObject({ version: 1, body: "Use the real database.\n" });
		const event = await projectDb(projectId)
			.prepare("SELECT outcome, reason FROM consolidation_events WHERE project_id = ?")
			.bind(projectId)
			.first<Loose>();
		expect(event).toEqual({ outcome: "proposed", reason: "written explicitly; proposed for review" });
	});
});

describe("explicit writes judged by the time of the statement", () => {
	const update = {
		op: "update",
		name: "package-manager",
		type: "feedback",
		description: "Use yarn",
		body: "Use yarn.",
		reason: "the user said so",
		evidence: ["s-same"],
	};
	async function run(statedAt: string) {
		expect((await putMemory(tenant.token, projectId, "package-manager", "Use pnpm, never yarn.")).status).toBe(201);
		const written = (await memories())[0] as Loose;
		// The same session goes on long after the write (its last activity is later than the write) …
		await addOutput(
			"s-same",
			[{ ...statement("Use yarn", "feedback", "package-manager"), statedAt } as Candidate],
			new Date(Date.parse(written.updated_at) + 60_000).toISOString(),
		);
		await configure((i) => {
			setSeams(i, { model: scripted({ operations: [update], skills: [], summary: "" }) });
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		const event = await projectDb(projectId)
			.prepare("SELECT outcome FROM consolidation_events WHERE project_id = ?")
			.bind(projectId)
			.first<Loose>();
		return { written, after: (await memories())[0] as Loose, outcome: event?.outcome };
	}

	it("a statement made before the explicit write, in the same session, does not change it", async () => {
		// … but the statement the candidate rests on came a minute before the write.
		const { after, outcome } = await run(new Date(Date.now() - 60_000).toISOString());
		expect(after).toMatchObject({ version: 1, body: "Use pnpm, never yarn.\n" });
		expect(outcome).toBe("proposed");
	});

	it("a statement made after the explicit write changes it", async () => {
		const { after, outcome } = await run(new Date(Date.now() + 30_000).toISOString());
		expect(after).toMatchObject({ version: 2, description: "Use yarn" });
		expect(outcome).toBe("applied");
	});
});

describe("summary, skills and routes", () => {
	it("offline: summary lists the memories, explicit procedures become skills, resolve serves both", async () => {
		await expectError(await call(`/v1/projects/${projectId}/summary`, { token: tenant.token }), 404, "not_found");
		await seedThreeSessions();
		await addOutput("s-proc", [
			{
				name: "how-to-cut-a-release",
				type: "reference",
				description: "How to cut a release",
				body: "1. bump the version\n2. tag it\n3. push the tag",
				evidence: ["t0"],
				userStated: true,
				procedure: true,
			},
		]);
		const res = await call(`/v1/projects/${projectId}/consolidate`, { token: tenant.token, method: "POST" });
		expect(res.status).toBe(202);
		await runDurableObjectAlarm(coordinator());
		const summary = await (await call(`/v1/projects/${projectId}/summary`, { token: tenant.token })).text();
		expect(summary).toContain("## Rules that apply everywhere");
		expect(summary).toContain("memory://root/use-pnpm-never-npm.md");
		expect(summary).toContain("## Keyword map");
		const resolved = await call(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root")}`, { token: tenant.token });
		expect(await resolved.text()).toBe(summary);

		const skills = await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }));
		expect(skills.skills).toEqual([
			expect.objectContaining({
				name: "how-to-cut-a-release",
				description: "How to cut a release",
				path: "memory://root/skills/how-to-cut-a-release/SKILL.md",
			}),
		]);
		const skill = await (await call(`/v1/projects/${projectId}/skills/how-to-cut-a-release`, { token: tenant.token })).text();
		expect(skill).toContain("## Procedure\n\n1. bump the version");
		expect(skill.startsWith("---\nname: how-to-cut-a-release\n")).toBe(true);
		const viaUrl = await call(
			`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root/skills/how-to-cut-a-release/SKILL.md")}`,
			{
				token: tenant.token,
			},
		);
		expect(await viaUrl.text()).toBe(skill);
		const index = await (await call(`/v1/projects/${projectId}/index`, { token: tenant.token })).text();
		expect(index).toContain("use-pnpm-never-npm");
		// The orphan sweep keeps objects that skills point at.
		await coordinator().sweep(projectId, tenant.tenantId, Date.now(), 0);
		expect(await (await call(`/v1/projects/${projectId}/skills/how-to-cut-a-release`, { token: tenant.token })).text()).toBe(skill);
		// Another user of the tenant has no summary or skills of their own.
		const other = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"], user: "bo" } }));
		await expectError(await call(`/v1/projects/${projectId}/summary`, { token: other.key.token }), 404, "not_found");
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: other.key.token }))).skills).toEqual([]);
	});

	it("with a model: it receives each skill's body and the previous summary, and a run that does not touch them keeps both", async () => {
		const skill = {
			name: "deploy",
			description: "Deploy the api",
			body: "## When to use\n\nDeploys.\n\n## Procedure\n\n1. run the migration check\n2. wrangler deploy --env production",
		};
		await addOutput("s-1", [statement("Deploy with wrangler", "reference", "deploy-with-wrangler")]);
		await configure((i) => {
			setSeams(i, { model: scripted({ operations: [], skills: [skill], summary: "Summary one: deploys use wrangler." }) });
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		// The model's summary, with the date it was written.
		expect(await (await call(`/v1/projects/${projectId}/summary`, { token: tenant.token })).text()).toMatch(
			/^_Written \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\._\n\nSummary one: deploys use wrangler\.$/,
		);

		// A later run about something else: the model is shown the skill's body and the summary, and
		// returns neither a changed skill nor a new summary.
		const prompts: string[] = [];
		await addOutput("s-2", [statement("Prefer short commit messages", "user", "short-commit-messages")]);
		await configure((i) => {
			setSeams(i, {
				model: new MockLanguageModelV4({
					doGenerate: async (options) => {
						prompts.push(JSON.stringify(options.prompt));
						return {
							content: [{ type: "text", text: JSON.stringify({ operations: [], skills: [], retiredSkills: [], summary: "" }) }],
							finishReason: { unified: "stop", raw: "stop" },
							usage,
							warnings: [],
						};
					},
				}),
			});
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect(prompts.length).toBe(1);
		expect(prompts[0]).toContain("wrangler deploy --env production");
		expect(prompts[0]).toContain("run the migration check");
		expect(prompts[0]).toContain("Summary one: deploys use wrangler.");
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }))).skills.map((s: Loose) => s.name)).toEqual([
			"deploy",
		]);
		expect(await (await call(`/v1/projects/${projectId}/skills/deploy`, { token: tenant.token })).text()).toContain("2. wrangler deploy");
		// The model's summary, with the date it was written.
		expect(await (await call(`/v1/projects/${projectId}/summary`, { token: tenant.token })).text()).toMatch(
			/^_Written \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\._\n\nSummary one: deploys use wrangler\.$/,
		);

		// A skill is removed only when the model retires it, with its reason.
		await addOutput("s-3", [statement("Deploys go through CI now", "reference", "deploys-through-ci")]);
		await configure((i) => {
			setSeams(i, {
				model: scripted({
					operations: [],
					skills: [],
					retiredSkills: [{ name: "deploy", reason: "deploys now go through CI; nobody runs wrangler by hand" }],
					summary: "Summary three: deploys go through CI.",
				}),
			});
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }))).skills).toEqual([]);
		const events = await projectDb(projectId)
			.prepare("SELECT reason FROM consolidation_events WHERE project_id = ? AND op = 'skill-delete'")
			.bind(projectId)
			.all<{ reason: string }>();
		expect(events.results.map((e) => e.reason)).toEqual(["deploys now go through CI; nobody runs wrangler by hand"]);
	});

	it("offline: a skill made from a procedure is retired once its source memory is gone", async () => {
		await addOutput("s-proc", [
			{
				name: "how-to-cut-a-release",
				type: "reference",
				description: "How to cut a release",
				body: "1. bump the version\n2. tag it\n3. push the tag",
				evidence: ["t0"],
				userStated: true,
				procedure: true,
			},
		]);
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await call(`/v1/projects/${projectId}/memories/how-to-cut-a-release`, { token: tenant.token })).status).toBe(200);
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }))).skills.length).toBe(1);

		// Another run with the source memory still there keeps the skill.
		await addOutput("s-other", [statement("Never commit directly to main", "feedback", "never-commit-directly-main")]);
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }))).skills.length).toBe(1);

		expect((await call(`/v1/projects/${projectId}/memories/how-to-cut-a-release`, { token: tenant.token, method: "DELETE" })).status).toBe(
			204,
		);
		await addOutput("s-later", [statement("Prefer small pull requests", "user", "small-pull-requests")]);
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		expect((await json(await call(`/v1/projects/${projectId}/skills`, { token: tenant.token }))).skills).toEqual([]);
	});

	it("bad input and switched-off memory", async () => {
		await expectError(await call(`/v1/projects/${projectId}/skills/Bad_Name`, { token: tenant.token }), 400, "invalid_name");
		await expectError(await call(`/v1/projects/${projectId}/skills/none`, { token: tenant.token }), 404, "not_found");
		await expectError(await call("/v1/projects/prj_missing/status", { token: tenant.token }), 404, "not_found");
		await expectError(await call(`/v1/projects/${projectId}/status`), 401, "unauthorized");
		const readOnly = await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read"] } }));
		await expectError(await call(`/v1/projects/${projectId}/consolidate`, { token: readOnly.key.token, method: "POST" }), 403, "forbidden");
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": false } });
		await expectError(
			await call(`/v1/projects/${projectId}/consolidate`, { token: tenant.token, method: "POST" }),
			403,
			"feature_disabled",
		);
		expect((await status()).pendingOutputs).toBe(0);
	});
});
