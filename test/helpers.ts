import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { waitFor } from "../bench/extraction-eval";
import type { Candidate } from "../src/extract/schema";
import type { ProjectCoordinator } from "../src/project/object";

export const ADMIN_TOKEN = "test-admin-token";
const BASE = "https://cairn.test";

export interface CallOptions {
	method?: string;
	token?: string | null;
	json?: unknown;
	body?: string;
	headers?: Record<string, string>;
}

/**
 * A stage-1 output for a user's session, as the extractor would have committed it (the session row
 * too): how consolidation tests hand candidates to a run.
 */
export async function addStageOneOutput(
	projectId: string,
	userId: string,
	sessionId: string,
	candidates: Candidate[],
	activity = new Date().toISOString(),
	fromSeq = 0,
): Promise<void> {
	const db = projectDb(projectId);
	await db.batch([
		db
			.prepare(
				`INSERT INTO sessions (project_id, id, user_id, agent, started_at, last_activity_at, turns, cursor, updated_at)
				 VALUES (?, ?, ?, 'generic', ?, ?, 1, 1, ?) ON CONFLICT DO UPDATE SET last_activity_at = excluded.last_activity_at`,
			)
			.bind(projectId, sessionId, userId, activity, activity, activity),
		db
			.prepare(
				`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
				 VALUES (?, ?, ?, ?, ?, 'offline', ?, 'A session.', ?, ?)`,
			)
			.bind(
				projectId,
				sessionId,
				fromSeq,
				fromSeq,
				userId,
				candidates.map((c) => `- ${c.description}`).join("\n"),
				JSON.stringify(candidates),
				activity,
			),
	]);
}

/** Reads every 200 ms until `done` holds; throws with what it last read when `ms` (20 s by default) pass first. @asserts */
export const until = <T>(read: () => Promise<T>, done: (v: T) => boolean, ms = 20_000): Promise<T> => waitFor(read, done, ms);

/** A scripted model that answers `answer` (JSON-encoded unless a string) to every call. */
export const scriptedModel = (answer: unknown) =>
	new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [{ type: "text", text: typeof answer === "string" ? answer : JSON.stringify(answer) }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
			warnings: [],
		}),
	});

/** `POST …/recall` as the token's caller; expects 200. */
export async function recallAs(token: string, projectId: string, body: Record<string, unknown>): Promise<Loose> {
	const res = await call(`/v1/projects/${projectId}/recall`, { token, json: body });
	if (res.status !== 200) throw new Error(`recall answered ${res.status}`);
	return json(res);
}

/** Sends a request through the real Worker entry point. */
export async function call(path: string, options: CallOptions = {}): Promise<Response> {
	const headers = new Headers(options.headers);
	if (options.token) headers.set("Authorization", `Bearer ${options.token}`);
	let body: string | undefined = options.body;
	if (options.json !== undefined) {
		body = JSON.stringify(options.json);
		if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
	}
	return exports.default.fetch(new Request(`${BASE}${path}`, { method: options.method ?? (body ? "POST" : "GET"), headers, body }));
}

// biome-ignore lint/suspicious/noExplicitAny: tests inspect response bodies loosely.
export type Loose = Record<string, any>;

export async function json<T = Loose>(res: Response): Promise<T> {
	return (await res.json()) as T;
}

export interface Tenant {
	tenantId: string;
	userId: string;
	token: string;
}

let counter = 0;

export async function createTenant(name = `tenant-${++counter}`): Promise<Tenant> {
	const res = await call("/v1/admin/tenants", { token: ADMIN_TOKEN, json: { name, user: "dev" } });
	if (res.status !== 201) throw new Error(`tenant creation failed: ${res.status} ${await res.text()}`);
	const body = await json(res);
	return { tenantId: body.tenant.id, userId: body.user.id, token: body.key.token };
}

export async function createProject(token: string, gitRemote = `git@github.com:acme/repo-${++counter}.git`): Promise<string> {
	const res = await call("/v1/projects", { token, json: { name: "repo", gitRemote } });
	if (res.status !== 201 && res.status !== 200) throw new Error(`project creation failed: ${res.status} ${await res.text()}`);
	return (await json(res)).project.id;
}

export function topicFile(name: string, description: string, type: string, body: string): string {
	return `---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;
}

export async function putMemory(
	token: string,
	projectId: string,
	name: string,
	body = "Use the real database in integration tests.",
	extra: { scope?: string; headers?: Record<string, string>; type?: string; description?: string } = {},
): Promise<Response> {
	const query = extra.scope ? `?scope=${extra.scope}` : "";
	return call(`/v1/projects/${projectId}/memories/${name}${query}`, {
		method: "PUT",
		token,
		headers: { "Content-Type": "text/markdown", ...extra.headers },
		body: topicFile(name, extra.description ?? `About ${name}`, extra.type ?? "feedback", body),
	});
}

/** Asserts the error shape (throws unless `res` is the error `status` with `code` and a message) and returns the body. @asserts */
export async function expectError(res: Response, status: number, code: string): Promise<Loose> {
	const body = await json(res);
	if (res.status !== status || body?.error?.code !== code) {
		throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(body)}`);
	}
	if (typeof body.error.message !== "string" || body.error.message.length === 0) throw new Error("error without message");
	return body;
}

interface TestStatement {
	sql: string;
	args: unknown[];
	bind(...args: unknown[]): TestStatement;
	first<T = Loose>(column?: string): Promise<T | null>;
	all<T = Loose>(): Promise<{ results: T[] }>;
	run(): Promise<{ meta: { changes: number } }>;
}

/**
 * A project's own SQLite, read and written inside its Durable Object (`runInDurableObject`): how
 * tests inspect per-project rows now that they no longer live in D1.
 */
export function projectDb(projectId: string) {
	const stub = env.PROJECT_COORDINATOR.getByName(projectId);
	const inObject = <T>(fn: (db: ProjectCoordinator["db"]) => Promise<T>) =>
		runInDurableObject(stub, (instance: ProjectCoordinator) => fn(instance.db));
	const statement = (sql: string, args: unknown[] = []): TestStatement => ({
		sql,
		args,
		bind: (...next: unknown[]) => statement(sql, next),
		first: <T>(column?: string) =>
			inObject((db) =>
				db
					.prepare(sql)
					.bind(...args)
					.first<T>(column),
			),
		all: <T>() =>
			inObject((db) =>
				db
					.prepare(sql)
					.bind(...args)
					.all<T>(),
			),
		run: () =>
			inObject((db) =>
				db
					.prepare(sql)
					.bind(...args)
					.run(),
			),
	});
	return {
		prepare: (sql: string) => statement(sql),
		batch: (statements: TestStatement[]) => inObject((db) => db.batch(statements.map((s) => db.prepare(s.sql).bind(...s.args)))),
	};
}

/**
 * A person vouches for every pending team proposal of the project (docs/memory-trust.md): lists the `vouch`
 * items as `token` sees them and approves each. `token` must be a key no agent session used in the
 * project (an admin's, or a teammate's review key). Returns the names approved.
 */
export async function approveTeamProposals(token: string, projectId: string): Promise<string[]> {
	const res = await call(`/v1/projects/${projectId}/reviews?kind=vouch&limit=200`, { token });
	if (res.status !== 200) throw new Error(`listing proposals answered ${res.status} ${await res.text()}`);
	const names: string[] = [];
	for (const item of (await json(res)).items as Loose[]) {
		const decided = await call(`/v1/projects/${projectId}/reviews/${item.id}/approve`, { token, method: "POST" });
		if (decided.status !== 200) throw new Error(`approving ${item.memory.name} answered ${decided.status} ${await decided.text()}`);
		names.push(item.memory.name);
	}
	return names;
}

/** A key for `user` in the tenant of `adminToken` (created if new), with `scopes`; by default a write key. */
export async function keyFor(adminToken: string, user: string, scopes: string[] = ["read", "write"]): Promise<string> {
	const res = await call("/v1/keys", { token: adminToken, json: { scopes, user } });
	if (res.status !== 201) throw new Error(`key creation answered ${res.status} ${await res.text()}`);
	return (await json(res)).key.token;
}
