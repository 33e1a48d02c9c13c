import { createExecutionContext, createMessageBatch, getQueueResult, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import { transcriptItems } from "../src/extract/stage-one";
import { processRange, retryDelaySeconds } from "../src/pipeline/consumer";
import type { ExtractMessage } from "../src/pipeline/messages";
import { scanProjectIdleSessions } from "../src/pipeline/triggers";
import { projectStore } from "../src/project/client";
import type { ProjectCoordinator } from "../src/project/object";
import type { Turn } from "../src/sessions/turns";
import { idleScanSlice } from "../src/worker/cron";
import { handleExtractBatch } from "../src/worker/queue";
import { call, createProject, createTenant, json, type Loose, projectDb, putMemory, type Tenant } from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;
let projectId: string;

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A scripted model that answers `text` and records every prompt it was given. */
function scripted(text: string | (() => string)) {
	const prompts: string[] = [];
	const model = new MockLanguageModelV4({
		doGenerate: async (options) => {
			prompts.push(JSON.stringify(options.prompt));
			return {
				content: [{ type: "text", text: typeof text === "function" ? text() : text }],
				finishReason: { unified: "stop", raw: "stop" },
				usage,
				warnings: [],
			};
		},
	});
	return { model, prompts };
}

const line = (id: string, role: string, content: string, ts = new Date().toISOString()) => JSON.stringify({ id, role, content, ts });
const postLines = (sessionId: string, lines: string[]) =>
	call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		token: tenant.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body: lines.join("\n"),
	});
const setSettings = (values: Loose) => call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: values });
const stub = () => env.PROJECT_COORDINATOR.getByName(projectId);
/** Runs `fn` inside the project's object, where its data and the domain functions over it live. */
const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) => runInDurableObject(stub(), fn);
const sessionRow = (id: string) =>
	projectDb(projectId).prepare("SELECT * FROM sessions WHERE project_id = ? AND id = ?").bind(projectId, id).first<Loose>();
const outputs = async (id: string) =>
	(
		await projectDb(projectId)
			.prepare("SELECT * FROM stage1_outputs WHERE project_id = ? AND session_id = ? ORDER BY from_seq")
			.bind(projectId, id)
			.all<Loose>()
	).results;

const deliver = async (messages: { body: unknown; attempts?: number }[], model: MockLanguageModelV4 | null) => {
	const batch = createMessageBatch(
		"cairn-extract",
		messages.map((m, i) => ({ id: `m${i}`, timestamp: new Date(), attempts: m.attempts ?? 1, body: m.body })),
	);
	const ctx = createExecutionContext();
	// The range runs in the project's object, with the stage-1 model set on it.
	await inProject(async (i) => {
		setSeams(i, { extractModel: model });
	});
	await handleExtractBatch(batch, env);
	return getQueueResult(batch, ctx);
};

const GOOD = JSON.stringify({
	raw_memory: "- The team uses pnpm.",
	summary: "The user set up dependencies and stated the package manager rule.",
	candidates: [
		{ name: "Package Manager", type: "feedback", description: "Use pnpm, never npm", body: "Always pnpm.", evidence: ["t0", "t99"] },
	],
});

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await setSettings({ "memories.enabled": true });
});

describe("stage 1 on the queue", () => {
	it("the same message delivered three times gives one output and one cursor advance", async () => {
		await postLines("dup", [line("1", "user", "From now on always use pnpm."), line("2", "assistant", "Understood.")]);
		const { model, prompts } = scripted(GOOD);
		const body: ExtractMessage = { projectId, sessionId: "dup", fromSeq: 0, toSeq: 1 };
		const result = await deliver([{ body }, { body }, { body }], model);
		expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m2"]);
		expect(prompts.length).toBe(1);
		const rows = await outputs("dup");
		expect(rows.length).toBe(1);
		expect(rows[0]).toMatchObject({ from_seq: 0, to_seq: 1, extractor: "model", consolidated_at: null });
		// The model's name is folded into a slug; evidence outside the range is dropped.
		expect(JSON.parse(rows[0]?.candidates_json)).toEqual([
			{
				name: "package-manager",
				type: "feedback",
				description: "Use pnpm, never npm",
				body: "Always pnpm.",
				evidence: ["t0"],
				userStated: true,
				// The time of the turn the statement rests on (consolidation's "newer explicit signal").
				statedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
			},
		]);
		expect(await sessionRow("dup")).toMatchObject({ cursor: 2, extraction_state: "idle", last_error: null });
		// And the coordinator heard that new output exists.
		expect(await projectStore(env, projectId).status(projectId)).toMatchObject({ dirty: true });
	});

	it("concurrent deliveries of one range commit once", async () => {
		await postLines("race", [line("1", "user", "Never commit to main directly.")]);
		const body: ExtractMessage = { projectId, sessionId: "race", fromSeq: 0, toSeq: 0 };
		const settled = await inProject((i) =>
			Promise.allSettled([1, 2, 3].map(() => processRange(i.penv, body, { model: null, markDirty: async () => {} }))),
		);
		expect(settled.filter((s) => s.status === "fulfilled").length).toBeGreaterThanOrEqual(1);
		expect((await outputs("race")).length).toBe(1);
		expect((await sessionRow("race"))?.cursor).toBe(1);
	});

	it("invalid model JSON is retried with backoff, then dead-lettered with the error on the session", async () => {
		await postLines("bad", [line("1", "user", "Remember that deploys need approval.")]);
		const { model } = scripted("this is { not json");
		const body: ExtractMessage = { projectId, sessionId: "bad", fromSeq: 0, toSeq: 0 };
		for (let attempt = 1; attempt <= 4; attempt++) {
			const result = await deliver([{ body, attempts: attempt }], model);
			expect(result.retryMessages.map((m) => m.msgId)).toEqual(["m0"]);
			const row = await sessionRow("bad");
			expect(row?.extraction_state).toBe(attempt < 4 ? "retrying" : "dead_letter");
			expect(row?.last_error).toBe(`the model's answer was not valid stage-1 JSON (attempt ${attempt} of 4)`);
			expect(row?.cursor).toBe(0);
		}
		expect(await outputs("bad")).toEqual([]);
		const session = await json(await call(`/v1/projects/${projectId}/sessions/bad`, { token: tenant.token }));
		expect(session.session.extraction).toEqual({
			state: "dead_letter",
			lastError: "the model's answer was not valid stage-1 JSON (attempt 4 of 4)",
		});
		// A later success clears the error.
		await deliver([{ body, attempts: 1 }], scripted(GOOD).model);
		expect(await sessionRow("bad")).toMatchObject({ cursor: 1, extraction_state: "idle", last_error: null });
	});

	it("a transcript holding an API key: neither the model's input nor anything stored contains it", async () => {
		const key = `ghp_${"A1b2C3d4E5".repeat(3)}xYz123`;
		const leaked = `xoxb-${"1234567890"}-${"9876543210"}-${"q8W2e4R6t8Y0u2I4o6P8a0S2"}`;
		await postLines("sec", [
			line("1", "user", `Use this token for the registry: ${key}`),
			line("2", "assistant", `Configured the registry with ${key}.`),
			line("3", "tool_call", `gh auth login --with-token ${key}`),
		]);
		// The model tries to store a secret of its own: that candidate is dropped, and text is redacted.
		const { model, prompts } = scripted(
			JSON.stringify({
				raw_memory: `registry key ${leaked}`,
				summary: "Registry setup.",
				candidates: [
					{ name: "registry", type: "reference", description: "Registry", body: `aws key ${leaked}`, evidence: ["t0"] },
					{
						name: "registry-host",
						type: "reference",
						description: "The registry is npm.acme.internal",
						body: "Host npm.acme.internal",
						evidence: ["t0"],
					},
				],
			}),
		);
		await deliver([{ body: { projectId, sessionId: "sec", fromSeq: 0, toSeq: 2 } }], model);
		expect(prompts.length).toBe(1);
		expect(prompts[0]).not.toContain(key);
		expect(prompts[0]).toContain("[REDACTED:");
		// The model gets the rules on what to keep and what not to, and the transcript between its delimiters.
		const prompt = JSON.parse(prompts[0] as string) as { role: string; content: unknown }[];
		const system = JSON.stringify(prompt.filter((m) => m.role === "system"));
		for (const rule of ["derivable from the code", "ephemeral state", "one-off task details", "Always keep", "correction", "team"]) {
			expect(system).toContain(rule);
		}
		const user = JSON.stringify(prompt.filter((m) => m.role === "user"));
		expect(user).toMatch(/<transcript>[\s\S]*Use this token for the registry: \[REDACTED:[\s\S]*<\/transcript>/);
		const rows = await outputs("sec");
		const stored = JSON.stringify(rows);
		expect(stored).not.toContain(key);
		expect(stored).not.toContain(leaked);
		expect(JSON.parse(rows[0]?.candidates_json).map((c: Loose) => c.name)).toEqual(["registry-host"]);
		const objects = await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/` });
		for (const o of objects.objects) expect(await (await env.FILES.get(o.key))?.text()).not.toContain(key);
	});

	it("a write recorded with X-Cairn-Session leaves out only the call that made it: the rest of the range is extracted", async () => {
		await postLines("agent", [line("1", "user", "Always run the linter before committing."), line("2", "assistant", "Will do.")]);
		// Turns 0-1 come before the write; the write lands at turn 2 (the session's turn count then).
		const write = await putMemory(tenant.token, projectId, "lint-first", "Run the linter before committing.", {
			headers: { "X-Cairn-Session": "agent" },
		});
		expect(write.status).toBe(201);
		// The agent's transcript arrives afterwards: the call that made the write is turn 2, its result turn 3.
		const curl = `curl -X PUT "$CAIRN_URL/v1/projects/${projectId}/memories/lint-first" -H "X-Cairn-Session: agent" --data "Lint config lives in tools/lint.toml; run the linter before committing."`;
		await postLines("agent", [
			JSON.stringify({ id: "3", role: "tool_call", name: "Bash", call_id: "w1", content: { command: curl }, ts: new Date().toISOString() }),
			JSON.stringify({ id: "4", role: "tool", name: "Bash", call_id: "w1", content: "201 Created", ts: new Date().toISOString() }),
			line("5", "user", "Thanks. Never skip the linter, and keep CI green."),
			line("6", "assistant", "Noted."),
		]);
		const first = scripted(GOOD);
		await deliver([{ body: { projectId, sessionId: "agent", fromSeq: 0, toSeq: 1 } }], first.model);
		expect(first.prompts.length).toBe(1);
		// The model cites the agent's own call and the user's turn: only the user's turn survives as evidence.
		const second = scripted(
			JSON.stringify({
				raw_memory: "- Never skip the linter.",
				summary: "The agent saved the lint rule; the user insisted on it.",
				candidates: [
					{
						name: "never-skip-lint",
						type: "feedback",
						description: "Never skip the linter",
						body: "Never skip it.",
						evidence: ["t2", "t4"],
					},
				],
			}),
		);
		await deliver([{ body: { projectId, sessionId: "agent", fromSeq: 2, toSeq: 5 } }], second.model);
		// The range is extracted, not skipped…
		expect(second.prompts.length).toBe(1);
		expect(second.prompts[0]).toContain("Never skip the linter, and keep CI green.");
		// …without the agent's own write: neither the call carrying the written content nor its result.
		expect(second.prompts[0]).not.toContain("tools/lint.toml");
		expect(second.prompts[0]).not.toContain("201 Created");
		const rows = await outputs("agent");
		expect(rows.map((r) => [r.from_seq, r.to_seq, r.extractor, JSON.parse(r.agent_write_turns)])).toEqual([
			[0, 1, "model", []],
			[2, 5, "model", [2, 3]],
		]);
		expect(rows[1]?.consolidated_at).toBeNull();
		expect(JSON.parse(rows[1]?.candidates_json)).toEqual([
			{
				name: "never-skip-lint",
				type: "feedback",
				description: "Never skip the linter",
				body: "Never skip it.",
				evidence: ["t4"],
				userStated: true,
				// The time of the turn the statement rests on (consolidation's "newer explicit signal").
				statedAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
			},
		]);
		expect((await sessionRow("agent"))?.cursor).toBe(6);
	});

	it("does nothing for a project whose memory is off, or a session that does not exist", async () => {
		await postLines("off", [line("1", "user", "From now on use pnpm.")]);
		await setSettings({ "memories.enabled": false });
		await projectDb(projectId)
			.prepare("UPDATE sessions SET extraction_state = 'queued', queued_at = ? WHERE project_id = ? AND id = 'off'")
			.bind(new Date().toISOString(), projectId)
			.run();
		const range = (sessionId: string) =>
			inProject((i) => processRange(i.penv, { projectId, sessionId, fromSeq: 0, toSeq: 0 }, { model: null, markDirty: async () => {} }));
		expect(await range("off")).toBe("disabled");
		expect(await sessionRow("off")).toMatchObject({ extraction_state: "idle", queued_at: null, cursor: 0 });
		expect(await outputs("off")).toEqual([]);
		expect(await range("ghost")).toBe("gone");
		const result = await deliver([{ body: { projectId, sessionId: 7 } }], null);
		expect(result.explicitAcks).toEqual(["m0"]);
	});
});

describe("idle scan", () => {
	const hoursAgo = (h: number, now: number) => new Date(now - h * 3_600_000).toISOString();

	it("honours minRolloutIdleHours, maxRolloutAgeDays and maxRolloutsPerStartup, newest first", async () => {
		const now = Date.now();
		const ages: [string, number][] = [
			["fresh", 1],
			["idle-13h", 13],
			["idle-2d", 48],
			["idle-10d", 240],
			["old-40d", 40 * 24],
		];
		for (const [id, h] of ages) await postLines(id, [line("1", "user", `Session ${id}.`, hoursAgo(h, now))]);
		// The scan runs per project, inside the project's object.
		const picked = async () =>
			(await inProject((i) => scanProjectIdleSessions(i.penv, projectId, tenant.tenantId, now))).chosen
				.filter((c) => c.project_id === projectId)
				.map((c) => c.id);

		await setSettings({ "memories.maxRolloutsPerStartup": 2 });
		expect(await picked()).toEqual(["idle-13h", "idle-2d"]);
		// Queued sessions are not picked again while their range is in flight.
		await projectDb(projectId)
			.prepare("UPDATE sessions SET queued_at = NULL, cursor = 0, extraction_state = 'idle' WHERE project_id = ?")
			.bind(projectId)
			.run();

		await setSettings({ "memories.maxRolloutsPerStartup": 10, "memories.minRolloutIdleHours": 0.5, "memories.maxRolloutAgeDays": 60 });
		const all = await picked();
		expect(all).toEqual(["fresh", "idle-13h", "idle-2d", "idle-10d", "old-40d"].filter((id) => all.includes(id)));
		expect(all).toContain("fresh");
		expect(all).toContain("old-40d");
		await projectDb(projectId)
			.prepare("UPDATE sessions SET queued_at = NULL, cursor = 0, extraction_state = 'idle' WHERE project_id = ?")
			.bind(projectId)
			.run();

		await setSettings({ "memories.minRolloutIdleHours": 24, "memories.maxRolloutAgeDays": 5 });
		expect(await picked()).toEqual(["idle-2d"]);
		await projectDb(projectId)
			.prepare("UPDATE sessions SET queued_at = NULL, cursor = 0, extraction_state = 'idle' WHERE project_id = ?")
			.bind(projectId)
			.run();

		await setSettings({ "memories.extractionTrigger": "per-turn" });
		expect(await picked()).toEqual([]);
		await setSettings({ "memories.extractionTrigger": "idle", "memories.enabled": false });
		expect(await picked()).toEqual([]);
	});

	it("the cron visits projects whose transcripts added turns, and stops visiting once none are left", async () => {
		const now = Date.now();
		const pendingWork = async () =>
			(await env.DB.prepare("SELECT pending_work FROM projects WHERE id = ?").bind(projectId).first<{ pending_work: number }>())
				?.pending_work;
		expect(await pendingWork()).toBe(0);
		await postLines("quiet", [line("1", "user", "From now on always use pnpm.", hoursAgo(13, now))]);
		expect(await pendingWork()).toBe(1);
		// A limit above the number of projects: this run's slice covers every project with pending work.
		const first = await idleScanSlice(env, { now, limit: 10_000 });
		expect(first.projects).toBeGreaterThanOrEqual(1);
		expect(first.queued).toBeGreaterThanOrEqual(1);
		const queued = await sessionRow("quiet");
		// Queued, or already processed by the local queue consumer.
		expect(queued?.queued_at !== null || queued?.cursor === 1).toBe(true);
		// The project still holds unprocessed turns until stage 1 has run on them.
		for (let i = 0; i < 100 && (await sessionRow("quiet"))?.cursor !== 1; i++) await new Promise((r) => setTimeout(r, 100));
		expect(await sessionRow("quiet")).toMatchObject({ cursor: 1, extraction_state: "idle" });
		await idleScanSlice(env, { now, limit: 10_000 });
		expect(await pendingWork()).toBe(0);
		// A new post with new turns brings the project back.
		await postLines("quiet", [line("2", "user", "And never npm.", hoursAgo(13, now))]);
		expect(await pendingWork()).toBe(1);
	});
});

describe("offline extractor end to end", () => {
	it("with no model, a session where the user says to always use pnpm yields a feedback candidate after end", async () => {
		await postLines("pnpm", [
			line("1", "user", "Set up the workspace. From now on always use pnpm, never npm."),
			line("2", "assistant", "Switching the scripts to pnpm."),
			line("3", "tool_call", "pnpm install"),
		]);
		const end = await call(`/v1/projects/${projectId}/sessions/pnpm/end`, { token: tenant.token, method: "POST" });
		expect(end.status).toBe(202);
		// The local queue delivers the range to the Worker's own consumer.
		let found: Loose | undefined;
		for (let i = 0; i < 100 && !found; i++) {
			const body = await json(await call(`/v1/projects/${projectId}/candidates`, { token: tenant.token }));
			found = body.outputs.find((o: Loose) => o.sessionId === "pnpm");
			if (!found) await new Promise((r) => setTimeout(r, 200));
		}
		expect(found).toMatchObject({ extractor: "offline", fromSeq: 0, toSeq: 2 });
		const candidate = found?.candidates.find((c: Loose) => /pnpm/.test(c.description));
		expect(candidate).toMatchObject({ type: "feedback", evidence: ["t0"] });
		expect(candidate.name).toContain("pnpm");
		expect((await json(await call(`/v1/projects/${projectId}/sessions/pnpm`, { token: tenant.token }))).session).toMatchObject({
			cursor: 3,
			status: "ended",
		});
	}, 30_000);
});

describe("retry backoff", () => {
	it("doubles from 10 s per attempt, capped at 5 minutes", () => {
		expect([1, 2, 3, 4, 10].map(retryDelaySeconds)).toEqual([10, 20, 40, 80, 300]);
	});
});

describe("stage-1 input budget", () => {
	it("keeps the head and tail of a range that exceeds the budget", () => {
		const turns: Turn[] = Array.from({ length: 200 }, (_, seq) => ({
			seq,
			id: String(seq),
			role: "user",
			text: `message ${seq} `.repeat(20),
			ts: null,
		}));
		const { json: text, omitted } = transcriptItems(turns, 2_000);
		const items = text.split("\n").map((l) => JSON.parse(l));
		expect(omitted).toBeGreaterThan(0);
		expect(items[0].id).toBe("t0");
		expect(items.at(-1).id).toBe("t199");
		expect(items.find((i) => i.id === "omitted").text).toContain(`${omitted} items omitted`);
		expect(transcriptItems(turns.slice(0, 3), 2_000).omitted).toBe(0);
	});
});
