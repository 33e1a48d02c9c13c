// Runs inside workerd (the Workers Vitest integration) against real local D1, R2 and Durable Objects,
// calling the Worker's own fetch entry point: routing, auth, D1, the project's object and R2 included,
// no dev-server proxy or HTTP hop. Started by `npm run bench` (scripts/bench.ts), which passes the
// input and reads the result line.
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { it } from "vitest";
import { touchedMemories } from "../src/consolidate/inputs";
import { consolidateProject } from "../src/consolidate/run";
import { newId, nowIso, sha256Hex } from "../src/lib/ids";
import { type CandidateRow, candidateStatement } from "../src/memory/lexical";
import { type MemoryType, renderTopicFile } from "../src/memory/topic-file";
import { MAX_ATTEMPTS } from "../src/pipeline/consumer";
import type { ProjectCoordinator } from "../src/project/object";
import { score, toCandidates } from "../src/recall/ranking";
import { type Ranking, recall } from "../src/recall/recall";
import { cjkStem, gramText, hasCjk } from "../src/text/grams";
import { queryTerms } from "../src/text/terms";
import { setSeams } from "../test/worker";

/**
 * A word as the one-read-away check compares it: Korean by its stem (particles and endings vary), a longer
 * word by its first five letters (one family: review, reviewer; invoice, invoices), a short one whole.
 */
const stemOf = (w: string) => (hasCjk(w) ? cjkStem(w) : w.length > 5 ? w.slice(0, 5) : w);

import {
	type BenchInput,
	type BenchResult,
	corpus,
	longCorpus,
	type PromptProject,
	type PromptSetResult,
	type SeedMemory,
	stats,
	type TenancyStep,
} from "./corpus";
import { type Caller, parseSessions, runEndToEnd } from "./extraction-eval";
import { blockLines, presence, topicLines, topicMemberNames } from "./front";
import { benchPoisoningSet, benchTrustWrites } from "./poisoning";
import { benchReviewLoad } from "./review-load";
import { parseTimelines, runTimeline, type SubjectScore, scriptedModels } from "./updates-eval";

const input = JSON.parse((env as unknown as { BENCH_INPUT: string }).BENCH_INPUT) as BenchInput;
const HOUR = 3_600_000;
/** `CAIRN_BENCH_ONLY` (a development aid) runs some phases only; `npm run bench` then leaves the doc alone. */
const want = (phase: string) => !input.only || input.only.includes(phase);

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
	const headers = new Headers(init.headers);
	if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
	if (init.body) headers.set("Content-Type", "application/json");
	const res = await exports.default.fetch(new Request(`https://bench.local${path}`, { ...init, headers }));
	if (!res.ok) throw new Error(`${init.method ?? "GET"} ${path} → ${res.status} ${await res.text()}`);
	return res;
}

/**
 * A new project of `memories`, filled through the batch endpoint (the public write path, one memory at a time
 * inside the object). A memory the service refuses fails the run, unless
 * `refused` is given: then its name and the error's code (never its text) are collected there, as a user's
 * agent would lose it, and the run goes on.
 */
async function seed(token: string, name: string, memories: SeedMemory[], refused?: string[]) {
	const res = await call("/v1/projects", { method: "POST", token, body: JSON.stringify({ name, rootPath: `/bench/${name}` }) });
	const id = ((await res.json()) as { project: { id: string } }).project.id;
	await call(`/v1/projects/${id}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	const t0 = performance.now();
	for (let i = 0; i < memories.length; i += 100) {
		const r = await call(`/v1/projects/${id}/memories/batch`, {
			method: "POST",
			token,
			body: JSON.stringify({
				memories: memories.slice(i, i + 100).map(({ name, type, description, body }) => ({ name, type, description, body })),
			}),
		});
		const { results } = (await r.json()) as { results: { status: string; name?: string; error?: { code?: string } }[] };
		// The memory's name and the error's code only: never the memory's text.
		const failed = results.filter((x) => x.status === "error").map((x) => `${x.name ?? "?"} (${x.error?.code ?? "?"})`);
		if (refused) refused.push(...failed);
		else if (failed.length > 0) throw new Error(`seeding ${name} failed: ${failed.join(", ")}`);
	}
	return { id, fillSeconds: (performance.now() - t0) / 1000 };
}

async function timed(f: () => Promise<Response>): Promise<number> {
	const t0 = performance.now();
	await (await f()).arrayBuffer();
	return performance.now() - t0;
}

const stubOf = (projectId: string) => env.PROJECT_COORDINATOR.getByName(projectId);

/** The ranking steps, switched on one at a time (each row keeps the ones above): what each adds. */
const STEPS: { label: string; ranking: Ranking }[] = [
	{
		label: "without the steps below",
		ranking: { questionWords: false, wordForms: false, dateCues: false, neighbours: false, concepts: false },
	},
	{
		label: "+ question-shaping words dropped",
		ranking: { questionWords: true, wordForms: false, dateCues: false, neighbours: false, concepts: false },
	},
	{
		label: "+ irregular word forms",
		ranking: { questionWords: true, wordForms: true, dateCues: false, neighbours: false, concepts: false },
	},
	{ label: "+ date cues", ranking: { questionWords: true, wordForms: true, dateCues: true, neighbours: false, concepts: false } },
	{
		label: "+ neighbours of the first result",
		ranking: { questionWords: true, wordForms: true, dateCues: true, neighbours: true, concepts: false },
	},
	{ label: "+ cues and concepts", ranking: { questionWords: true, wordForms: true, dateCues: true, neighbours: true, concepts: true } },
];

/** The names recall returns (limit 10) for `query` asked at `at` under each step, called in the Worker as the route calls it. */
function stepAnswers(ctx: { tenantId: string; userId: string; projectId: string }, query: string, at?: string): Promise<string[][]> {
	return Promise.all(
		STEPS.map(async ({ ranking }) =>
			(await recall(env as unknown as Env, ctx, { query, limit: 10, engine: "lexical", ranking, ...(at ? { at } : {}) })).memories.map(
				(m) => m.name,
			),
		),
	);
}

/**
 * Gives memories filled through the API the time and session they were written by (`writtenAt`,
 * `session`), as a consolidation run after that session would have: the write path stamps the
 * present, and the API has no way to backdate a memory.
 */
async function stampWritten(projectId: string, memories: SeedMemory[]) {
	const dated = memories.filter((m) => m.writtenAt || m.session);
	if (dated.length === 0) return;
	await runInDurableObject(stubOf(projectId), async (_instance: ProjectCoordinator, state) => {
		const sql = state.storage.sql;
		state.storage.transactionSync(() => {
			for (const m of dated) {
				const ids = sql.exec<{ id: number }>("SELECT id FROM memories WHERE project_id = ? AND name = ?", projectId, m.name).toArray();
				for (const { id } of ids) {
					if (m.writtenAt) {
						sql.exec("UPDATE memories SET created_at = ?1, updated_at = ?1, verified_at = ?1 WHERE id = ?2", m.writtenAt, id);
						sql.exec("UPDATE memory_versions SET created_at = ? WHERE memory_id = ?", m.writtenAt, id);
					}
					if (m.session) {
						sql.exec("UPDATE memories SET session_id = ? WHERE id = ?", m.session, id);
						sql.exec("UPDATE memory_versions SET session_id = ? WHERE memory_id = ?", m.session, id);
					}
				}
			}
		});
	});
}

it("benchmarks the Worker", { timeout: 6 * HOUR }, async () => {
	const tenant = await call("/v1/admin/tenants", {
		method: "POST",
		token: env.CAIRN_ADMIN_TOKEN,
		body: JSON.stringify({ name: "bench", user: "bench" }),
	});
	const created = (await tenant.json()) as { key: { token: string }; user: { id: string }; tenant: { id: string } };
	const token = created.key.token;
	const result: BenchResult = {
		locomo: {},
		latency: [],
		writes: [],
		index: [],
		health: stats([]),
		ingest: [],
		stageOne: [],
		consolidation: [],
		tenancy: null,
	};

	// Transport floor of this harness: the cheapest route.
	const health: number[] = [];
	for (let i = 0; i < input.samples; i++) health.push(await timed(() => call("/health")));
	result.health = stats(health);

	// What authentication adds: effective settings of a project (no project data) beside /health, alternately.
	if (want("auth")) {
		const registered = await call("/v1/projects", {
			method: "POST",
			token,
			body: JSON.stringify({ name: "auth", gitRemote: "git@github.com:bench/auth-overhead.git" }),
		});
		const { project } = (await registered.json()) as { project: { id: string } };
		const path = `/v1/projects/${project.id}/settings/effective`;
		await (await call(path, { token })).arrayBuffer();
		const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
		const samples = input.samples * 5;
		const bare: number[] = [];
		const warm: number[] = [];
		for (let i = 0; i < samples; i++) {
			bare.push(await timed(() => call("/health")));
			warm.push(await timed(() => call(path, { token })));
		}
		const cold: number[] = [];
		const coldSamples = Math.min(input.samples, 50);
		for (let i = 0; i < coldSamples; i++) {
			const issued = await call("/v1/keys", { method: "POST", token, body: JSON.stringify({ scopes: ["read"] }) });
			const fresh = ((await issued.json()) as { key: { token: string } }).key.token;
			cold.push(await timed(() => call(path, { token: fresh })));
		}
		result.auth = { samples, health: mean(bare), warm: mean(warm), coldSamples, cold: mean(cold) };
	}

	// Recall quality: one project per LoCoMo conversation, every question through /recall, and under each ranking step.
	const contributions: NonNullable<BenchResult["contributions"]> = {
		steps: STEPS.map((s) => s.label),
		locomo: STEPS.map(() => ({})),
		longmemeval: STEPS.map(() => ({})),
	};
	for (const conv of want("quality") ? input.locomo : []) {
		const { id } = await seed(token, `locomo-${conv.id}`, conv.memories);
		await stampWritten(id, conv.memories);
		const ctx = { tenantId: created.tenant.id, userId: created.user.id, projectId: id };
		const answers: string[][] = [];
		const at = conv.at ? { at: conv.at } : {};
		for (const c of contributions.locomo) c[conv.id] = [];
		for (const question of conv.questions) {
			const r = await call(`/v1/projects/${id}/recall`, {
				method: "POST",
				token,
				body: JSON.stringify({ query: question, limit: 10, ...at }),
			});
			answers.push(((await r.json()) as { memories: { name: string }[] }).memories.map((m) => m.name));
			for (const [k, names] of (await stepAnswers(ctx, question, conv.at)).entries()) contributions.locomo[k]?.[conv.id]?.push(names);
		}
		result.locomo[conv.id] = answers;
	}
	result.contributions = contributions;

	// Recall and inject latency at each size.
	const projects: { size: number; id: string }[] = [];
	for (const size of input.sizes) {
		if (!want("latency") && size !== input.sizes.at(-1)) continue;
		const { id, fillSeconds } = await seed(token, `latency-${size}`, corpus(input.sentences, size));
		projects.push({ size, id });
		if (!want("latency")) continue;
		await warmRecall(token, id);
		const recall: number[] = [];
		const inject: number[] = [];
		const prompt: number[] = [];
		const start: number[] = [];
		for (let i = 0; i < input.samples; i++) {
			const query = input.queries[i % input.queries.length];
			const body = JSON.stringify({ query });
			recall.push(await timed(() => call(`/v1/projects/${id}/recall`, { method: "POST", token, body })));
			inject.push(await timed(() => call(`/v1/projects/${id}/inject`, { method: "POST", token, body })));
			// Per-prompt: as the prompt hook sends it, a fresh session each time.
			const perPrompt = JSON.stringify({ query, include: "memories", sessionId: `latency-${size}-${i}`, onlyNew: true, maxChars: 9500 });
			prompt.push(await timed(() => call(`/v1/projects/${id}/inject`, { method: "POST", token, body: perPrompt })));
			// Session start: as the SessionStart hook sends it (what git says of the session, a new session).
			const words = (query ?? "").toLowerCase().match(/[a-z]+/g) ?? [];
			const atStart = JSON.stringify({
				context: {
					folder: "latency",
					branch: `feature/${words.slice(0, 3).join("-")}`,
					commits: [query ?? ""],
					files: [`src/${words[0] ?? "app"}.ts`],
				},
				sessionId: `latency-start-${size}-${i}`,
				maxChars: 9500,
				source: "startup",
				waitMs: 2000,
			});
			// Its three parts at once, as the agents run the three SessionStart hooks: the session waits for the last.
			const t0 = performance.now();
			await Promise.all(
				[1, 2, 3].map(async (index) => {
					const body = JSON.stringify({ ...JSON.parse(atStart), part: { index, of: 3 } });
					await (await call(`/v1/projects/${id}/inject`, { method: "POST", token, body })).arrayBuffer();
				}),
			);
			start.push(performance.now() - t0);
		}
		result.latency.push({ size, fillSeconds, recall: stats(recall), inject: stats(inject), prompt: stats(prompt), start: stats(start) });
	}

	// Korean, Japanese and Chinese recall: through the API, and the word index alone beside it.
	if (input.cjk && want("cjk")) result.cjk = await benchCjk(token, created.user.id, created.tenant.id, input.cjk);
	// Hybrid recall over a vector for every memory of the largest project, beside lexical recall.
	const largest = projects.at(-1);
	if (largest && want("vectors")) result.vectors = await benchVectors(token, largest);
	// Single writes in a tiny project and in the largest one, interleaved.
	if (want("writes")) await benchWrites(token, largest, result);
	if (want("pipeline")) await benchPipeline(token, result);
	if (want("consolidation")) {
		const hundred = await seed(token, "consolidation-100", corpus(input.sentences, 100));
		await benchConsolidation([{ size: 100, id: hundred.id }, ...projects], created.user.id, created.tenant.id, result);
	}
	// Last, so that nothing above runs beside a million seeded memories.
	if (largest && want("tenancy")) result.tenancy = await benchTenancy(token, largest);
	if (want("extraction")) result.extraction = await benchExtraction(token);
	if (want("updates")) result.updates = await benchUpdates(token);
	if (want("prompts")) result.prompts = await benchPrompts(token, created.user.id, created.tenant.id);
	if (want("review-load")) result.reviewLoad = await benchReviewLoad(token, input.transcripts);
	if (input.poisoning && want("poisoning")) {
		const sets: NonNullable<BenchResult["poisoning"]>["sets"] = {};
		for (const [name, entries] of Object.entries(input.poisoning))
			sets[name] = await benchPoisoningSet(token, created.user.id, name, entries);
		result.poisoning = { sets, writes: await benchTrustWrites(token, input.samples) };
	}
	// Recall quality on LongMemEval: after the measured phases, so that its projects are not among their neighbours.
	if (input.longmemeval && want("longmemeval"))
		result.longmemeval = await benchLongMemEval(token, created.user.id, created.tenant.id, input.longmemeval, contributions.longmemeval);

	console.log(`CAIRN_BENCH_RESULT ${JSON.stringify(result)}`);
});

/**
 * Per-prompt recall, measured as what is in front of the model: each labelled project of
 * bench/prompts/<set>/ in a project of its own (filled through the batch endpoint); `grown/` holds further
 * memories for some of them (a year of extraction), measured as a set of its own with the base project's
 * prompts. For every prompt, a new session as the hooks run it: the session-start block as the Claude Code
 * SessionStart hook asks for it (folder name and branch as `context`, its character limit), then the prompt's block
 * exactly as the UserPromptSubmit hook sends it (`include: "memories"`, `onlyNew` in the same session).
 * Each needed memory is looked for in both texts (bench/front.ts). Beside it, recall with a trace inside
 * the Worker records each candidate's evidence and coverage (src/recall/relevance.ts), for calibration.
 * Scored by scripts/bench.ts against the labels.
 */
async function benchPrompts(token: string, userId: string, tenantId: string): Promise<PromptSetResult[]> {
	const files = import.meta.glob<PromptProject & { base?: string }>("./prompts/*/*.json", { import: "default", eager: true });
	const projects = Object.entries(files)
		.sort(([a], [b]) => (a < b ? -1 : 1))
		.map(([path, project]) => {
			const set = path.split("/").at(-2) ?? "";
			const base = project.base ? files[`./prompts/${project.base}.json`] : undefined;
			if (project.base && !base) throw new Error(`${path}: base ${project.base} not found`);
			return base ? { set, project: { ...base, memories: [...base.memories, ...project.memories] } } : { set, project };
		})
		.filter(({ set }) => !input.promptSets || input.promptSets.includes(set));
	const out: PromptSetResult[] = [];
	// `grown` is measured twice: with no history, and after use — its first half of prompts asked first, the
	// agent reading (memory_read, as `GET …/resolve` with its session) each needed memory it was shown, then
	// the second half measured (`grown-used`). The labels stand in for the agent's judgement of what it needed.
	const runs = projects.flatMap((p) => (p.set === "grown" ? [p, { ...p, set: "grown-used" }] : [p]));
	for (const { set, project } of runs) {
		// A labelled set's memory the service refuses (a false alarm of the secret check) is lost as it would be
		// in use, and said: a prompt that needs it counts it missed.
		const refused: string[] = [];
		const { id } = await seed(token, `prompts-${set}-${project.project}`, project.memories, refused);
		if (refused.length > 0) console.log(`prompts: ${set}/${project.project}: the service refused ${refused.join(", ")}`);
		const ctx = { tenantId, userId, projectId: id };
		const byName = new Map(project.memories.map((m) => [m.name, m]));
		const prompts: PromptSetResult["prompts"] = [];
		const half = Math.floor(project.prompts.length / 2);
		const topicMembers = new Map<string, string[]>();
		for (const [i, p] of project.prompts.entries()) {
			const warmUp = set === "grown-used" && i < half;
			const sessionId = `bench-${set}-${i}`;
			// The start block as the hooks ask for it: three parts, one per SessionStart hook entry, Claude Code's per-hook cap.
			const startParts = await Promise.all(
				[1, 2, 3].map(
					async (index) =>
						(await (
							await call(`/v1/projects/${id}/inject`, {
								method: "POST",
								token,
								body: JSON.stringify({
									context: { folder: project.project, branch: "main" },
									sessionId,
									part: { index, of: 3 },
									maxChars: 9500,
									waitMs: 2000,
								}),
							})
						).json()) as { text: string; tokens: number },
				),
			);
			const start = {
				text: startParts
					.map((p) => p.text)
					.filter(Boolean)
					.join("\n"),
				chars: startParts.reduce((n, p) => n + p.text.length, 0),
				tokens: startParts.reduce((n, p) => n + p.tokens, 0),
			};
			const t0 = performance.now();
			const res = await call(`/v1/projects/${id}/inject`, {
				method: "POST",
				token,
				body: JSON.stringify({
					query: p.text.slice(0, 8000),
					include: "memories",
					sessionId,
					onlyNew: true,
					maxChars: 9500,
				}),
			});
			const body = (await res.json()) as { text: string; parts: { memories: { name: string }[]; offered?: { name: string }[] } };
			const ms = performance.now() - t0;
			const startLines = blockLines(start.text);
			const promptLines = blockLines(body.text);
			// One read away: the memory is in a topic a block names whose line shares a word with the prompt — the
			// agent, reading the line, has a reason to open it. Never counted as in front.
			const topics = new Map([...topicLines(startLines), ...topicLines(promptLines)]);
			const promptWords = new Set(queryTerms(p.text).map(stemOf));
			const oneReadAway = async (name: string) => {
				for (const [key, line] of topics) {
					const about = line.split(" — ")[1] ?? "";
					if (!queryTerms(about).some((w) => promptWords.has(stemOf(w)))) continue;
					let members = topicMembers.get(key);
					if (!members) {
						const url = encodeURIComponent(`memory://root/topics/${key}.md`);
						members = topicMemberNames(await (await call(`/v1/projects/${id}/resolve?url=${url}`, { token })).text());
						topicMembers.set(key, members);
					}
					if (members.includes(name)) return true;
				}
				return false;
			};
			if (warmUp) {
				for (const name of p.needs) {
					const memory = byName.get(name);
					if (!memory || (!presence(startLines, memory) && !presence(promptLines, memory))) continue;
					await call(`/v1/projects/${id}/resolve?url=${encodeURIComponent(`memory://root/${name}.md`)}`, {
						token,
						headers: { "X-Cairn-Session": sessionId },
					});
				}
				continue;
			}
			const traced = await recall(env, ctx, { query: p.text.slice(0, 8000), purpose: "prompt", trace: true, limit: 25 });
			prompts.push({
				id: p.id,
				lang: p.lang,
				kind: p.kind,
				needs: p.needs,
				served: body.parts.memories.map((m) => m.name),
				offered: (body.parts.offered ?? []).map((m) => m.name),
				ms,
				front: await Promise.all(
					p.needs.map(async (name) => {
						const memory = byName.get(name) ?? { name, type: "project", description: "\u0000" };
						const start = presence(startLines, memory);
						const prompt = presence(promptLines, memory);
						return { name, type: memory.type, start, prompt, topic: start || prompt ? false : await oneReadAway(name) };
					}),
				),
				promptChars: body.text.length,
				startChars: start.chars,
				startTokens: start.tokens,
				candidates: (traced.trace?.candidates ?? []).map((c) => ({
					name: c.name,
					evidence: c.evidence ?? 0,
					coverage: c.coverage ?? 0,
					score: c.score,
					matched: c.held ?? c.matchedTerms,
					about: c.about ?? [],
				})),
				...(traced.trace?.weights ? { weights: traced.trace.weights } : {}),
			});
		}
		out.push({ set, project: project.project, memories: project.memories.length, prompts });
	}
	return out;
}

/**
 * What gets remembered: every labelled session of bench/extraction through the whole pipeline with no
 * model (post, end, the queue's stage 1, consolidation), one project per eval project; the memory
 * texts are scored by scripts/bench.ts.
 */
async function benchExtraction(token: string): Promise<NonNullable<BenchResult["extraction"]>> {
	const sets = import.meta.glob<string>("./extraction/*.jsonl", { query: "?raw", import: "default", eager: true });
	const out: NonNullable<BenchResult["extraction"]> = {};
	for (const [path, text] of Object.entries(sets)) {
		const set = path.replace(/^.*\//, "").replace(/\.jsonl$/, "");
		const t0 = performance.now();
		const caller = (p: string, init: { method?: string; json?: unknown; body?: string; headers?: Record<string, string> } = {}) =>
			exports.default.fetch(
				new Request(`https://bench.local${p}`, {
					method: init.method ?? (init.json !== undefined || init.body !== undefined ? "POST" : "GET"),
					headers: {
						Authorization: `Bearer ${token}`,
						...(init.json !== undefined ? { "Content-Type": "application/json" } : {}),
						...init.headers,
					},
					body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
				}),
			);
		const { texts } = await runEndToEnd(caller, parseSessions(text), async (name) => {
			const res = await call("/v1/projects", {
				method: "POST",
				token,
				body: JSON.stringify({ name: `${set}-${name}`, rootPath: `/bench/extraction/${set}/${name}` }),
			});
			return ((await res.json()) as { project: { id: string } }).project.id;
		});
		out[set] = { texts: Object.fromEntries(texts), seconds: (performance.now() - t0) / 1000 };
	}
	return out;
}

/**
 * Memory that stays true over time: every timeline of bench/updates in a project of its own, run through
 * the whole pipeline session by session (bench/updates-eval.ts) — once with no model, once with scripted
 * models answering as the extraction and consolidation schemas expect — and every probe scored.
 */
async function benchUpdates(token: string): Promise<NonNullable<BenchResult["updates"]>> {
	const sets = import.meta.glob<string>("./updates/*.jsonl", { query: "?raw", import: "default", eager: true });
	const out: NonNullable<BenchResult["updates"]> = {};
	const caller: Caller = (p, init = {}) =>
		exports.default.fetch(
			new Request(`https://bench.local${p}`, {
				method: init.method ?? (init.json !== undefined || init.body !== undefined ? "POST" : "GET"),
				headers: {
					Authorization: `Bearer ${token}`,
					...(init.json !== undefined ? { "Content-Type": "application/json" } : {}),
					...init.headers,
				},
				body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
			}),
		);
	for (const [path, text] of Object.entries(sets)) {
		const set = path.replace(/^.*\//, "").replace(/\.jsonl$/, "");
		if (input.updateSets && !input.updateSets.includes(set)) continue;
		for (const mode of ["offline", "scripted"] as const) {
			const t0 = performance.now();
			// Timelines run side by side: each waits on its own queue and alarm, and they share nothing.
			const results = await Promise.all(
				parseTimelines(text).map(async (timeline) => {
					const res = await call("/v1/projects", {
						method: "POST",
						token,
						body: JSON.stringify({ name: `updates-${mode}-${timeline.id}`, rootPath: `/bench/updates/${mode}/${set}/${timeline.id}` }),
					});
					const id = ((await res.json()) as { project: { id: string } }).project.id;
					const models = scriptedModels(timeline);
					const result = await runTimeline(caller, timeline, id, async (projectId) => {
						await runInDurableObject(stubOf(projectId), async (instance: ProjectCoordinator) => {
							setSeams(
								instance,
								mode === "scripted" ? { model: models.consolidate, extractModel: models.extract } : { model: null, extractModel: null },
							);
						});
					});
					return result;
				}),
			);
			const rows: SubjectScore[] = results.flatMap((r) => r.rows);
			const changeOnly = results.flatMap((r) => r.changeOnly);
			out[`${set}:${mode}`] = { mode, rows, changeOnly, seconds: (performance.now() - t0) / 1000 };
		}
	}
	return out;
}

/**
 * The CJK set: one project holding every memory; each question through `POST /recall` (limit 10), and
 * through the word index alone (`memories_fts` candidates scored as recall scores them) — what recall
 * found before the CJK gram index existed.
 */
async function benchCjk(
	token: string,
	userId: string,
	tenantId: string,
	set: NonNullable<BenchInput["cjk"]>,
): Promise<NonNullable<BenchResult["cjk"]>> {
	const { id } = await seed(token, "cjk-recall", set.memories);
	const ctx = { tenantId, userId, projectId: id };
	const now: string[][] = [];
	const words: string[][] = [];
	for (const q of set.questions) {
		const r = await call(`/v1/projects/${id}/recall`, { method: "POST", token, body: JSON.stringify({ query: q.query, limit: 10 }) });
		now.push(((await r.json()) as { memories: { name: string }[] }).memories.map((m) => m.name));
		const terms = queryTerms(q.query);
		words.push(
			terms.length === 0
				? []
				: await runInDurableObject(stubOf(id), async (instance: ProjectCoordinator) => {
						const { results } = await candidateStatement(instance.db, ctx, terms, {
							scopes: ["personal", "team"],
							limit: 25,
						}).all<CandidateRow>();
						return score(toCandidates(results), terms)
							.slice(0, 10)
							.map((m) => m.row.name);
					}),
		);
	}
	return { now, words };
}

const VECTOR_DIMS = 1024;

/** A deterministic unit vector per text (FNV-1a seeded xorshift): the cost of the search, not its quality. */
function pseudoVector(text: string): Float32Array {
	let h = 2166136261;
	for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619) >>> 0;
	const v = new Float32Array(VECTOR_DIMS);
	let norm = 0;
	for (let i = 0; i < VECTOR_DIMS; i++) {
		h ^= h << 13;
		h ^= h >>> 17;
		h ^= h << 5;
		h >>>= 0;
		v[i] = h / 4294967296 - 0.5;
		norm += (v[i] as number) ** 2;
	}
	norm = Math.sqrt(norm);
	for (let i = 0; i < VECTOR_DIMS; i++) v[i] = (v[i] as number) / norm;
	return v;
}

/**
 * Hybrid recall at the largest size: every memory of the project gets a 1,024-dimension vector
 * (written directly in the object), a zero-latency scripted embedder stands in for the model, and
 * recall with `retrieval: "hybrid"` (one brute-force scan of every vector the caller may see) is timed
 * interleaved with `retrieval: "lexical"`. The vectors and the embedder are removed afterwards.
 */
async function benchVectors(token: string, project: { size: number; id: string }): Promise<NonNullable<BenchResult["vectors"]>> {
	const t0 = performance.now();
	const model = "bench:pseudo-1024";
	await runInDurableObject(stubOf(project.id), async (instance: ProjectCoordinator, state) => {
		const ids = state.storage.sql.exec<{ id: number; content_hash: string }>("SELECT id, content_hash FROM memories").toArray();
		for (let start = 0; start < ids.length; start += SEED_BATCH) {
			state.storage.transactionSync(() => {
				for (const m of ids.slice(start, start + SEED_BATCH)) {
					const v = pseudoVector(String(m.id));
					state.storage.sql.exec(
						"INSERT OR REPLACE INTO memory_vectors (memory_id, project_id, model, content_hash, dims, vector) VALUES (?, ?, ?, ?, ?, ?)",
						m.id,
						project.id,
						model,
						m.content_hash,
						VECTOR_DIMS,
						v.buffer,
					);
				}
			});
		}
		setSeams(instance, { embedder: { model, embed: async (texts: string[]) => texts.map(pseudoVector) } });
	});
	const seedSeconds = (performance.now() - t0) / 1000;
	const hybrid: number[] = [];
	const lexical: number[] = [];
	const ask = (query: string, retrieval: string) =>
		call(`/v1/projects/${project.id}/recall`, { method: "POST", token, body: JSON.stringify({ query, retrieval }) });
	const first = (await (await ask(input.queries[0] ?? "x", "hybrid")).json()) as { retrieval: string };
	if (first.retrieval !== "hybrid") throw new Error(`vectors: recall was not hybrid (${JSON.stringify(first)})`);
	for (let i = 0; i < input.samples; i++) {
		const query = input.queries[i % input.queries.length] ?? "";
		hybrid.push(await timed(() => ask(query, "hybrid")));
		lexical.push(await timed(() => ask(query, "lexical")));
	}
	await runInDurableObject(stubOf(project.id), async (instance: ProjectCoordinator, state) => {
		setSeams(instance, { embedder: undefined });
		state.storage.sql.exec("DELETE FROM memory_vectors");
	});
	return { size: project.size, dims: VECTOR_DIMS, hybrid: stats(hybrid), lexical: stats(lexical), seedSeconds };
}

/** Single writes in a tiny project and in the largest one, interleaved; then MEMORY.md read twice in each. */
async function benchWrites(token: string, largest: { size: number; id: string } | undefined, result: BenchResult) {
	// Batch throughput: memories of about a thousand characters, 100 per request, into a new project.
	const long = longCorpus(input.sentences, input.sizes.at(-1) ?? 1_000);
	const filled = await seed(token, "writes-batch", long);
	const chars = long.reduce((n, m) => n + m.description.length + m.body.length, 0) / Math.max(1, long.length);
	result.batch = { memories: long.length, chars: Math.round(chars), seconds: filled.fillSeconds };

	const tiny = await seed(token, "writes-10", corpus(input.sentences, 10));
	const writeTargets = [{ size: 10, id: tiny.id }, ...(largest ? [largest] : [])];
	const writes = new Map<number, number[]>(writeTargets.map((p) => [p.size, []]));
	for (let i = 0; i < input.samples; i++) {
		for (const p of writeTargets) writes.get(p.size)?.push(await timedWrite(token, p.id, `measured-${i}`, p.size));
	}
	result.writes = writeTargets.map((p) => ({ size: p.size, write: stats(writes.get(p.size) ?? []) }));

	// MEMORY.md right after writes (lazy rebuild), then cached.
	for (const p of writeTargets) {
		const rebuildMs = await timed(() => call(`/v1/projects/${p.id}/index`, { token }));
		const cachedMs = await timed(() => call(`/v1/projects/${p.id}/index`, { token }));
		result.index.push({ size: p.size, rebuildMs, cachedMs });
	}
}

/** The first recalls of a project open its object and warm its page cache; they are not measured, but must find memories. */
async function warmRecall(token: string, projectId: string) {
	let found = 0;
	for (const q of input.queries.slice(0, 20)) {
		const r = await call(`/v1/projects/${projectId}/recall`, { method: "POST", token, body: JSON.stringify({ query: q }) });
		found += ((await r.json()) as { memories: unknown[] }).memories.length;
	}
	if (found === 0) throw new Error(`recall in ${projectId} found nothing`);
}

/** `PUT /v1/projects/:id/memories/:name` of a new memory. */
function timedWrite(token: string, projectId: string, name: string, size: number) {
	const body = JSON.stringify({ type: "feedback", description: `Measured write ${name}`, body: `Sample ${name} in a project of ${size}.` });
	return timed(() => call(`/v1/projects/${projectId}/memories/${name}`, { method: "PUT", token, body }));
}

/**
 * Tenancy: recall and write latency of one project of the largest size through the fetch entry
 * point, alone, then with more and more other projects of the same size in the deployment. The
 * others are registered in D1 like any project and their objects are filled directly (see
 * `seedDirect`); each is evicted once filled, as an idle object would be.
 */
async function benchTenancy(token: string, target: { size: number; id: string }): Promise<BenchResult["tenancy"]> {
	const neighbours = await call("/v1/admin/tenants", {
		method: "POST",
		token: env.CAIRN_ADMIN_TOKEN,
		body: JSON.stringify({ name: "neighbours", user: "neighbour" }),
	});
	const owner = (await neighbours.json()) as { user: { id: string }; tenant: { id: string } };
	const steps: TenancyStep[] = [];
	let present = 0;
	for (const others of [0, ...input.neighbours]) {
		const t0 = performance.now();
		for (; present < others; present++) {
			const id = newId("prj");
			const key = `/bench/neighbour-${present + 1}`;
			await env.DB.prepare(
				`INSERT INTO projects (id, tenant_id, name, canonical_key, root_path, storage_moved_at) VALUES (?, ?, ?, ?, ?, ?)`,
			)
				.bind(id, owner.tenant.id, `neighbour-${present + 1}`, `path:${key}`, key, nowIso())
				.run();
			await seedDirect(id, owner.user.id, corpus(input.sentences, target.size, present + 1));
			await evictDurableObject(stubOf(id)).catch((err) => console.warn(`tenancy: could not evict ${id}: ${String(err)}`));
		}
		const seedSeconds = (performance.now() - t0) / 1000;
		if (others > 0) console.log(`tenancy: ${others} other projects of ${target.size} present (seeded in ${seedSeconds.toFixed(1)} s)`);
		await warmRecall(token, target.id);
		console.log(`CAIRN_BENCH_MARK start tenancy-${others}`);
		const recall: number[] = [];
		const write: number[] = [];
		for (let i = 0; i < input.samples; i++) {
			const body = JSON.stringify({ query: input.queries[i % input.queries.length] });
			recall.push(await timed(() => call(`/v1/projects/${target.id}/recall`, { method: "POST", token, body })));
			write.push(await timedWrite(token, target.id, `tenancy-${others}-${i}`, target.size));
		}
		console.log(`CAIRN_BENCH_MARK end tenancy-${others}`);
		steps.push({ others, memories: (others + 1) * target.size, seedSeconds, recall: stats(recall), write: stats(write) });
	}
	return { size: target.size, steps };
}

/**
 * LongMemEval turn-level retrieval: per question, a project holding its haystack's user turns (filled
 * directly as `seedDirect` fills the tenancy benchmark's others, or through the batch endpoint), then
 * the question through `POST /recall` (limit 10). Each project's object is evicted once asked, as an
 * idle one would be.
 */
async function benchLongMemEval(
	token: string,
	ownerId: string,
	tenantId: string,
	lme: NonNullable<BenchInput["longmemeval"]>,
	steps: Record<string, string[]>[],
): Promise<NonNullable<BenchResult["longmemeval"]>> {
	const answers: Record<string, string[]> = {};
	let seedMs = 0;
	let recallMs = 0;
	let memories = 0;
	for (const [n, q] of lme.questions.entries()) {
		const haystack = q.haystack.flatMap((session) => lme.sessions[session] ?? []);
		memories += haystack.length;
		const t0 = performance.now();
		let id: string;
		if (lme.seed === "batch") {
			id = (await seed(token, `longmemeval-${q.id}`, haystack)).id;
			await stampWritten(id, haystack);
		} else {
			const name = `longmemeval-${q.id}`;
			const res = await call("/v1/projects", { method: "POST", token, body: JSON.stringify({ name, rootPath: `/bench/${name}` }) });
			id = ((await res.json()) as { project: { id: string } }).project.id;
			await call(`/v1/projects/${id}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
			await seedDirect(id, ownerId, haystack);
		}
		const t1 = performance.now();
		const r = await call(`/v1/projects/${id}/recall`, {
			method: "POST",
			token,
			body: JSON.stringify({ query: q.query, limit: 10, ...(q.at ? { at: q.at } : {}) }),
		});
		answers[q.id] = ((await r.json()) as { memories: { name: string }[] }).memories.map((m) => m.name);
		const t2 = performance.now();
		seedMs += t1 - t0;
		recallMs += t2 - t1;
		(await stepAnswers({ tenantId, userId: ownerId, projectId: id }, q.query, q.at)).forEach((names, k) => {
			const step = steps[k];
			if (step) step[q.id] = names;
		});
		await evictDurableObject(stubOf(id)).catch((err) => console.warn(`longmemeval: could not evict ${id}: ${String(err)}`));
		if ((n + 1) % 50 === 0) console.log(`longmemeval: ${n + 1} of ${lme.questions.length} questions`);
	}
	return { seed: lme.seed, projects: lme.questions.length, memories, seedSeconds: seedMs / 1000, recallSeconds: recallMs / 1000, answers };
}

const SEED_BATCH = 500;

/**
 * Fills a project's object with `memories` without the API: inside the object, in transactions of
 * SEED_BATCH memories, the rows the write path (`writeMemory` in src/memory/store.ts) inserts for a
 * new memory — `memories`, `memory_versions` (version 1), `memory_visibility`, `memories_fts` and, for text
 * with CJK, `memories_grams` — with the same columns and a real content hash. Every fifth memory is personal (owned by
 * `ownerId`), the rest team. The content objects are not put in R2: nothing here reads them.
 */
async function seedDirect(projectId: string, ownerId: string, memories: SeedMemory[]) {
	await runInDurableObject(stubOf(projectId), async (_instance: ProjectCoordinator, state) => {
		const sql = state.storage.sql;
		sql.exec("INSERT INTO projects (id, index_generation) VALUES (?, 0) ON CONFLICT (id) DO NOTHING", projectId);
		for (let start = 0; start < memories.length; start += SEED_BATCH) {
			const now = nowIso();
			const rows = await Promise.all(
				memories.slice(start, start + SEED_BATCH).map(async (m, k) => {
					const content = renderTopicFile({ ...m, type: m.type as MemoryType });
					const team = (start + k) % 5 !== 0;
					return {
						...m,
						scope: team ? "team" : "personal",
						owner: team ? "" : ownerId,
						hash: await sha256Hex(content),
						bytes: new TextEncoder().encode(content).byteLength,
					};
				}),
			);
			state.storage.transactionSync(() => {
				for (const r of rows) {
					const { id } = sql
						.exec<{ id: number }>(
							`INSERT INTO memories (project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, session_id, author_id, created_at, updated_at, verified_at)
							 VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?, 'user', ?, ?, ?, ?, ?) RETURNING id`,
							projectId,
							r.scope,
							r.owner,
							r.name,
							r.type,
							r.description,
							r.hash,
							r.bytes,
							r.session ?? null,
							ownerId,
							r.writtenAt ?? now,
							r.writtenAt ?? now,
							r.writtenAt ?? now,
						)
						.one();
					sql.exec(
						`INSERT INTO memory_versions (memory_id, project_id, version, content_hash, type, description, source, session_id, author_id, created_at)
						 VALUES (?, ?, 1, ?, ?, ?, 'user', ?, ?, ?)`,
						id,
						projectId,
						r.hash,
						r.type,
						r.description,
						r.session ?? null,
						ownerId,
						r.writtenAt ?? now,
					);
					sql.exec(
						"INSERT INTO memory_visibility (memory_id, project_id, scope, owner_id) VALUES (?, ?, ?, ?)",
						id,
						projectId,
						r.scope,
						r.owner,
					);
					sql.exec("INSERT INTO memories_fts (rowid, name, description, body) VALUES (?, ?, ?, ?)", id, r.name, r.description, r.body);
					const grams = [gramText(r.name), gramText(r.description), gramText(r.body)];
					if (grams.some((g) => g !== ""))
						sql.exec("INSERT INTO memories_grams (rowid, name, description, body) VALUES (?, ?, ?, ?)", id, ...grams);
				}
				sql.exec("UPDATE projects SET index_generation = index_generation + ? WHERE id = ?", rows.length, projectId);
			});
		}
		const counts = ["memories", "memory_versions", "memory_visibility", "memories_fts"].map(
			(t) => sql.exec<{ n: number }>(`SELECT count(*) AS n FROM ${t}`).one().n,
		);
		if (counts.some((n) => n !== memories.length))
			throw new Error(`seeding ${projectId}: ${counts.join("/")} rows, not ${memories.length}`);
	});
}

const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };

/** A model that answers at once with a valid stage-1 output: what remains is Cairn's own cost. */
const zeroLatencyModel = () =>
	new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [
				{
					type: "text",
					text: JSON.stringify({
						raw_memory: "- The project uses pnpm.",
						summary: "Benchmark range.",
						candidates: [{ name: "pnpm", type: "feedback", description: "Use pnpm", body: "Use pnpm, never npm.", evidence: ["t0"] }],
					}),
				},
			],
			finishReason: { unified: "stop", raw: "stop" },
			usage,
			warnings: [],
		}),
	});

/**
 * Ingest: each real session file posted whole to a new session (parse, normalise, redact, R2 chunk,
 * one transaction in the project's object), then posted again (all duplicates). Stage 1: each session
 * as one range, through the method the queue consumer calls on the project's object (`extractRange`),
 * with a zero-latency scripted model and with the offline extractor.
 */
async function benchPipeline(token: string, result: BenchResult) {
	if (input.transcripts.length === 0) return;
	const res = await call("/v1/projects", {
		method: "POST",
		token,
		body: JSON.stringify({ name: "pipeline", rootPath: "/bench/pipeline" }),
	});
	const projectId = ((await res.json()) as { project: { id: string } }).project.id;
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", token, body: JSON.stringify({ "memories.enabled": true }) });
	const rounds = Math.max(3, Math.min(20, Math.floor(input.samples / 10)));
	for (const t of input.transcripts) {
		const post: number[] = [];
		const repost: number[] = [];
		let turns = 0;
		const sessions: string[] = [];
		for (let i = 0; i < rounds; i++) {
			const session = `${t.name.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 80)}-${i}`;
			sessions.push(session);
			const send = () =>
				call(`/v1/projects/${projectId}/sessions/${session}/transcript`, {
					method: "POST",
					token,
					body: t.text,
					headers: { "Content-Type": "application/x-ndjson" },
				});
			const t0 = performance.now();
			const r = await send();
			post.push(performance.now() - t0);
			turns = ((await r.json()) as { turns: number }).turns;
			repost.push(await timed(send));
		}
		result.ingest.push({ name: t.name, bytes: t.text.length, turns, post: stats(post), repost: stats(repost) });

		const model: number[] = [];
		const offline: number[] = [];
		for (const [i, session] of sessions.entries()) {
			const message = { projectId, sessionId: session, fromSeq: 0, toSeq: turns - 1 };
			const scripted = i % 2 === 0 ? zeroLatencyModel() : null;
			const t0 = performance.now();
			const extracted = await runInDurableObject(stubOf(projectId), (instance: ProjectCoordinator) => {
				setSeams(instance, { extractModel: scripted });
				return instance.extractRange(message, 1, MAX_ATTEMPTS);
			});
			(i % 2 === 0 ? model : offline).push(performance.now() - t0);
			const outcome = extracted.ok ? extracted.value : extracted.error.code;
			if (outcome !== "extracted") throw new Error(`stage 1 on ${session}: ${outcome}`);
		}
		result.stageOne.push({ name: t.name, turns, model: stats(model), offline: stats(offline) });
	}
}

/** A consolidation model that answers at once: one memory updated per run. */
const zeroLatencyConsolidation = () => {
	let n = 0;
	return new MockLanguageModelV4({
		doGenerate: async () => ({
			content: [
				{
					type: "text",
					text: JSON.stringify({
						operations: [
							{
								op: "update",
								name: "bench-session-notes",
								type: "project",
								description: "What the latest benchmark session established",
								body: `Session fold ${++n}.`,
								reason: "new session",
								evidence: [],
							},
						],
						skills: [],
						summary: `# Memory summary\n\nRun ${n}.`,
					}),
				},
			],
			finishReason: { unified: "stop", raw: "stop" },
			usage,
			warnings: [],
		}),
	});
};

/**
 * Consolidation cost as the project grows: one new session (three candidates phrased like the corpus)
 * folded into projects of 100, 1,000 and the largest size, through the run the project's object makes
 * (`consolidateProject` inside it: touched-memory search, plan, writes, summary, audit), with a
 * zero-latency model and offline.
 */
async function benchConsolidation(targets: { size: number; id: string }[], userId: string, tenantId: string, result: BenchResult) {
	const rounds = Math.max(5, Math.min(30, Math.floor(input.samples / 10)));
	for (const target of targets) {
		const model: number[] = [];
		const offline: number[] = [];
		const stub = stubOf(target.id);
		let touched = 0;
		for (let i = 0; i < rounds * 2; i++) {
			const sentences = [0, 1, 2].map((k) => input.sentences[(i * 31 + k * 7 + target.size) % input.sentences.length] ?? "A fact.");
			const candidates = sentences.map((s, k) => ({
				name: `fold-${i}-${k}`,
				type: "project",
				description: s.slice(0, 200),
				body: s,
				evidence: ["t0"],
				userStated: true,
			}));
			const now = new Date().toISOString();
			await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
				await instance.db
					.prepare(
						`INSERT INTO stage1_outputs (project_id, session_id, from_seq, to_seq, user_id, extractor, raw_memory, summary, candidates_json, created_at)
						 VALUES (?, ?, 0, 0, ?, 'bench', '', 'A benchmark session.', ?, ?)`,
					)
					.bind(target.id, `fold-${i}`, userId, JSON.stringify(candidates), now)
					.run();
				if (i === 0) touched = (await touchedMemories(instance.db, { tenantId, userId, projectId: target.id }, candidates as never)).length;
			});
			const scripted = i % 2 === 0 ? zeroLatencyConsolidation() : null;
			const t0 = performance.now();
			const outcome = await runInDurableObject(stub, (instance: ProjectCoordinator) =>
				consolidateProject(instance.penv, target.id, `bench-${i}`, { model: scripted }),
			);
			(i % 2 === 0 ? model : offline).push(performance.now() - t0);
			if (outcome.outputs !== 1) throw new Error(`consolidation folded ${outcome.outputs} outputs`);
		}
		result.consolidation.push({ size: target.size, model: stats(model), offline: stats(offline), touched });
	}
}
