/**
 * Freshness counts confirmations: a memory a session restated is as fresh as that confirmation, in
 * ranking, in recall's ageDays and in inject's age note ("confirmed 3 days ago").
 */
import { beforeEach, describe, expect, it } from "vitest";
import { freshness } from "../src/recall/ranking";
import { call, createProject, createTenant, json, projectDb, putMemory, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString();

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("freshness", () => {
	it("an old memory confirmed three days ago shows its confirmation age; an unconfirmed one its edit age", async () => {
		await putMemory(tenant.token, projectId, "staging-db-port", "Staging database: Postgres listens on 5433.", {
			type: "project",
			description: "The staging database port",
		});
		await putMemory(tenant.token, projectId, "staging-db-host", "Staging database: Postgres is db-staging.internal.", {
			type: "project",
			description: "The staging database host",
		});
		const db = projectDb(projectId);
		await db
			.prepare("UPDATE memories SET updated_at = ?, verified_at = ? WHERE name = ?")
			.bind(daysAgo(40), daysAgo(3), "staging-db-port")
			.run();
		await db
			.prepare("UPDATE memories SET updated_at = ?, verified_at = ? WHERE name = ?")
			.bind(daysAgo(40), daysAgo(40), "staging-db-host")
			.run();

		const recalled = await json(
			await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "staging database" } }),
		);
		const byName = Object.fromEntries(recalled.memories.map((m: { name: string; ageDays: number }) => [m.name, m]));
		expect(byName["staging-db-port"].ageDays).toBe(3);
		expect(byName["staging-db-host"].ageDays).toBe(40);
		// The confirmed one ranks first: everything else about the two is alike.
		expect(recalled.memories[0].name).toBe("staging-db-port");

		const inject = await json(await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { query: "staging database" } }));
		expect(inject.text).toMatch(/staging-db-port\.md\nproject, personal · [^,\n]+, confirmed 3 days ago/);
		expect(inject.text).not.toMatch(/staging-db-port\.md\nproject, personal · [^,\n]+, updated/);
	});

	it("takes the later of edit and confirmation", () => {
		const now = Date.parse("2026-12-01T00:00:00Z");
		expect(freshness({ updated_at: "2026-11-01T00:00:00Z", verified_at: "2026-11-28T00:00:00Z" }, now)).toEqual({
			ageDays: 3,
			confirmed: true,
		});
		expect(freshness({ updated_at: "2026-11-28T00:00:00Z", verified_at: "2026-11-28T00:00:00Z" }, now)).toEqual({
			ageDays: 3,
			confirmed: false,
		});
	});
});
