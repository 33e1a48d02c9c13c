// Per-prompt recall: memories carry cues, the concept map joins prompt and memory, the relevance
// decision weighs what matched, and the model selector reads the whole manifest within the caller's time.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { MockLanguageModelV4 } from "ai/test";
import { beforeAll, describe, expect, it } from "vitest";
import billingApi from "../bench/prompts/dev/billing-api.json";
import dataPlatformKo from "../bench/prompts/dev/data-platform-ko.json";
import mobileApp from "../bench/prompts/dev/mobile-app.json";
import haulpath from "../bench/prompts/fresh/haulpath.json";
import moapay from "../bench/prompts/fresh/moapay.json";
import trailheadShop from "../bench/prompts/fresh/trailhead-shop.json";
import clinicq from "../bench/prompts/holdout/clinicq.json";
import fieldnotes from "../bench/prompts/holdout/fieldnotes.json";
import hanbitEdu from "../bench/prompts/holdout/hanbit-edu.json";
import { buildInjection } from "../src/inject/inject";
import { projectStore } from "../src/project/client";
import type { ProjectCoordinator } from "../src/project/object";
import { recall } from "../src/recall/recall";
import { OFFER } from "../src/recall/relevance";
import type { ProjectContext } from "../src/storage/context";
import { migrateProjectSchema } from "../src/storage/schema";
import { conceptColumn, deriveCues, memoryConcepts, storedConcepts, textConcepts } from "../src/text/concepts";
import {
	call,
	createProject,
	createTenant,
	expectError,
	json,
	type Loose,
	projectDb,
	putMemory,
	scriptedModel,
	type Tenant,
} from "./helpers";
import { setSeams } from "./worker";

/** The per-prompt benchmark's projects (bench/prompts): their memories. */
const PROMPT_SETS: { memories: { name: string; description: string; body: string }[] }[] = [
	billingApi,
	dataPlatformKo,
	mobileApp,
	haulpath,
	moapay,
	trailheadShop,
	clinicq,
	fieldnotes,
	hanbitEdu,
];

let tenant: Tenant;
let projectId: string;
let ctx: ProjectContext;

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

/** A project's worth of working rules among notes the prompts below do not need. */
const RULES: [string, string, string, string][] = [
	[
		"package-manager",
		"feedback",
		"We use pnpm in this repository; never run npm install or yarn",
		"The lockfile is pnpm-lock.yaml; CI fails when package-lock.json appears.",
	],
	[
		"dates-dayjs",
		"feedback",
		"Format dates with dayjs and show them in the user's own time zone",
		"Store UTC; convert with dayjs.tz at render time. Never use moment.",
	],
	[
		"intern-onboarding",
		"feedback",
		"New hires and interns get their laptop from Kandji and VPN access from Dana",
		"Do not hand out admin accounts; Dana runs onboarding and grants VPN access before the first day.",
	],
	[
		"mail-through-postmark",
		"feedback",
		"Outbound email goes through the Postmark wrapper in lib/mail",
		"Never call SMTP directly. Retries are handled by the mail queue, not inline.",
	],
];
const NOTES: [string, string][] = [
	["invoice-pdf-renderer", "Invoice PDFs are rendered by the pdf worker from the invoice template in templates/invoice.hbs"],
	["stripe-webhook-secret-rotation", "The Stripe webhook endpoint lives at /hooks/stripe and verifies signatures"],
	["refund-approval", "Refunds above 500 EUR need approval from the finance lead"],
	["redis-cluster", "Redis runs as a three-node cluster in eu-west-1"],
	["analytics-events", "Product analytics events are named object_action in snake case"],
	["legacy-billing-table", "The legacy_billing table is read-only since the 2024 migration"],
	["grafana-billing-board", "The billing Grafana board shows charge success rate and dunning volume"],
	["tax-rates", "Tax rates come from the tax service and are cached for an hour"],
	["customer-portal", "The customer portal is a separate Next.js app in apps/portal"],
	["feature-flag-naming", "Feature flags are named after the team, then the feature"],
	["export-warehouse", "Finance exports land in the warehouse bucket under finance/daily"],
	["error-codes", "API errors use stable codes listed in docs/errors.md"],
];

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	const memories = [
		...RULES.map(([name, type, description, body]) => ({ name, type, description, body })),
		...NOTES.map(([name, description]) => ({ name, type: "project", description, body: `${description}.` })),
	];
	const res = await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories } });
	expect(res.status).toBe(200);
});

const prompt = async (query: string, extra: Loose = {}) => {
	const res = await call(`/v1/projects/${projectId}/inject`, {
		token: tenant.token,
		json: { query, include: "memories", sessionId: `s-${crypto.randomUUID()}`, onlyNew: true, maxChars: 9_500, ...extra },
	});
	expect(res.status).toBe(200);
	const body = await json(res);
	// In front of the model at the prompt: a file the decision is sure of, or a line offered beside them.
	return [...body.parts.memories, ...body.parts.offered].map((m: Loose) => m.name) as string[];
};
/** A block's files, then the lines it offers. */
const reached = (block: { parts: { memories: { name: string }[]; offered: { name: string }[] } }) =>
	[...block.parts.memories, ...block.parts.offered].map((m) => m.name);

describe("the concept map", () => {
	it("names the concepts of a prompt from tools, packages and Korean words", () => {
		expect(ids(textConcepts("bump axios to the latest version"))).toContain("deps");
		expect(ids(textConcepts("can u show the receipt date in the user's time zone"))).toContain("dates");
		expect(ids(textConcepts("set up the new intern's laptop"))).toContain("setup");
		expect(ids(textConcepts("pnpm으로 zod 추가해줘"))).toContain("deps");
		expect(ids(textConcepts("금요일에 배포해도 돼?"))).toContain("releases");
		// A bare English word is not a package: "express the total as cents" names no dependency.
		expect(ids(textConcepts("express the total as cents"))).not.toContain("deps");
	});

	it("finds what a memory is about in its name and description before its body, and derives cues from it", () => {
		const memory = { name: "package-manager", description: "We use pnpm; never npm install", body: "The lockfile is pnpm-lock.yaml." };
		expect(memoryConcepts(memory)[0]?.id).toBe("deps");
		expect(deriveCues(memory)).toEqual(["adding, removing or upgrading a dependency; installing packages"]);
		// One passing mention in a body is not what a memory is about.
		expect(ids(memoryConcepts({ name: "office", description: "The office is in Lisbon", body: "We once used redis there." }))).toEqual([]);
		// A Korean memory gets its cues in Korean and English.
		expect(deriveCues({ name: "deploy", description: "금요일 오후에는 배포하지 않는다", body: "롤백은 helm rollback 으로 한다." })).toEqual(
			["배포와 릴리스: 환경·롤아웃·롤백", "deploying and releasing: environments, rollouts and rollbacks"],
		);
	});
});

describe("cues", () => {
	it("are derived on write, stored as metadata and never in the topic file", async () => {
		const res = await call(`/v1/projects/${projectId}/memories/package-manager`, {
			token: tenant.token,
			headers: { Accept: "application/json" },
		});
		expect(JSON.stringify(await json(res))).toContain("adding, removing or upgrading a dependency");
		const row = await projectDb(projectId)
			.prepare("SELECT cues, cues_source FROM memories WHERE name = 'package-manager'")
			.first<{ cues: string; cues_source: string }>();
		expect(JSON.parse(row?.cues ?? "[]")).toEqual(["adding, removing or upgrading a dependency; installing packages"]);
		expect(row?.cues_source).toBe("derived");
		const file = await call(`/v1/projects/${projectId}/memories/package-manager`, { token: tenant.token });
		expect(await file.text()).not.toContain("cues");
	});

	it("can be written, are kept by a later write without cues, and [] derives them again", async () => {
		const put = (json: Loose) => call(`/v1/projects/${projectId}/memories/release-train`, { token: tenant.token, method: "PUT", json });
		const base = { type: "project", description: "Releases leave on Tuesdays", body: "The release train leaves every Tuesday at 10:00." };
		let res = await put({ ...base, cues: ["planning when a change reaches users", "  planning when a change reaches users  "] });
		expect(res.status).toBe(201);
		expect((await json(res)).memory).toMatchObject({ cues: ["planning when a change reaches users"], cuesSource: "written" });
		res = await put({ ...base, body: "The release train leaves every Tuesday at 11:00." });
		expect((await json(res)).memory).toMatchObject({ cues: ["planning when a change reaches users"], cuesSource: "written", version: 2 });
		// Only the cues change: metadata, no new version.
		res = await put({ ...base, body: "The release train leaves every Tuesday at 11:00.", cues: ["shipping a release"] });
		expect((await json(res)).memory).toMatchObject({ cues: ["shipping a release"], version: 2 });
		res = await put({ ...base, body: "The release train leaves every Tuesday at 11:00.", cues: [] });
		expect((await json(res)).memory).toMatchObject({ cuesSource: "derived" });
	});

	it("are validated: too many, too long, multi-line or not strings give 400 naming the field; a secret in a cue gives 422", async () => {
		const put = (cues: unknown) =>
			call(`/v1/projects/${projectId}/memories/cue-checks`, {
				token: tenant.token,
				method: "PUT",
				json: { type: "project", description: "Checks", body: "Checks.", cues },
			});
		for (const bad of [Array.from({ length: 9 }, (_, i) => `cue ${i}`), ["x".repeat(201)], ["two\nlines"], [42], "one string"]) {
			const body = await expectError(await put(bad), 400, "invalid_request");
			expect(String(body.error.details?.field)).toMatch(/^cues/);
		}
		await expectError(await put([`deploying with ghp_${"a1B2c3D4e5".repeat(4)}`]), 422, "secret_detected");
		expect((await call(`/v1/projects/${projectId}/memories/cue-checks`, { token: tenant.token })).status).toBe(404);
	});

	it("are filled in for memories stored before cues existed (schema version 10)", async () => {
		const stub = env.PROJECT_COORDINATOR.getByName("cues-upgrade");
		await runInDurableObject(stub, async (_instance: ProjectCoordinator, state) => {
			const sql = state.storage.sql;
			sql.exec("DROP TABLE IF EXISTS _cairn_schema");
			for (const row of sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray()) {
				if (!row.name.startsWith("_cf_") && !/^memories_(fts|grams|cues)_/.test(row.name) && !row.name.startsWith("sqlite_"))
					sql.exec(`DROP TABLE IF EXISTS "${row.name}"`);
			}
			migrateProjectSchema(state.storage, 9);
			sql.exec(
				`INSERT INTO memories (id, project_id, scope, owner_id, name, type, description, version, content_hash, bytes, source, author_id, created_at, updated_at, verified_at)
				 VALUES (1, 'p', 'personal', 'u', 'package-manager', 'feedback', 'Use pnpm, never npm install', 1, 'h', 1, 'user', 'u', 'x', 'x', 'x')`,
			);
			sql.exec(
				"INSERT INTO memories_fts (rowid, name, description, body) VALUES (1, 'package-manager', 'Use pnpm, never npm install', 'Always pnpm.')",
			);
			expect(migrateProjectSchema(state.storage)).toBe(9);
			const row = sql.exec<{ cues: string; cues_source: string }>("SELECT cues, cues_source FROM memories WHERE id = 1").toArray()[0];
			expect(JSON.parse(row?.cues ?? "[]")).toHaveLength(1);
			expect(row?.cues_source).toBe("derived");
			expect(sql.exec("SELECT rowid FROM memories_cues WHERE memories_cues MATCH 'concepts : zqcdeps'").toArray()).toHaveLength(1);
		});
	});
});

describe("per-prompt recall without a model", () => {
	it("finds the rule a prompt needs when the prompt names a library, a tool or a task rather than the rule's words", async () => {
		expect(await prompt("Add the zod package as a dependency — which package manager do we use for installs?")).toContain(
			"package-manager",
		);
		expect(await prompt("bump axios")).toContain("package-manager");
		expect(await prompt("can u make the date on the receipt show in the user's timezone")).toContain("dates-dayjs");
		expect(await prompt("set up the new intern's laptop")).toContain("intern-onboarding");
		expect(await prompt("add retries to the email sender")).toContain("mail-through-postmark");
	});

	it("stays silent for a prompt that needs no memory, and never hands out more than three files and a few lines", async () => {
		// No file for a prompt that needs none (a line the agent can ignore may be offered).
		for (const query of ["explain this regex: ^\\d{3}-\\d{4}$", "what does Array.prototype.flatMap return?"]) {
			const res = await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query, include: "memories" } });
			const parts = (await json(res)).parts;
			expect(parts.memories).toEqual([]);
			expect(parts.offered.length).toBeLessThanOrEqual(OFFER.limit);
		}
		const many = await call(`/v1/projects/${projectId}/inject`, {
			token: tenant.token,
			json: { query: "invoice pdf refunds tax redis grafana portal flags exports errors billing stripe analytics", include: "memories" },
		});
		const parts = (await json(many)).parts;
		expect(parts.memories.length).toBeLessThanOrEqual(3);
		expect(parts.offered.length).toBeLessThanOrEqual(OFFER.limit);
	});

	it("offers recall's first guesses as lines on fainter evidence than the rest", async () => {
		// A long report that touches one note by one word: too faint for a line past the first few candidates.
		const query = "latency spikes at midnight, redis?";
		const r = await recall(env, ctx, { query, purpose: "prompt", trace: true });
		const candidates = r.trace?.candidates ?? [];
		const at = candidates.findIndex((c) => c.name === "redis-cluster");
		const guess = candidates[at];
		expect(at).toBeGreaterThanOrEqual(0);
		expect(at).toBeLessThan(OFFER.top);
		expect(guess?.coverage ?? 1).toBeLessThan(OFFER.minCoverage);
		expect(guess?.coverage ?? 0).toBeGreaterThanOrEqual(OFFER.topCoverage);
		expect(r.offered.map((m) => m.row.name)).toContain("redis-cluster");
		// Past the first few, a candidate as faint is not offered.
		const faintLater = candidates.filter(
			(c, i) => i >= OFFER.top + 1 && (c.coverage ?? 0) < OFFER.minCoverage && r.memories.every((m) => m.name !== c.name),
		);
		for (const c of faintLater) expect(r.offered.map((m) => m.row.name)).not.toContain(c.name);
	});

	it("explains the decision in the trace: evidence, coverage, shared concepts", async () => {
		const res = await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "bump axios", trace: true } });
		const body = await json(res);
		expect(body.trace.concepts).toContain("deps");
		expect(body.memories[0]?.name).toBe("package-manager");
	});

	it("judges a candidate by the concepts stored with it, which are those derived from its text and cues", async () => {
		const traced = async () => {
			const r = await recall(env, ctx, { query: "bump axios", purpose: "prompt", trace: true });
			return new Map((r.trace?.candidates ?? []).map((c) => [c.name, c.about ?? []]));
		};
		const about = await traced();
		expect(about.get("package-manager")).toContain("deps");
		const { results } = await projectDb(projectId)
			.prepare("SELECT m.id, m.name, m.description, m.cues, f.body FROM memories m JOIN memories_fts f ON f.rowid = m.id")
			.all<{ id: number; name: string; description: string; cues: string; body: string }>();
		for (const m of results) {
			const derived = memoryConcepts({ ...m, cues: JSON.parse(m.cues) }).map((c) => c.id);
			if (about.has(m.name)) expect(about.get(m.name)).toEqual(derived);
		}
		// Read from the cue row: what is stored there is what the decision sees.
		const row = results.find((m) => m.name === "package-manager");
		const storeConcepts = (column: string) =>
			runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (_: ProjectCoordinator, state) => {
				state.storage.sql.exec("UPDATE memories_cues SET concepts = ? WHERE rowid = ?", column, row?.id ?? 0);
			});
		try {
			await storeConcepts("zqcdeps zqcdeps zqctests");
			expect((await traced()).get("package-manager")).toEqual(["deps", "tests"]);
		} finally {
			await storeConcepts(
				conceptColumn({
					name: row?.name ?? "",
					description: row?.description ?? "",
					body: row?.body ?? "",
					cues: JSON.parse(row?.cues ?? "[]"),
				}),
			);
		}
		expect((await traced()).get("package-manager")).toEqual(about.get("package-manager"));
	});

	it("reads stored concepts back as the ids derived, in order, for every memory of the per-prompt sets", () => {
		for (const project of PROMPT_SETS)
			for (const m of project.memories) {
				const cues = deriveCues(m);
				expect(storedConcepts(conceptColumn({ ...m, cues }))).toEqual(memoryConcepts({ ...m, cues }).map((c) => c.id));
			}
	});

	it("searches a question's concepts only when it names them clearly: one generic word is not a concept", async () => {
		const traced = async (query: string) => {
			const res = await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query, trace: true } });
			return (await json(res)).trace.concepts as string[];
		};
		expect(textConcepts("what did we talk about that day?").map((c) => c.id)).toContain("dates");
		expect(await traced("what did we talk about that day?")).not.toContain("dates");
		expect(await traced("which timezone do we show dates in?")).toContain("dates");
	});
});

/** A scripted selector that answers `names` after `delayMs`. */
const slowSelector = (names: string[], delayMs: number) =>
	new MockLanguageModelV4({
		doGenerate: async () => {
			await new Promise((r) => setTimeout(r, delayMs));
			return {
				content: [{ type: "text", text: JSON.stringify({ names }) }],
				finishReason: { unified: "stop", raw: "stop" },
				usage: { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } },
				warnings: [],
			};
		},
	});

describe("per-prompt recall with a selector model", () => {
	it("serves the model's pick from the whole manifest, even one that shares no word with the prompt", async () => {
		const prompts: string[] = [];
		const model = new MockLanguageModelV4({
			doGenerate: async (options) => {
				prompts.push(JSON.stringify(options.prompt));
				return (await scriptedModel({ names: ["refund-approval"] }).doGenerate(options)) as never;
			},
		});
		const block = await buildInjection(
			env,
			ctx,
			{ query: "the money back flow", include: "memories", waitMs: 5_000, recentTools: ["Bash(pnpm test)"] },
			model,
		);
		expect(block.recall).toEqual({ engine: "llm" });
		expect(block.parts.memories.map((m) => m.name)).toEqual(["refund-approval"]);
		// Every visible memory is in the manifest, with its cues; the tools just used are named.
		for (const [name] of [...RULES, ...NOTES]) expect(prompts[0]).toContain(name);
		expect(prompts[0]).toContain("applies when: adding, removing or upgrading a dependency");
		expect(prompts[0]).toContain("Bash(pnpm test)");
	});

	it("tells the model what the session was already handed, and with onlyNew leaves it out of the manifest", async () => {
		const sessionId = `s-${crypto.randomUUID()}`;
		const handed = await projectDb(projectId).prepare("SELECT id FROM memories WHERE name = 'package-manager'").first<{ id: number }>();
		await projectStore(env, projectId).recordServed(ctx, [handed?.id ?? 0], sessionId);
		const ask = async (onlyNew: boolean) => {
			const prompts: string[] = [];
			const model = new MockLanguageModelV4({
				doGenerate: async (options) => {
					prompts.push(JSON.stringify(options.prompt));
					return (await scriptedModel({ names: ["refund-approval"] }).doGenerate(options)) as never;
				},
			});
			await buildInjection(env, ctx, { query: "bump axios", include: "memories", sessionId, onlyNew, waitMs: 5_000 }, model);
			return prompts[0] ?? "";
		};
		const again = await ask(false);
		expect(again).toContain("Already shown in this session: package-manager");
		expect(again).toContain("- package-manager");
		const onlyNew = await ask(true);
		expect(onlyNew).toContain("Already shown in this session: package-manager");
		expect(onlyNew).not.toContain("- package-manager");
		// Another session was handed nothing.
		const other = await buildInjection(env, ctx, { query: "bump axios", include: "memories", sessionId: "s-other", onlyNew: true }, null);
		expect(reached(other)[0]).toBe("package-manager");
	});

	it("reads as many candidates beside what the session was handed as without it", async () => {
		const pid = await createProject(tenant.token);
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		const steps = Array.from({ length: 29 }, (_, i) => ({
			name: `deploy-step-${i}`,
			type: "project",
			description: `Deploy step ${i} of the release`,
			body: `Deploy step ${i}.`,
		}));
		expect((await call(`/v1/projects/${pid}/memories/batch`, { token: tenant.token, json: { memories: steps } })).status).toBe(200);
		const own = { ...ctx, projectId: pid };
		const { results } = await projectDb(pid)
			.prepare("SELECT id, name FROM memories ORDER BY id LIMIT 4")
			.all<{ id: number; name: string }>();
		await projectStore(env, pid).recordServed(
			own,
			results.map((r) => r.id),
			"s-steps",
		);
		const read = async (onlyNew: boolean) => {
			const r = await recall(env, own, { query: "deploy step", purpose: "prompt", trace: true, session: { id: "s-steps", onlyNew } });
			const candidates = r.trace?.candidates ?? [];
			return {
				excluded: candidates
					.filter((c) => c.decision === "excluded")
					.map((c) => c.name)
					.sort(),
				others: candidates.filter((c) => c.decision !== "excluded").length,
			};
		};
		// 25 candidates are read; left out, the four handed ones do not take their places.
		expect(await read(false)).toEqual({ excluded: [], others: 25 });
		expect(await read(true)).toEqual({ excluded: results.map((r) => r.name).sort(), others: 25 });
	});

	it("serves the ranked answer inside the caller's time when the model answers late, and says why", async () => {
		const started = Date.now();
		const block = await buildInjection(
			env,
			ctx,
			{ query: "bump axios", include: "memories", waitMs: 1_200 },
			slowSelector(["refund-approval"], 3_000),
		);
		expect(Date.now() - started).toBeLessThan(1_400);
		expect(reached(block)[0]).toBe("package-manager");
		expect(block.recall?.engine).toBe("lexical-fallback");
		expect(block.recall?.fallbackReason).toMatch(/did not answer within \d+ ms/);
	});

	it("does not start the model when no time is left", async () => {
		const block = await buildInjection(
			env,
			ctx,
			{ query: "bump axios", include: "memories", waitMs: 100 },
			slowSelector(["refund-approval"], 0),
		);
		expect(block.recall?.fallbackReason).toMatch(/no time left/);
		expect(reached(block)[0]).toBe("package-manager");
	});

	it("rejects a waitMs that is not a non-negative integer", async () => {
		for (const waitMs of [-1, 1.5, "soon", 600_000]) {
			await expectError(
				await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query: "x", include: "memories", waitMs } }),
				400,
				"invalid_request",
			);
			await expectError(
				await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "x", waitMs } }),
				400,
				"invalid_request",
			);
		}
	});
});

describe("a memory written through markdown", () => {
	it("gets derived cues too", async () => {
		expect(
			(await putMemory(tenant.token, projectId, "lint-rule", "Run biome before committing.", { description: "Lint with biome" })).status,
		).toBe(201);
		const row = await projectDb(projectId).prepare("SELECT cues FROM memories WHERE name = 'lint-rule'").first<{ cues: string }>();
		expect(JSON.parse(row?.cues ?? "[]")).toEqual(["formatting and linting code"]);
	});
});

describe("cues written by the models", () => {
	it("stage 1 is asked for cues and keeps the ones the model writes, cleaned", async () => {
		const { default: stageOne } = await import("../prompts/stage_one_system.md");
		expect(stageOne).toContain("`cues`");
		const { StageOneOutputSchema } = await import("../src/extract/schema");
		const parsed = StageOneOutputSchema.parse({
			raw_memory: "",
			summary: "",
			candidates: [
				{
					name: "pnpm",
					type: "feedback",
					description: "Use pnpm",
					body: "Always pnpm.",
					cues: ["adding a dependency", " adding a dependency ", "", "의존성 추가\nnew line"],
				},
			],
		});
		expect(parsed.candidates[0]?.cues).toEqual(["adding a dependency", "의존성 추가 new line"]);
	});

	it("consolidation is asked for cues and stores the model's as written cues", async () => {
		const { default: consolidation } = await import("../prompts/consolidation.md");
		expect(consolidation).toContain("`cues`");
		const pid = await createProject(tenant.token);
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		const { addStageOneOutput } = await import("./helpers");
		await addStageOneOutput(pid, tenant.userId, "s-cues", [
			{ name: "pnpm-rule", type: "feedback", description: "Use pnpm, never npm", body: "Always pnpm.", evidence: ["t0"], userStated: true },
		]);
		const prompts: string[] = [];
		const plan = {
			operations: [
				{
					op: "create",
					name: "pnpm-rule",
					type: "feedback",
					description: "Use pnpm, never npm",
					body: "Always pnpm.",
					cues: ["adding or upgrading a dependency", "의존성 추가"],
					reason: "new rule",
					evidence: ["s-cues"],
				},
			],
			skills: [],
			summary: "",
		};
		const stub = env.PROJECT_COORDINATOR.getByName(pid);
		await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
			setSeams(instance, {
				model: new MockLanguageModelV4({
					doGenerate: async (options) => {
						prompts.push(JSON.stringify(options.prompt));
						return (await scriptedModel(plan).doGenerate(options)) as never;
					},
				}),
			});
		});
		await stub.requestRun(pid);
		const { runDurableObjectAlarm } = await import("cloudflare:test");
		await runDurableObjectAlarm(stub);
		expect(prompts.join("")).toContain("cues");
		const row = await projectDb(pid)
			.prepare("SELECT cues, cues_source FROM memories WHERE name = 'pnpm-rule'")
			.first<{ cues: string; cues_source: string }>();
		expect(JSON.parse(row?.cues ?? "[]")).toEqual(["adding or upgrading a dependency", "의존성 추가"]);
		expect(row?.cues_source).toBe("written");
	});
});

describe("prototype-named words", () => {
	it("never break the concept map or recall", async () => {
		for (const word of ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"]) {
			expect(() => textConcepts(`${word} ${word}s ${word}ing`)).not.toThrow();
			expect(() => memoryConcepts({ name: word.toLowerCase().replace(/_/g, ""), description: word, body: word })).not.toThrow();
			expect(
				(
					await call(`/v1/projects/${projectId}/inject`, {
						token: tenant.token,
						json: { query: `fix the ${word} call`, include: "memories" },
					})
				).status,
			).toBe(200);
		}
	});
});
