/**
 * Scores a person can read: recall's scores run from 0 to 1 in ranking order, the same number in the
 * response's memories, its trace and the console, whatever the scale of the ranking's own score — in a
 * small project BM25 is about 0.000001 for a good match (FTS5 floors the inverse document frequency),
 * and fused reciprocal ranks reach 2. The unscaled score stays in the trace, labelled `rankingScore`.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { readableScores } from "../src/recall/ranking";
import { FUSED_BEST } from "../src/recall/recall";
import { call, createProject, createTenant, json, type Loose, putMemory, recallAs, type Tenant } from "./helpers";

async function smallProject(): Promise<{ tenant: Tenant; projectId: string }> {
	const tenant = await createTenant();
	const projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", token: tenant.token, json: { "memories.enabled": true } });
	const writes = [
		["package-manager", "We use pnpm, never npm install. Always pnpm add.", "feedback", "We use pnpm, never npm"],
		["deploy-freeze", "Deploy freeze from Friday 12:00 UTC.", "project", "No deploys on Fridays"],
		["ci-cache", "The CI cache keys on the pnpm lockfile.", "reference", "CI caches the pnpm store"],
	] as const;
	for (const [name, body, type, description] of writes) {
		expect((await putMemory(tenant.token, projectId, name, body, { type, description })).status).toBe(201);
	}
	return { tenant, projectId };
}

describe("recall scores", () => {
	it("run from 0 to 1 in ranking order; the best lexical match reads 1 where its BM25 is about 0.000001", async () => {
		const { tenant, projectId } = await smallProject();
		// "pnpm" is in two of the three memories: FTS5's inverse document frequency is floored, BM25 tiny.
		const r = await recallAs(tenant.token, projectId, { query: "pnpm", trace: true });
		const scores = (r.memories as Loose[]).map((m) => m.score);
		expect(scores.length).toBeGreaterThanOrEqual(2);
		expect(scores[0]).toBe(1);
		for (const s of scores) {
			expect(s).toBeGreaterThan(0);
			expect(s).toBeLessThanOrEqual(1);
		}
		expect([...scores].sort((a, b) => b - a)).toEqual(scores);
		// The same number in the trace; the unscaled score beside it, labelled, as small as FTS5 makes it here.
		for (const m of r.memories as Loose[]) {
			const t = (r.trace.candidates as Loose[]).find((c) => c.name === m.name && c.scope === m.scope);
			expect(t?.score).toBe(m.score);
			expect(typeof t?.rankingScore).toBe("number");
		}
		const top = (r.trace.candidates as Loose[])[0] as Loose;
		expect(top.rankingScore).toBeLessThan(0.001);
		expect(top.score).toBe(1);
	});

	it("are the same in the console's search, where a good match never reads as score 0", async () => {
		const { tenant, projectId } = await smallProject();
		const r = await recallAs(tenant.token, projectId, { query: "pnpm", limit: 10 });
		const signIn = await exports.default.fetch(
			new Request("https://cairn.test/console/sign-in", {
				method: "POST",
				headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://cairn.test" },
				body: new URLSearchParams({ key: tenant.token }).toString(),
				redirect: "manual",
			}),
		);
		const cookie = (signIn.headers.get("Set-Cookie") ?? "").split(";")[0] ?? "";
		expect(cookie, `${signIn.status} ${await signIn.text()}`).toContain("=");
		const page = await (await call(`/console/projects/${projectId}/search?q=pnpm`, { headers: { Cookie: cookie } })).text();
		const first = (r.memories as Loose[])[0] as Loose;
		expect(first.score).toBe(1);
		expect(page).toContain("score 1.00, ");
		expect(page).not.toMatch(/score 0(\.0+)?, /);
	});

	it("map monotonically: a share of the best possible, never 0 for a positive score, never above 1", () => {
		const lexical = readableScores(2.48e-6);
		expect(lexical(2.48e-6)).toBe(1);
		expect(lexical(1.24e-6)).toBe(0.5);
		expect(lexical(1e-12)).toBe(0.01);
		expect(lexical(0)).toBe(0);
		const fused = readableScores(FUSED_BEST);
		expect(fused(2)).toBe(1);
		expect(fused(1)).toBe(0.5);
		expect(readableScores(0)(1)).toBe(0);
		const raw = [9.5, 4.2, 4.2, 0.3, 1e-9];
		const shown = raw.map(readableScores(9.5));
		expect(shown).toEqual([1, 0.44, 0.44, 0.03, 0.01]);
	});

	it("are described as 0–1 in the OpenAPI document", async () => {
		const doc = await json(await call("/openapi.json"));
		const schema = doc.paths["/v1/projects/{projectId}/recall"].post.responses["200"].content["application/json"].schema;
		const memory = schema.properties.memories.items;
		const score = (memory.$ref ? doc.components.schemas[memory.$ref.split("/").pop()] : memory).properties.score;
		expect(score).toMatchObject({ minimum: 0, maximum: 1 });
		expect(score.description).toContain("0–1");
	});
});
