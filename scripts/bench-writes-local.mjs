import { cpus, loadavg } from "node:os";
import { operatorToken, serviceUrl } from "./bench/local-service.mjs";

const url = serviceUrl;
const adminToken = operatorToken();
const total = Number(process.env.CAIRN_BENCH_WRITES ?? 10_000);
const chars = Number(process.env.CAIRN_BENCH_CHARS ?? 1_000);
const BATCH = 100;

async function call(method, path, token, body) {
	const res = await fetch(`${url}${path}`, {
		method,
		headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
		body: body === undefined ? undefined : JSON.stringify(body),
	});
	const text = await res.text();
	if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${text.slice(0, 500)}`);
	return text ? JSON.parse(text) : null;
}

// Deterministic prose: words from a small vocabulary, varied per memory so every body differs.
const WORDS = (
	"the build deploy database migration test review branch release cache queue worker token retry " +
	"timeout schema index query latency budget owner team rule prefer avoid always never when after " +
	"before because config service client server request response error log metric alert rollback"
).split(" ");
let seed = 42;
const next = () => {
	seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
	return seed;
};
function prose(length) {
	let out = "";
	while (out.length < length) out += `${WORDS[next() % WORDS.length]}${next() % 9 === 0 ? ". " : " "}`;
	return out.slice(0, length).trim();
}
const TYPES = ["user", "feedback", "project", "reference"];
const memory = (i) => {
	const description = `Note ${i}: ${prose(120)}`.slice(0, 200);
	return { name: `bulk-${i}`, type: TYPES[i % 4], description, body: prose(Math.max(1, chars - description.length)) };
};

const key = (await call("POST", "/v1/admin/tenants", adminToken, { name: `bench-writes-${Date.now()}`, user: "ada" })).key.token;
const project = (await call("POST", "/v1/projects", key, { name: "bench-writes", rootPath: `/bench/writes-${Date.now()}` })).project.id;
await call("PUT", `/v1/projects/${project}/settings`, key, { "memories.enabled": true });

const loads = [];
const started = performance.now();
for (let i = 0; i < total; i += BATCH) {
	const memories = Array.from({ length: Math.min(BATCH, total - i) }, (_, j) => memory(i + j));
	const { results } = await call("POST", `/v1/projects/${project}/memories/batch`, key, { memories });
	const failed = results.filter((r) => r.status === "error");
	if (failed.length > 0) throw new Error(`batch at ${i}: ${JSON.stringify(failed[0])}`);
	loads.push(loadavg()[0] ?? 0);
}
const seconds = (performance.now() - started) / 1000;
const meanLoad = loads.reduce((a, b) => a + b, 0) / Math.max(1, loads.length);
console.log(
	`${total.toLocaleString("en")} memories of ${chars.toLocaleString("en")} characters through ${url} in ${seconds.toFixed(1)} s: ` +
		`${Math.round(total / seconds).toLocaleString("en")} memories/s (batches of ${BATCH}, one after another; ` +
		`${cpus().length} cores, 1-minute load average mean ${meanLoad.toFixed(1)}, max ${Math.max(...loads).toFixed(1)})`,
);
