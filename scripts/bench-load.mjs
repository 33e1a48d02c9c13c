// `npm run bench:load`: one project's requests under load, through a running service (`npm start`, or
// CAIRN_URL), the way a team's agents share its Durable Object. A project of 2,000 memories, then 3,000
// requests from 16 clients at once — 55 % recall, 20 % inject (as the hooks ask: a prompt's block, a
// session start's parts), 25 % writes that update 40 hot memories — in an order fixed by a seed, so two
// trees can be compared on the same work. Reports throughput, p50/p95/p99 per kind, 5xx and lost writes (every acknowledged write
// must be in its memory's history), where the time goes per kind (the service's Server-Timing phases,
// when it sends them) and the request floor (sequential p50 of /health, an authenticated one-memory read
// and a settings read). Writes .bench/load-result.json.
//
// Knobs: CAIRN_URL (default: where this checkout's `npm start` serves, else http://127.0.0.1:8787),
// CAIRN_ADMIN_TOKEN (default: from .dev.vars), CAIRN_LOAD_REQUESTS (3,000), CAIRN_LOAD_CLIENTS (16),
// CAIRN_LOAD_MEMORIES (2,000 at most), CAIRN_LOAD_SEED (7), CAIRN_LOAD_LABEL (a name for this run in the output).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { operatorToken, serviceUrl } from "./bench/local-service.mjs";

const url = serviceUrl;
const adminToken = operatorToken();
const TOTAL = Number(process.env.CAIRN_LOAD_REQUESTS ?? 3_000);
const CLIENTS = Number(process.env.CAIRN_LOAD_CLIENTS ?? 16);
const MEMORIES = Number(process.env.CAIRN_LOAD_MEMORIES ?? 2_000);
const HOT = 40;
const label = process.env.CAIRN_LOAD_LABEL ?? "this tree";

let seed = Number(process.env.CAIRN_LOAD_SEED ?? 7);
const next = () => {
	seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
	return seed;
};
const pick = (list) => list[next() % list.length];

// The data: the memories and prompts of three projects of the prompt benchmark (bench/prompts: a base
// project and its year of growth each), the first 2,000 memories in one project; the hot ones are the
// first 40.
const SETS = [
	["dev/billing-api", "grown/billing-api"],
	["holdout/clinicq", "grown/clinicq"],
	["fresh/haulpath", "grown/haulpath"],
];
const read = (name) => JSON.parse(readFileSync(`bench/prompts/${name}.json`, "utf8"));
const seen = new Set();
const pool = [];
const prompts = [];
for (const [baseName, grownName] of SETS) {
	const base = read(baseName);
	prompts.push(...base.prompts.map((p) => p.text));
	for (const m of [...base.memories, ...read(grownName).memories]) {
		if (seen.has(m.name)) continue;
		seen.add(m.name);
		pool.push({ name: m.name, type: m.type, description: m.description, body: m.body });
	}
}
const memories = pool.slice(0, MEMORIES);
if (memories.length < MEMORIES) throw new Error(`the data holds ${memories.length} memories, fewer than ${MEMORIES}`);
const hotNames = memories.slice(0, HOT).map((m) => m.name);
const FOLDERS = ["billing-api", "clinicq", "haulpath"];
const BRANCHES = ["main", "feat/refund-retries", "fix/appointment-timezones", "chore/deps"];

async function call(method, path, token, body, headers = {}) {
	const started = performance.now();
	const res = await fetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...headers },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	return { status: res.status, ms: performance.now() - started, text, timing: res.headers.get("Server-Timing") };
}
const JSON_ACCEPT = { Accept: "application/json" };
async function must(method, path, token, body) {
	const r = await call(method, path, token, body, JSON_ACCEPT);
	if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${r.text.slice(0, 300)}`);
	return r.text ? JSON.parse(r.text) : null;
}

// The project: a tenant, memory on, 2,000 memories (40 of them the hot ones the writes update).
const stamp = Date.now();
const key = (await must("POST", "/v1/admin/tenants", adminToken, { name: `bench-load-${stamp}`, user: "ada" })).key.token;
const project = (await must("POST", "/v1/projects", key, { name: "bench-load", rootPath: `/bench/load-${stamp}` })).project.id;
const base = `/v1/projects/${project}`;
await must("PUT", `${base}/settings`, key, { "memories.enabled": true });
const seedStarted = performance.now();
for (let i = 0; i < MEMORIES; i += 100) await must("POST", `${base}/memories/batch`, key, { memories: memories.slice(i, i + 100) });
const seedSeconds = (performance.now() - seedStarted) / 1000;

// The work, fixed by the seed before any request is sent. Injects are as the hooks send them: half a
// prompt's block (UserPromptSubmit), half a session start's three parts (SessionStart, one part each).
let starts = 0;
const work = Array.from({ length: TOTAL }, (_, i) => {
	const r = next() % 100;
	if (r < 55) return { kind: "recall", body: { query: pick(prompts) } };
	if (r < 65)
		return {
			kind: "inject",
			body: { query: pick(prompts), sessionId: `load-${stamp}-${i % CLIENTS}`, include: "memories", onlyNew: true },
		};
	if (r < 75) {
		const n = starts++;
		return {
			kind: "inject",
			body: {
				sessionId: `start-${stamp}-${Math.floor(n / 3)}`,
				source: "startup",
				part: { index: (n % 3) + 1, of: 3 },
				maxChars: 9_500,
				context: { folder: pick(FOLDERS), branch: pick(BRANCHES) },
			},
		};
	}
	const hot = next() % HOT;
	const { name: _name, ...fields } = memories[hot];
	return { kind: "write", hot, body: { ...fields, body: `${fields.body}\n\nUpdated by request ${i}.` } };
});
const send = (w) =>
	w.kind === "write" ? call("PUT", `${base}/memories/${hotNames[w.hot]}`, key, w.body) : call("POST", `${base}/${w.kind}`, key, w.body);

const errorCode = (text) => {
	try {
		return JSON.parse(text).error?.code ?? "unknown";
	} catch {
		return "unreadable";
	}
};

// A short warm-up outside the figures (the first requests compile and fill caches).
for (const w of work.slice(0, 20)) if (w.kind !== "write") await send(w);

const results = [];
const acked = new Map(); // hot index → acknowledged write count
let cursor = 0;
const load = loadavg()[0];
const started = performance.now();
await Promise.all(
	Array.from({ length: CLIENTS }, async () => {
		while (cursor < work.length) {
			const w = work[cursor++];
			const r = await send(w);
			results.push({ kind: w.kind, status: r.status, ms: r.ms, timing: r.timing, code: r.status >= 400 ? errorCode(r.text) : undefined });
			if (w.kind === "write" && r.status < 300) acked.set(w.hot, (acked.get(w.hot) ?? 0) + 1);
		}
	}),
);
const seconds = (performance.now() - started) / 1000;

// Lost writes: each hot memory's history holds its first version and every acknowledged write.
let lost = 0;
for (let h = 0; h < HOT; h++) {
	const version = (await must("GET", `${base}/memories/${hotNames[h]}`, key)).memory.version;
	lost += Math.max(0, 1 + (acked.get(h) ?? 0) - version);
}

const quantile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const stats = (list) => {
	const ms = list.map((r) => r.ms).sort((a, b) => a - b);
	return { n: ms.length, p50: quantile(ms, 0.5), p95: quantile(ms, 0.95), p99: quantile(ms, 0.99) };
};
/** Mean duration of each Server-Timing phase over `list` (phases a response did not send count as 0). */
const phases = (list) => {
	const sums = new Map();
	for (const r of list)
		for (const part of (r.timing ?? "").split(",")) {
			const m = /^\s*([\w.-]+)(?:;[^,]*?dur=([\d.]+))?/.exec(part);
			if (m?.[2]) sums.set(m[1], (sums.get(m[1]) ?? 0) + Number(m[2]));
		}
	return Object.fromEntries([...sums].map(([k, v]) => [k, Number((v / list.length).toFixed(2))]));
};

// The floor: sequential requests, each kind 200 times after 20 unmeasured.
const floor = {};
// The memory as the agents read it (markdown: memory_read, `cairn show`) and as JSON (the console, scripts).
for (const [kind, path, headers] of [
	["health", "/health", {}],
	["memory read", `${base}/memories/${hotNames[0]}`, {}],
	["memory read, JSON", `${base}/memories/${hotNames[0]}`, JSON_ACCEPT],
	["settings read", `${base}/settings`, {}],
]) {
	for (let i = 0; i < 20; i++) await call("GET", path, key, undefined, headers);
	const list = [];
	for (let i = 0; i < 200; i++) list.push(await call("GET", path, key, undefined, headers));
	floor[kind] = { p50: stats(list).p50, phases: phases(list) };
}

const kinds = ["recall", "inject", "write"];
const out = {
	label,
	url,
	date: new Date().toISOString(),
	machine: { cores: cpus().length, loadBefore: load, loadAfter: loadavg()[0] },
	requests: results.length,
	clients: CLIENTS,
	memories: MEMORIES,
	seedSeconds: Number(seedSeconds.toFixed(1)),
	seconds: Number(seconds.toFixed(1)),
	perSecond: Number((results.length / seconds).toFixed(1)),
	all: stats(results),
	status5xx: results.filter((r) => r.status >= 500).length,
	status4xx: results.filter((r) => r.status >= 400 && r.status < 500).length,
	errors: Object.fromEntries(
		[...new Set(results.filter((r) => r.code).map((r) => `${r.kind} ${r.status} ${r.code}`))].map((k) => [
			k,
			results.filter((r) => `${r.kind} ${r.status} ${r.code}` === k).length,
		]),
	),
	lostWrites: lost,
	perKind: Object.fromEntries(
		kinds.map((k) => {
			const list = results.filter((r) => r.kind === k);
			return [k, { ...stats(list), phases: phases(list) }];
		}),
	),
	floor,
};
mkdirSync(".bench", { recursive: true });
writeFileSync(".bench/load-result.json", `${JSON.stringify(out, null, 2)}\n`);

const f = (n) => n.toFixed(1);
console.log(`${label}: ${out.requests} requests from ${CLIENTS} clients against ${MEMORIES} memories in ${out.seconds} s`);
console.log(
	`${out.perSecond} requests/s · p50 ${f(out.all.p50)} ms · p95 ${f(out.all.p95)} ms · p99 ${f(out.all.p99)} ms · ${out.status5xx} 5xx · ${out.status4xx} 4xx · ${lost} lost writes · load ${load.toFixed(2)} → ${out.machine.loadAfter.toFixed(2)}`,
);
if (Object.keys(out.errors).length) console.log(`errors: ${JSON.stringify(out.errors)}`);
console.log("| kind | requests | p50 ms | p95 ms | p99 ms | where the time goes (mean ms per request) |");
console.log("|---|---:|---:|---:|---:|---|");
for (const k of kinds) {
	const s = out.perKind[k];
	const where = Object.entries(s.phases)
		.map(([p, v]) => `${p} ${v}`)
		.join(", ");
	console.log(`| ${k} | ${s.n} | ${f(s.p50)} | ${f(s.p95)} | ${f(s.p99)} | ${where || "–"} |`);
}
console.log(
	`floor p50: /health ${f(floor.health.p50)} ms · one-memory read ${f(floor["memory read"].p50)} ms (JSON ${f(floor["memory read, JSON"].p50)} ms) · settings read ${f(floor["settings read"].p50)} ms`,
);
