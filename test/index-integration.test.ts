import { beforeAll, describe, expect, it } from "vitest";
import { INDEX_MAX_BYTES, INDEX_MAX_LINES, renderIndex } from "../src/memory/index-file";
import { call, createProject, createTenant, expectError, json, projectDb, putMemory, type Tenant } from "./helpers";

let tenant: Tenant;

beforeAll(async () => {
	tenant = await createTenant();
});

async function batchWrite(projectId: string, count: number, offset = 0, extra: (i: number) => object = () => ({})) {
	const types = ["user", "feedback", "project", "reference"];
	for (let start = 0; start < count; start += 100) {
		const memories = Array.from({ length: Math.min(100, count - start) }, (_, j) => {
			const i = offset + start + j;
			return {
				name: `memory-${String(i).padStart(5, "0")}`,
				type: types[i % 4],
				description: `Fact number ${i} about the build`,
				body: `Body ${i}`,
				...extra(i),
			};
		});
		const res = await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories } });
		expect(res.status).toBe(200);
	}
}

describe("MEMORY.md", () => {
	it("lists every memory grouped by type and stays current after writes and deletes", async () => {
		const projectId = await createProject(tenant.token);
		await putMemory(tenant.token, projectId, "commit-style", "Conventional commits.", {
			type: "user",
			description: "Commit messages in conventional style",
		});
		await putMemory(tenant.token, projectId, "grafana", "https://grafana.internal/d/api", {
			type: "reference",
			description: "API latency dashboard",
		});
		await putMemory(tenant.token, projectId, "team-rule", "Real DB in tests.", {
			scope: "team",
			description: "Integration tests use the real database",
		});
		const index = await (await call(`/v1/projects/${projectId}/index`, { token: tenant.token })).text();
		expect(index).toContain("## User preferences\n- [commit-style](commit-style.md) — Commit messages in conventional style");
		expect(index).toContain("## Feedback and rules\n- [team-rule](team/team-rule.md) (team) — Integration tests use the real database");
		expect(index).toContain("## References\n- [grafana](grafana.md) — API latency dashboard");

		await call(`/v1/projects/${projectId}/memories/grafana`, { token: tenant.token, method: "DELETE" });
		await putMemory(tenant.token, projectId, "commit-style", "Gitmoji.", { type: "user", description: "Commit messages use gitmoji" });
		const after = await (
			await call(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root/MEMORY.md")}`, { token: tenant.token })
		).text();
		expect(after).not.toContain("grafana");
		expect(after).toContain("Commit messages use gitmoji");
	});

	it("with 300 memories stays within 200 lines and 25,000 bytes and ends with the truncation warning", async () => {
		const projectId = await createProject(tenant.token);
		await batchWrite(projectId, 300);
		const res = await call(`/v1/projects/${projectId}/index`, { token: tenant.token });
		expect(res.headers.get("Content-Type")).toContain("text/markdown");
		const text = await res.text();
		const lines = text.trimEnd().split("\n");
		expect(lines.length).toBeLessThanOrEqual(200);
		expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(25_000);
		expect(lines.at(-1)).toMatch(/^> WARNING: this index was truncated: it lists \d+ of 300 memories/);
	});

	it("cuts at the byte cap too, at a line boundary", () => {
		const entries = Array.from({ length: 150 }, (_, i) => ({
			name: `m-${i}`,
			type: "project" as const,
			description: "d".repeat(400),
			scope: "personal" as const,
		}));
		const text = renderIndex(entries, 150);
		expect(new TextEncoder().encode(text).byteLength).toBeLessThanOrEqual(INDEX_MAX_BYTES);
		expect(text.split("\n").length).toBeLessThanOrEqual(INDEX_MAX_LINES + 1);
		const lines = text.trimEnd().split("\n");
		expect(lines.at(-1)).toContain("WARNING");
		expect(lines.at(-2)).toMatch(/^- \[m-\d+\]\(m-\d+\.md\) — d+$/);
	});

	it("escapes brackets so a description cannot forge a link", () => {
		const text = renderIndex([{ name: "x", type: "user", description: "see [evil](http://e)", scope: "personal" }], 1);
		expect(text).toContain("see \\[evil\\](http://e)");
	});
});

describe("resolve", () => {
	it("resolves topic files, team files and the index; unknown artifacts are 404; bad URLs 400", async () => {
		const projectId = await createProject(tenant.token);
		await putMemory(tenant.token, projectId, "only-team", "shared", { scope: "team" });
		await putMemory(tenant.token, projectId, "mine", "personal");
		const r = (url: string) => call(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent(url)}`, { token: tenant.token });
		expect(await (await r("memory://root/mine.md")).text()).toContain("personal");
		expect(await (await r("memory://root/only-team.md")).text()).toContain("shared");
		expect(await (await r("memory://root/team/only-team.md")).text()).toContain("shared");
		expect(await (await r("memory://root/MEMORY.md")).text()).toContain("- [mine](mine.md)");
		await expectError(await r("memory://root"), 404, "not_found");
		await expectError(await r("memory://root/skills/deploy/SKILL.md"), 404, "not_found");
		await expectError(await r("memory://root/nope.md"), 404, "not_found");
		for (const bad of ["https://x/y", "memory://root/../x.md", "memory://root/UP.md", "memory://other/x.md"]) {
			await expectError(await r(bad), 400, "invalid_request");
		}
		await expectError(await call(`/v1/projects/${projectId}/resolve`, { token: tenant.token }), 400, "invalid_request");
	});
});

describe("batch", () => {
	it("writes good items and reports bad ones without sinking the batch", async () => {
		const projectId = await createProject(tenant.token);
		const memories = [
			{ name: "good-one", type: "user", description: "ok", body: "fine" },
			{ name: "Bad Name", type: "user", description: "ok", body: "fine" },
			{ name: "bad-type", type: "opinion", description: "ok", body: "fine" },
			{ name: "leaky", type: "reference", description: "ok", body: "token ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq" },
			{ name: "good-one", type: "user", description: "dupe", body: "again" },
			"not an object",
			{ name: "good-two", type: "project", description: "ok", body: "fine" },
		];
		const res = await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories } });
		expect(res.status).toBe(200);
		const { results } = await json(res);
		expect(results.map((r: { status: string }) => r.status)).toEqual(["created", "error", "error", "error", "error", "error", "created"]);
		expect(results[1].error.code).toBe("invalid_name");
		expect(results[2].error.code).toBe("invalid_request");
		expect(results[3].error.code).toBe("secret_detected");
		expect(JSON.stringify(results)).not.toContain("ghp_");
		const again = await json(
			await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories: [memories[0]] } }),
		);
		expect(again.results[0].status).toBe("unchanged");
	});

	it("refuses more than 100 items and malformed bodies", async () => {
		const projectId = await createProject(tenant.token);
		const memories = Array.from({ length: 101 }, (_, i) => ({ name: `m-${i}`, type: "user", description: "d", body: "b" }));
		await expectError(
			await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories } }),
			400,
			"invalid_request",
		);
		await expectError(
			await call(`/v1/projects/${projectId}/memories/batch`, { token: tenant.token, json: { memories: "nope" } }),
			400,
			"invalid_request",
		);
		const count = await projectDb(projectId)
			.prepare("SELECT COUNT(*) AS n FROM memories WHERE project_id = ?")
			.bind(projectId)
			.first<{ n: number }>();
		expect(count?.n).toBe(0);
	});
});
