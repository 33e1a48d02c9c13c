import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeEach, describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { parseSections, refreshSessionMemory, SECTIONS } from "../src/session-memory/session-memory";
import { getSession } from "../src/sessions/sessions";
import { tokenCount } from "../src/text/tokens";
import { benchTranscripts } from "./bench-transcripts";
import { call, createProject, createTenant, expectError, json, type Tenant } from "./helpers";

const bench = Object.fromEntries(benchTranscripts());
const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
// The longest real transcript available (the largest dev file when the evaluation material is present).
const longest = [...Object.values(bench), ...Object.values(own)].sort((a, b) => b.length - a.length)[0] as string;

let tenant: Tenant;
let projectId: string;
const post = (sessionId: string, body: string) =>
	call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		token: tenant.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body,
	});
const settings = (values: Record<string, unknown>) =>
	call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: values });
/** Runs `fn` inside the project's object, where its sessions live. */
const inProject = <T>(fn: (instance: ProjectCoordinator) => Promise<T>) =>
	runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), fn);
const sessionRow = (sessionId: string) => inProject((i) => getSession(i.db, projectId, sessionId));
const sectionTokens = (text: string) => Object.values(parseSections(text)).map((s) => tokenCount(s ?? ""));

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await settings({ "memories.enabled": true, "memories.sessionMemoryRefreshTurns": 10_000 });
});

describe("session memory", () => {
	it("on a long real transcript: the template's sections, within the total and per-section caps", async () => {
		expect((await post("long", longest)).status).toBe(200);
		const compact = await call(`/v1/projects/${projectId}/sessions/long/memory/compact`, { token: tenant.token, method: "POST" });
		expect(compact.status).toBe(200);
		const result = await json(compact);
		expect(result.engine).toBe("offline");
		expect(result.tokens).toBeLessThanOrEqual(12_000);
		const text = await (await call(`/v1/projects/${projectId}/sessions/long/memory`, { token: tenant.token })).text();
		expect(tokenCount(text)).toBe(result.tokens);
		expect(Object.keys(parseSections(text))).toEqual([...SECTIONS]);
		for (const tokens of sectionTokens(text)) expect(tokens).toBeLessThanOrEqual(2_000);
		expect(text).toMatch(/## Files and commands\n\n(Files|Commands):/);

		// A smaller cap is honoured too.
		await settings({ "memories.sessionMemoryTokenLimit": 700 });
		const small = await json(await call(`/v1/projects/${projectId}/sessions/long/memory/compact`, { token: tenant.token, method: "POST" }));
		expect(small.tokens).toBeLessThanOrEqual(700);
		const smallText = await (await call(`/v1/projects/${projectId}/sessions/long/memory`, { token: tenant.token })).text();
		for (const tokens of sectionTokens(smallText)) expect(tokens).toBeLessThanOrEqual(100);
	});

	it("offline: requests, decisions, errors, files and commands from the transcript", async () => {
		const lines = [
			{ id: "1", role: "user", content: "Fix the flaky login test. From now on always run the tests with --runInBand." },
			{ id: "2", role: "tool_call", name: "Bash", content: { command: "npm test -- src/auth/login.test.ts" } },
			{ id: "3", role: "tool", name: "Bash", content: "Error: timeout of 5000ms exceeded in src/auth/login.test.ts" },
			{ id: "4", role: "tool_call", name: "Edit", content: { file_path: "src/auth/login.test.ts" } },
			{ id: "5", role: "user", content: "No, don't raise the timeout; mock the clock instead." },
			{ id: "6", role: "assistant", content: "Switched to fake timers; the test passes." },
		];
		await post("s", lines.map((l) => JSON.stringify(l)).join("\n"));
		const text = await (await call(`/v1/projects/${projectId}/sessions/s/memory`, { token: tenant.token })).text();
		const sections = parseSections(text);
		expect(sections.Task).toContain("Fix the flaky login test");
		expect(sections["Key decisions"]).toContain("always run the tests with --runInBand");
		expect(sections["Errors and corrections"]).toContain("timeout of 5000ms exceeded");
		expect(sections["Errors and corrections"]).toContain("user correction: No, don't raise the timeout");
		expect(sections["Files and commands"]).toContain("src/auth/login.test.ts");
		expect(sections["Files and commands"]).toContain("`npm test -- src/auth/login.test.ts`");
		expect(sections["Current state"]).toContain("Switched to fake timers");
		expect(sections["Work log"]).toContain("t0: Fix the flaky login test");
	});

	it("with a model: the notes are the model's, within caps; a failing model falls back to offline", async () => {
		await post("m", JSON.stringify({ id: "1", role: "user", content: "Port the CLI to Node 22." }));
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
		const session = await sessionRow("m");
		const answer = `${SECTIONS.map((s) => `## ${s}\n\n${s === "Task" ? "Port the CLI to Node 22." : "word ".repeat(3000)}`).join("\n\n")}`;
		const model = new MockLanguageModelV4({
			doGenerate: {
				content: [{ type: "text", text: answer }],
				finishReason: { unified: "stop", raw: "stop" },
				usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
				warnings: [],
			},
		});
		const result = await inProject((i) => refreshSessionMemory(i.penv, ctx, session as NonNullable<typeof session>, 12_000, model));
		expect(result.engine).toBe("model");
		expect(result.tokens).toBeLessThanOrEqual(12_000);
		expect(parseSections(result.text).Task).toBe("Port the CLI to Node 22.");
		for (const tokens of sectionTokens(result.text)) expect(tokens).toBeLessThanOrEqual(2_000);

		const broken = new MockLanguageModelV4({
			doGenerate: async () => {
				throw new Error("provider down");
			},
		});
		const fallback = await inProject((i) => refreshSessionMemory(i.penv, ctx, session as NonNullable<typeof session>, 12_000, broken));
		expect(fallback.engine).toBe("offline");
		expect(parseSections(fallback.text).Task).toContain("Port the CLI to Node 22.");
	});

	it("refreshes automatically once enough new transcript has arrived", async () => {
		await settings({ "memories.sessionMemoryRefreshTurns": 2 });
		await post("auto", [1, 2].map((i) => JSON.stringify({ id: String(i), role: "user", content: `Request ${i}.` })).join("\n"));
		let row = await sessionRow("auto");
		for (let i = 0; i < 50 && row?.memory_turns !== 2; i++) {
			await new Promise((r) => setTimeout(r, 50));
			row = await sessionRow("auto");
		}
		expect(row?.memory_turns).toBe(2);
		await post("auto", JSON.stringify({ id: "3", role: "user", content: "Request 3." }));
		await new Promise((r) => setTimeout(r, 200));
		expect((await sessionRow("auto"))?.memory_turns).toBe(2);
	});

	it("respects its own switch and the session's owner; never touches long-term memory", async () => {
		await post("x", JSON.stringify({ id: "1", role: "user", content: "From now on use pnpm." }));
		await call(`/v1/projects/${projectId}/sessions/x/memory/compact`, { token: tenant.token, method: "POST" });
		expect((await json(await call(`/v1/projects/${projectId}/memories`, { token: tenant.token }))).memories).toEqual([]);
		await settings({ "memories.sessionMemory": false });
		const off = await expectError(
			await call(`/v1/projects/${projectId}/sessions/x/memory`, { token: tenant.token }),
			403,
			"feature_disabled",
		);
		expect(off.error.message).toContain("memories.sessionMemory");
		await expectError(
			await call(`/v1/projects/${projectId}/sessions/x/memory/compact`, { token: tenant.token, method: "POST" }),
			403,
			"feature_disabled",
		);
		await settings({ "memories.sessionMemory": true, "memories.teamMemory": false });
		expect((await call(`/v1/projects/${projectId}/sessions/x/memory`, { token: tenant.token })).status).toBe(200);
		await expectError(await call(`/v1/projects/${projectId}/sessions/nope/memory`, { token: tenant.token }), 404, "not_found");
		await expectError(await call(`/v1/projects/${projectId}/sessions/bad id/memory`, { token: tenant.token }), 400, "invalid_request");
	});
});
