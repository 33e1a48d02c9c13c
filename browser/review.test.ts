// Reviewing team proposals in the console (docs/memory-trust.md, "Team memory is vouched for"), in a real
// Chromium against the Worker under `wrangler dev`: a writer's agent proposes 20 team memories from its
// sessions; a teammate signed in with a key no agent uses reads each card — the text, the danger check's
// findings, where it came from — and approves them one by one, and a second batch a session at a time.
// Both are timed (docs/benchmarks.md, "Reviewing in the console"); the page passes an axe-core scan.
import { mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const SHOTS = join(process.cwd(), "browser", "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const base = inject("cairnUrl");
const adminToken = inject("adminToken");
const PROPOSALS = 20;

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read loosely.
type Loose = Record<string, any>;

async function api(path: string, init: { method?: string; token: string; json?: unknown; headers?: Record<string, string> }) {
	const headers: Record<string, string> = { Authorization: `Bearer ${init.token}`, ...init.headers };
	if (init.json !== undefined) headers["Content-Type"] = "application/json";
	const res = await fetch(`${base}${path}`, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), headers, body: init.json === undefined ? undefined : JSON.stringify(init.json) });
	const text = await res.text();
	return { status: res.status, body: (text && res.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : {}) as Loose };
}

let browser: Browser;
let page: Page;
let projectId = "";
let writer = "";
let reviewer = "";
let teammate = "";

/** The writer's agent proposes `count` team memories, `perSession` to a session, starting at `from`. */
async function propose(prefix: string, count: number, perSession: number) {
	for (let i = 0; i < count; i++) {
		const res = await api(`/v1/projects/${projectId}/memories/${prefix}-${i}?scope=team`, {
			method: "PUT",
			token: writer,
			json: {
				type: "project",
				description: `Convention ${prefix} ${i}: how the ${["billing", "search", "auth", "queue", "mobile"][i % 5]} service is released`,
				body: `Release the ${["billing", "search", "auth", "queue", "mobile"][i % 5]} service with \`make release SERVICE=${prefix}-${i}\` after the staging soak of ${i + 1} hours; the on-call engineer signs off in the release channel.`,
			},
			headers: { "X-Cairn-Session": `${prefix}-session-${Math.floor(i / perSession)}` },
		});
		expect(res.status).toBe(201);
	}
}

async function axeScan(p: Page, label: string) {
	await p.evaluate(AXE);
	const result = (await p.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
		violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
	};
	const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
	expect(bad.map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
}

beforeAll(async () => {
	mkdirSync(SHOTS, { recursive: true });
	const t = await api("/v1/admin/tenants", { token: adminToken, json: { name: "review-timing", user: "ada" } });
	const admin = t.body.key.token as string;
	projectId = (await api("/v1/projects", { token: admin, json: { name: "api", gitRemote: "git@github.com:acme/review-timing.git" } })).body.project.id;
	await api(`/v1/projects/${projectId}/settings`, { method: "PUT", token: admin, json: { "memories.enabled": true } });
	const key = async (user: string) => (await api("/v1/keys", { token: admin, json: { scopes: ["read", "write"], user } })).body.key.token as string;
	[writer, reviewer, teammate] = [await key("ana"), await key("lee"), await key("bob")];
	await propose("one-by-one", PROPOSALS, 5);
	browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
	page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
});

afterAll(async () => {
	await browser?.close();
});

describe("reviewing team proposals in the console", () => {
	it(`a person reads and approves ${PROPOSALS} proposals one by one, then a session's batch at once`, async () => {
		await page.goto(`${base}/console/sign-in`);
		await page.getByLabel("API key").fill(reviewer);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.waitForURL(`${base}/console/projects`);

		const started = performance.now();
		await page.goto(`${base}/console/projects/${projectId}/reviews`);
		expect(await page.getByText(`${PROPOSALS} team memories wait for review`).count()).toBe(1);
		await axeScan(page, "reviews with team proposals");
		await page.screenshot({ path: join(SHOTS, "reviews-proposals-desktop.png"), fullPage: true });
		const perCard: number[] = [];
		for (let left = PROPOSALS; left > 0; left--) {
			const t0 = performance.now();
			const card = page.locator("[data-review-id]", { hasText: "Team proposal" }).first();
			// What a person reads before deciding: the text, the danger check, who wrote it and in which session.
			const text = await card.innerText();
			expect(text).toContain("make release SERVICE=");
			expect(text).toContain("Danger check");
			expect(text).toMatch(/in session one-by-one-session-\d/);
			await card.getByRole("button", { name: /^Approve/ }).click();
			await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Approved.");
			perCard.push(performance.now() - t0);
		}
		const oneByOne = performance.now() - started;
		expect(await page.getByText("Nothing is waiting for review.").count()).toBe(1);

		// A second set, approved a session at a time (4 sessions of 5).
		await propose("batch", PROPOSALS, 5);
		const batchStarted = performance.now();
		await page.goto(`${base}/console/projects/${projectId}/reviews`);
		for (let s = 0; s < PROPOSALS / 5; s++) {
			await page.getByRole("button", { name: `Approve all 5 team proposals from session batch-session-${s}` }).click();
			await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Approved: the team proposals are served");
		}
		const batched = performance.now() - batchStarted;
		expect(await page.getByText("Nothing is waiting for review.").count()).toBe(1);

		// Every one of them now reaches the teammate.
		const listed = (await api(`/v1/projects/${projectId}/memories?scope=team&limit=100`, { token: teammate })).body.memories as Loose[];
		expect(listed).toHaveLength(2 * PROPOSALS);

		const sorted = [...perCard].sort((a, b) => a - b);
		const median = sorted[Math.floor(sorted.length / 2)] ?? 0;
		console.log(
			`CAIRN_REVIEW_TIMING ${JSON.stringify({ proposals: PROPOSALS, oneByOneMs: Math.round(oneByOne), perCardMedianMs: Math.round(median), perCardMaxMs: Math.round(sorted.at(-1) ?? 0), bySessionMs: Math.round(batched), sessions: PROPOSALS / 5 })}`,
		);
		// The console keeps up: reading a card and approving it costs the person's reading time, not the page's.
		expect(oneByOne).toBeLessThan(60_000);
		expect(batched).toBeLessThan(15_000);
	});
});
