// The project's index generation stands for its listed headers (MEMORY.md, the session start's counts
// and topics): a new body under the same header leaves it, so a project's busiest updates do not remake
// those for every session; a new memory, a new description or type, and a deletion move it. And a memory
// read is answered from the object's index, not from R2, when the two agree.
import { describe, expect, it } from "vitest";
import { call, createProject, createTenant, json, projectDb, putMemory } from "./helpers";

const generation = async (projectId: string) =>
	(await projectDb(projectId).prepare("SELECT index_generation AS g FROM projects WHERE id = ?").bind(projectId).first<{ g: number }>())
		?.g ?? -1;

describe("index generation", () => {
	it("moves with the headers, not with a body", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		expect((await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Tuesdays.")).status).toBe(201);
		const created = await generation(projectId);
		expect(created).toBeGreaterThan(0);
		// The same header, a new body: same generation, and the index still lists the memory as before.
		expect((await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Wednesdays now.")).status).toBe(200);
		expect(await generation(projectId)).toBe(created);
		// A new description, a new type: new generation, and MEMORY.md shows the new description.
		const described = await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Wednesdays now.", {
			description: "When deploys go out",
		});
		expect(described.status).toBe(200);
		const afterDescription = await generation(projectId);
		expect(afterDescription).toBeGreaterThan(created);
		const index = await (await call(`/v1/projects/${projectId}/index`, { token: tenant.token })).text();
		expect(index).toContain("When deploys go out");
		expect(
			(
				await putMemory(tenant.token, projectId, "deploy-window", "Deploys go out on Wednesdays now.", {
					type: "project",
					description: "When deploys go out",
				})
			).status,
		).toBe(200);
		expect(await generation(projectId)).toBeGreaterThan(afterDescription);
	});

	it("a memory read returns the current text after body-only updates", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		for (const body of ["First body.", "Second body.", "Third body."]) await putMemory(tenant.token, projectId, "notes", body);
		const res = await call(`/v1/projects/${projectId}/memories/notes`, { token: tenant.token, headers: { Accept: "application/json" } });
		const { memory } = await json(res);
		expect([memory.version, memory.body.trim()]).toEqual([3, "Third body."]);
		const markdown = await (await call(`/v1/projects/${projectId}/memories/notes`, { token: tenant.token })).text();
		expect(markdown).toContain("Third body.");
		expect(markdown).toContain("name: notes");
	});
});
