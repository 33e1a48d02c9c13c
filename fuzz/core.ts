// The OpenAPI-driven fuzzer: reads GET /openapi.json from the Worker, generates schema-valid and
// schema-breaking requests for every operation, hostile headers and paths, sizes at and over the
// limits, and concurrent writes to one memory; checks invariants on every response and after the run.
// Environment-agnostic: it is given a fetch (the Worker's `exports.default.fetch` inside workerd).
// Used by fuzz/worker.fuzz.ts (`npm run fuzz`) and test/fuzz-slice-integration.test.ts (a small slice).
import fc from "fast-check";
import { arbitraryFor, ECHO_MARK, type Hints, type Json, type OpenApiDoc, type Operation, type Parameter, resolve, text } from "./schema";

export type Fetch = (req: Request) => Promise<Response>;

export interface FuzzOptions {
	seed: number;
	count: number;
	adminToken: string;
	fetch: Fetch;
	/** Known keys of open records (settings), which the document cannot list. */
	recordKeys?: string[];
	log?: (line: string) => void;
	/** "light" (the test slice): the end sweep reads with the owners' keys only and the first project's pooled names. */
	sweep?: "full" | "light";
}

export interface Violation {
	invariant: string;
	method: string;
	route: string;
	path: string;
	status: number;
	detail: string;
	step: number;
	/** Headers and the start of the body, to reproduce by hand. */
	request?: string;
}

export interface CheckTally {
	checked: number;
	violations: number;
}

export interface FuzzResult {
	seed: number;
	requested: number;
	sent: number;
	durationMs: number;
	operations: number;
	histogram: Record<string, number>;
	fiveXX: Violation[];
	slowest: { method: string; route: string; ms: number; status: number; step: number }[];
	checks: Record<string, CheckTally>;
	violations: Violation[];
	notes: string[];
}

const INVARIANTS = [
	"no-5xx",
	"error-shape",
	"no-echo",
	"tenant-isolation",
	"user-isolation",
	"cross-tenant-404",
	"index-well-formed",
	"no-secret-stored",
	"history-consistent",
	"canaries-intact",
	"prototype-inert",
] as const;
type Invariant = (typeof INVARIANTS)[number];

interface Identity {
	label: string;
	tenant: number;
	user: string;
	token: string;
	/** The only project a project-limited key may reach. */
	projectId?: string;
}

interface TenantState {
	id: string;
	projects: string[];
	userCanary: Record<string, string>;
	teamCanary: string;
}

interface Req {
	method: string;
	route: string;
	path: string;
	headers: Record<string, string>;
	body?: string | Uint8Array<ArrayBuffer>;
	identity: Identity | null;
	/** Planted secrets carried by this request. */
	secrets?: string[];
	/** The request carries a prototype member's name as a key, segment or query value. */
	proto?: boolean;
	/** Its JSON body has a prototype member's name as a key of every object. */
	protoKeys?: boolean;
}

interface Op {
	method: string;
	template: string;
	op: Operation;
}

/** mulberry32: the choices of the run, reproducible from the seed. */
function prng(seed: number) {
	let a = seed >>> 0;
	const next = () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
	const int = (n: number) => Math.floor(next() * n);
	const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
	const chance = (p: number) => next() < p;
	return { next, int, pick, chance };
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

const NAME_POOL = ["alpha", "beta", "deploy-notes", "x", "testing-conventions", `n${"a".repeat(63)}`];
const SESSION_POOL = ["s-1", "s-2", "196820da-1026-4b6f-a513-a6aae42da1a6"];
const HOSTILE_SEGMENTS = [
	"..%2F..%2Fx",
	"%2e%2e%2f%2e%2e%2fetc%2fpasswd",
	"%00",
	"a%00b",
	"%",
	"%ZZ",
	"%F0%9F%92%A9",
	encodeURIComponent("ünïcødé-名前"),
	"%ED%A0%80",
	"%C0%AF",
	`${ECHO_MARK}%0d%0aX-Injected:%201`,
	"x".repeat(5000),
	"a%2Fb",
	"CON",
	"-leading-dash",
	"UPPER",
	" ",
	"%20",
	"%09",
	"n".repeat(65),
	"prj_0000000000000000",
	"%u0000",
	`${ECHO_MARK}${"%25".repeat(200)}`,
];
/**
 * Names every plain object answers to, and their spellings in a path, a query and a JSON key: a
 * lookup table that inherits from Object.prototype finds something under each of them.
 */
export const PROTO_NAMES = [
	"__proto__",
	"constructor",
	"prototype",
	"toString",
	"valueOf",
	"hasOwnProperty",
	"isPrototypeOf",
	"propertyIsEnumerable",
	"toLocaleString",
	"__defineGetter__",
	"__defineSetter__",
	"__lookupGetter__",
	"__lookupSetter__",
];
const PROTO_SEGMENTS = [
	...PROTO_NAMES,
	"%5F%5Fproto%5F%5F",
	"__proto__%00",
	"constructor.prototype",
	"__PROTO__",
	"%63onstructor",
	"__proto__%2Fx",
	"constructor%20",
];
/** JSON spellings of a prototype key: plain, and escaped (`\u005f…`) so that a check of the raw text misses it. */
const PROTO_JSON_KEYS = [...PROTO_NAMES.map((n) => JSON.stringify(n)), '"\\u005f\\u005fproto\\u005f\\u005f"', '"\\u0063onstructor"'];
const PROTO_RE =
	/__proto__|constructor|prototype|tostring|valueof|hasownproperty|isprototypeof|propertyisenumerable|tolocalestring|__(?:define|lookup)[gs]etter__|%5f%5fproto|%63onstructor|\\u005f|\\u0063onstructor/i;
const carriesProto = (text: string) => PROTO_RE.test(text);
/** What Object.prototype holds before the run: a request that adds to it polluted every object in the isolate. */
const PROTOTYPE_BASELINE = Object.getOwnPropertyNames(Object.prototype).sort().join(",");
const SETTINGS_ROUTES = new Set(["/v1/settings", "/v1/projects/{projectId}/settings", "/v1/admin/policy"]);

const CONTENT_TYPES = [
	"application/json",
	"application/json; charset=utf-8",
	"application/json; charset=utf-16",
	"text/markdown",
	"text/plain",
	"application/x-www-form-urlencoded",
	"multipart/form-data; boundary=x",
	"application/octet-stream",
	"APPLICATION/JSON",
	"",
	"*/*",
	"application/x-ndjson",
	"text/markdown; charset=latin1",
];

/** Secret-looking values in provider formats, with random bodies; the searchable part is returned too. */
function secretSample(r: ReturnType<typeof prng>): { text: string; needle: string } {
	const rand = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[r.int(alphabet.length)]).join("");
	switch (r.int(5)) {
		case 0: {
			const id = `AKIA${rand(UPPER.replace(/[0-9]/g, ""), 16)}`;
			return { text: `aws_access_key_id=${id}\naws_secret_access_key=${rand(ALNUM, 40)}`, needle: id };
		}
		case 1: {
			const t = `ghp_${rand(ALNUM, 36)}`;
			return { text: `GITHUB_TOKEN=${t}`, needle: t };
		}
		case 2: {
			const t = `xoxb-${rand("0123456789", 12)}-${rand("0123456789", 12)}-${rand(ALNUM, 24)}`;
			return { text: `slack token ${t}`, needle: t };
		}
		case 3: {
			const t = `glpat-${rand(ALNUM, 20)}`;
			return { text: `gitlab: ${t}`, needle: t };
		}
		default: {
			const body = rand(`${ALNUM}+/`, 64);
			return {
				text: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${body}\n${rand(`${ALNUM}+/`, 64)}\n-----END RSA PRIVATE KEY-----`,
				needle: body,
			};
		}
	}
}

const topicFile = (name: string, description: string, type: string, body: string) =>
	`---\nname: ${name}\ndescription: ${description}\ntype: ${type}\n---\n\n${body}\n`;

const INDEX_ENTRY = /^- \[([a-z0-9][a-z0-9-]{0,63})\]\((team\/)?([a-z0-9][a-z0-9-]{0,63})\.md\)( \(team\))? — (.*)$/;
const INDEX_FIXED = new Set(["# MEMORY.md", "", "_No memories yet._"]);
const INDEX_HEADINGS = /^## (User preferences|Feedback and rules|Project facts|References)$/;
const INDEX_WARNING = /^> WARNING: this index was truncated: it lists \d+ of \d+ memories/;

/** MEMORY.md as src/memory/index-file.ts renders it; returns the problem, or null. */
export function indexProblem(md: string): string | null {
	const bytes = new TextEncoder().encode(md).byteLength;
	if (bytes > 25_000) return `index is ${bytes} bytes (> 25,000)`;
	if (!md.endsWith("\n")) return "index does not end with a newline";
	const lines = md.slice(0, -1).split("\n");
	if (lines.length > 200) return `index has ${lines.length} lines (> 200)`;
	if (lines[0] !== "# MEMORY.md") return "index does not start with '# MEMORY.md'";
	const seen = new Set<string>();
	for (const [i, line] of lines.entries()) {
		if (INDEX_FIXED.has(line) || INDEX_HEADINGS.test(line)) continue;
		if (INDEX_WARNING.test(line) && i === lines.length - 1) continue;
		const m = INDEX_ENTRY.exec(line);
		if (!m) return `line ${i + 1} is not an index line: ${JSON.stringify(line.slice(0, 120))}`;
		const [, name, teamDir, file, teamTag, description] = m;
		if (name !== file) return `line ${i + 1}: link name and file differ`;
		if (Boolean(teamDir) !== Boolean(teamTag)) return `line ${i + 1}: team path and (team) tag disagree`;
		if (/(^|[^\\])[[\]]/.test(description ?? "")) return `line ${i + 1}: unescaped bracket in description`;
		const key = `${teamDir ? "team" : "personal"}:${name}`;
		if (seen.has(key)) return `line ${i + 1}: ${key} listed twice`;
		seen.add(key);
	}
	return null;
}

/** The stable error body: {"error":{"code","message","details"?}} and nothing else. */
export function errorShapeProblem(body: string): string | null {
	let parsed: unknown;
	try {
		parsed = JSON.parse(body);
	} catch {
		return "error body is not JSON";
	}
	if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return "error body is not an object";
	const keys = Object.keys(parsed);
	if (keys.length !== 1 || keys[0] !== "error") return `error body has keys ${JSON.stringify(keys)}`;
	const e = (parsed as { error: unknown }).error;
	if (!e || typeof e !== "object") return "error is not an object";
	const { code, message, details, ...rest } = e as Record<string, unknown>;
	if (typeof code !== "string" || !/^[a-z_]+$/.test(code)) return "error.code missing or not a code";
	if (typeof message !== "string" || message.length === 0) return "error.message missing";
	if (details !== undefined && (typeof details !== "object" || details === null || Array.isArray(details))) return "details not an object";
	if (Object.keys(rest).length > 0) return `error has extra keys ${JSON.stringify(Object.keys(rest))}`;
	return null;
}

export async function runFuzz(opts: FuzzOptions): Promise<FuzzResult> {
	const started = performance.now();
	const r = prng(opts.seed);
	const log = opts.log ?? (() => {});
	const result: FuzzResult = {
		seed: opts.seed,
		requested: opts.count,
		sent: 0,
		durationMs: 0,
		operations: 0,
		histogram: {},
		fiveXX: [],
		slowest: [],
		checks: Object.fromEntries(INVARIANTS.map((k) => [k, { checked: 0, violations: 0 }])),
		violations: [],
		notes: [],
	};
	let step = 0;
	let current: Req | null = null;
	const noteCounts = new Map<string, number>();
	const secretStatuses = new Map<number, number>();
	const note = (s: string) => noteCounts.set(s, (noteCounts.get(s) ?? 0) + 1);
	const planted: string[] = [];
	const tenants: TenantState[] = [];
	const identities: Identity[] = [];
	const timings: { method: string; route: string; ms: number; status: number; step: number }[] = [];

	const tally = (inv: Invariant, ok: boolean, v?: Omit<Violation, "invariant" | "step">) => {
		const t = result.checks[inv] as CheckTally;
		t.checked++;
		if (ok || !v) return;
		t.violations++;
		const violation = { invariant: inv, step, ...v, ...(current ? { request: describe(current) } : {}) };
		if (inv === "no-5xx") result.fiveXX.length < 50 && result.fiveXX.push(violation);
		if (result.violations.length < 100) result.violations.push(violation);
		log(`VIOLATION ${inv} ${v.method} ${v.path.slice(0, 160)} → ${v.status}: ${v.detail}`);
	};
	const fail = (inv: Invariant, req: Pick<Req, "method" | "route" | "path">, status: number, detail: string) =>
		tally(inv, false, { method: req.method, route: req.route, path: req.path, status, detail });

	/** Sends one request and checks the per-response invariants. */
	async function send(req: Req): Promise<{ status: number; body: string; headers: Headers }> {
		const headers = new Headers();
		for (const [k, v] of Object.entries(req.headers)) {
			try {
				headers.set(k, v);
			} catch {
				// Not a ByteString: send its UTF-8 bytes as Latin-1, as a raw client would; a value no
				// client can send (NUL, CR/LF) is left out.
				try {
					headers.set(k, unescape(encodeURIComponent(v)));
				} catch {
					note(`requests whose ${k} header no client can send (NUL, CR/LF) went without it`);
				}
			}
		}
		if (req.identity && !("authorization" in lower(req.headers))) headers.set("Authorization", `Bearer ${req.identity.token}`);
		const hasBody = req.body !== undefined && !["GET", "HEAD"].includes(req.method);
		let request: Request;
		try {
			request = new Request(`https://fuzz.local${req.path}`, { method: req.method, headers, body: hasBody ? req.body : undefined });
		} catch (err) {
			note(`requests the client could not build (${String(err).slice(0, 60)}) were skipped`);
			return { status: 0, body: "", headers: new Headers() };
		}
		current = req;
		const t0 = performance.now();
		let res: Response;
		try {
			res = await opts.fetch(request);
		} catch (err) {
			result.sent++;
			fail("no-5xx", req, 599, `fetch threw: ${String(err).slice(0, 200)}`);
			return { status: 599, body: "", headers: new Headers() };
		}
		const body = await res.text();
		const ms = performance.now() - t0;
		result.sent++;
		timings.push({ method: req.method, route: req.route, ms, status: res.status, step });
		result.histogram[String(res.status)] = (result.histogram[String(res.status)] ?? 0) + 1;

		current = req;
		tally("no-5xx", res.status < 500, {
			method: req.method,
			route: req.route,
			path: req.path,
			status: res.status,
			detail: body.slice(0, 200),
		});
		if (res.status >= 400 && req.method !== "HEAD") {
			const problem = errorShapeProblem(body);
			tally("error-shape", !problem, { method: req.method, route: req.route, path: req.path, status: res.status, detail: problem ?? "" });
			const echoed = body.toLowerCase().includes(ECHO_MARK.toLowerCase());
			tally("no-echo", !echoed, { method: req.method, route: req.route, path: req.path, status: res.status, detail: body.slice(0, 200) });
		}
		// Batch item errors follow the same rules as top-level errors.
		if (res.status === 200 && req.route.endsWith("/memories/batch")) {
			const echoed = body.toLowerCase().includes(ECHO_MARK.toLowerCase());
			tally("no-echo", !echoed, { method: req.method, route: req.route, path: req.path, status: res.status, detail: body.slice(0, 200) });
		}
		checkCanaries(req, res.status, body);
		if (req.proto) checkPrototypeInert(req, res.status);
		if (planted.length > 0) {
			const leaked = planted.find((s) => body.includes(s));
			tally("no-secret-stored", !leaked, {
				method: req.method,
				route: req.route,
				path: req.path,
				status: res.status,
				detail: `response carries planted secret ${leaked?.slice(0, 8)}…`,
			});
		}
		if (res.status === 200 && req.method === "GET" && req.route === "/v1/projects/{projectId}/index") {
			const problem = indexProblem(body);
			tally("index-well-formed", !problem, { method: req.method, route: req.route, path: req.path, status: 200, detail: problem ?? "" });
		}
		return { status: res.status, body, headers: res.headers };
	}

	function checkCanaries(req: Req, status: number, body: string) {
		if (!body.includes("CANARY")) {
			result.checks["tenant-isolation"] && result.checks["tenant-isolation"].checked++;
			result.checks["user-isolation"] && result.checks["user-isolation"].checked++;
			return;
		}
		const me = req.identity;
		for (const [ti, t] of tenants.entries()) {
			if (me?.tenant !== ti && body.includes(t.teamCanary))
				fail("tenant-isolation", req, status, `${me?.label ?? "anonymous"} read tenant ${ti}'s team canary`);
			for (const [user, canary] of Object.entries(t.userCanary)) {
				if (!body.includes(canary)) continue;
				if (me?.tenant !== ti) fail("tenant-isolation", req, status, `${me?.label ?? "anonymous"} read tenant ${ti} user ${user}'s canary`);
				else if (me.user !== user) fail("user-isolation", req, status, `${me.label} read ${user}'s personal canary`);
			}
		}
		result.checks["tenant-isolation"] && result.checks["tenant-isolation"].checked++;
		result.checks["user-isolation"] && result.checks["user-isolation"].checked++;
	}

	const jsonReq = (identity: Identity | null, method: string, route: string, path: string, body?: unknown, secrets?: string[]): Req => ({
		method,
		route,
		path,
		identity,
		headers: body === undefined ? {} : { "Content-Type": "application/json" },
		body: body === undefined ? undefined : JSON.stringify(body),
		secrets,
	});

	async function must(req: Req, ok: (s: number) => boolean = (s) => s < 300) {
		const res = await send(req);
		if (!ok(res.status)) throw new Error(`fuzz setup: ${req.method} ${req.path} → ${res.status} ${res.body.slice(0, 300)}`);
		return JSON.parse(res.body || "null") as Record<string, Json> | null;
	}

	// ---- Set-up: tenants, users, keys, projects, canaries. ----
	const docRes = await send({ method: "GET", route: "/openapi.json", path: "/openapi.json", headers: {}, identity: null });
	const doc = JSON.parse(docRes.body) as OpenApiDoc;
	const hints: Hints = { recordKeys: [...(opts.recordKeys ?? []), "unknown.key", `${ECHO_MARK}.key`] };
	const ops: Op[] = Object.entries(doc.paths).flatMap(([template, methods]) =>
		Object.entries(methods).map(([method, op]) => ({ method: method.toUpperCase(), template, op })),
	);
	result.operations = ops.length;

	const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[r.int(16)]).join("");
	const TENANTS = 3;
	for (let ti = 0; ti < TENANTS; ti++) {
		const created = (await must({
			...jsonReq(null, "POST", "/v1/admin/tenants", "/v1/admin/tenants", { name: `fuzz-${opts.seed}-${ti}`, user: "dev" }),
			headers: { "Content-Type": "application/json", Authorization: `Bearer ${opts.adminToken}` },
		})) as { tenant: { id: string }; key: { token: string } };
		const dev: Identity = { label: `t${ti}/dev`, tenant: ti, user: "dev", token: created.key.token };
		const issue = async (body: Json) =>
			((await must(jsonReq(dev, "POST", "/v1/keys", "/v1/keys", body))) as { key: { token: string } }).key.token;
		const ops_: Identity = {
			label: `t${ti}/ops`,
			tenant: ti,
			user: "ops",
			token: await issue({ scopes: ["read", "write", "admin"], user: "ops" }),
		};
		const reader: Identity = {
			label: `t${ti}/dev-read`,
			tenant: ti,
			user: "dev",
			token: await issue({ scopes: ["read"], name: "reader" }),
		};
		const projects: string[] = [];
		for (let pi = 0; pi < 2; pi++) {
			const p = (await must(
				jsonReq(dev, "POST", "/v1/projects", "/v1/projects", { name: `repo-${pi}`, gitRemote: `git@github.com:fuzz${ti}/repo-${pi}.git` }),
			)) as { project: { id: string } };
			projects.push(p.project.id);
		}
		const limited: Identity = {
			label: `t${ti}/dev-p1`,
			tenant: ti,
			user: "dev",
			projectId: projects[1],
			token: await issue({ scopes: ["read", "write"], projectId: projects[1] as string, name: "limited" }),
		};
		const state: TenantState = {
			id: created.tenant.id,
			projects,
			userCanary: { dev: `CANARY-U-t${ti}-dev-${hex(12)}`, ops: `CANARY-U-t${ti}-ops-${hex(12)}` },
			teamCanary: `CANARY-T-t${ti}-${hex(12)}`,
		};
		tenants.push(state);
		identities.push(dev, ops_, reader, limited);
	}
	const owners = identities.filter((i) => i.label.endsWith("/dev") || i.label.endsWith("/ops"));

	async function plant() {
		for (const who of owners) {
			const t = tenants[who.tenant] as TenantState;
			const canary = t.userCanary[who.user] as string;
			for (const pid of t.projects) {
				await must(
					jsonReq(who, "PUT", "/v1/projects/{projectId}/memories/{name}", `/v1/projects/${pid}/memories/canary-vault`, {
						type: "project",
						description: `vault ${canary}`,
						body: `The vault phrase is ${canary}. Database deploy tests friday.`,
					}),
				);
				await must(
					jsonReq(who, "POST", "/v1/projects/{projectId}/logs/{date}", `/v1/projects/${pid}/logs/2026-11-30`, { entry: `log ${canary}` }),
				);
			}
			if (who.user === "dev") {
				for (const pid of t.projects) {
					await must({
						...jsonReq(who, "PUT", "/v1/projects/{projectId}/memories/{name}", `/v1/projects/${pid}/memories/team-vault?scope=team`, {
							type: "project",
							description: `team vault ${t.teamCanary}`,
							body: `Team phrase ${t.teamCanary}. Database deploy tests friday.`,
						}),
					});
					const lines = [
						{ role: "user", content: `remember the team phrase ${t.teamCanary} for deploys` },
						{ role: "assistant", content: `Noted: ${t.teamCanary}.` },
					];
					await send({
						method: "POST",
						route: "/v1/projects/{projectId}/sessions/{sessionId}/transcript",
						path: `/v1/projects/${pid}/sessions/canary-session/transcript?format=generic`,
						identity: who,
						headers: { "Content-Type": "application/x-ndjson" },
						body: lines.map((l) => JSON.stringify(l)).join("\n"),
					});
				}
			}
		}
	}
	await plant();
	log(`set up ${TENANTS} tenants, ${identities.length} keys, ${ops.length} operations`);

	// ---- Generation. ----
	const sample = <T>(arb: fc.Arbitrary<T>): T => fc.sample(arb, { seed: r.int(2 ** 31), numRuns: 1 })[0] as T;

	function pathValue(p: Parameter, me: Identity, template: string): string {
		const t = tenants[me.tenant] as TenantState;
		const other = tenants[(me.tenant + 1) % tenants.length] as TenantState;
		switch (p.name) {
			case "projectId":
				if (template.startsWith("/v1/operator/")) return sample(fc.stringMatching(/^prj_[A-Za-z0-9]{16}$/));
				if (template.endsWith("/memory")) return t.projects[1] as string; // clearing: never the vault project
				if (me.projectId && r.chance(0.8)) return me.projectId;
				return r.chance(0.08) ? r.pick(other.projects) : r.pick(t.projects);
			case "name":
				return r.chance(0.85) ? r.pick(NAME_POOL) : String(sample(arbitraryFor(doc, p.schema, hints)));
			case "sessionId":
				return r.chance(0.7) ? r.pick(SESSION_POOL) : safeEncode(String(sample(arbitraryFor(doc, p.schema, hints))));
			case "date":
				return r.pick(["2026-11-30", "2026-11-29", "2026-12-01", "2026-02-29", "2026-13-01", "1999-01-01"]);
			case "version":
				return String(1 + r.int(4));
			case "path":
				return `${r.pick(NAME_POOL)}.md`;
			case "tenantId":
				return sample(fc.stringMatching(/^ten_[A-Za-z0-9]{16}$/));
			default:
				return safeEncode(String(sample(arbitraryFor(doc, p.schema, hints))));
		}
	}

	function queryValue(p: Parameter, template: string): string | undefined {
		if (p.name === "confirm") return r.pick(["true", "false", "yes", ""]);
		if (p.name === "scope" && r.chance(0.4)) return undefined;
		if (p.name === "url")
			return r.pick(["memory://root/MEMORY.md", "memory://root/alpha.md", "memory://root/team/alpha.md", "memory://root/../x"]);
		if (!p.required && r.chance(0.5)) return undefined;
		if (template.endsWith("/storage/move")) return undefined;
		return String(sample(arbitraryFor(doc, p.schema, hints)));
	}

	/** A body for the operation: valid per its schema, with planted secrets sometimes. */
	function validBody(o: Op, name: string | undefined, secrets: string[]): { contentType: string; body: string } | undefined {
		const content = o.op.requestBody?.content;
		if (!content) return undefined;
		const types = Object.keys(content);
		const ct = r.pick(types);
		const schema = content[ct]?.schema ?? {};
		const secret = () => {
			const s = secretSample(r);
			secrets.push(s.needle);
			return s.text;
		};
		if (ct === "text/markdown") {
			const desc = sample(text(1, 120));
			const body = r.chance(0.15) ? `Config:\n${secret()}\n` : sample(text(0, 400));
			return { contentType: ct, body: topicFile(name ?? "alpha", desc, r.pick(["user", "feedback", "project", "reference"]), body) };
		}
		if (ct === "application/x-ndjson") {
			const lines = Array.from({ length: 1 + r.int(4) }, () => ({
				id: hex(8),
				role: r.pick(["user", "assistant", "tool", "system", "bogus"]),
				content: r.chance(0.15) ? `here is my key ${secret()}` : sample(text(0, 200)),
			}));
			return { contentType: ct, body: lines.map((l) => JSON.stringify(l)).join("\n") };
		}
		const value = sample(arbitraryFor(doc, schema, hints)) as Json;
		// Plant secrets in the free-text fields of writes.
		if (value && typeof value === "object" && !Array.isArray(value) && r.chance(0.15)) {
			for (const k of ["body", "entry", "content"]) if (typeof value[k] === "string") value[k] = `${value[k]}\n${secret()}`;
			const list = (value.memories ?? value.entries) as Json;
			if (Array.isArray(list))
				for (const item of list)
					if (item && typeof item === "object" && !Array.isArray(item)) {
						if (typeof item.body === "string") item.body = `${item.body} ${secret()}`;
						if (typeof item.content === "string") item.content = `${item.content} ${secret()}`;
					}
		}
		if (o.template.endsWith("/memories/batch") && value && typeof value === "object" && !Array.isArray(value)) {
			const list = value.memories;
			if (Array.isArray(list))
				for (const item of list)
					if (item && typeof item === "object" && !Array.isArray(item) && r.chance(0.7)) item.name = r.pick(NAME_POOL);
		}
		if (
			o.template.endsWith("/team-memory") &&
			value &&
			typeof value === "object" &&
			!Array.isArray(value) &&
			Array.isArray(value.entries)
		) {
			for (const e of value.entries)
				if (e && typeof e === "object" && !Array.isArray(e)) {
					e.path = `${r.pick(NAME_POOL)}.md`;
					if (r.chance(0.7)) delete e.baseSha256;
				}
		}
		return { contentType: ct, body: JSON.stringify(value) };
	}

	/** Breaks a JSON body: wrong types, missing fields, huge strings, nesting, bad UTF-8, NULs. */
	function breakBody(body: string | undefined): string | Uint8Array<ArrayBuffer> {
		let value: Json = null;
		try {
			value = body === undefined ? {} : (JSON.parse(body) as Json);
		} catch {
			value = body ?? "";
		}
		const obj = value && typeof value === "object" && !Array.isArray(value) ? value : null;
		const keys = obj ? Object.keys(obj) : [];
		switch (r.int(16)) {
			case 14:
			case 15: // prototype member names as keys at every level of the object, as raw JSON text
				return protoKeys(obj ? value : {});
			case 0: // wrong type
				if (obj && keys.length) obj[r.pick(keys)] = r.pick<Json>([42, -1, 1e308, true, null, [], {}, [1, "a"], "7", { [ECHO_MARK]: 1 }]);
				return JSON.stringify(value);
			case 1: // missing required field
				if (obj && keys.length) delete obj[r.pick(keys)];
				return JSON.stringify(value);
			case 2: // huge string in a field
				if (obj && keys.length) obj[r.pick(keys)] = `${ECHO_MARK}${"A".repeat(r.pick([70_000, 200_000, 300_000]))}`;
				return JSON.stringify(value);
			case 3: {
				const n = r.pick([100, 1000, 10_000, 100_000]);
				return r.chance(0.5) ? `${"[".repeat(n)}${"]".repeat(n)}` : `${'{"a":'.repeat(n)}1${"}".repeat(n)}`;
			}
			case 4: // lone surrogates, escaped and raw
				if (obj && keys.length) obj[r.pick(keys)] = `${ECHO_MARK} \ud800 lone \udfff end`;
				return r.chance(0.5) ? JSON.stringify(value) : JSON.stringify(value).replace(/\\ud800/g, "\ud800");
			case 5: {
				// invalid UTF-8 bytes inside a string value
				const enc = new TextEncoder().encode(JSON.stringify(obj ? { ...obj, [keys[0] ?? "x"]: `${ECHO_MARK}@@` } : `${ECHO_MARK}@@`));
				const at = new TextDecoder().decode(enc).indexOf("@@");
				const out = new Uint8Array(enc);
				if (at >= 0) {
					out[at] = 0xff;
					out[at + 1] = 0xc0;
				}
				return out;
			}
			case 6: // NUL and control characters
				if (obj && keys.length) obj[r.pick(keys)] = `${ECHO_MARK}\u0000\u0001\u001b[31m\u007f\u2028\u2029\ufeff\r\n`;
				return JSON.stringify(value);
			case 7: // unknown fields
				if (obj) obj[`${ECHO_MARK}extra`] = "x";
				return JSON.stringify(value);
			case 8:
				return `${JSON.stringify(value).slice(0, -1)}`;
			case 9:
				return r.pick(["", "null", "[]", "0", '"str"', "true", `${ECHO_MARK}`, "{", "\u0000", "{}{}", "\ufeff{}"]);
			case 10: // whole value wrong type
				return JSON.stringify(r.pick<Json>([[value], "string", 12, null]));
			case 11: // many keys
				return JSON.stringify(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i])));
			case 12: // huge array
				return JSON.stringify({
					...(obj ?? {}),
					memories: Array.from({ length: 1000 }, () => ({})),
					entries: Array.from({ length: 300 }, () => ({})),
				});
			default: // a markdown body where JSON is wanted, and the other way round
				return `---\nname: ${ECHO_MARK}\ndescription: x\ntype: nope\n---\n\n\u0000`;
		}
	}

	/**
	 * The body's JSON with a prototype member's name added as a key of every object in it (the top
	 * level, nested objects, array items). Written as text so `__proto__` stays an own key, as a client
	 * sends it; sometimes the name is the only key, sometimes it follows or precedes the real ones.
	 */
	let protoBodyMade = false;
	function protoKeys(value: Json): string {
		protoBodyMade = true;
		const key = r.pick(PROTO_JSON_KEYS);
		const inner = r.pick(['{"memories.enabled": false}', "1", "null", '"x"', "true", `{"${ECHO_MARK}": 1}`, "[]"]);
		const walk = (v: Json): string => {
			if (Array.isArray(v)) return `[${v.map(walk).join(",")}]`;
			if (v && typeof v === "object") {
				const own = Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}:${walk(x)}`);
				if (r.chance(0.5)) own.push(`${key}:${inner}`);
				else own.unshift(`${key}:${inner}`);
				return `{${own.join(",")}}`;
			}
			return JSON.stringify(v);
		};
		return walk(value);
	}

	function authVariant(me: Identity): Record<string, string> {
		const other = r.pick(identities);
		const [, id] = /^cairn_([^_]+)_/.exec(me.token) ?? [];
		switch (r.int(11)) {
			case 0:
				return { Authorization: "" };
			case 1:
				return { Authorization: `Basic ${btoa(`dev:${me.token}`)}` };
			case 2:
				return { Authorization: `bearer ${me.token}` };
			case 3:
				return { Authorization: `Bearer ${me.token}x` };
			case 4:
				return { Authorization: `Bearer cairn_${id ?? "x"}_${"A".repeat(40)}` };
			case 5:
				return { Authorization: `Bearer ${opts.adminToken}` };
			case 6:
				return { Authorization: `Bearer ${me.token} ${me.token}` };
			case 7:
				return { Authorization: `Bearer ${ECHO_MARK}${"z".repeat(r.pick([10, 9000]))}` };
			case 8:
				return { Authorization: `Bearer cairn_${"'".repeat(3)} OR 1=1--_x` };
			case 9:
				return { Authorization: `Bearer ${other.token}` };
			default:
				return { Authorization: "Bearer\u0000" };
		}
	}

	function hostileHeaders(): Record<string, string> {
		const h: Record<string, string> = {};
		if (r.chance(0.4))
			h["If-Match"] = r.pick([
				'"1"',
				'W/"2"',
				"*",
				'"0"',
				'"9999999999"',
				`"${"9".repeat(9)}"`,
				`${ECHO_MARK}`,
				`"${"1".repeat(r.pick([100, 8000]))}"`,
				'"-1"',
				"1, 2",
			]);
		if (r.chance(0.4))
			h["X-Cairn-Session"] = r.pick([
				"s-1",
				"",
				" ",
				`${ECHO_MARK} bad`,
				"x".repeat(129),
				"../../etc",
				"sess\u0000",
				"caf%C3%A9",
				"a".repeat(128),
			]);
		if (r.chance(0.3)) h.Accept = r.pick(["application/json", "text/markdown", "*/*", "application/xml", ECHO_MARK]);
		if (r.chance(0.2)) h["Content-Encoding"] = r.pick(["gzip", "br", "identity", ECHO_MARK]);
		return h;
	}

	function buildRequest(o: Op, me: Identity, mutate: boolean): Req {
		const params = o.op.parameters ?? [];
		let path = o.template;
		let name: string | undefined;
		for (const p of params.filter((x) => x.in === "path")) {
			let v = pathValue(p, me, o.template);
			if (mutate && r.chance(0.25)) v = r.chance(0.3) ? r.pick(PROTO_SEGMENTS) : r.pick(HOSTILE_SEGMENTS);
			if (p.name === "name") name = safeDecode(v);
			path = path.replace(`{${p.name}}`, v);
		}
		const query: string[] = [];
		for (const p of params.filter((x) => x.in === "query")) {
			let v = queryValue(p, o.template);
			if (mutate && r.chance(0.2))
				v = r.pick([
					"",
					"-1",
					"1e309",
					"NaN",
					"team,personal",
					ECHO_MARK,
					"%00",
					"x".repeat(3000),
					"0x10",
					"[]",
					...PROTO_NAMES.slice(0, 4),
				]);
			if (v !== undefined) query.push(`${encodeURIComponent(p.name)}=${safeEncode(v)}`);
		}
		if (mutate && r.chance(0.1)) query.push(`scope=personal&scope=team&${ECHO_MARK}=1`);
		if (mutate && r.chance(0.05))
			query.push(`${r.pick(PROTO_SEGMENTS)}=${r.pick(PROTO_SEGMENTS)}`, "__proto__[x]=1", "constructor[prototype][x]=1");
		const headers: Record<string, string> = {};
		const secrets: string[] = [];
		let body: string | Uint8Array<ArrayBuffer> | undefined;
		const made = validBody(o, name, secrets);
		if (made) {
			headers["Content-Type"] = made.contentType;
			body = made.body;
		}
		if (mutate) {
			protoBodyMade = false;
			if (r.chance(0.5)) body = breakBody(typeof body === "string" ? body : undefined);
			if (r.chance(0.2)) headers["Content-Type"] = r.pick(CONTENT_TYPES);
			if (r.chance(0.1)) delete headers["Content-Type"];
			Object.assign(headers, hostileHeaders());
			if (r.chance(0.15)) Object.assign(headers, authVariant(me));
		} else if (o.template.endsWith("/memories/{name}") && o.method === "PUT" && r.chance(0.2)) {
			headers["X-Cairn-Session"] = r.pick(SESSION_POOL);
		}
		const fullPath = `${path}${query.length ? `?${query.join("&")}` : ""}`;
		return {
			method: o.method,
			route: o.template,
			path: fullPath,
			headers,
			body,
			identity: me,
			secrets,
			proto: protoBodyMade || carriesProto(fullPath) || (typeof body === "string" && carriesProto(body)),
			protoKeys: protoBodyMade,
		};
	}

	/** Ops that would destroy the fuzzer's own fixtures or the machine's time are limited. */
	const usable = ops.filter((o) => o.template !== "/openapi.json");
	const weightOf = (o: Op) =>
		o.template.startsWith("/v1/operator/") || o.template.endsWith("/consolidate") || o.template.endsWith("/extract")
			? 0.2
			: o.template.endsWith("/memory") && o.method === "DELETE"
				? 0.2
				: o.template.includes("/memories")
					? 3
					: 1;
	const totalWeight = usable.reduce((s, o) => s + weightOf(o), 0);
	const pickOp = () => {
		let x = r.next() * totalWeight;
		for (const o of usable) {
			x -= weightOf(o);
			if (x <= 0) return o;
		}
		return usable.at(-1) as Op;
	};

	async function single(mutate: boolean, readOnly = false) {
		let o = pickOp();
		while (readOnly && o.method !== "GET") o = pickOp();
		const me = r.pick(identities);
		const req = buildRequest(o, me, mutate);
		if (req.route.startsWith("/v1/operator/") || req.route === "/v1/admin/tenants") {
			if (r.chance(0.6)) req.headers.Authorization = `Bearer ${opts.adminToken}`;
			else req.headers.Authorization = r.pick(["", `Bearer ${me.token}`, "Bearer wrong"]);
		}
		if (mutate && r.chance(0.05)) req.method = r.pick(["PATCH", "HEAD", "OPTIONS", "DELETE", "PUT", "POST", "TRACE"]);
		const res = await send(req);
		if (req.secrets?.length) {
			planted.push(...req.secrets);
			secretStatuses.set(res.status, (secretStatuses.get(res.status) ?? 0) + 1);
		}
		// The other tenant's project must look missing.
		const other = tenants.findIndex((t, i) => i !== me.tenant && t.projects.some((p) => req.path.includes(`/projects/${p}`)));
		// 413 comes from the body limit before any lookup, the same for every project id: it reveals nothing.
		if (other >= 0 && res.status !== 0 && res.status !== 413) {
			const auth = req.headers.Authorization;
			const foreignKey = auth !== undefined && identities.some((i) => i.tenant === other && auth.includes(i.token));
			if (!foreignKey)
				tally("cross-tenant-404", res.status === 404 || res.status === 401 || res.status === 405 || res.status === 400, {
					method: req.method,
					route: req.route,
					path: req.path,
					status: res.status,
					detail: `${me.label} reached tenant ${other}'s project`,
				});
		}
	}

	/**
	 * A request carrying prototype member names must leave Object.prototype as it was (the fuzzer runs
	 * in the Worker's isolate, so pollution would show here), and a settings or policy patch with such a
	 * key must be refused: the settings have no key of that name.
	 */
	function checkPrototypeInert(req: Req, status: number) {
		const where = { method: req.method, route: req.route, path: req.path, status };
		const now = Object.getOwnPropertyNames(Object.prototype).sort().join(",");
		tally("prototype-inert", now === PROTOTYPE_BASELINE, { ...where, detail: `Object.prototype changed: ${now.slice(0, 200)}` });
		if (req.protoKeys && req.method === "PUT" && SETTINGS_ROUTES.has(req.route))
			tally("prototype-inert", status >= 400 && status < 500, {
				...where,
				detail: "a settings patch keyed by a prototype member name was not refused",
			});
	}

	/** Payloads at and just over the limits. */
	async function sizes() {
		const me = owners[r.int(owners.length)] as Identity;
		const pid = (tenants[me.tenant] as TenantState).projects[0] as string;
		const mem = `/v1/projects/${pid}/memories/alpha`;
		const route = "/v1/projects/{projectId}/memories/{name}";
		switch (r.int(8)) {
			case 0:
				await send(jsonReq(me, "PUT", route, mem, { type: "user", description: "at limit", body: "a".repeat(65_536) }));
				return;
			case 1:
				await send(jsonReq(me, "PUT", route, mem, { type: "user", description: "over", body: "a".repeat(65_537) }));
				return;
			case 2:
				await send(jsonReq(me, "PUT", route, mem, { type: "user", description: "multibyte", body: "é".repeat(40_000) }));
				return;
			case 3:
				await send(jsonReq(me, "PUT", route, mem, { type: "user", description: "d".repeat(r.pick([500, 501])), body: "b" }));
				return;
			case 4: {
				// Whole request at and over the 256 KiB body limit.
				const n = 256 * 1024 + r.pick([-1, 0, 1, 1000]);
				await send({ method: "PUT", route, path: mem, identity: me, headers: { "Content-Type": "text/markdown" }, body: "x".repeat(n) });
				return;
			}
			case 5: {
				const item = (i: number) => ({
					name: `bulk-${i}`,
					type: "project",
					description: `bulk ${i}`,
					body: "z".repeat(r.pick([10, 60_000])),
				});
				await send(
					jsonReq(me, "POST", "/v1/projects/{projectId}/memories/batch", `/v1/projects/${pid}/memories/batch`, {
						memories: Array.from({ length: r.pick([100, 101]) }, (_, i) => item(i)),
					}),
				);
				return;
			}
			case 6:
				await send(
					jsonReq(me, "POST", "/v1/projects/{projectId}/recall", `/v1/projects/${pid}/recall`, {
						query: "q ".repeat(r.pick([3999, 4000, 4001])),
					}),
				);
				return;
			default:
				await send(
					jsonReq(me, "PUT", route, `/v1/projects/${pid}/memories/${"a".repeat(r.pick([64, 65]))}`, {
						type: "user",
						description: "d",
						body: "b",
					}),
				);
		}
	}

	/** Concurrent PUT/DELETE/batch/GET on one memory, then the history check. */
	async function storm() {
		const me = owners[r.int(owners.length)] as Identity;
		const pid = r.pick((tenants[me.tenant] as TenantState).projects);
		const name = r.pick(NAME_POOL.slice(0, 4));
		const base = `/v1/projects/${pid}/memories`;
		const route = "/v1/projects/{projectId}/memories/{name}";
		const n = 4 + r.int(9);
		const reqs: Req[] = Array.from({ length: n }, (_, i) => {
			switch (r.int(6)) {
				case 0:
				case 1: {
					const req = jsonReq(me, "PUT", route, `${base}/${name}`, {
						type: "project",
						description: `storm ${i}`,
						body: `storm body ${step} ${i}`,
					});
					if (r.chance(0.3)) req.headers["If-Match"] = r.pick(['"1"', '"2"', "*"]);
					return req;
				}
				case 2:
					return {
						method: "PUT",
						route,
						path: `${base}/${name}`,
						identity: me,
						headers: { "Content-Type": "text/markdown" },
						body: topicFile(name, `storm md ${i}`, "feedback", `markdown ${i}`),
					};
				case 3:
					return { method: "DELETE", route, path: `${base}/${name}`, identity: me, headers: {} };
				case 4:
					return jsonReq(me, "POST", "/v1/projects/{projectId}/memories/batch", `${base}/batch`, {
						memories: [{ name, type: "user", description: `batch ${i}`, body: `batch body ${i}` }],
					});
				default:
					return { method: "GET", route, path: `${base}/${name}`, identity: me, headers: { Accept: "application/json" } };
			}
		});
		await Promise.all(reqs.map((q) => send(q)));
		await checkHistory(me, pid, name);
	}

	async function checkHistory(me: Identity, pid: string, name: string) {
		const route = "/v1/projects/{projectId}/memories/{name}";
		const cur = await send({
			method: "GET",
			route,
			path: `/v1/projects/${pid}/memories/${name}?scope=personal`,
			identity: me,
			headers: { Accept: "application/json" },
		});
		const hist = await send({
			method: "GET",
			route: `${route}/history`,
			path: `/v1/projects/${pid}/memories/${name}/history?scope=personal`,
			identity: me,
			headers: {},
		});
		const where = { method: "GET", route: `${route}/history`, path: `/v1/projects/${pid}/memories/${name}/history` };
		if (cur.status === 404) {
			const empty =
				hist.status === 404 || (hist.status === 200 && (JSON.parse(hist.body) as { versions: unknown[] }).versions.length === 0);
			tally("history-consistent", empty, { ...where, status: hist.status, detail: "deleted memory still has history" });
			return;
		}
		if (cur.status !== 200 || hist.status !== 200) {
			tally("history-consistent", false, { ...where, status: hist.status, detail: `memory ${cur.status}, history ${hist.status}` });
			return;
		}
		const version = (JSON.parse(cur.body) as { memory: { version: number } }).memory.version;
		const versions = (JSON.parse(hist.body) as { versions: { version: number }[] }).versions.map((v) => v.version);
		let problem: string | null = null;
		if (versions[0] !== version) problem = `current version ${version}, latest history entry ${versions[0]}`;
		for (let i = 1; i < versions.length && !problem; i++)
			if (versions[i] !== (versions[i - 1] as number) - 1) problem = `history not contiguous: ${versions.slice(0, 12).join(",")}`;
		if (cur.headers.get("ETag") !== `"${version}"`) problem ??= `ETag ${cur.headers.get("ETag")} for version ${version}`;
		tally("history-consistent", !problem, { ...where, status: 200, detail: problem ?? "" });
	}

	// ---- The run. ----
	const budget = opts.count;
	const light = opts.sweep === "light";
	const sweepers = light ? owners : identities;
	const readbackProjects = light ? 1 : 2;
	// Roughly what the end sweep sends; the fuzzing loop gets the rest of the budget, and at least half of it.
	const sweepCost = sweepers.length * 3 * 17 + owners.length * readbackProjects * 33 + owners.length * 2 * 8 + 20;
	const loopBudget = Math.max(budget - sweepCost, Math.ceil(budget / 2));
	while (result.sent < loopBudget) {
		step++;
		const roll = r.next();
		if (roll < 0.06) await storm();
		else if (roll < 0.1) await sizes();
		else if (roll < 0.55) await single(true);
		else await single(false);
		if (step % 1000 === 0) log(`step ${step}: ${result.sent} requests`);
	}

	// ---- After the run: put things back so that reads mean something, then sweep. ----
	for (const t of tenants) {
		const dev = identities.find((i) => i.label === `t${tenants.indexOf(t)}/dev`) as Identity;
		const reset = Object.fromEntries((opts.recordKeys ?? []).map((k) => [k, null]));
		await send(jsonReq(dev, "PUT", "/v1/admin/policy", "/v1/admin/policy", reset));
		for (const who of owners.filter((o) => o.tenant === dev.tenant)) await send(jsonReq(who, "PUT", "/v1/settings", "/v1/settings", reset));
		for (const pid of t.projects)
			await send(
				jsonReq(dev, "PUT", "/v1/projects/{projectId}/settings", `/v1/projects/${pid}/settings`, { ...reset, "memories.enabled": true }),
			);
	}
	// Stored settings and policy hold known keys only, whatever the run sent.
	const known = new Set(opts.recordKeys ?? []);
	for (const t of tenants) {
		const dev = identities.find((i) => i.label === `t${tenants.indexOf(t)}/dev`) as Identity;
		const reads: [string, string, string][] = [
			["/v1/admin/policy", "/v1/admin/policy", "policy"],
			["/v1/settings", "/v1/settings", "settings"],
			...t.projects.map((pid): [string, string, string] => [
				"/v1/projects/{projectId}/settings",
				`/v1/projects/${pid}/settings`,
				"settings",
			]),
		];
		for (const [route, path, field] of reads) {
			const res = await send({ method: "GET", route, path, identity: dev, headers: {} });
			if (res.status !== 200 || known.size === 0) continue;
			const stored = (JSON.parse(res.body) as Record<string, Record<string, unknown>>)[field] ?? {};
			const stray = Object.keys(stored).filter((k) => !known.has(k));
			tally("prototype-inert", stray.length === 0, {
				method: "GET",
				route,
				path,
				status: 200,
				detail: `stored keys that are no setting: ${stray.length}`,
			});
		}
	}
	let canariesSeen = 0;
	for (const me of sweepers) {
		const t = tenants[me.tenant] as TenantState;
		const other = tenants[(me.tenant + 1) % tenants.length] as TenantState;
		for (const pid of [...t.projects, r.pick(other.projects)]) {
			const reads = [
				"/memories",
				"/index",
				"/view",
				"/summary",
				"/team-memory",
				"/logs",
				"/logs/2026-11-30",
				"/logs/2026-11-29",
				"/logs/2026-12-01",
				"/logs/2026-02-29",
				"/sessions",
				"/candidates",
				"/memories/canary-vault?scope=personal",
				"/memories/team-vault?scope=team",
				`/resolve?url=${encodeURIComponent("memory://root/canary-vault.md")}`,
			];
			for (const suffix of reads) {
				const route = `/v1/projects/{projectId}${suffix
					.split("?")[0]
					?.replace(/\d{4}-\d{2}-\d{2}/, "{date}")
					.replace(/canary-vault|team-vault/, "{name}")}`;
				const res = await send({ method: "GET", route, path: `/v1/projects/${pid}${suffix}`, identity: me, headers: {} });
				if (suffix === "/memories/canary-vault?scope=personal" && res.status === 200 && res.body.includes(t.userCanary[me.user] as string))
					canariesSeen++;
				if (other.projects.includes(pid))
					tally("cross-tenant-404", res.status === 404, {
						method: "GET",
						route,
						path: `/v1/projects/${pid}${suffix}`,
						status: res.status,
						detail: `${me.label} on a foreign project`,
					});
			}
			for (const endpoint of ["recall", "inject"])
				await send(
					jsonReq(me, "POST", `/v1/projects/{projectId}/${endpoint}`, `/v1/projects/${pid}/${endpoint}`, {
						query: "vault phrase team CANARY database deploy",
					}),
				);
		}
	}
	// Each owner key (dev, ops, dev's read key) must still read its own canary in the first project, which nothing clears.
	const expected = sweepers.filter((i) => !i.projectId).length;
	tally("canaries-intact", canariesSeen >= expected, {
		method: "GET",
		route: "/v1/projects/{projectId}/memories/{name}",
		path: "canary-vault",
		status: 200,
		detail: `owners read ${canariesSeen} canaries back, expected at least ${expected}`,
	});
	result.notes.push(
		`owners read back ${canariesSeen} planted personal canaries (at least ${expected} expected: every tenant-wide key, first project)`,
	);
	for (const pid of tenants.flatMap((t) => t.projects))
		for (const me of owners.filter((o) => (tenants[o.tenant] as TenantState).projects.includes(pid)))
			for (const name of NAME_POOL.slice(0, 4)) await checkHistory(me, pid, name);
	// Read back everything the pooled names and sessions hold, where planted secrets would be.
	for (const me of owners) {
		for (const pid of (tenants[me.tenant] as TenantState).projects.slice(0, readbackProjects)) {
			const route = "/v1/projects/{projectId}/memories/{name}";
			for (const name of NAME_POOL)
				for (const scope of ["personal", "team"]) {
					await send({ method: "GET", route, path: `/v1/projects/${pid}/memories/${name}?scope=${scope}`, identity: me, headers: {} });
					await send({
						method: "GET",
						route: `${route}/history/{version}`,
						path: `/v1/projects/${pid}/memories/${name}/history/1?scope=${scope}`,
						identity: me,
						headers: {},
					});
				}
			for (const sid of [...SESSION_POOL, "canary-session"]) {
				const sroute = "/v1/projects/{projectId}/sessions/{sessionId}";
				await send({ method: "GET", route: sroute, path: `/v1/projects/${pid}/sessions/${sid}`, identity: me, headers: {} });
				await send({
					method: "GET",
					route: `${sroute}/memory`,
					path: `/v1/projects/${pid}/sessions/${sid}/memory`,
					identity: me,
					headers: {},
				});
			}
			await send({
				method: "GET",
				route: "/v1/projects/{projectId}/team-memory",
				path: `/v1/projects/${pid}/team-memory?view=full`,
				identity: me,
				headers: {},
			});
		}
	}
	// MEMORY.md past its caps: 300 memories with 500-character descriptions in one project, then the index.
	const big = owners[0] as Identity;
	const bigProject = (tenants[big.tenant] as TenantState).projects[0] as string;
	for (let b = 0; b < 3; b++)
		await send(
			jsonReq(big, "POST", "/v1/projects/{projectId}/memories/batch", `/v1/projects/${bigProject}/memories/batch`, {
				memories: Array.from({ length: 100 }, (_, i) => ({
					name: `cap-${b}-${i}`,
					type: r.pick(["user", "feedback", "project", "reference"]),
					description: `[cap] ${"d".repeat(480)} ${b}-${i} ]`,
					body: "cap",
				})),
			}),
		);
	const capped = await send({
		method: "GET",
		route: "/v1/projects/{projectId}/index",
		path: `/v1/projects/${bigProject}/index`,
		identity: big,
		headers: {},
	});
	result.notes.push(
		`MEMORY.md past its caps (300 memories + the run's): ${capped.status}, ${capped.body.split("\n").length - 1} lines, ${new TextEncoder().encode(capped.body).byteLength} bytes, truncation warning ${INDEX_WARNING.test(capped.body.trimEnd().split("\n").at(-1) ?? "") ? "present" : "absent"}`,
	);
	result.notes.push(`${planted.length} secret-looking values planted in writes, transcripts, logs and team sync`);

	// Top up to the requested count with reads, which change nothing the end checks saw.
	while (result.sent < budget) await single(r.chance(0.5), true);
	const bySecret = [...secretStatuses].sort(([a], [b]) => a - b);
	result.notes.push(`requests carrying a planted secret, by status: ${bySecret.map(([st, c]) => `${st} × ${c}`).join(", ")}`);
	for (const [text, count] of noteCounts) result.notes.push(`${count} ${text}`);
	// The slowest request of each route, slowest routes first.
	timings.sort((a, b) => b.ms - a.ms);
	const routes = new Set<string>();
	result.slowest = timings
		.filter((t) => !routes.has(`${t.method} ${t.route}`) && routes.add(`${t.method} ${t.route}`))
		.slice(0, 6)
		.map((t) => ({ ...t, ms: Math.round(t.ms * 10) / 10 }));
	result.durationMs = Math.round(performance.now() - started);
	return result;
}

const describe = (req: Req) => {
	const body =
		req.body === undefined
			? ""
			: typeof req.body === "string"
				? req.body
				: `<${req.body.byteLength} bytes> ${new TextDecoder().decode(req.body.slice(0, 200))}`;
	const headers = Object.entries(req.headers)
		.filter(([k]) => k.toLowerCase() !== "authorization" || !req.identity)
		.map(([k, v]) => `${k}: ${v.slice(0, 60)}`)
		.join("; ");
	return `as ${req.identity?.label ?? "nobody"}; ${headers || "no extra headers"}; body (${body.length} chars): ${JSON.stringify(body.slice(0, 300))}`;
};
/** encodeURIComponent, with lone surrogates (which a URL cannot carry) as U+FFFD. */
const safeEncode = (v: string) =>
	encodeURIComponent(v.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd"));
const safeDecode = (v: string) => {
	try {
		return decodeURIComponent(v);
	} catch {
		return v;
	}
};
const lower = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

export const isClean = (r: FuzzResult) => r.violations.length === 0 && r.fiveXX.length === 0;
export { resolve };
