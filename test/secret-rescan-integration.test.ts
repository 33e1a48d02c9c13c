// The maintenance re-scan of stored memories under the current secret policy: hits go to the review
// queue of the memory's owner (a team memory's last author), nothing is deleted until someone approves,
// and a memory version is queued once whatever became of its item.
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { cursorKey } from "../src/maintenance/secret-rescan";
import { objectKey, packsPrefix } from "../src/memory/paths";
import { getMemoryRow } from "../src/memory/store";
import { projectStore } from "../src/project/client";
import type { ProjectCoordinator } from "../src/project/object";
import { secretRescanSlice } from "../src/worker/cron";
import { call, createProject, createTenant, json, type Loose, putMemory, type Tenant, topicFile } from "./helpers";

// Joined from parts so this file does not itself hold a whole token.
const TOKEN = ["ghp_", "Qm7vT2xKp9LwR4sN8dYc3FhJ6bZa1UeG5iWo"].join("");
const KEY_HEADER = ["-----BEGIN ", "OPENSSH PRIVATE KEY-----"].join("");

let tenant: Tenant;
let projectId: string;
const base = () => `/v1/projects/${projectId}`;
const coordinator = () => env.PROJECT_COORDINATOR.getByName(projectId);

/**
 * Replaces a stored memory's text behind the write path's back — its file and the search index's copy,
 * which the re-scan reads: text stored before the policy.
 */
async function storeAsIfOld(name: string, scope: "personal" | "team", body: string) {
	const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
	const row = await runInDurableObject(coordinator(), (instance: ProjectCoordinator) => getMemoryRow(instance.db, ctx, scope, name));
	expect(row).toBeTruthy();
	await env.FILES.put(objectKey(tenant.tenantId, projectId, row?.content_hash ?? ""), topicFile(name, `About ${name}`, "reference", body));
	await setIndexedBody(row?.id ?? 0, body);
}

const setIndexedBody = (id: number, body: string) =>
	runInDurableObject(coordinator(), async (instance: ProjectCoordinator) => {
		(instance as unknown as { ctx: DurableObjectState }).ctx.storage.sql.exec("UPDATE memories_fts SET body = ? WHERE rowid = ?", body, id);
	});

const pendingSecrets = async (): Promise<Loose[]> =>
	(await json(await call(`${base()}/reviews?status=pending&kind=secret`, { token: tenant.token }))).items;

const resetCursor = () =>
	runInDurableObject(coordinator(), async (instance: ProjectCoordinator) => {
		await (instance as unknown as { ctx: DurableObjectState }).ctx.storage.delete(cursorKey());
	});

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	for (const [name, scope] of [
		["deploy-notes", "personal"],
		["ssh-access", "team"],
		["clean-notes", "personal"],
	] as const) {
		const res = await putMemory(tenant.token, projectId, name, "Deploys go through the pipeline.", { scope });
		expect(res.status, await res.clone().text()).toBeLessThan(300);
	}
	await storeAsIfOld("deploy-notes", "personal", `Deploy with GITHUB_TOKEN=${TOKEN} from the runner.`);
	await storeAsIfOld("ssh-access", "team", `The bastion key:\n${KEY_HEADER}\n(rest elided)`);
});

describe("secret re-scan", () => {
	it("queues each stored memory that holds a credential for review, deletes nothing, and never echoes the secret", async () => {
		const result = await secretRescanSlice(env, { limit: 10_000 });
		// The slice scans every project in the runtime (other test files' among them); this project's two are exact below.
		expect(result.queued).toBeGreaterThanOrEqual(2);
		const items = await pendingSecrets();
		expect(items.map((i) => `${i.memory.scope}/${i.memory.name}`).sort()).toEqual(["personal/deploy-notes", "team/ssh-access"]);
		for (const item of items) {
			expect(item.kind).toBe("secret");
			expect(item.proposal.op).toBe("delete");
			expect(JSON.stringify(item)).not.toContain(TOKEN.slice(4));
		}
		// Nothing deleted: both memories are still there.
		for (const [name, scope] of [
			["deploy-notes", "personal"],
			["ssh-access", "team"],
		])
			expect((await call(`${base()}/memories/${name}?scope=${scope}`, { token: tenant.token })).status).toBe(200);
	});

	it("is idempotent: a second pass, or a full re-scan of the same versions, queues nothing new", async () => {
		expect((await projectStore(env, projectId).rescanSecrets(projectId)).queued).toBe(0);
		await resetCursor();
		const again = await projectStore(env, projectId).rescanSecrets(projectId);
		expect(again.scanned).toBe(3);
		expect(again.flagged).toBe(2);
		expect(again.queued).toBe(0);
		expect(await pendingSecrets()).toHaveLength(2);
	});

	it("a rejected item keeps the memory and is not asked again; an approved one deletes it", async () => {
		const items = await pendingSecrets();
		const team = items.find((i) => i.memory.name === "ssh-access");
		const personal = items.find((i) => i.memory.name === "deploy-notes");
		const rejected = await call(`${base()}/reviews/${team?.id}/reject`, { method: "POST", token: tenant.token });
		expect(rejected.status).toBe(200);
		expect((await call(`${base()}/memories/ssh-access?scope=team`, { token: tenant.token })).status).toBe(200);
		await resetCursor();
		expect((await projectStore(env, projectId).rescanSecrets(projectId)).queued).toBe(0);
		expect((await pendingSecrets()).map((i) => i.memory.name)).toEqual(["deploy-notes"]);

		const approved = await call(`${base()}/reviews/${personal?.id}/approve`, { method: "POST", token: tenant.token });
		expect(approved.status).toBe(200);
		expect((await call(`${base()}/memories/deploy-notes?scope=personal`, { token: tenant.token })).status).toBe(404);
		expect(await pendingSecrets()).toEqual([]);
	});

	it("picks up memories written after its last visit, and approving a team memory's item deletes it", async () => {
		expect((await putMemory(tenant.token, projectId, "vendor-keys", "Keys live in the vault.", { scope: "team" })).status).toBeLessThan(
			300,
		);
		await storeAsIfOld("vendor-keys", "team", `Vendor API: https://deploy:${TOKEN.slice(4)}@vendor.example.com/api`);
		// No cursor reset: the new memory comes after the last one visited.
		expect((await projectStore(env, projectId).rescanSecrets(projectId)).queued).toBe(1);
		const item = (await pendingSecrets()).find((i) => i.memory.name === "vendor-keys");
		expect(item?.memory.scope).toBe("team");
		expect((await call(`${base()}/reviews/${item?.id}/approve`, { method: "POST", token: tenant.token })).status).toBe(200);
		expect((await call(`${base()}/memories/vendor-keys?scope=team`, { token: tenant.token })).status).toBe(404);
	});

	it("scans a memory a batch wrote into a pack from the search index, with no R2 read", async () => {
		const res = await call(`${base()}/memories/batch`, {
			token: tenant.token,
			json: {
				memories: [
					{ name: "later-notes", type: "reference", description: "Notes for later", body: "Notes for later." },
					{ name: "other-notes", type: "reference", description: "Other notes", body: "Nothing secret here." },
				],
			},
		});
		expect(res.status).toBe(200);
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
		const row = await runInDurableObject(coordinator(), (instance: ProjectCoordinator) =>
			getMemoryRow(instance.db, ctx, "personal", "later-notes"),
		);
		expect(row?.content_ref).toBeTruthy();
		await setIndexedBody(row?.id ?? 0, `token ${TOKEN}`);
		// Its pack gone from R2 (as if being swept): the re-scan neither needs it nor stops at it.
		const packs = await env.FILES.list({ prefix: packsPrefix(tenant.tenantId, projectId) });
		expect(packs.objects.length).toBeGreaterThan(0);
		for (const o of packs.objects) await env.FILES.delete(o.key);
		expect(await projectStore(env, projectId).rescanSecrets(projectId)).toMatchObject({ scanned: 2, queued: 1, done: true });
		expect((await pendingSecrets()).some((i) => i.memory.name === "later-notes")).toBe(true);
	});
});
