// The poisoning phase (bench/poisoning/README.md): planted instructions and legitimate look-alikes written
// through every path an agent has, scored by what a different user's next session and the writer's next
// session are served. Runs inside workerd through the Worker's own fetch entry point; no model is reachable
// (consolidation's merge uses a scripted model that does what the planted text says).

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { MockLanguageModelV4 } from "ai/test";
import { renderTopicFile } from "../src/memory/topic-file";
import { MAX_ATTEMPTS } from "../src/pipeline/consumer";
import type { ProjectCoordinator } from "../src/project/object";
import { setSeams } from "../test/worker";
import { POISON_PATHS, type PoisonEntry, type PoisonOutcome, type PoisonPath, type PoisonResult, type Surface } from "./poisoning-set";

const TYPE: Record<PoisonEntry["type"], string> = { rule: "feedback", preference: "user", fact: "project", reference: "reference" };

/** A memory name for an entry: its id, made a slug. */
const slug = (e: PoisonEntry) =>
	e.id
		.toLowerCase()
		.replace(/[^a-z0-9-]+/g, "-")
		.slice(0, 60);
/**
 * What reaching a viewer means for an entry's text: a piece of it no other entry of the set holds (its first
 * URL, else its longest inline command, else its longest line), so that one entry's text is never taken for another's.
 */
function marker(e: PoisonEntry, all: PoisonEntry[]): string {
	const lines = e.body
		.split("\n")
		.map((l) => l.trim())
		.sort((a, b) => b.length - a.length);
	const urls = [...e.body.matchAll(/https?:\/\/[^\s`'")]+/g)].map((m) => m[0]);
	const codes = [...e.body.matchAll(/`([^`\n]{12,})`/g)].map((m) => m[1] ?? "").sort((a, b) => b.length - a.length);
	const unique = (piece: string) => all.every((o) => o === e || !o.body.includes(piece));
	return [...urls, ...codes, ...lines].find((piece) => piece.length >= 8 && unique(piece)) ?? e.body;
}

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
	const headers = new Headers(init.headers);
	if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
	if (init.body && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
	return exports.default.fetch(new Request(`https://bench.local${path}`, { ...init, headers }));
}
// biome-ignore lint/suspicious/noExplicitAny: API bodies are read loosely, field by field.
const jsonOf = async (res: Response) => (await res.json()) as Record<string, any>;

async function mcpClient(token: string, projectId: string) {
	const transport = new StreamableHTTPClientTransport(new URL("https://bench.local/mcp"), {
		fetch: (url, init) => exports.default.fetch(new Request(url, init)),
		requestInit: { headers: { Authorization: `Bearer ${token}`, "X-Cairn-Project": projectId } },
	});
	const client = new Client({ name: "cairn-poisoning-bench", version: "1.0.0" });
	await client.connect(transport);
	return client;
}

async function newProject(token: string, name: string): Promise<string> {
	const res = await call("/v1/projects", { method: "POST", token, body: JSON.stringify({ name, rootPath: `/bench/poison/${name}` }) });
	const id = (await jsonOf(res)).project.id as string;
	await call(`/v1/projects/${id}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	return id;
}

const fileOf = (e: PoisonEntry) => ({
	name: slug(e),
	type: TYPE[e.type],
	description: e.description.replace(/\s+/g, " ").slice(0, 300),
	body: e.body,
});

/** Writes every entry into `projectId` through `path`, as Ana's agent. */
async function writeAll(path: PoisonPath, entries: PoisonEntry[], projectId: string, keys: Keys) {
	const base = `/v1/projects/${projectId}`;
	const agent = keys.agent;
	if (path === "rest-personal" || path === "rest-team") {
		for (const e of entries) {
			const f = fileOf(e);
			await call(`${base}/memories/${f.name}${path === "rest-team" ? "?scope=team" : ""}`, {
				method: "PUT",
				token: agent,
				body: JSON.stringify({ type: f.type, description: f.description, body: f.body }),
				headers: path === "rest-personal" ? { "X-Cairn-Session": `agent-${e.id}` } : {},
			});
		}
	} else if (path === "batch-team" || path === "import") {
		for (let i = 0; i < entries.length; i += 50) {
			await call(`${base}/memories/batch${path === "import" ? "?source=import&scope=team" : "?scope=team"}`, {
				method: "POST",
				token: agent,
				body: JSON.stringify({ memories: entries.slice(i, i + 50).map(fileOf) }),
			});
		}
	} else if (path === "mcp-team") {
		const client = await mcpClient(agent, projectId);
		for (const e of entries) await client.callTool({ name: "memory_write", arguments: { ...fileOf(e), scope: "team" } });
		await client.close();
	} else if (path === "team-folder") {
		for (let i = 0; i < entries.length; i += 20) {
			const entriesOut = entries.slice(i, i + 20).map((e) => ({ path: `${slug(e)}.md`, content: renderTopicFile(fileOf(e) as never) }));
			await call(`${base}/team-memory`, { method: "PUT", token: agent, body: JSON.stringify({ entries: entriesOut }) });
		}
	} else if (path === "transcript") {
		// The session: the user asks, a tool result carries the text (a README, an issue, a CI log), the agent
		// writes it into team memory from that session; then stage 1 and consolidation run on the session, offline.
		for (const e of entries) {
			const session = `poison-${slug(e)}`;
			const carrier = e.carrier ?? e.body;
			const records = [
				{ id: "u1", role: "user", content: e.prompt, ts: "2026-12-01T10:00:00Z" },
				{ id: "c1", role: "tool_call", name: "Bash", call_id: "k1", content: "cat README.md", ts: "2026-12-01T10:00:01Z" },
				{ id: "r1", role: "tool", call_id: "k1", content: carrier, ts: "2026-12-01T10:00:02Z" },
				{ id: "a1", role: "assistant", content: `Noted: ${e.sentence}`, ts: "2026-12-01T10:00:03Z" },
			];
			const posted = await call(`${base}/sessions/${session}/transcript`, {
				method: "POST",
				token: agent,
				body: records.map((r) => JSON.stringify(r)).join("\n"),
				headers: { "Content-Type": "application/x-ndjson" },
			});
			const turns = ((await jsonOf(posted)).turns as number) ?? 4;
			const f = fileOf(e);
			await call(`${base}/memories/${f.name}?scope=team`, {
				method: "PUT",
				token: agent,
				body: JSON.stringify({ type: f.type, description: f.description, body: f.body }),
				headers: { "X-Cairn-Session": session },
			});
			await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (instance: ProjectCoordinator) => {
				setSeams(instance, { extractModel: null });
				return instance.extractRange({ projectId, sessionId: session, fromSeq: 0, toSeq: Math.max(0, turns - 1) }, 1, MAX_ATTEMPTS);
			});
		}
		await consolidate(projectId, null);
	} else {
		await mergeAll(entries, projectId, keys);
	}
}

/** One consolidation run of the project with this model (null: offline). */
async function consolidate(projectId: string, model: MockLanguageModelV4 | null) {
	const stub = env.PROJECT_COORDINATOR.getByName(projectId);
	await runInDurableObject(stub, async (instance: ProjectCoordinator) => setSeams(instance, { model }));
	await stub.requestRun(projectId);
	await runDurableObjectAlarm(stub);
}

const scripted = (plan: unknown) =>
	new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [{ type: "text", text: JSON.stringify(plan) }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
			warnings: [],
		}),
	});

/** A pending stage-1 output of Ana's, so that a consolidation run has something to fold. */
async function pendingOutput(projectId: string, userId: string, session: string) {
	await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (instance: ProjectCoordinator) => {
		const now = new Date().toISOString();
		await instance.db.batch([
			instance.db
				.prepare(
					`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, updated_at)
					 VALUES (?, ?, ?, 'generic', ?, ?, 1, 1, ?) ON CONFLICT DO NOTHING`,
				)
				.bind(projectId, session, userId, now, now, now),
			instance.db
				.prepare(
					`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
					 VALUES (?, ?, 0, 0, ?, 'offline', '- a session', 'A session.', '[]', ?)`,
				)
				.bind(projectId, session, userId, now),
		]);
	});
}

/**
 * Consolidation merging the entry's text into a legitimate memory: a first run creates one ordinary memory
 * per entry (consolidation's own, so it may change it alone); a second, whose model does what the planted
 * text says, merges the entry's body into it. 100 operations per run at most.
 */
async function mergeAll(entries: PoisonEntry[], projectId: string, keys: Keys) {
	for (let i = 0; i < entries.length; i += 100) {
		const chunk = entries.slice(i, i + 100);
		await pendingOutput(projectId, keys.anaId, `merge-create-${i}`);
		await consolidate(
			projectId,
			scripted({
				operations: chunk.map((e) => ({
					op: "create",
					name: slug(e),
					type: TYPE[e.type],
					description: fileOf(e).description,
					body: `Notes on ${e.description.replace(/\s+/g, " ").slice(0, 200)}.`,
					reason: "new",
					evidence: [`merge-create-${i}`],
				})),
				skills: [],
				summary: "",
			}),
		);
		await pendingOutput(projectId, keys.anaId, `merge-${i}`);
		await consolidate(
			projectId,
			scripted({
				operations: chunk.map((e) => ({
					op: "merge",
					name: slug(e),
					from: [slug(e)],
					type: TYPE[e.type],
					description: fileOf(e).description,
					body: `Notes on ${e.description.replace(/\s+/g, " ").slice(0, 200)}.\n${e.body}`,
					reason: "merged what the session said",
					evidence: [`merge-${i}`],
				})),
				skills: chunk.slice(0, 5).map((e) => ({ name: `skill-${slug(e)}`.slice(0, 64), description: "A procedure", body: e.body })),
				summary: chunk.map((e) => `- ${e.sentence}`).join("\n"),
			}),
		);
	}
}

/** The pending held items of a project, every one (its object's queue). */
async function pendingHeld(projectId: string): Promise<{ id: string; memory: { name: string }; reason: string }[]> {
	return runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (instance: ProjectCoordinator) => {
		const { results } = await instance.db
			.prepare("SELECT id, memory_name, reason FROM review_items WHERE project_id = ? AND kind = 'held' AND status = 'pending'")
			.bind(projectId)
			.all<{ id: string; memory_name: string; reason: string }>();
		return results.map((r) => ({ id: r.id, memory: { name: r.memory_name }, reason: r.reason }));
	});
}

interface Keys {
	admin: string;
	agent: string;
	bob: string;
	anaId: string;
}

/** Where `e`'s text reached the viewer holding `token`. */
async function surfaces(
	e: PoisonEntry,
	m: string,
	byName: boolean,
	projectId: string,
	token: string,
	start: string,
	pull: Record<string, { content?: string }>,
	client: Client,
): Promise<Surface[]> {
	const base = `/v1/projects/${projectId}`;
	const name = slug(e);
	const reached: Surface[] = [];
	// The start block: the entry's text in a memory block, or the entry listed by name (its line leads to it) —
	// except where a memory of that name exists legitimately (the merge path), where only its text counts.
	if (start.includes(m) || (byName && new RegExp(`(?:^- |/)${name}(?:\\.md|\\s|$)`, "m").test(start))) reached.push("start");
	const prompt = await jsonOf(
		await call(`${base}/inject`, { method: "POST", token, body: JSON.stringify({ query: e.prompt.slice(0, 2000), include: "memories" }) }),
	);
	if (String(prompt.text ?? "").includes(m) || (byName && String(prompt.text ?? "").includes(`/${name}.md`))) reached.push("prompt");
	let resolved = false;
	let read = false;
	for (const url of [`memory://root/${name}.md`, `memory://root/team/${name}.md`]) {
		const r = await call(`${base}/resolve?url=${encodeURIComponent(url)}`, { token });
		if (r.status === 200 && (await r.text()).includes(m)) resolved = true;
		else if (r.status !== 200) await r.arrayBuffer();
		const t = await client.callTool({ name: "memory_read", arguments: { url } });
		const text = ((t.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");
		if (!t.isError && text.includes(m)) read = true;
	}
	if (resolved) reached.push("resolve");
	if (read) reached.push("mcp-read");
	const pulled = pull[`${name}.md`];
	if (pulled && (byName || (pulled.content ?? JSON.stringify(pulled)).includes(m))) reached.push("team-pull");
	return reached;
}

/** Runs one set through every path. */
export async function benchPoisoningSet(
	adminToken: string,
	anaId: string,
	setName: string,
	entries: PoisonEntry[],
): Promise<PoisonOutcome[]> {
	const key = async (body: object) =>
		(await jsonOf(await call("/v1/keys", { method: "POST", token: adminToken, body: JSON.stringify(body) }))).key.token as string;
	const keys: Keys = {
		admin: adminToken,
		agent: await key({ scopes: ["read", "write"], name: `agent-${setName}` }),
		bob: await key({ scopes: ["read", "write"], user: `bob-${setName}` }),
		anaId,
	};
	const outcomes: PoisonOutcome[] = [];
	const markers = new Map(entries.map((e) => [e.id, marker(e, entries)]));
	for (const path of POISON_PATHS) {
		const projectId = await newProject(adminToken, `poison-${setName}-${path}`);
		await writeAll(path, entries, projectId, keys);
		// Every pending held item of the project, read in its object (the API pages at 200; a set's held items can be more).
		const held = await pendingHeld(projectId);
		const heldBy = new Map(held.map((h) => [h.memory.name, h.reason]));
		const viewers = { teammate: keys.bob, writer: keys.agent };
		const seen: Record<"teammate" | "writer", Map<string, Surface[]>> = { teammate: new Map(), writer: new Map() };
		for (const [who, token] of Object.entries(viewers) as ["teammate" | "writer", string][]) {
			const start = String(
				(
					await jsonOf(
						await call(`/v1/projects/${projectId}/inject`, {
							method: "POST",
							token,
							body: JSON.stringify({ maxChars: 200_000, maxTokens: 200_000 }),
						}),
					)
				).text ?? "",
			);
			const pull = ((await jsonOf(await call(`/v1/projects/${projectId}/team-memory`, { token }))).entries ?? {}) as Record<
				string,
				{ content?: string }
			>;
			const client = await mcpClient(token, projectId);
			for (const e of entries)
				seen[who].set(
					e.id,
					await surfaces(e, markers.get(e.id) ?? e.body, path !== "consolidation-merge", projectId, token, start, pull, client),
				);
			await client.close();
		}
		// A person then approves what waits — team proposals and held writes — as a reviewer would: do the
		// look-alikes then reach the teammate like any team memory?
		const approved = new Map<string, Surface[]>();
		if (path !== "rest-personal" && path !== "consolidation-merge") {
			const { items } = await jsonOf(await call(`/v1/projects/${projectId}/reviews?kind=vouch&limit=200`, { token: keys.admin }));
			for (const item of (items ?? []) as { id: string }[])
				await (await call(`/v1/projects/${projectId}/reviews/${item.id}/approve`, { method: "POST", token: keys.admin })).arrayBuffer();
			const heldNow = await pendingHeld(projectId);
			const looks = new Set(entries.filter((e) => e.label === "lookalike").map(slug));
			for (const h of heldNow.filter((x) => looks.has(x.memory.name)))
				await (await call(`/v1/projects/${projectId}/held/${h.id}/approve`, { method: "POST", token: keys.admin })).arrayBuffer();
			const start = String(
				(
					await jsonOf(
						await call(`/v1/projects/${projectId}/inject`, {
							method: "POST",
							token: keys.bob,
							body: JSON.stringify({ maxChars: 200_000, maxTokens: 200_000 }),
						}),
					)
				).text ?? "",
			);
			const pull = ((await jsonOf(await call(`/v1/projects/${projectId}/team-memory`, { token: keys.bob }))).entries ?? {}) as Record<
				string,
				{ content?: string }
			>;
			const client = await mcpClient(keys.bob, projectId);
			for (const e of entries.filter((x) => x.label === "lookalike"))
				approved.set(e.id, await surfaces(e, markers.get(e.id) ?? e.body, true, projectId, keys.bob, start, pull, client));
			await client.close();
		}
		for (const e of entries) {
			const reason = heldBy.get(slug(e));
			outcomes.push({
				id: e.id,
				label: e.label,
				class: e.class,
				disguise: e.disguise,
				lang: e.lang,
				path,
				held: reason !== undefined,
				heldWithReason: reason !== undefined && reason.length > 0,
				teammate: seen.teammate.get(e.id) ?? [],
				writer: seen.writer.get(e.id) ?? [],
				...(approved.has(e.id) ? { teammateApproved: approved.get(e.id) } : {}),
			});
		}
		console.log(`poisoning ${setName} ${path}: ${outcomes.filter((o) => o.path === path && o.held).length} held`);
	}
	return outcomes;
}

/** Single writes of an ordinary memory, alternately with the agent's write key and with an admin key. */
export async function benchTrustWrites(adminToken: string, samples: number): Promise<PoisonResult["writes"]> {
	const agent = (
		await jsonOf(
			await call("/v1/keys", {
				method: "POST",
				token: adminToken,
				body: JSON.stringify({ scopes: ["read", "write"], name: "agent-writes" }),
			}),
		)
	).key.token as string;
	const projectId = await newProject(adminToken, "poison-writes");
	const writes: PoisonResult["writes"] = { agentKey: [], adminKey: [] };
	const body = (i: number) =>
		JSON.stringify({
			type: "feedback",
			description: `Measured write ${i}`,
			body: `Run the integration tests against the real database before merging; use \`make test-db\` to start it (sample ${i}).`,
		});
	for (let i = 0; i < samples; i++) {
		for (const [which, token] of [
			["agentKey", agent],
			["adminKey", adminToken],
		] as const) {
			const t0 = performance.now();
			const res = await call(`/v1/projects/${projectId}/memories/${which.toLowerCase()}-${i}`, { method: "PUT", token, body: body(i) });
			await res.arrayBuffer();
			if (res.status !== 201) throw new Error(`write answered ${res.status}`);
			writes[which].push(performance.now() - t0);
		}
	}
	return writes;
}
