/**
 * Why a memory came back, on demand: recall's trace names the concepts and cues a candidate matched
 * (not only its words), and inject with `trace: true` says why each candidate was served to a prompt
 * or held back — through the real Worker.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { call, createProject, createTenant, expectError, json, type Loose, putMemory, recallAs, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
const entry = (r: Loose, name: string): Loose => (r.trace.candidates as Loose[]).find((c) => c.name === name) ?? {};

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", token: tenant.token, json: { "memories.enabled": true } });
	const res = await call(`/v1/projects/${projectId}/memories/package-manager`, {
		method: "PUT",
		token: tenant.token,
		json: {
			type: "feedback",
			description: "We use pnpm, never npm install",
			body: "Always `pnpm add`; npm install rewrites the lockfile.",
			cues: ["adding, removing or upgrading a dependency"],
		},
	});
	expect(res.status).toBe(201);
	expect(
		(
			await putMemory(tenant.token, projectId, "deploy-freeze", "Deploy freeze from Friday 12:00 UTC.", {
				type: "project",
				description: "No deploys on Fridays",
			})
		).status,
	).toBe(201);
});

describe("recall's trace names what matched", () => {
	it("a memory found through a concept shows the concept, not just a tiny score and no words", async () => {
		const r = await recallAs(tenant.token, projectId, { query: "bump axios", trace: true });
		expect(r.trace.concepts).toContain("deps");
		expect(r.memories.map((m: Loose) => m.name)).toContain("package-manager");
		const e = entry(r, "package-manager");
		expect(e.matchedTerms).toEqual([]);
		expect(e.concepts).toEqual(["deps"]);
		expect(e.score).toBeGreaterThan(0);
	});

	it("a memory found through a cue shows the cue that holds the query's words", async () => {
		const r = await recallAs(tenant.token, projectId, { query: "upgrading a dependency", trace: true });
		expect(entry(r, "package-manager").cues).toEqual(["adding, removing or upgrading a dependency"]);
	});

	it("without trace nothing extra is returned", async () => {
		const r = await recallAs(tenant.token, projectId, { query: "bump axios" });
		expect(r.trace).toBeUndefined();
	});
});

describe("inject with trace: why each candidate was served or held back", () => {
	it("per prompt: the served memory and the one held back, with their evidence and matches", async () => {
		const body = { query: "Should I use npm install to add lodash? Deploy it Friday.", include: "memories", trace: true };
		const r = await json(await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: body }));
		// In front of the model: its file, or its line when the decision is less sure; the trace says which.
		const reached = [...r.parts.memories, ...r.parts.offered].map((m: Loose) => m.name);
		expect(reached).toContain("package-manager");
		const trace = r.recall.trace;
		expect(trace.weights.words).toHaveProperty("lodash");
		const served = entry(r.recall, "package-manager");
		expect(served).toMatchObject({ concepts: ["deps"] });
		expect(["returned", "offered as a line"]).toContain(served.decision);
		expect(served.decision === "returned").toBe(r.parts.memories.some((m: Loose) => m.name === "package-manager"));
		expect(served.evidence).toBeGreaterThan(0);
		const held = entry(r.recall, "deploy-freeze");
		expect(held.decision).not.toBe("returned");
		expect(held.held).toEqual(expect.arrayContaining(["deploy", "friday"]));
	});

	it("without trace the response is as before; a trace that is not a boolean is a 400", async () => {
		const r = await json(
			await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query: "bump axios", include: "memories" } }),
		);
		expect(r.recall.trace).toBeUndefined();
		await expectError(
			await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query: "x", trace: "yes" } }),
			400,
			"invalid_request",
		);
	});
});
