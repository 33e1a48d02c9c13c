// What each memory was worth to the sessions it reached, counted from the transcripts Claude Code and
// Codex post (records as the agents write them): cited when the agent's own reply names its memory://
// path, read when a tool call opened it, served when recall or inject handed it out — once per session
// and kind, whatever is posted again, and never from the injected blocks, tool output or the user's text.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeEach, describe, expect, it } from "vitest";
import { readTurns } from "../src/ingest/ingest";
import { useOf, useScore } from "../src/memory/use";
import type { ProjectCoordinator } from "../src/project/object";
import { findCandidates } from "../src/search/candidates";
import { call, createProject, createTenant, expectError, json, type Loose, putMemory, type Tenant, until } from "./helpers";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
const fixture = (name: string) => own[`./fixtures/transcripts/${name}`] as string;

let tenant: Tenant;
let projectId: string;
const base = () => `/v1/projects/${projectId}`;

const post = (sessionId: string, body: string, token = tenant.token) =>
	call(`${base()}/sessions/${sessionId}/transcript`, { token, headers: { "Content-Type": "application/x-ndjson" }, body });

/** The use a memory shows in its metadata: served, cited and read (sessions), and when last. */
async function use(name: string, scope: "personal" | "team" = "personal", token = tenant.token): Promise<Loose> {
	const res = await call(`${base()}/memories/${name}?scope=${scope}`, { token, headers: { Accept: "application/json" } });
	expect(res.status, name).toBe(200);
	const { memory } = await json(res);
	return {
		served: memory.sessionsServed,
		cited: memory.sessionsCited,
		read: memory.sessionsRead,
		lastCitedAt: memory.lastCitedAt,
		lastReadAt: memory.lastReadAt,
	};
}

const none = { served: 0, cited: 0, read: 0, lastCitedAt: null, lastReadAt: null };

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const [name, scope, body] of [
		["release-process", "personal", "Ship with `make ship`; never run `npm publish` by hand."],
		["deploy-freeze", "personal", "No deploys on Fridays after 12:00 UTC."],
		["staging-url", "personal", "Staging lives at https://staging.shop.example"],
		["pnpm-only", "team", "Use pnpm for every install; never npm or yarn."],
		["ci-cache", "team", "CI caches the pnpm store keyed on the lockfile."],
	] as const) {
		expect((await putMemory(tenant.token, projectId, name, body, { scope })).status).toBe(201);
	}
});

describe("uses read from the agents' transcripts", () => {
	it("a Claude Code session: cited in the agent's replies, read through memory_read and ReadMcpResourceTool; injected blocks, tool output and the user's text count for nothing", async () => {
		const posted = await json(await post("cc-use", fixture("claude-memory-use.jsonl")));
		expect(posted).toMatchObject({ agent: "claude", duplicates: 0, unknown: 0 });

		expect(await use("pnpm-only", "team")).toEqual({ ...none, cited: 1, lastCitedAt: "2026-11-10T09:01:02.000Z" });
		expect(await use("release-process")).toEqual({ ...none, read: 1, lastReadAt: "2026-11-10T09:00:09.000Z" });
		expect(await use("ci-cache", "team")).toEqual({ ...none, read: 1, lastReadAt: "2026-11-10T09:00:11.000Z" });
		// In the SessionStart and UserPromptSubmit hook context, a tool result, the agent's thinking, the
		// compaction summary and the user's own question only.
		expect(await use("deploy-freeze")).toEqual(none);
		expect(await use("staging-url")).toEqual(none);

		// The read calls keep the URL they opened on their turns.
		const turns = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (i: ProjectCoordinator) =>
			readTurns(i.penv, projectId, "cc-use", 0, 1000),
		);
		expect(turns.filter((t) => t.readsMemory).map((t) => [t.tool, t.readsMemory])).toEqual([
			["mcp__cairn__memory_read", "memory://root/release-process.md"],
			["ReadMcpResourceTool", "memory://root/team/ci-cache.md"],
		]);

		// Posting the same file again, whole or from the middle, counts nothing twice.
		expect(await json(await post("cc-use", fixture("claude-memory-use.jsonl")))).toMatchObject({ accepted: 0 });
		const lines = fixture("claude-memory-use.jsonl").split("\n");
		expect(await json(await post("cc-use", lines.slice(5).join("\n")))).toMatchObject({ accepted: 0 });
		expect(await use("pnpm-only", "team")).toMatchObject({ cited: 1 });
		expect(await use("release-process")).toMatchObject({ read: 1 });

		// Another session citing it counts again: uses are counted in sessions.
		await post("cc-use-2", fixture("claude-memory-use.jsonl"));
		expect(await use("pnpm-only", "team")).toMatchObject({ cited: 2, read: 0 });
		expect(await use("ci-cache", "team")).toMatchObject({ cited: 0, read: 2 });
	});

	it("a Codex rollout: memory_read under the server's namespace and read_mcp_resource are reads; a plain path to a team memory is the team's; the developer-role hook context is not a citation", async () => {
		const posted = await json(await post("cx-use", fixture("codex-memory-use.jsonl")));
		expect(posted).toMatchObject({ agent: "codex", duplicates: 0, unknown: 0 });

		expect(await use("release-process")).toEqual({ ...none, read: 1, lastReadAt: "2026-11-11T10:00:10.000Z" });
		expect(await use("pnpm-only", "team")).toEqual({ ...none, read: 1, lastReadAt: "2026-11-11T10:00:12.000Z" });
		expect(await use("ci-cache", "team")).toEqual({ ...none, cited: 1, lastCitedAt: "2026-11-11T10:00:16.000Z" });
		expect(await use("deploy-freeze")).toEqual(none);
		expect(await use("staging-url")).toEqual(none);

		expect(await json(await post("cx-use", fixture("codex-memory-use.jsonl")))).toMatchObject({ accepted: 0 });
		expect(await use("ci-cache", "team")).toMatchObject({ cited: 1 });

		// A rollout that grows: only its new lines are read, and a repeated citation in the same session is not a new one.
		const more = JSON.stringify({
			timestamp: "2026-11-11T10:05:00.000Z",
			type: "response_item",
			payload: {
				type: "message",
				role: "assistant",
				content: [
					{
						type: "output_text",
						text: "As memory://root/ci-cache.md says, the cache is warm again. See memory://root/deploy-freeze.md too.",
					},
				],
			},
		});
		expect(await json(await post("cx-use", `${fixture("codex-memory-use.jsonl")}${more}\n`))).toMatchObject({ accepted: 1 });
		expect(await use("ci-cache", "team")).toMatchObject({ cited: 1, lastCitedAt: "2026-11-11T10:05:00.000Z" });
		expect(await use("deploy-freeze")).toMatchObject({ cited: 1 });
	});

	it("a plain path is the caller's personal memory first; another user's sessions and personal memories are their own", async () => {
		// A personal memory named like the team one takes the plain path (as memory_read resolves it).
		expect((await putMemory(tenant.token, projectId, "ci-cache", "My own note on the CI cache.")).status).toBe(201);
		await post("cx-use", fixture("codex-memory-use.jsonl"));
		expect(await use("ci-cache", "personal")).toMatchObject({ cited: 1 });
		expect(await use("ci-cache", "team")).toMatchObject({ cited: 0 });

		// Bob posts the same session id: his own session; his personal namespace has no release-process.
		const bob = (await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user: "bob" } }))).key.token;
		expect((await json(await post("cx-use", fixture("codex-memory-use.jsonl"), bob))).accepted).toBeGreaterThan(0);
		expect(await use("release-process")).toMatchObject({ read: 1 });
		expect(await use("pnpm-only", "team", bob)).toMatchObject({ read: 2 });
		expect(await use("ci-cache", "team", bob)).toMatchObject({ cited: 1 });
	});
});

describe("reads the service resolves for a session", () => {
	const connect = async (session?: string) => {
		const transport = new StreamableHTTPClientTransport(new URL("https://cairn.test/mcp"), {
			fetch: (url, init) => exports.default.fetch(new Request(url, init)),
			requestInit: {
				headers: {
					Authorization: `Bearer ${tenant.token}`,
					"X-Cairn-Project": projectId,
					...(session ? { "X-Cairn-Session": session } : {}),
				},
			},
		});
		const client = new Client({ name: "cairn-use-test", version: "1.0.0" });
		await client.connect(transport);
		return client;
	};

	it("memory_read, resources/read and GET …/resolve with X-Cairn-Session count once per session, together with the transcript's record of the same read", async () => {
		const client = await connect("cx-use");
		await client.callTool({ name: "memory_read", arguments: { url: "memory://root/release-process.md" } });
		await client.callTool({ name: "memory_read", arguments: { url: "memory://root/release-process.md" } });
		await client.readResource({ uri: "memory://root/team/pnpm-only.md" });
		// Not topic files, or no such memory: nothing to count.
		await client.callTool({ name: "memory_read", arguments: { url: "memory://root/MEMORY.md" } });
		await client.callTool({ name: "memory_read", arguments: { url: "memory://root/no-such-memory.md" } });
		await client.close();
		expect(await use("release-process")).toMatchObject({ read: 1 });
		expect(await use("pnpm-only", "team")).toMatchObject({ read: 1 });
		// The rollout records the same reads: still one session each.
		await post("cx-use", fixture("codex-memory-use.jsonl"));
		expect(await use("release-process")).toMatchObject({ read: 1 });
		expect(await use("pnpm-only", "team")).toMatchObject({ read: 1 });

		const resolve = (url: string, session?: string) =>
			call(`${base()}/resolve?url=${encodeURIComponent(url)}`, {
				token: tenant.token,
				headers: session === undefined ? {} : { "X-Cairn-Session": session },
			});
		expect((await resolve("memory://root/release-process.md", "svc-2")).status).toBe(200);
		expect(await use("release-process")).toMatchObject({ read: 2 });
		// Without a session the read cannot be placed in one, and the transcript will say it if it happened.
		expect((await resolve("memory://root/release-process.md")).status).toBe(200);
		const anonymous = await connect();
		await anonymous.callTool({ name: "memory_read", arguments: { url: "memory://root/release-process.md" } });
		await anonymous.close();
		expect(await use("release-process")).toMatchObject({ read: 2 });

		await expectError(await resolve("memory://root/release-process.md", "bad id!"), 400, "invalid_request");
		await expectError(await resolve("memory://root/release-process.md", "x".repeat(129)), 400, "invalid_request");
		await expectError(await resolve("memory://root/no-such-memory.md", "svc-3"), 404, "not_found");
	});
});

describe("served, beside cited and read", () => {
	it("inject with a session id counts a memory once per session it reached; times served counts every delivery", async () => {
		const inject = (sessionId: string) =>
			call(`${base()}/inject`, { token: tenant.token, json: { query: "which package manager installs dependencies: pnpm", sessionId } });
		for (const session of ["s-1", "s-1", "s-2"]) expect((await inject(session)).status).toBe(200);
		const metadata = async () =>
			(await json(await call(`${base()}/memories/pnpm-only?scope=team`, { token: tenant.token, headers: { Accept: "application/json" } })))
				.memory;
		const served = await until(metadata, (m) => m.timesServed >= 3);
		expect(served).toMatchObject({ timesServed: 3, sessionsServed: 2, sessionsCited: 0, sessionsRead: 0, archivedAt: null });

		// The listing carries the same counts.
		await post("cc-use", fixture("claude-memory-use.jsonl"));
		const listed = (await json(await call(`${base()}/memories?scope=team`, { token: tenant.token }))).memories as Loose[];
		expect(listed.find((m) => m.name === "pnpm-only")).toMatchObject({ sessionsServed: 2, sessionsCited: 1, sessionsRead: 0 });
	});

	it("recall's candidate rows carry the counts, ready for ranking by use", async () => {
		await post("cc-use", fixture("claude-memory-use.jsonl"));
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
		const set = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (i: ProjectCoordinator) =>
			findCandidates(i.db, ctx, ["pnpm"], { scopes: ["personal", "team"], limit: 5 }, { embedder: null }),
		);
		const row = set.rows.find((r) => r.name === "pnpm-only");
		expect(row).toMatchObject({ cited_sessions: 1, read_sessions: 0, served_sessions: 0, last_cited_at: "2026-11-10T09:01:02.000Z" });
		const counts = useOf(row as NonNullable<typeof row>);
		expect(counts).toEqual({ served: 0, cited: 1, read: 0, lastUsedAt: "2026-11-10T09:01:02.000Z" });
		expect(useScore(counts, Date.parse("2026-11-11T00:00:00Z"))).toBeGreaterThan(useScore(useOf({}), Date.now()));
	});
});
