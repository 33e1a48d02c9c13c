import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, projectDb, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

const CORPUS: [string, string, string, string][] = [
	[
		"testing-conventions",
		"feedback",
		"Integration tests run against the real Postgres database, never mocks",
		"Use the real DB in integration tests. A mocked database hid a broken migration last quarter.",
	],
	[
		"commit-style",
		"user",
		"Commit messages follow Conventional Commits in English",
		"Write commit subjects like `fix(api): handle empty body`. Keep the subject under 72 characters.",
	],
	[
		"deploy-freeze",
		"project",
		"No production deploys on Fridays after noon UTC",
		"Deploy freeze: Friday 12:00 UTC until Monday. Hotfixes need approval from the on-call lead.",
	],
	[
		"monorepo-layout",
		"project",
		"Monorepo: api/ is a Hono worker, web/ is a Next.js app, shared code in packages/",
		"Each app deploys separately; packages/ are built with tsup before either app.",
	],
	[
		"grafana-dashboards",
		"reference",
		"Grafana dashboards for API latency and error rates",
		"Latency: grafana.internal/d/api-latency. Errors: grafana.internal/d/api-errors.",
	],
	["gh-cli-usage", "reference", "How to use the gh CLI to open pull requests", "Run gh pr create --fill, then gh pr view --web."],
	[
		"gh-cli-pitfalls",
		"reference",
		"gh CLI known issue with draft pull requests",
		"Warning: gh pr create --draft fails on forks; push the branch first, then create the PR.",
	],
	[
		"python-style",
		"user",
		"Prefer type hints and dataclasses in Python code",
		"Use dataclasses for records and add type hints to every public function.",
	],
];

async function write(name: string, type: string, description: string, body: string, scope?: string) {
	const res = await call(`/v1/projects/${projectId}/memories/${name}${scope ? `?scope=${scope}` : ""}`, {
		token: tenant.token,
		method: "PUT",
		json: { type, description, body },
	});
	expect(res.status).toBeLessThan(300);
}

const recallFor = async (body: Record<string, unknown>, pid = projectId) => {
	const res = await call(`/v1/projects/${pid}/recall`, { token: tenant.token, json: body });
	expect(res.status).toBe(200);
	return json(res);
};

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const [name, type, description, body] of CORPUS) await write(name, type, description, body);
	await write(
		"team-code-review",
		"feedback",
		"Every pull request needs one review from another team before merge",
		"Reviews come from outside the author's team.",
		"team",
	);
});

describe("recall (lexical)", () => {
	const cases: [string, string][] = [
		["should my integration tests mock the database?", "testing-conventions"],
		["how do I write the commit message for this fix", "commit-style"],
		["can we ship the release to production on friday afternoon", "deploy-freeze"],
		["where does the shared code live and how is the web app built", "monorepo-layout"],
		["the API is slow, where can I see latency graphs", "grafana-dashboards"],
		["adding a new record type in python", "python-style"],
		["who has to review my pull request before merging", "team-code-review"],
	];
	for (const [query, expected] of cases) {
		it(`ranks ${expected} first for "${query}"`, async () => {
			const body = await recallFor({ query });
			expect(body.engine).toBe("lexical");
			expect(body.memories[0]?.name).toBe(expected);
			expect(body.memories.length).toBeLessThanOrEqual(5);
		});
	}

	it("returns path, scope, score and age for each memory", async () => {
		const body = await recallFor({ query: "database tests" });
		expect(body.memories[0]).toMatchObject({
			name: "testing-conventions",
			type: "feedback",
			scope: "personal",
			path: "memory://root/testing-conventions.md",
			ageDays: 0,
		});
		expect(body.memories[0].score).toBeGreaterThan(0);
		expect(Date.parse(body.memories[0].updatedAt)).not.toBeNaN();
	});

	it("merges personal and team scope, and filters by scope", async () => {
		const both = await recallFor({ query: "review pull request merge commit", limit: 10 });
		const scopes = new Set(both.memories.map((m: { scope: string }) => m.scope));
		expect(scopes).toEqual(new Set(["personal", "team"]));
		const team = await recallFor({ query: "review pull request merge commit", scope: "team" });
		expect(team.memories.map((m: { name: string }) => m.name)).toEqual(["team-code-review"]);
		expect(team.memories[0].path).toBe("memory://root/team/team-code-review.md");
	});

	it("never errors on FTS5 syntax in the query", async () => {
		for (const query of [
			'"unbalanced',
			"NEAR(database tests, 2)",
			"data*",
			"-mock",
			"name:testing",
			"(database OR",
			"AND OR NOT",
			"tests AND NOT mocks",
			'"""',
			"*",
			":",
			"^",
			"{}[]",
			"测试 数据库",
			"",
			"   ",
		]) {
			const res = await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query } });
			expect(res.status, query).toBe(200);
		}
	});

	it("skips reference memories that only document a tool in use, keeps its pitfalls", async () => {
		const without = await recallFor({ query: "open a pull request with gh", limit: 10 });
		const names = without.memories.map((m: { name: string }) => m.name);
		expect(names).toContain("gh-cli-usage");
		const withTool = await recallFor({
			query: "open a pull request with gh",
			limit: 10,
			recentTools: ["Bash(gh pr create:*)"],
			trace: true,
		});
		const toolNames = withTool.memories.map((m: { name: string }) => m.name);
		expect(toolNames).not.toContain("gh-cli-usage");
		expect(toolNames).toContain("gh-cli-pitfalls");
		const skipped = withTool.trace.candidates.find((t: { name: string }) => t.name === "gh-cli-usage");
		expect(skipped.decision).toBe("skipped: documents a tool in use");
	});

	it("drops excluded memories and honours the limit", async () => {
		const first = await recallFor({ query: "database tests migration", limit: 1 });
		expect(first.memories).toHaveLength(1);
		const next = await recallFor({ query: "database tests migration", exclude: [first.memories[0].name] });
		expect(next.memories.map((m: { name: string }) => m.name)).not.toContain(first.memories[0].name);
	});

	it("leaves question-shaping words out of the query's terms", async () => {
		const pid = await createProject(tenant.token);
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		const put = (name: string, description: string, body: string) =>
			call(`/v1/projects/${pid}/memories/${name}`, { token: tenant.token, method: "PUT", json: { type: "project", description, body } });
		await put("deploy-freeze", "No production deploys on Fridays", "Deploy freeze: Friday 12:00 UTC until Monday.");
		await put("slow-builds", "Release builds take long", "As mentioned many times, how long a release build takes depends on the cache.");
		const body = await recallFor({ query: "How many times have I mentioned how long the deploy freeze lasts?", trace: true }, pid);
		expect(body.trace.terms).toEqual(["times", "deploy", "freeze", "lasts"]);
		expect(body.memories[0].name).toBe("deploy-freeze");
		// A question made only of such words still searches for them.
		expect((await recallFor({ query: "how long ago?", trace: true }, pid)).trace.terms).toEqual(["long", "ago"]);
	});

	it("explains every score with trace", async () => {
		const body = await recallFor({ query: "grafana latency", trace: true });
		expect(body.trace.terms).toEqual(["grafana", "latency"]);
		const top = body.trace.candidates[0];
		expect(top).toMatchObject({ name: "grafana-dashboards", decision: "returned", typePrior: 1 });
		expect(top.bm25).toBeGreaterThan(0);
		expect(top.freshness).toBeCloseTo(1, 2);
		expect(top.matchedTerms).toEqual(["grafana", "latency"]);
	});

	it("falls back to lexical and says so when the llm engine has no model", async () => {
		const body = await recallFor({ query: "database tests", engine: "llm" });
		expect(body.engine).toBe("lexical-fallback");
		expect(body.fallbackReason).toContain("no model");
		expect(body.memories[0].name).toBe("testing-conventions");
	});

	it("records what was served, off the response path", async () => {
		await recallFor({ query: "grafana latency dashboards", limit: 1 });
		let meta: { timesServed: number; lastServedAt: string | null } | undefined;
		for (let i = 0; i < 20; i++) {
			meta = (
				await json(
					await call(`/v1/projects/${projectId}/memories/grafana-dashboards`, {
						token: tenant.token,
						headers: { Accept: "application/json" },
					}),
				)
			).memory;
			if ((meta?.timesServed ?? 0) > 0) break;
			await new Promise((r) => setTimeout(r, 25));
		}
		expect(meta?.timesServed).toBeGreaterThan(0);
		expect(meta?.lastServedAt).not.toBeNull();
	});

	it("returns nothing, with a warning, while memories are disabled", async () => {
		const pid = await createProject(tenant.token);
		const body = await recallFor({ query: "anything" }, pid);
		expect(body.memories).toEqual([]);
		expect(body.warnings[0]).toContain("memories.enabled");
	});

	it("rejects bad recall bodies", async () => {
		for (const bad of [
			{},
			{ query: 5 },
			{ query: "x", limit: 0 },
			{ query: "x", limit: 21 },
			{ query: "x", engine: "vector" },
			{ query: "x", exclude: ["Bad Name"] },
			{ query: "x", scope: "everyone" },
		]) {
			await expectError(await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: bad }), 400, "invalid_request");
		}
	});

	it("ranks fresher memories above equally relevant old ones", async () => {
		const pid = await createProject(tenant.token);
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		for (const name of ["staging-old", "staging-new"]) {
			await call(`/v1/projects/${pid}/memories/${name}`, {
				token: tenant.token,
				method: "PUT",
				json: { type: "project", description: "Staging environment host", body: "Staging runs at stage.internal." },
			});
		}
		await projectDb(pid)
			.prepare(
				"UPDATE memories SET updated_at = '2025-01-01T00:00:00.000Z', verified_at = '2025-01-01T00:00:00.000Z' WHERE project_id = ? AND name = 'staging-old'",
			)
			.bind(pid)
			.run();
		const body = await recallFor({ query: "staging host" }, pid);
		expect(body.memories.map((m: { name: string }) => m.name)).toEqual(["staging-new", "staging-old"]);
		expect(body.memories[1].ageDays).toBeGreaterThan(300);
	});
});
