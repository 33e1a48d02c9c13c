// The summary is never stale: lines citing a memory that changed or went away after the summary was
// written are never injected, the summary is rebuilt (offline at once; with a model by the next run),
// it carries its date, and `rebuild` always rebuilds it.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { Candidate } from "../src/extract/schema";
import { summaryKey } from "../src/memory/paths";
import type { ProjectCoordinator } from "../src/project/object";
import { addStageOneOutput, call, createProject, createTenant, json, type Loose, putMemory, scriptedModel, type Tenant } from "./helpers";
import { setSeams } from "./worker";

let tenant: Tenant;
let projectId: string;
const base = () => `/v1/projects/${projectId}`;
const coordinator = () => env.PROJECT_COORDINATOR.getByName(projectId);
const configure = (setup: (instance: ProjectCoordinator) => void) =>
	runInDurableObject(coordinator(), async (instance: ProjectCoordinator) => setup(instance));

const STAGING_OLD = "The staging API lives at api-staging.internal:8080";
const STAGING_NEW = "The staging API lives at api-staging.internal:9090";

const rebuild = async () => expect((await call(`${base()}/consolidate`, { token: tenant.token, method: "POST" })).status).toBe(202);
const summary = async () => {
	const res = await call(`${base()}/summary`, { token: tenant.token });
	expect(res.status).toBe(200);
	return res.text();
};
const inject = async () => (await json(await call(`${base()}/inject`, { token: tenant.token, json: {} }))).text as string;

/** Every memory:// path in the text resolves for the caller. */
async function expectEveryPathResolves(text: string) {
	const paths = [...new Set(text.match(/memory:\/\/root(?:\/[A-Za-z0-9._/-]*[A-Za-z0-9])?/g) ?? [])];
	expect(paths.length).toBeGreaterThan(0);
	for (const url of paths) {
		const res = await call(`${base()}/resolve?url=${encodeURIComponent(url)}`, { token: tenant.token });
		expect(res.status, url).toBe(200);
	}
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`${base()}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const [name, description, type] of [
		["staging-api", STAGING_OLD, "project"],
		["testing", "Integration tests use the real database", "feedback"],
		["package-manager", "Use pnpm, never npm", "feedback"],
	] as const) {
		expect((await putMemory(tenant.token, projectId, name, `${description}.`, { description, type })).status).toBe(201);
	}
	await configure((i) => {
		setSeams(i, { model: null });
	});
	await rebuild();
});

describe("a summary that is never stale", () => {
	it("rebuild with nothing pending rebuilds the summary, which carries its date", async () => {
		const text = await summary();
		expect(text).toMatch(/^# Memory summary\n\n_Written \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\._\n/);
		expect(text).toContain(`${STAGING_OLD} (memory://root/staging-api.md)`);
		const object = await env.FILES.get(summaryKey(tenant.tenantId, projectId, tenant.userId));
		expect(Date.parse(object?.customMetadata?.writtenAt ?? "")).toBeGreaterThan(Date.now() - 60_000);
		// A memory written after it: rebuild again with nothing pending, and it is there.
		expect((await putMemory(tenant.token, projectId, "deploy-freeze", "No deploys on Fridays.", { type: "project" })).status).toBe(201);
		await rebuild();
		expect(await summary()).toContain("memory://root/deploy-freeze.md");
	});

	it("editing a cited memory: the next inject shows no old value, and the summary is rebuilt with the new one", async () => {
		expect((await inject()).includes("api-staging.internal:8080")).toBe(true);
		expect(
			(await putMemory(tenant.token, projectId, "staging-api", `${STAGING_NEW}.`, { description: STAGING_NEW, type: "project" })).status,
		).toBe(200);
		const text = await inject();
		expect(text).not.toContain("api-staging.internal:8080");
		expect(text).toContain(`${STAGING_NEW} (memory://root/staging-api.md)`);
		await expectEveryPathResolves(text);
		expect(await summary()).not.toContain("8080");
	});

	it("deleting a cited memory: the next inject shows no path to it", async () => {
		expect((await call(`${base()}/memories/staging-api`, { token: tenant.token, method: "DELETE" })).status).toBe(204);
		const text = await inject();
		expect(text).not.toContain("memory://root/staging-api.md");
		expect(text).not.toContain("8080");
		await expectEveryPathResolves(text);
	});

	it("approving a proposed change to a cited memory: the next inject shows the approved value only", async () => {
		// Consolidation may not change a memory written on purpose from tool output: it proposes the change for review.
		const candidate: Candidate = {
			name: "staging-api",
			type: "project",
			description: STAGING_NEW,
			body: `${STAGING_NEW}.`,
			evidence: ["t0"],
			userStated: false,
		};
		await addStageOneOutput(projectId, tenant.userId, "s-tool", [candidate], new Date(Date.now() + 1000).toISOString());
		await configure((i) => {
			setSeams(i, {
				model: scriptedModel({
					operations: [
						{
							op: "update",
							name: "staging-api",
							type: "project",
							description: STAGING_NEW,
							body: `${STAGING_NEW}.`,
							reason: "seen",
							evidence: ["s-tool"],
						},
					],
					skills: [],
					summary: `# Memory summary\n\n- ${STAGING_OLD} (memory://root/staging-api.md)\n- Integration tests use the real database (memory://root/testing.md)`,
				}),
			});
		});
		await coordinator().requestRun(projectId);
		await runDurableObjectAlarm(coordinator());
		const [item] = (await json(await call(`${base()}/reviews`, { token: tenant.token }))).items as Loose[];
		expect(item?.memory.name).toBe("staging-api");
		expect((await inject()).includes("api-staging.internal:8080")).toBe(true);
		await configure((i) => {
			setSeams(i, { model: null });
		});
		expect((await call(`${base()}/reviews/${item?.id}/approve`, { token: tenant.token, method: "POST" })).status).toBe(200);
		const text = await inject();
		expect(text).not.toContain("api-staging.internal:8080");
		expect(text).toContain("api-staging.internal:9090");
		await expectEveryPathResolves(text);
	});

	it("with a model, the stale lines are left out until the next run rewrites the summary", async () => {
		const model = scriptedModel({ operations: [], skills: [], summary: "" });
		await configure((i) => {
			setSeams(i, { model: model });
		});
		const before = await env.FILES.get(summaryKey(tenant.tenantId, projectId, tenant.userId));
		const stored = await before?.text();
		expect(
			(await putMemory(tenant.token, projectId, "staging-api", `${STAGING_NEW}.`, { description: STAGING_NEW, type: "project" })).status,
		).toBe(200);
		const text = await inject();
		expect(text).not.toContain("memory://root/staging-api.md");
		expect(text).toContain("memory://root/testing.md");
		await expectEveryPathResolves(text);
		// Not rebuilt offline: the model writes it on its next run.
		expect(await (await env.FILES.get(summaryKey(tenant.tenantId, projectId, tenant.userId)))?.text()).toBe(stored);
		expect(model.doGenerateCalls.length).toBe(0);
	});
});
