/**
 * The authorisation table, generated: every REST operation in the served OpenAPI document and every MCP
 * tool in `tools/list`, times every kind of caller. Nothing here lists routes or tools: a route or tool
 * added later is covered on the next run. What each operation requires is read from its declaration as
 * the document states it (`security`, set by `route()` in src/api/route.ts beside the route's path); an
 * operation without one fails the run. Expectations come from one rule function (`expected`), which
 * states REST's rules:
 *
 * - An operation whose security is `operatorToken` takes the operator token and nothing else (401
 *   otherwise); one declared public (empty security and `"x-cairn-public": true`: the front page) takes
 *   every caller; every other one takes an API key (no key, a bad key or the operator token: 401).
 * - Another tenant's key gets 404 for any project path (and for any other id in a path: it names
 *   something of this tenant); it acts in its own tenant elsewhere and must never see this tenant's data.
 * - A project-limited key reaching for another project of its tenant gets 403 (a path under it, or a
 *   request naming it); an operation marked `"x-cairn-tenant-wide": true` (tenant policy) is refused to
 *   every project-limited key (403);
 *   other users' keys are out of its reach (ids in `/v1/keys/{id}`: 403/404; never listed).
 * - Scopes: an API-key operation needs every scope its `security` lists (`apiKey: ["read"]`, …); HEAD
 *   needs what GET needs. Missing scope: 403.
 * - Another user of the tenant passes the same checks as the owner but never sees the owner's personal
 *   memories, sessions or logs (their text never appears in any response).
 * - MCP tools follow the same rules with the tool's `readOnlyHint` standing for the method (read-only →
 *   `read`, anything else → `write`); a refusal is a tool error `forbidden: …` or `not_found: …`.
 * - MCP `memory://` resources (every one `resources/list` shows the owner, and the list itself) follow
 *   REST's GET; a refusal is a JSON-RPC error whose message starts with the code.
 *
 * An allowed cell must reach the handler: not 401/403, no 404 for the project itself, never a 5xx. A
 * denied cell must get exactly its status with the stable error code.
 */
import { exports } from "cloudflare:workers";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN, call, createProject, createTenant, json, type Loose, projectDb, type Tenant, topicFile } from "./helpers";

type Scope = "read" | "write" | "admin";

interface Kind {
	name: string;
	/** null: no Authorization header. */
	token: () => string | null;
	/** "owner": this tenant, the owner's user; "user": another user of this tenant; "tenant": another tenant. */
	who: "owner" | "user" | "tenant" | "anonymous" | "operator";
	scopes: Scope[];
	/** The project a project-limited key is limited to ("P" the project under test, "Q" another one). */
	limitedTo?: "P" | "Q";
	/** Text that must never appear in a response to this caller. */
	mustNotSee: () => string[];
}

/** What an operation declares it requires: the operator token, or an API key with these scopes. */
type Access =
	| { public: true; operator?: false }
	| { operator: true; public?: false }
	| { operator?: false; public?: false; scopes: Scope[]; tenantWide?: boolean };

interface Operation {
	method: string;
	path: string;
	access: Access;
	op: Loose;
}

type Expectation = { allow: true } | { allow: false; status: 401 | 403 | 404; code: string };
const allow: Expectation = { allow: true };
const deny = (status: 401 | 403 | 404): Expectation => ({
	allow: false,
	status,
	code: status === 401 ? "unauthorized" : status === 403 ? "forbidden" : "not_found",
});

/** REST's rules, as one function of the operation, the caller and what the request names. */
function expected(route: { path: string; access: Access }, kind: Kind, namesProjectP: boolean): Expectation {
	const { access } = route;
	if (access.public) return allow;
	if (access.operator) return kind.who === "operator" ? allow : deny(401);
	if (kind.who === "anonymous" || kind.who === "operator") return deny(401);
	const projectPath = route.path.startsWith("/v1/projects/{projectId}");
	const otherIds = !projectPath && /\{[^}]+\}/.test(route.path);
	if (kind.who === "tenant" && projectPath) return deny(404);
	if (kind.limitedTo === "Q" && namesProjectP) return deny(403);
	if (kind.limitedTo && access.tenantWide) return deny(403);
	if (!access.scopes.every((s) => kind.scopes.includes(s))) return deny(403);
	// An id in a non-project path names something of this tenant: another tenant cannot find it.
	if (kind.who === "tenant" && otherIds) return deny(404);
	// The only such id a project-limited key is handed is another user's key: out of its reach.
	if (kind.limitedTo && otherIds) return deny(404);
	return allow;
}

// ---------------------------------------------------------------------------------------------------
// Fixtures: one tenant with two projects, its keys, another user, another tenant, sacrificial ids.

const REMOTE_P = "git@github.com:authz/under-test.git";
const REMOTE_Q = "git@github.com:authz/other.git";
const OWNER_MARK = "ownerpersonalmarker7q3";
const TEAM_MARK = "teamsharedmarker5k8";
const OWNER_MEMORY = "owner-notes";
const TEAM_FILE = "team-rule";
const OWNER_SESSION = "owner-session-1";
const LOG_DATE = "2026-11-28";

let owner: Tenant;
let stranger: Tenant;
let P: string;
let Q: string;
let strangerProject: string;
let sacrificialProject: string;
let sacrificialTenant: string;
const keys: Record<string, string> = {};
let victimKeyId: string;
let ownerKeyId: string;

const issue = async (token: string, body: Loose) => {
	const res = await call("/v1/keys", { token, json: body });
	if (res.status !== 201) throw new Error(`key issue failed: ${res.status} ${await res.text()}`);
	return (await json(res)).key as { id: string; token: string };
};

async function seedMemories() {
	const own = await call(`/v1/projects/${P}/memories/${OWNER_MEMORY}`, {
		method: "PUT",
		token: owner.token,
		json: { type: "user", description: "The owner's own note", body: `Private: ${OWNER_MARK}` },
	});
	const team = await call(`/v1/projects/${P}/memories/${TEAM_FILE}?scope=team`, {
		method: "PUT",
		token: owner.token,
		json: { type: "project", description: "A shared team rule", body: `Shared: ${TEAM_MARK}` },
	});
	if (![200, 201].includes(own.status) || ![200, 201].includes(team.status)) throw new Error(`seed failed: ${own.status} ${team.status}`);
}

/** Bea's key limited to P: the id DELETE /v1/keys/{id} is tried with. Re-issued when a cell revoked it. */
async function issueVictim() {
	victimKeyId = (await issue(owner.token, { scopes: ["read"], projectId: P, user: "bea", name: "victim" })).id;
}

const kinds: Kind[] = [
	{ name: "owner read", who: "owner", scopes: ["read"], token: () => keys.read ?? null, mustNotSee: () => [] },
	{ name: "owner write", who: "owner", scopes: ["write"], token: () => keys.write ?? null, mustNotSee: () => [] },
	{ name: "owner admin", who: "owner", scopes: ["admin"], token: () => keys.admin ?? null, mustNotSee: () => [] },
	{ name: "owner all", who: "owner", scopes: ["read", "write", "admin"], token: () => owner.token, mustNotSee: () => [] },
	{
		name: "limited to P",
		who: "owner",
		scopes: ["read", "write", "admin"],
		limitedTo: "P",
		token: () => keys.limitedP ?? null,
		mustNotSee: () => [Q, victimKeyId, ownerKeyId],
	},
	{
		name: "limited to Q",
		who: "owner",
		scopes: ["read", "write", "admin"],
		limitedTo: "Q",
		token: () => keys.limitedQ ?? null,
		mustNotSee: () => [P, OWNER_MARK, TEAM_MARK, victimKeyId, ownerKeyId],
	},
	{ name: "other user", who: "user", scopes: ["read", "write"], token: () => keys.bea ?? null, mustNotSee: () => [OWNER_MARK] },
	{
		name: "other tenant",
		who: "tenant",
		scopes: ["read", "write", "admin"],
		token: () => stranger.token,
		mustNotSee: () => [P, Q, OWNER_MARK, TEAM_MARK, victimKeyId, ownerKeyId, owner.tenantId],
	},
	{ name: "no key", who: "anonymous", scopes: [], token: () => null, mustNotSee: () => [OWNER_MARK, TEAM_MARK] },
	{
		name: "bad key",
		who: "anonymous",
		scopes: [],
		// A well-formed token for a real key id with the wrong secret.
		token: () => `${owner.token.slice(0, -1)}${owner.token.endsWith("A") ? "B" : "A"}`,
		mustNotSee: () => [OWNER_MARK, TEAM_MARK],
	},
	{ name: "garbage key", who: "anonymous", scopes: [], token: () => "not-a-key", mustNotSee: () => [OWNER_MARK, TEAM_MARK] },
	{ name: "operator token", who: "operator", scopes: [], token: () => ADMIN_TOKEN, mustNotSee: () => [OWNER_MARK, TEAM_MARK] },
];

beforeAll(async () => {
	owner = await createTenant();
	stranger = await createTenant();
	const doomed = await createTenant();
	sacrificialTenant = doomed.tenantId;
	P = await createProject(owner.token, REMOTE_P);
	Q = await createProject(owner.token, REMOTE_Q);
	strangerProject = await createProject(stranger.token, "git@github.com:authz/stranger.git");
	sacrificialProject = await createProject(stranger.token, "git@github.com:authz/doomed.git");
	expect(strangerProject).not.toBe(P);
	ownerKeyId = owner.token.split("_")[1] as string;
	for (const project of [P, Q]) {
		const res = await call(`/v1/projects/${project}/settings`, { method: "PUT", token: owner.token, json: { "memories.enabled": true } });
		expect(res.status).toBe(200);
	}
	keys.read = (await issue(owner.token, { scopes: ["read"] })).token;
	keys.write = (await issue(owner.token, { scopes: ["write"] })).token;
	keys.admin = (await issue(owner.token, { scopes: ["admin"] })).token;
	keys.limitedP = (await issue(owner.token, { scopes: ["read", "write", "admin"], projectId: P })).token;
	keys.limitedQ = (await issue(owner.token, { scopes: ["read", "write", "admin"], projectId: Q })).token;
	keys.bea = (await issue(owner.token, { scopes: ["read", "write"], user: "bea" })).token;
	await issueVictim();
	await seedMemories();
	// The owner's session, daily log and team file: personal text others must never see.
	const transcript = await call(`/v1/projects/${P}/sessions/${OWNER_SESSION}/transcript`, {
		token: owner.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body: `${JSON.stringify({ id: "1", role: "user", content: `Remember ${OWNER_MARK} for me.`, ts: "2026-11-28T10:00:00Z" })}\n`,
	});
	expect(transcript.status).toBe(200);
	const log = await call(`/v1/projects/${P}/logs/${LOG_DATE}`, { token: owner.token, json: { entry: `Worked on ${OWNER_MARK}` } });
	expect(log.status).toBe(201);
});

// ---------------------------------------------------------------------------------------------------
// Requests from the document: path parameters get real ids, bodies come from the request schema.

/** Values for path parameters by name (and, where one name means two things, by the path around it). */
function paramValue(name: string, path: string): string {
	const operator = path.startsWith("/v1/operator/");
	if (name === "projectId") return operator ? sacrificialProject : P;
	if (name === "tenantId") return sacrificialTenant;
	if (name === "name") return path.includes("/skills/{name}") ? "no-such-skill" : OWNER_MEMORY;
	if (name === "version") return "1";
	if (name === "sessionId") return OWNER_SESSION;
	if (name === "date") return LOG_DATE;
	if (name === "path") return `${TEAM_FILE}.md`;
	if (name === "id") return victimKeyId;
	throw new Error(`no value for path parameter "${name}" in ${path}: add one to paramValue`);
}

function resolveRef(doc: Loose, schema: Loose | undefined): Loose {
	let s = schema ?? {};
	while (s.$ref) s = doc.components.schemas[String(s.$ref).split("/").pop() as string];
	return s;
}

/** Properties given a meaningful value (included even when optional) rather than a generated one. */
const propertyOverrides = (): Record<string, unknown> => ({
	gitRemote: REMOTE_P,
	query: "integration tests database",
	memories: [{ name: "batch-probe", type: "project", description: "A batch probe", body: "Probe." }],
	entries: [{ path: `${TEAM_FILE}.md`, content: topicFile(TEAM_FILE, "A shared team rule", "project", `Shared: ${TEAM_MARK}`) }],
});

/** A minimal valid value for a JSON schema: its example, else required properties, enums' first value, minimal sizes. */
function sample(doc: Loose, raw: Loose | undefined): unknown {
	const schema = resolveRef(doc, raw);
	if (schema.example !== undefined) return schema.example;
	if (schema.enum) return schema.enum[0];
	if (schema.anyOf || schema.oneOf) return sample(doc, (schema.anyOf ?? schema.oneOf)[0]);
	switch (schema.type) {
		case "object": {
			const out: Loose = {};
			const overrides = propertyOverrides();
			for (const [prop, sub] of Object.entries((schema.properties ?? {}) as Record<string, Loose>)) {
				if (prop in overrides) out[prop] = overrides[prop];
				else if ((schema.required ?? []).includes(prop)) out[prop] = sample(doc, sub);
			}
			return out;
		}
		case "array":
			return Array.from({ length: schema.minItems ?? 0 }, () => sample(doc, schema.items));
		case "integer":
		case "number":
			return schema.minimum ?? 1;
		case "boolean":
			return false;
		default:
			return "x".repeat(Math.max(1, schema.minLength ?? 1));
	}
}

/** Per content type, when a body is not JSON. */
const textBodies: Record<string, (params: Record<string, string>) => string> = {
	"text/markdown": (p) => topicFile(p.name ?? "probe", "A probe", "user", "Probe."),
	"application/x-ndjson": () => `${JSON.stringify({ id: "probe-1", role: "user", content: "probe", ts: "2026-11-28T11:00:00Z" })}\n`,
};

interface Built {
	url: string;
	method: string;
	headers: Record<string, string>;
	body?: string;
	namesProjectP: boolean;
}

function buildRequest(doc: Loose, route: Operation): Built {
	const params: Record<string, string> = {};
	const query = new URLSearchParams();
	let url = route.path;
	for (const p of (route.op.parameters ?? []) as Loose[]) {
		if (p.in === "path") {
			params[p.name] = paramValue(p.name, route.path);
			url = url.replace(`{${p.name}}`, encodeURIComponent(params[p.name] as string));
		} else if (p.in === "query" && p.required) query.set(p.name, String(sample(doc, p.schema)));
	}
	const missing = /\{([^}]+)\}/.exec(url);
	if (missing) params[missing[1] as string] = paramValue(missing[1] as string, route.path);
	const headers: Record<string, string> = {};
	let body: string | undefined;
	const content = route.op.requestBody?.content as Record<string, Loose> | undefined;
	if (content) {
		const type = "application/json" in content ? "application/json" : (Object.keys(content)[0] as string);
		headers["Content-Type"] = type;
		if (type === "application/json") body = JSON.stringify(sample(doc, content[type]?.schema));
		else {
			const make = textBodies[type];
			if (!make) throw new Error(`no default body for ${type} (${route.method} ${route.path}): add one to textBodies`);
			body = make(params);
		}
	}
	const qs = query.toString();
	return {
		url: `${url}${qs ? `?${qs}` : ""}`,
		method: route.method.toUpperCase(),
		headers,
		body,
		namesProjectP: route.path.startsWith("/v1/projects/{projectId}") || Boolean(body?.includes(P) || body?.includes(REMOTE_P)),
	};
}

/** What an operation's declaration says it requires, or null when it declares nothing. */
function accessOf(op: Loose): Access | null {
	if (op["x-cairn-public"] === true && Array.isArray(op.security) && op.security.length === 0) return { public: true };
	const [requirement, ...more] = (op.security ?? []) as Record<string, string[]>[];
	if (!requirement || more.length > 0) return null;
	if (Object.keys(requirement).join() === "operatorToken") return { operator: true };
	const scopes = requirement.apiKey as Scope[] | undefined;
	if (Object.keys(requirement).join() !== "apiKey" || !scopes?.length) return null;
	return { scopes, tenantWide: op["x-cairn-tenant-wide"] === true };
}

/** Every operation of the served document, and HEAD beside every GET; `undeclared` names those that declare no caller. */
async function operations(): Promise<{ doc: Loose; routes: Operation[]; undeclared: string[] }> {
	const res = await call("/openapi.json");
	expect(res.status).toBe(200);
	const doc = await json(res);
	const routes: Operation[] = [];
	const undeclared: string[] = [];
	for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Loose>>)) {
		for (const [method, op] of Object.entries(item)) {
			if (!["get", "put", "post", "delete", "patch"].includes(method)) continue;
			const access = accessOf(op);
			if (!access) {
				undeclared.push(`${method.toUpperCase()} ${path}`);
				continue;
			}
			routes.push({ method, path, access, op });
			if (method === "get") routes.push({ method: "head", path, access, op });
		}
	}
	return { doc, routes, undeclared };
}

// ---------------------------------------------------------------------------------------------------
// MCP: every tool × the same callers, the project named by X-Cairn-Project or by gitRemote.

async function connect(headers: Record<string, string>) {
	const transport = new StreamableHTTPClientTransport(new URL("https://cairn.test/mcp"), {
		fetch: (url, init) => exports.default.fetch(new Request(url, init)),
		requestInit: { headers },
	});
	const client = new Client({ name: "cairn-authz", version: "1.0.0" });
	await client.connect(transport);
	return client;
}
const textOf = (result: Loose) => ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? "").join("");

/** Tool arguments from the tool's input schema: required properties, with meaningful values by name. */
function toolArgs(tool: Loose): Loose {
	const overrides: Record<string, unknown> = {
		query: "integration tests database",
		url: `memory://root/${OWNER_MEMORY}.md`,
		name: OWNER_MEMORY,
		description: "An MCP probe",
		body: `Probe body ${OWNER_MARK.length}`,
	};
	const schema = tool.inputSchema as Loose;
	const args: Loose = {};
	for (const prop of (schema.required ?? []) as string[]) {
		args[prop] = prop in overrides ? overrides[prop] : sample({ components: { schemas: {} } }, schema.properties?.[prop]);
	}
	return args;
}

describe("MCP: every tool × every caller", () => {
	it("tool errors say forbidden / not_found exactly when REST would refuse; 401 without a valid key", async () => {
		const lister = await connect({ Authorization: `Bearer ${owner.token}`, "X-Cairn-Project": P });
		const { tools } = await lister.listTools();
		await lister.close();
		expect(tools.length).toBeGreaterThan(0);

		const failures: string[] = [];
		let cells = 0;
		const via = ["header", "gitRemote"] as const;
		for (const kind of kinds) {
			for (const how of via) {
				const token = kind.token();
				const headers: Record<string, string> = token ? { Authorization: `Bearer ${token}` } : {};
				if (how === "header") headers["X-Cairn-Project"] = P;
				for (const tool of tools) {
					const readOnly = tool.annotations?.readOnlyHint === true;
					// The REST equivalent: a project route needing `read` for a read-only tool, `write` for any other.
					const want = expected(
						{ path: `/v1/projects/{projectId}/mcp/${tool.name}`, access: { scopes: [readOnly ? "read" : "write"] } },
						kind,
						true,
					);
					const args = toolArgs(tool);
					if (how === "gitRemote") args.gitRemote = REMOTE_P;
					const cell = `${tool.name} (${how}) as ${kind.name}`;
					cells++;
					if (kind.who === "anonymous" || kind.who === "operator") {
						// No MCP session without a valid API key: the endpoint answers 401 before any tool runs.
						const res = await call("/mcp", {
							method: "POST",
							token,
							headers: { ...(how === "header" ? { "X-Cairn-Project": P } : {}), Accept: "application/json, text/event-stream" },
							json: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: tool.name, arguments: args } },
						});
						const body = await res.text();
						if (res.status !== 401 || !body.includes('"unauthorized"'))
							failures.push(`${cell}: expected 401 unauthorized, got ${res.status}`);
						if (want.allow || want.status !== 401) failures.push(`${cell}: rule disagrees with the endpoint's 401`);
						continue;
					}
					const client = await connect(headers);
					const result = (await client.callTool({ name: tool.name, arguments: args })) as Loose;
					await client.close();
					const text = textOf(result);
					const code = result.isError ? (/^([a-z_]+):/.exec(text)?.[1] ?? "error") : null;
					if (code === "internal_error") failures.push(`${cell}: internal error`);
					if (want.allow) {
						if (code === "forbidden" || code === "unauthorized") failures.push(`${cell}: expected allowed, got ${text}`);
						if (code === "not_found" && /project/i.test(text)) failures.push(`${cell}: expected allowed, got ${text}`);
					} else if (code !== want.code) failures.push(`${cell}: expected ${want.code}, got ${result.isError ? text : "success"}`);
					for (const secret of kind.mustNotSee()) {
						if (secret && text.includes(secret)) failures.push(`${cell}: result reveals "${secret}"`);
					}
					if (kind.name === "owner all" && result.isError) failures.push(`${cell}: the owner's call failed: ${text}`);
					if (!result.isError && !readOnly) await seedMemories();
				}
			}
		}
		console.log(`MCP authorisation table: ${tools.length} tools × ${kinds.length} callers × 2 ways of naming the project = ${cells} cells`);
		expect(failures).toEqual([]);
	});
});

describe("MCP: every memory:// resource × every caller", () => {
	it("reading or listing resources is refused exactly when REST's GET would be, and never shows another user's memory", async () => {
		const lister = await connect({ Authorization: `Bearer ${owner.token}`, "X-Cairn-Project": P });
		// Every fixed resource and every resource a template lists, as the owner sees them.
		const fixed = (await lister.listResources()).resources.map((r) => r.uri);
		const templates = (await lister.listResourceTemplates()).resourceTemplates;
		expect(templates.length).toBeGreaterThan(0);
		expect(fixed).toContain(`memory://root/${OWNER_MEMORY}.md`);
		const errorCode = (err: unknown) =>
			/: (forbidden|not_found|unauthorized|internal_error|invalid_request):/.exec(String(err))?.[1] ?? "error";
		// What the owner gets for each: an allowed caller gets the same (a resource that does not exist yet,
		// such as the summary before any consolidation, is not_found for everyone).
		const ownerOutcome = new Map<string, string | null>();
		for (const uri of fixed) ownerOutcome.set(uri, await lister.readResource({ uri }).then(() => null, errorCode));
		await lister.close();

		const failures: string[] = [];
		let cells = 0;
		for (const kind of kinds) {
			const want = expected({ path: "/v1/projects/{projectId}/mcp/resources", access: { scopes: ["read"] } }, kind, true);
			const token = kind.token();
			if (kind.who === "anonymous" || kind.who === "operator") {
				cells++;
				const res = await call("/mcp", {
					method: "POST",
					token,
					headers: { "X-Cairn-Project": P, Accept: "application/json, text/event-stream" },
					json: { jsonrpc: "2.0", id: 1, method: "resources/list", params: {} },
				});
				if (res.status !== 401) failures.push(`resources/list as ${kind.name}: expected 401, got ${res.status}`);
				continue;
			}
			const client = await connect({ ...(token ? { Authorization: `Bearer ${token}` } : {}), "X-Cairn-Project": P });
			const attempts: [string, () => Promise<unknown>][] = [
				["resources/list", () => client.listResources()],
				...fixed.map((uri): [string, () => Promise<unknown>] => [`read ${uri}`, () => client.readResource({ uri })]),
			];
			for (const [what, run] of attempts) {
				cells++;
				const cell = `${what} as ${kind.name}`;
				let text = "";
				let code: string | null = null;
				try {
					text = JSON.stringify(await run());
				} catch (err) {
					code = errorCode(err);
				}
				if (code === "internal_error") failures.push(`${cell}: internal error`);
				if (want.allow) {
					if (code === "forbidden" || code === "unauthorized") failures.push(`${cell}: expected allowed, got ${code}`);
					// Another user of the tenant is allowed the project but not the owner's personal file.
					const uri = what.replace(/^read /, "");
					const personal = uri.endsWith(`/${OWNER_MEMORY}.md`) && kind.who !== "owner";
					const outcome = personal ? "not_found" : (ownerOutcome.get(uri) ?? null);
					if (code !== outcome) failures.push(`${cell}: expected ${outcome ?? "success"}, got ${code ?? "success"}`);
				} else if (code !== want.code) failures.push(`${cell}: expected ${want.code}, got ${code ?? "success"}`);
				for (const secret of kind.mustNotSee()) {
					if (secret && text.includes(secret)) failures.push(`${cell}: reveals "${secret}"`);
				}
			}
			await client.close();
		}
		console.log(`MCP resource table: ${fixed.length} resources + list × ${kinds.length} callers = ${cells} cells`);
		expect(failures).toEqual([]);
	});
});

// REST runs after MCP: its POST /v1/projects cell registers REMOTE_P in the other tenant too.
const READ_METHODS = new Set(["GET", "HEAD"]);

describe("REST: every route × every caller", () => {
	it("every operation declares its caller: the operator token, or an API key and the scopes it needs", async () => {
		const { routes, undeclared } = await operations();
		expect(undeclared, "operations without a security requirement (declare them with route() in src/api/route.ts)").toEqual([]);
		expect(routes.filter((r) => r.access.operator).length).toBeGreaterThan(0);
		expect(routes.filter((r) => "scopes" in r.access && r.access.tenantWide).length).toBeGreaterThan(0);
		// Declarations a slip would get wrong: a GET never needs write, and nothing that replaces or deletes passes on read alone.
		const misdeclared = routes.filter(
			(r) =>
				"scopes" in r.access &&
				((r.method === "get" && r.access.scopes.includes("write")) ||
					(["put", "delete"].includes(r.method) && r.access.scopes.every((s) => s === "read"))),
		);
		expect(misdeclared.map((r) => `${r.method.toUpperCase()} ${r.path}`)).toEqual([]);
	});

	it("each cell is allowed or refused exactly as the rules say, never a 5xx, never a leak", async () => {
		const { doc, routes } = await operations();
		expect(routes.length).toBeGreaterThan(40);
		// Destructive cells last within a route: a DELETE that succeeds is followed by a reseed.
		const failures: string[] = [];
		const ownerAllOutcomes: string[] = [];
		/** GET's status per path and caller: HEAD (no body to read the error from) must answer the same. */
		const getStatus = new Map<string, number>();
		let cells = 0;
		for (const route of routes) {
			for (const kind of kinds) {
				const req = buildRequest(doc, route);
				const want = expected(route, kind, req.namesProjectP);
				const res = await call(req.url, { method: req.method, token: kind.token(), headers: req.headers, body: req.body });
				const text = req.method === "HEAD" ? "" : await res.text();
				let parsed: Loose | null = null;
				try {
					parsed = text ? JSON.parse(text) : null;
				} catch {}
				const cell = `${req.method} ${route.path} as ${kind.name}`;
				const got = `${res.status} ${parsed?.error?.code ?? ""} ${parsed?.error?.message ?? ""}`.trim();
				cells++;
				if (req.method === "GET") getStatus.set(`${route.path} ${kind.name}`, res.status);
				const getAnswered = getStatus.get(`${route.path} ${kind.name}`);
				if (res.status >= 500) failures.push(`${cell}: 5xx (${got})`);
				else if (req.method === "HEAD" && res.status !== getAnswered) failures.push(`${cell}: ${res.status}, GET answered ${getAnswered}`);
				else if (want.allow) {
					// Vouching is a person's act: a key an agent session used in this project (the table's keys post
					// transcripts in other cells) is refused approval whatever its scopes — the rule of docs/memory-trust.md,
					// not the scope table's.
					const vouchRule = res.status === 403 && ["session_key", "agent_session"].includes(parsed?.error?.details?.reason);
					if ((res.status === 401 || res.status === 403) && !vouchRule) failures.push(`${cell}: expected allowed, got ${got}`);
					else if (res.status === 404 && /project/i.test(parsed?.error?.message ?? ""))
						failures.push(`${cell}: expected allowed, got ${got}`);
				} else if (res.status !== want.status || (req.method !== "HEAD" && parsed?.error?.code !== want.code)) {
					failures.push(`${cell}: expected ${want.status} ${want.code}, got ${got}`);
				}
				for (const secret of kind.mustNotSee()) {
					if (secret && text.includes(secret)) failures.push(`${cell}: response reveals "${secret}" (${res.status})`);
				}
				if (kind.name === "owner all") ownerAllOutcomes.push(`${cell}: ${got}`);
				if (res.ok && !READ_METHODS.has(req.method)) {
					if (route.path === "/v1/keys/{id}" && req.method === "DELETE") await issueVictim();
					await seedMemories();
				}
			}
		}
		console.log(`REST authorisation table: ${routes.length} operations (incl. HEAD) × ${kinds.length} callers = ${cells} cells`);
		// The owner's all-scopes key reaches every handler: no validation failure from a generated request.
		const invalid = ownerAllOutcomes.filter((o) => / 400 invalid_(request|name)/.test(o));
		expect(invalid, "generated requests the handler rejected as invalid").toEqual([]);
		expect(failures).toEqual([]);
	});

	it("declarations match enforcement: a route not declaring admin never demands it of a read+write key", async () => {
		const { doc, routes } = await operations();
		const rw = (await issue(owner.token, { scopes: ["read", "write"] })).token;
		const unmarked: string[] = [];
		const needsAdmin = (r: Operation) => "scopes" in r.access && r.access.scopes.includes("admin");
		for (const route of routes.filter((r) => "scopes" in r.access && !needsAdmin(r) && r.method !== "head")) {
			const req = buildRequest(doc, route);
			const res = await call(req.url, { method: req.method, token: rw, headers: req.headers, body: req.body });
			const body = res.status === 403 ? await json(res) : null;
			if (body && /"admin"|admin scope/i.test(body.error?.message ?? "")) unmarked.push(`${req.method} ${route.path}`);
			if (res.ok && !READ_METHODS.has(req.method)) {
				if (route.path === "/v1/keys/{id}" && req.method === "DELETE") await issueVictim();
				await seedMemories();
			}
		}
		expect(unmarked, 'routes needing admin must declare scope "admin"').toEqual([]);
		expect(routes.filter(needsAdmin).length).toBeGreaterThan(0);
	});
});

// ---------------------------------------------------------------------------------------------------
// Same project, other user: the column for what a colleague in the project may not learn or steer.
// Generated from the document like the table above: every operation that takes a session id (in its
// path, its JSON body or the X-Cairn-Session header) and every one that shows a memory's events,
// history or reviews.

describe("REST: same project, other user", () => {
	const UNUSED_SESSION = "never-used-session-7";
	/** An owner's session no other caller of the table above has named (the table names OWNER_SESSION). */
	const OWNER_FRESH = "owner-session-fresh-2";
	const EVENT_MARK = "ownereventreason4x9";
	const EVENT_SESSION = "owner-evidence-session-3";

	/** How an operation names a session: "path", "body", "header", or null when it takes none. */
	let servedDoc: Loose = {};
	const sessionSlot = (route: Operation): "path" | "body" | "header" | null => {
		if (route.path.includes("{sessionId}")) return "path";
		const json = route.op.requestBody?.content?.["application/json"]?.schema;
		if (json && Object.hasOwn(resolveRef(servedDoc, json).properties ?? {}, "sessionId")) return "body";
		if (JSON.stringify(route.op).includes("X-Cairn-Session")) return "header";
		return null;
	};

	function withSession(doc: Loose, route: Operation, sessionId: string): Built {
		const req = buildRequest(doc, route);
		const slot = sessionSlot(route);
		if (slot === "path") req.url = req.url.replace(encodeURIComponent(OWNER_SESSION), encodeURIComponent(sessionId));
		if (slot === "body" && req.body) req.body = JSON.stringify({ ...JSON.parse(req.body), sessionId, onlyNew: true });
		if (slot === "header") req.headers = { ...req.headers, "X-Cairn-Session": sessionId };
		return req;
	}

	it("every operation taking a session id answers the owner's session id exactly as an unused one, and leaves the owner's session alone", async () => {
		const { doc, routes } = await operations();
		servedDoc = doc;
		const bySession = routes.filter((r) => r.method !== "head" && sessionSlot(r) !== null);
		expect(bySession.map((r) => sessionSlot(r))).toEqual(expect.arrayContaining(["path", "body", "header"]));
		const posted = await call(`/v1/projects/${P}/sessions/${OWNER_FRESH}/transcript`, {
			token: owner.token,
			headers: { "Content-Type": "application/x-ndjson" },
			body: `${JSON.stringify({ id: "f1", role: "user", content: `Remember ${OWNER_MARK} again.`, ts: "2026-11-28T12:00:00Z" })}\n`,
		});
		expect(posted.status).toBe(200);
		const before = await json(await call(`/v1/projects/${P}/sessions/${OWNER_FRESH}`, { token: owner.token }));
		const differences: string[] = [];
		for (const route of bySession) {
			const answers: string[] = [];
			for (const sessionId of [OWNER_FRESH, UNUSED_SESSION]) {
				const req = withSession(doc, route, sessionId);
				const res = await call(req.url, { method: req.method, token: keys.bea ?? null, headers: req.headers, body: req.body });
				const text = (await res.text()).replaceAll(sessionId, "<session>");
				// Volatile parts (times, generated ids, versions) differ between any two calls.
				const stable = text
					.replace(/"\d{4}-\d\d-\d\dT[^"]*"/g, '"<time>"')
					.replace(/"version":\d+/g, '"version":0')
					.replace(/"status":"(?:created|updated|unchanged)"/g, '"status":"<written>"');
				answers.push(`${res.status} ${stable}`);
				if (res.status >= 500) differences.push(`${req.method} ${route.path}: 5xx`);
				if (res.ok && !READ_METHODS.has(req.method)) {
					// Bea's own write goes again, so the next call writes afresh too.
					if (route.path.includes("/memories/{name}"))
						await call(`/v1/projects/${P}/memories/${OWNER_MEMORY}?scope=personal`, { method: "DELETE", token: keys.bea ?? null });
					await seedMemories();
				}
			}
			if (answers[0] !== answers[1]) differences.push(`${route.method.toUpperCase()} ${route.path}: ${answers[0]} ≠ ${answers[1]}`);
		}
		console.log(`Same project, other user: ${bySession.length} operations taking a session id, each with the owner's id and an unused one`);
		expect(differences).toEqual([]);
		// The owner's session: the same turns, and nothing recorded as served to it.
		const after = await json(await call(`/v1/projects/${P}/sessions/${OWNER_FRESH}`, { token: owner.token }));
		expect(after.session).toEqual(before.session);
		const served = await projectDb(P)
			.prepare("SELECT COUNT(*) AS n FROM session_served WHERE project_id = ? AND session_id LIKE ?")
			.bind(P, `%/${OWNER_FRESH}`)
			.first<{ n: number }>();
		const bea = await projectDb(P)
			.prepare("SELECT COUNT(*) AS n FROM session_served WHERE project_id = ? AND session_id LIKE ? AND session_id NOT LIKE ?")
			.bind(P, `%/${OWNER_FRESH}`, `${owner.userId}/%`)
			.first<{ n: number }>();
		expect(served?.n).toBe(bea?.n);
	});

	it("no operation shows another user the events, evidence or reviews of the owner's memory, even under a team memory of its name", async () => {
		await projectDb(P)
			.prepare(
				`INSERT INTO consolidation_events (project_id, owner_id, memory_scope, run_id, op, target, outcome, reason, evidence_json, created_at)
				 VALUES (?, ?, 'personal', 'run-authz', 'update', ?, 'applied', ?, ?, ?)`,
			)
			.bind(P, owner.userId, OWNER_MEMORY, EVENT_MARK, JSON.stringify([EVENT_SESSION]), new Date().toISOString())
			.run();
		// Bea makes the team memory of the owner's memory's name.
		const team = await call(`/v1/projects/${P}/memories/${OWNER_MEMORY}?scope=team`, {
			method: "PUT",
			token: keys.bea,
			json: { type: "project", description: "Bea's team note", body: "Team." },
		});
		expect([200, 201]).toContain(team.status);
		const { doc, routes } = await operations();
		const reads = routes.filter((r) => r.method === "get" && (r.path.includes("/memories/{name}") || r.path.includes("/reviews")));
		expect(reads.some((r) => r.path.endsWith("/events"))).toBe(true);
		const leaks: string[] = [];
		for (const route of reads)
			for (const scope of ["", "?scope=team", "?scope=personal"]) {
				const req = buildRequest(doc, route);
				const url = `${req.url}${req.url.includes("?") ? scope.replace("?", "&") : scope}`;
				const res = await call(url, { token: keys.bea ?? null });
				const text = await res.text();
				if (res.status >= 500) leaks.push(`${url}: 5xx`);
				for (const mark of [EVENT_MARK, EVENT_SESSION, OWNER_MARK]) if (text.includes(mark)) leaks.push(`${url}: shows ${mark}`);
			}
		expect(leaks).toEqual([]);
		// The owner still reads its own events.
		const own = await call(`/v1/projects/${P}/memories/${OWNER_MEMORY}/events?scope=personal`, { token: owner.token });
		expect(await own.text()).toContain(EVENT_MARK);
	});
});
