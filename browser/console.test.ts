// The web console in a real Chromium against the Worker under `wrangler dev`: sign in, search with the
// recall trace, edit and diff, a conflicting edit, the review queue, retrying a failed session, inject,
// settings and keys, sign out. Every page gets an axe-core scan (no serious or critical violations) and a
// screenshot at desktop and phone widths in browser/screenshots/.
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const require = createRequire(import.meta.url);
const AXE = readFileSync(require.resolve("axe-core/axe.min.js"), "utf8");
const SHOTS = join(process.cwd(), "browser", "screenshots");
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const FLAGS = [
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];
const HOSTILE = `<script>window.__pwned = 1; alert("xss")</script><img src=x onerror="window.__pwned = 2"><b>bold?</b>`;

const base = inject("cairnUrl");
const failingBase = inject("failingUrl");
const adminToken = inject("adminToken");

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read loosely.
type Loose = Record<string, any>;

async function api(root: string, path: string, init: { method?: string; token: string; json?: unknown; headers?: Record<string, string> }) {
	const headers: Record<string, string> = { Authorization: `Bearer ${init.token}`, ...init.headers };
	if (init.json !== undefined) headers["Content-Type"] = "application/json";
	const res = await fetch(`${root}${path}`, {
		method: init.method ?? (init.json === undefined ? "GET" : "POST"),
		headers,
		body: init.json === undefined ? undefined : JSON.stringify(init.json),
	});
	const text = await res.text();
	return { status: res.status, body: (text && res.headers.get("Content-Type")?.includes("json") ? JSON.parse(text) : {}) as Loose };
}

async function tenantWithProject(root: string, name: string) {
	const t = await api(root, "/v1/admin/tenants", { token: adminToken, json: { name, user: "ada" } });
	const token = t.body.key.token as string;
	const p = await api(root, "/v1/projects", { token, json: { name: "api", gitRemote: `git@github.com:acme/${name}.git` } });
	const projectId = p.body.project.id as string;
	await api(root, `/v1/projects/${projectId}/settings`, { method: "PUT", token, json: { "memories.enabled": true } });
	return { token, projectId };
}

async function postSession(root: string, token: string, projectId: string, sessionId: string, lines: string[]) {
	const ndjson = lines.map((content, i) => JSON.stringify({ id: String(i + 1), role: i % 2 ? "assistant" : "user", content, ts: `2026-11-28T10:00:0${i}Z` }));
	const res = await fetch(`${root}/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		method: "POST",
		headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-ndjson" },
		body: `${ndjson.join("\n")}\n`,
	});
	expect(res.status).toBe(200);
	expect((await api(root, `/v1/projects/${projectId}/sessions/${sessionId}/end`, { method: "POST", token, json: {} })).status).toBe(202);
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, ms = 60_000): Promise<T> {
	const deadline = Date.now() + ms;
	for (;;) {
		const value = await probe();
		if (value) return value;
		if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
		await new Promise((r) => setTimeout(r, 500));
	}
}

let browser: Browser;
let context: BrowserContext;
let page: Page;
let main: { token: string; projectId: string };
let failing: { token: string; projectId: string };
const dialogs: string[] = [];
const scanned: string[] = [];

/** axe-core on the current page (run through the DevTools protocol: the page's CSP allows no injected script). */
async function axeScan(p: Page, label: string) {
	await p.evaluate(AXE);
	const result = (await p.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as {
		violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[];
	};
	const bad = result.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
	expect(bad.map((v) => `${label}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`)).toEqual([]);
	scanned.push(label);
}

/** Scan and photograph the current page at desktop and phone widths. */
async function check(p: Page, label: string) {
	await axeScan(p, label);
	await p.screenshot({ path: join(SHOTS, `${label}-desktop.png`), fullPage: true });
	await p.setViewportSize({ width: 390, height: 844 });
	await axeScan(p, `${label} (phone)`);
	const overflow = await p.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
	expect(overflow, `${label} scrolls sideways on a phone`).toBeLessThanOrEqual(1);
	await p.screenshot({ path: join(SHOTS, `${label}-phone.png`), fullPage: true });
	await p.setViewportSize({ width: 1280, height: 800 });
}

const consoleUrl = (path: string) => `${base}/console/projects/${main.projectId}${path}`;

beforeAll(async () => {
	if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM} (apt-get install -y chromium, or set CHROMIUM_PATH)`);
	mkdirSync(SHOTS, { recursive: true });
	[main, failing] = await Promise.all([tenantWithProject(base, "acme"), tenantWithProject(failingBase, "acme-failing")]);

	// Memories to find, edit and read.
	const put = (name: string, json: Loose) => api(base, `/v1/projects/${main.projectId}/memories/${name}`, { method: "PUT", token: main.token, json });
	expect(
		(await put("testing-conventions", { type: "feedback", description: "Integration tests use the real database", body: "Use the real DB by default.\nMocks only as an exception, for speed." }))
			.status,
	).toBe(201);
	expect((await put("deploy-freeze", { type: "project", description: "No deploys on Fridays", body: "Deploy freeze from Friday 12:00 UTC." })).status).toBe(201);
	expect((await put("hostile-note", { type: "reference", description: `<i>markup</i> in a description`, body: `A note with markup.\n${HOSTILE}` })).status).toBe(201);

	// A team rule stated in a session: extraction and consolidation put its promotion in the review queue.
	await postSession(base, main.token, main.projectId, "team-1", ["Never push directly to main. That's a team rule for everyone.", "Understood."]);
	// A session whose extraction fails (the second Worker's extraction model is misconfigured).
	await postSession(failingBase, failing.token, failing.projectId, "broken-1", ["From now on always use pnpm, never npm.", "Switched to pnpm."]);

	await until("stage-1 output", async () => (await api(base, `/v1/projects/${main.projectId}/candidates`, { token: main.token })).body.outputs?.length > 0);
	await api(base, `/v1/projects/${main.projectId}/consolidate`, { method: "POST", token: main.token, json: {} });
	await until("a pending review", async () => (await api(base, `/v1/projects/${main.projectId}/reviews`, { token: main.token })).body.items?.length > 0);

	browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
	context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
	page = await context.newPage();
	page.on("dialog", async (d) => {
		dialogs.push(d.message());
		await d.accept();
	});
});

afterAll(async () => {
	await browser?.close();
});

describe("the console in Chromium", () => {
	it("signs in with an API key; the key stays out of the browser; the first page is interactive within 1 s", async () => {
		await page.goto(`${base}/console/`);
		await expect.poll(() => page.url()).toBe(`${base}/console/sign-in`);
		await check(page, "sign-in");
		await page.getByLabel("API key").fill("cairn_wrong_key");
		await page.getByRole("button", { name: "Sign in" }).click();
		await expect.poll(() => page.getByRole("alert").textContent()).toContain("not valid");

		await page.getByLabel("API key").fill(main.token);
		await page.getByRole("button", { name: "Sign in" }).click();
		await page.waitForURL(`${base}/console/projects`);
		await check(page, "projects");
		const cookies = await context.cookies();
		const session = cookies.find((c) => c.name === "cairn_console");
		expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/console" });
		expect(session?.value).not.toContain(main.token);
		const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
		expect(stored).not.toContain("cairn_");

		await page.getByRole("link", { name: "api" }).click();
		await page.waitForURL(consoleUrl(""));
		const timing = await page.evaluate(() => {
			const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
			return { interactive: nav.domInteractive, loaded: nav.loadEventEnd };
		});
		expect(timing.interactive).toBeLessThan(1000);
		expect(timing.loaded).toBeLessThan(1000);
		await check(page, "memories");
	});

	it("filters memories and renders a memory's HTML and script as text", async () => {
		await page.getByLabel("Type").selectOption("reference");
		await page.getByRole("button", { name: "Apply filters" }).click();
		await expect.poll(() => page.locator("tbody tr").count()).toBe(1);
		await page.getByRole("link", { name: "hostile-note" }).click();
		const body = page.getByTestId("memory-body");
		expect(await body.innerText()).toContain(HOSTILE);
		expect(await page.locator("main script, main img, main b").count()).toBe(0);
		expect(await page.locator("script").count()).toBe(1);
		expect(await page.getByRole("paragraph").filter({ hasText: "in a description" }).innerText()).toBe("<i>markup</i> in a description");
		expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
		expect(dialogs).toEqual([]);
		await check(page, "memory-hostile");
	});

	it("finds a memory by search and shows why it ranked there", async () => {
		await page.goto(consoleUrl(""));
		await page.getByLabel("Search memories").fill("should integration tests mock the database?");
		await page.getByRole("button", { name: "Search", exact: true }).click();
		await page.waitForURL(/\/search\?q=/);
		await expect.poll(() => page.getByRole("link", { name: "testing-conventions" }).count()).toBe(1);
		const trace = page.getByTestId("trace");
		const row = trace.locator("tr", { hasText: "testing-conventions" });
		expect(await row.innerText()).toMatch(/selected|returned|rank|\d/);
		const headers = await trace.locator("th").allInnerTexts();
		expect(headers).toEqual(expect.arrayContaining(["bm25", "typePrior", "freshness"]));
		await check(page, "search");
	});

	it("edits a memory and shows the new version beside the old one", async () => {
		await page.getByRole("link", { name: "testing-conventions" }).click();
		await page.getByLabel("Body").fill("Use the real DB always.\nThe in-memory fake hid a migration bug.");
		await page.getByLabel(/Description/).fill("Integration tests always use the real database");
		await page.getByRole("button", { name: "Save" }).click();
		await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Saved.");
		expect(await page.getByTestId("memory-body").innerText()).toContain("in-memory fake hid a migration bug");
		await check(page, "memory");
		await page.getByLabel("From version").selectOption("1");
		await page.getByLabel("To version").selectOption("2");
		await page.getByRole("button", { name: "Compare side by side" }).click();
		await page.waitForURL(/\/diff\?/);
		expect(await page.locator("td.del").allInnerTexts()).toEqual(expect.arrayContaining(["Use the real DB by default."]));
		expect(await page.locator("td.add").allInnerTexts()).toEqual(
			expect.arrayContaining(["Use the real DB always.", "The in-memory fake hid a migration bug."]),
		);
		await check(page, "diff");
	});

	it("resolves a conflicting edit: shows the other version and saves on retry", async () => {
		await page.goto(consoleUrl("/memories/deploy-freeze?scope=personal"));
		await page.getByLabel("Body").fill("Deploy freeze from Friday 15:00 UTC (mine).");
		// Someone else saves first.
		const theirs = await api(base, `/v1/projects/${main.projectId}/memories/deploy-freeze`, {
			method: "PUT",
			token: main.token,
			headers: { "If-Match": '"1"' },
			json: { type: "project", description: "No deploys on Fridays", body: "Deploy freeze from Friday 10:00 UTC (theirs)." },
		});
		expect(theirs.status).toBe(200);
		await page.getByRole("button", { name: "Save" }).click();
		await expect.poll(() => page.getByRole("heading", { level: 1 }).innerText()).toContain("Edit conflict");
		expect(await page.getByTestId("their-body").innerText()).toContain("(theirs)");
		expect(await page.getByLabel("Body").inputValue()).toContain("(mine)");
		await check(page, "conflict");
		await page.getByRole("button", { name: "Save mine over version 2" }).click();
		await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Saved.");
		expect(await page.getByTestId("memory-body").innerText()).toContain("(mine)");
		const now = await api(base, `/v1/projects/${main.projectId}/memories/deploy-freeze`, { token: main.token, headers: { Accept: "application/json" } });
		expect(now.body.memory.version).toBe(3);
	});

	it("shows what the agent sees for each agent's budget", async () => {
		await page.goto(consoleUrl("/inject"));
		await page.getByLabel(/Query/).fill("fix the flaky integration test");
		await page.getByLabel("Agent").selectOption("codex");
		await page.getByRole("button", { name: "Show" }).click();
		await page.waitForURL(/agent=codex/);
		const stats = await page.getByTestId("inject-stats").innerText();
		expect(stats).toMatch(/Tokens: \d+ of 2500/);
		expect(stats).toMatch(/Characters: \d+ of 9500/);
		expect(await page.getByTestId("inject-text").innerText()).toContain("testing-conventions");
		await check(page, "inject");
	});

	it("shows, for one prompt, why each memory was served or held back", async () => {
		await page.goto(consoleUrl("/inject"));
		await page.getByLabel(/Query/).fill("should the integration tests mock the database?");
		await page.getByLabel("Block").selectOption("prompt");
		await page.getByRole("button", { name: "Show" }).click();
		await page.waitForURL(/block=prompt/);
		const why = page.getByTestId("prompt-trace");
		expect(await why.locator("tr", { hasText: "testing-conventions" }).innerText()).toMatch(/returned|relevant|handed|below/);
		expect(await why.locator("th").allInnerTexts()).toEqual(["Memory", "Decision", "Evidence", "Score", "Matched"]);
		await check(page, "inject-prompt");
	});

	it("approves a review item", async () => {
		await page.goto(consoleUrl("/reviews"));
		await check(page, "reviews");
		const card = page.locator("[data-review-id]", { hasText: "Move this memory to team scope" }).first();
		const name = (await card.getByRole("heading").innerText()).trim();
		expect(name).toMatch(/push/);
		expect(await card.innerText()).toContain("Move this memory to team scope");
		await card.getByRole("button", { name: /^Approve/ }).click();
		await expect.poll(() => page.getByRole("status").first().textContent()).toContain("Approved.");
		const team = await api(base, `/v1/projects/${main.projectId}/memories?scope=team`, { token: main.token });
		expect(team.body.memories.map((m: Loose) => m.name)).toContain(name);
	});

	it("shows the pipeline and settings", async () => {
		await page.goto(consoleUrl("/pipeline"));
		expect(await page.getByRole("heading", { name: "Sessions" }).count()).toBe(1);
		expect(await page.locator("tbody").first().innerText()).toContain("team-1");
		await check(page, "pipeline");
		await page.goto(consoleUrl("/settings"));
		expect(await page.locator("tr", { hasText: "memories.enabled" }).innerText()).toMatch(/true\s+project/);
		await check(page, "settings");
		await page.goto(`${base}/console/keys`);
		await page.getByLabel("Name").fill("laptop");
		await page.getByRole("button", { name: "Create key" }).click();
		expect(await page.getByTestId("new-key").innerText()).toMatch(/^cairn_/);
		await check(page, "keys");
	});

	it("retries a failed session from the pipeline page", async () => {
		await until(
			"a failed extraction",
			async () => {
				const s = await api(failingBase, `/v1/projects/${failing.projectId}/sessions/broken-1`, { token: failing.token });
				return ["retrying", "dead_letter"].includes(s.body.session?.extraction?.state);
			},
			90_000,
		);
		const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
		const p = await other.newPage();
		await p.goto(`${failingBase}/console/sign-in`);
		await p.getByLabel("API key").fill(failing.token);
		await p.getByRole("button", { name: "Sign in" }).click();
		await p.waitForURL(/\/console\/projects$/);
		await p.goto(`${failingBase}/console/projects/${failing.projectId}/pipeline`);
		const row = p.locator("tr", { hasText: "broken-1" });
		expect(await row.innerText()).toContain("must look like provider:model");
		await check(p, "pipeline-failed");
		await row.getByRole("button", { name: "Retry extraction of session broken-1" }).click();
		await expect.poll(() => p.getByRole("status").first().textContent()).toContain("queued again");
		const s = await api(failingBase, `/v1/projects/${failing.projectId}/sessions/broken-1`, { token: failing.token });
		expect(["queued", "retrying"]).toContain(s.body.session.extraction.state);
		await other.close();
	});

	it("signs out", async () => {
		await page.goto(consoleUrl(""));
		await page.getByRole("button", { name: "Sign out" }).click();
		await page.waitForURL(/\/console\/sign-in\?msg=signed-out/);
		expect(await page.getByRole("status").first().textContent()).toContain("signed out");
		expect((await context.cookies()).find((c) => c.name === "cairn_console")).toBeUndefined();
		await page.goto(consoleUrl(""));
		await expect.poll(() => page.url()).toBe(`${base}/console/sign-in`);
		expect(scanned.length).toBeGreaterThanOrEqual(24);
	});
});
