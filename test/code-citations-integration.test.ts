// Code citations through the real Worker and the project's object: stored from the writer and from the
// text, listed for a check from the repository, marked by the check, said next to the memory in the
// start and prompt blocks, a memory whose code is gone offered for review; bad input refused.
import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { backfillCitations, citationsFromText } from "../src/text/citations";
import {
	approveTeamProposals,
	call,
	createProject,
	createTenant,
	expectError,
	json,
	type Loose,
	projectDb,
	putMemory,
	type Tenant,
} from "./helpers";

let tenant: Tenant;
let projectId: string;

const BLOB = (c: string) => c.repeat(40);
const inject = async (body: Loose) => {
	const res = await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: body });
	expect(res.status).toBe(200);
	return json(res);
};
const writeJson = (name: string, body: Loose, scope = "personal") =>
	call(`/v1/projects/${projectId}/memories/${name}?scope=${scope}`, { method: "PUT", token: tenant.token, json: body });
const cited = async () => json(await call(`/v1/projects/${projectId}/citations`, { token: tenant.token }));
const check = (body: Loose) => call(`/v1/projects/${projectId}/citations/check`, { token: tenant.token, json: body });

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
});

describe("citations from text", () => {
	it("finds repository paths with the symbol named beside them, in English and Korean, and leaves URLs and domains", () => {
		expect(citationsFromText("computeRefund in src/payments/refund.ts rounds half-up")).toEqual([
			{ path: "src/payments/refund.ts", symbol: "computeRefund", source: "text" },
		]);
		expect(citationsFromText("src/queue/worker.ts sets MAX_RETRIES = 5 (see src/queue/worker.ts:12-30)")).toEqual([
			{ path: "src/queue/worker.ts", symbol: "MAX_RETRIES", source: "text" },
		]);
		expect(citationsFromText("src/auth/session.ts의 SESSION_TTL_HOURS는 12이다")).toEqual([
			{ path: "src/auth/session.ts", symbol: "SESSION_TTL_HOURS", source: "text" },
		]);
		expect(citationsFromText("Lines `packages/cli/lib/hook.mjs:40-52` matter; also wrangler.toml")).toEqual([
			{ path: "packages/cli/lib/hook.mjs", lines: "40-52", source: "text" },
			{ path: "wrangler.toml", source: "text" },
		]);
		expect(
			citationsFromText("See https://example.com/docs/a.md and example.com, version 1.2.3, e.g. this, memory://root/x.md, ../up.ts"),
		).toEqual([]);
	});

	it("leaves a URL written without its scheme, and keeps file names whose ending is also a country domain", () => {
		expect(citationsFromText("Policy at sproutapp.io/.well-known/security.txt, source at github.com/acme/app/blob/main/src/x.ts")).toEqual(
			[],
		);
		expect(
			citationsFromText("See main.rs, README.md, app.py and scripts/install.sh; Contoso.Data/Orders.cs maps rows").map((c) => c.path),
		).toEqual(["main.rs", "README.md", "app.py", "scripts/install.sh", "Contoso.Data/Orders.cs"]);
	});
});

describe("storing citations", () => {
	it("keeps the writer's citations with blob ids, joins the text's, and shows them in the metadata and history", async () => {
		const res = await writeJson("retries", {
			type: "project",
			description: "Queue retry limits",
			body: "The worker retries five times; see src/queue/worker.ts.",
			citations: [{ path: "src/queue/worker.ts", symbol: "MAX_RETRIES", lines: "10-14", blob: BLOB("a") }],
		});
		expect(res.status).toBe(201);
		const { memory } = await json(res);
		expect(memory.citations).toEqual([
			{ path: "src/queue/worker.ts", symbol: "MAX_RETRIES", lines: "10-14", blob: BLOB("a"), source: "writer" },
		]);
		expect(memory.codeState).toBeNull();

		// An update without citations keeps the writer's and adds the paths its text names.
		const updated = await json(
			await writeJson("retries", {
				type: "project",
				description: "Queue retry limits",
				body: "The worker retries five times (src/queue/worker.ts); the backoff is in src/queue/backoff.ts.",
			}),
		);
		expect(updated.memory.citations.map((c: Loose) => [c.path, c.source])).toEqual([
			["src/queue/worker.ts", "writer"],
			["src/queue/backoff.ts", "text"],
		]);
		const versions = await projectDb(projectId)
			.prepare("SELECT version, citations FROM memory_versions ORDER BY version")
			.all<{ version: number; citations: string }>();
		expect(versions.results.map((v) => JSON.parse(v.citations).length)).toEqual([1, 2]);

		// [] removes them.
		const cleared = await json(
			await writeJson("retries", { type: "project", description: "Queue retry limits", body: "Five retries.", citations: [] }),
		);
		expect(cleared.memory.citations).toEqual([]);
		expect((await cited()).paths).toEqual([]);
	});

	it("refuses citations that are not repository paths or blob ids, naming the field and not echoing the value", async () => {
		for (const citations of [
			[{ path: "../etc/passwd" }],
			[{ path: "/abs/path.ts" }],
			[{ path: "src/a\u0000b.ts" }],
			[{ path: "src/a.ts", blob: "not-a-blob" }],
			[{ path: "src/a.ts", lines: "twelve" }],
			[{ path: "src/a.ts", extra: 1 }],
			Array.from({ length: 21 }, (_, i) => ({ path: `src/f${i}.ts` })),
			"src/a.ts",
		]) {
			const body = await expectError(
				await writeJson("bad", { type: "project", description: "x", body: "y", citations }),
				400,
				"invalid_request",
			);
			expect(String(body.error.details?.field)).toMatch(/^citations/);
			expect(JSON.stringify(body)).not.toContain("passwd");
		}
		expect((await call(`/v1/projects/${projectId}/memories/bad`, { token: tenant.token })).status).toBe(404);
	});

	it("MCP memory_write takes citations", async () => {
		const res = await call("/mcp", {
			token: tenant.token,
			headers: { Accept: "application/json, text/event-stream", "X-Cairn-Project": projectId },
			json: {
				jsonrpc: "2.0",
				id: 1,
				method: "tools/call",
				params: {
					name: "memory_write",
					arguments: {
						name: "refunds",
						type: "project",
						description: "Refund rounding",
						body: "Refunds round half-up.",
						citations: [{ path: "src/payments/refund.ts", symbol: "computeRefund", blob: BLOB("b") }],
					},
				},
			},
		});
		expect(res.status).toBe(200);
		const memory = await json(
			await call(`/v1/projects/${projectId}/memories/refunds`, { token: tenant.token, headers: { Accept: "application/json" } }),
		);
		expect(memory.memory.citations).toEqual([
			{ path: "src/payments/refund.ts", symbol: "computeRefund", blob: BLOB("b"), source: "writer" },
		]);
	});
});

describe("the check from the repository", () => {
	async function seed() {
		// The three memories of the motivating case, a memory with no citations and one citing a file never tracked.
		for (const [name, body] of [
			["refund-rounding", "computeRefund in src/payments/refund.ts rounds half-up."],
			["queue-retries", "src/queue/worker.ts sets MAX_RETRIES = 5."],
			["session-ttl", "SESSION_TTL_HOURS in src/auth/session.ts is 12."],
			["commit-style", "Write commit subjects in the imperative."],
			["planned-module", "The importer will live in src/importer/main.ts once written."],
			["old-name", "The parser is src/lib/parse.ts (parseConfig)."],
		] as const)
			expect((await putMemory(tenant.token, projectId, name, body, { type: "project", description: `About ${name}` })).status).toBe(201);
	}
	const repository = {
		renames: true,
		files: [
			{ path: "src/payments/refund.ts", blob: null, blobAtWrite: BLOB("1") },
			{ path: "src/queue/worker.ts", blob: BLOB("3"), blobAtWrite: BLOB("2") },
			{ path: "src/auth/session.ts", blob: BLOB("4"), blobAtWrite: BLOB("4") },
			{ path: "src/importer/main.ts", blob: null, blobAtWrite: null },
			{ path: "src/lib/parse.ts", blob: null, blobAtWrite: BLOB("5"), movedTo: "src/config/parse.ts", movedBlob: BLOB("5") },
		],
	};

	it("lists the cited paths, with `since` until a check set their blob at write time", async () => {
		await seed();
		const listed = await cited();
		expect(listed.truncated).toBe(false);
		expect(listed.paths.map((p: Loose) => p.path)).toEqual([
			"src/auth/session.ts",
			"src/importer/main.ts",
			"src/lib/parse.ts",
			"src/payments/refund.ts",
			"src/queue/worker.ts",
		]);
		expect(listed.paths.every((p: Loose) => typeof p.since === "string")).toBe(true);
		await check(repository);
		const after = await cited();
		// Nothing left to set: the path never tracked is compared from when it first appears.
		expect(after.paths.filter((p: Loose) => p.since || p.unchecked)).toEqual([]);

		// The same list again is not sent again; a new citation changes the stamp.
		const same = await json(await call(`/v1/projects/${projectId}/citations?known=${after.stamp}`, { token: tenant.token }));
		expect(same).toEqual({ stamp: after.stamp, unchanged: true, paths: [], truncated: false });
		expect((await inject({ context: { folder: "shop" }, code: { files: [], stamp: after.stamp } })).cited).toEqual({
			stamp: after.stamp,
			unchanged: true,
		});
		await putMemory(tenant.token, projectId, "new-one", "Backoff lives in src/queue/backoff.ts.", { type: "project" });
		const changed = await json(await call(`/v1/projects/${projectId}/citations?known=${after.stamp}`, { token: tenant.token }));
		expect(changed.unchanged).toBe(false);
		expect(changed.paths.find((p: Loose) => p.path === "src/queue/backoff.ts")).toMatchObject({ unchecked: true });
		expect((await inject({ query: "backoff", include: "memories", code: { files: [], stamp: after.stamp } })).cited).toEqual({
			stamp: changed.stamp,
			unchanged: false,
		});
		await expectError(await call(`/v1/projects/${projectId}/citations?known=x%00y`, { token: tenant.token }), 400, "invalid_request");
	});

	it("marks changed, moved and gone code next to the memory in the start block, leaves the others alone, and offers the gone one for review", async () => {
		await seed();
		const block = await inject({ context: { folder: "shop", files: ["src/queue/worker.ts"] }, code: repository });
		const text: string = block.text;
		expect(block.warnings).toEqual([]);
		expect(text).toContain("cites src/queue/worker.ts, changed since this was written — check it");
		expect(text).toContain("cites src/lib/parse.ts, moved to src/config/parse.ts since this was written — check it");
		// Every cited file gone: out of the start block.
		expect(text).not.toContain("refund-rounding");
		for (const name of ["session-ttl", "commit-style", "planned-module"]) {
			const line = text.split("\n").find((l) => l.includes(name)) ?? "";
			expect(line).not.toBe("");
			expect(line).not.toContain("cites");
		}

		const marks = await json(await check({ files: [] }));
		expect(marks.memories.map((m: Loose) => [m.name, m.state])).toEqual([
			["refund-rounding", "gone"],
			["queue-retries", "changed"],
			["old-name", "changed"],
		]);
		const metadata = await json(
			await call(`/v1/projects/${projectId}/memories/session-ttl`, { token: tenant.token, headers: { Accept: "application/json" } }),
		);
		expect(metadata.memory.codeState).toBe("current");

		const reviews = await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token: tenant.token }));
		expect(reviews.items).toHaveLength(1);
		expect(reviews.items[0].memory.name).toBe("refund-rounding");
		expect(reviews.items[0].proposal.op).toBe("delete");
		expect(reviews.items[0].evidence).toEqual(["src/payments/refund.ts"]);

		// The same check again writes nothing new and opens no second item.
		await inject({ context: { folder: "shop" }, code: repository });
		expect((await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token: tenant.token }))).items).toHaveLength(1);

		// The prompt block says it too.
		const prompt = await inject({ query: "how many retries does the queue worker make MAX_RETRIES", include: "memories" });
		expect(prompt.text).toContain("queue-retries");
		expect(prompt.text).toContain("cites src/queue/worker.ts, changed since this was written — check it");
	});

	it("a file coming back withdraws the review item; rejecting keeps the memory without its gone citations; approving deletes", async () => {
		await seed();
		await check(repository);
		await check({ files: [{ path: "src/payments/refund.ts", blob: BLOB("1") }] });
		expect((await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token: tenant.token }))).items).toHaveLength(0);

		await check(repository);
		const [item] = (await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token: tenant.token }))).items;
		const rejected = await call(`/v1/projects/${projectId}/reviews/${item.id}/reject`, { token: tenant.token, method: "POST" });
		expect(rejected.status).toBe(200);
		expect((await json(rejected)).memory.codeState).toBeNull();
		const block = await inject({ context: { folder: "shop" }, code: repository });
		expect(block.text).toContain("refund-rounding");

		// A team memory's item goes to its last author (a teammate without admin rights) and to the project's
		// admins (the tenant's first key); another teammate sees nothing. The admin's approval deletes it.
		const keyOf = async (user: string) =>
			(await json(await call("/v1/keys", { token: tenant.token, json: { scopes: ["read", "write"], user } }))).key.token as string;
		const [bob, carol] = [await keyOf("bob"), await keyOf("carol")];
		expect(
			(
				await putMemory(bob, projectId, "team-refunds", "computeRefund in src/payments/refund.ts rounds half-up.", {
					scope: "team",
					type: "project",
				})
			).status,
		).toBe(201);
		// Bob's team write is a proposal until a person vouches for it; then it is everyone's to check.
		expect(await approveTeamProposals(tenant.token, projectId)).toEqual(["team-refunds"]);
		await check(repository);
		const codeItems = async (token: string) =>
			(await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token }))).items.map((i: Loose) => [
				i.memory.name,
				i.memory.scope,
			]);
		expect(await codeItems(bob)).toEqual([["team-refunds", "team"]]);
		expect(await codeItems(tenant.token)).toEqual([["team-refunds", "team"]]);
		expect(await codeItems(carol)).toEqual([]);
		const [teamItem] = (await json(await call(`/v1/projects/${projectId}/reviews?kind=code`, { token: tenant.token }))).items;
		await expectError(await call(`/v1/projects/${projectId}/reviews/${teamItem.id}`, { token: carol }), 404, "not_found");
		await expectError(
			await call(`/v1/projects/${projectId}/reviews/${teamItem.id}/approve`, { token: carol, method: "POST" }),
			404,
			"not_found",
		);
		const approved = await call(`/v1/projects/${projectId}/reviews/${teamItem.id}/approve`, { token: tenant.token, method: "POST" });
		expect(approved.status).toBe(200);
		expect((await json(approved)).item.decidedBy).toBe(tenant.userId);
		expect((await call(`/v1/projects/${projectId}/memories/team-refunds?scope=team`, { token: tenant.token })).status).toBe(404);
		expect(await codeItems(bob)).toEqual([]);
	});

	it("refuses a check that is not paths and blob ids", async () => {
		for (const body of [
			{ files: [{ path: "src/a.ts", blob: "xyz" }] },
			{ files: [{ path: "../a.ts", blob: null }] },
			{ files: [{ path: "src/a.ts", blob: null, content: "export const a = 1" }] },
			{ files: "src/a.ts" },
			{ files: Array.from({ length: 5001 }, (_, i) => ({ path: `f${i}.ts`, blob: null })) },
		])
			await expectError(await check(body), 400, "invalid_request");
		await expectError(
			await call(`/v1/projects/${projectId}/inject`, { token: tenant.token, json: { code: { files: [{ path: "/x.ts", blob: null }] } } }),
			400,
			"invalid_request",
		);
	});
});

describe("memories written before citations existed", () => {
	it("the data step reads their citations from their text", async () => {
		await putMemory(tenant.token, projectId, "legacy", "computeRefund in src/payments/refund.ts rounds half-up.", { type: "project" });
		const stub = env.PROJECT_COORDINATOR.getByName(projectId);
		await runInDurableObject(stub, async (_instance: ProjectCoordinator, state) => {
			// As the row was before the migration: no citations stored.
			state.storage.sql.exec("UPDATE memories SET citations = '[]'");
			state.storage.sql.exec("DELETE FROM code_citations");
			backfillCitations(state.storage.sql);
			expect(state.storage.sql.exec("SELECT path FROM code_citations").toArray()).toEqual([{ path: "src/payments/refund.ts" }]);
		});
		const memory = await json(
			await call(`/v1/projects/${projectId}/memories/legacy`, { token: tenant.token, headers: { Accept: "application/json" } }),
		);
		expect(memory.memory.citations).toEqual([{ path: "src/payments/refund.ts", symbol: "computeRefund", source: "text" }]);
		expect((await cited()).paths.map((p: Loose) => p.path)).toEqual(["src/payments/refund.ts"]);
	});
});

describe("the console", () => {
	/** A console request through the real entry point; redirects are returned, not followed. */
	async function visit(path: string, jar: string | null, form?: Record<string, string>) {
		const headers = new Headers();
		if (jar) headers.set("Cookie", jar);
		let body: string | undefined;
		if (form) {
			body = new URLSearchParams(form).toString();
			headers.set("Content-Type", "application/x-www-form-urlencoded");
			headers.set("Origin", "https://cairn.test");
		}
		return exports.default.fetch(
			new Request(`https://cairn.test${path}`, { method: form ? "POST" : "GET", headers, body, redirect: "manual" }),
		);
	}
	async function signIn() {
		const res = await visit("/console/sign-in", null, { key: tenant.token });
		expect(res.status).toBe(303);
		const jar = (res.headers.get("Set-Cookie") ?? "").split(";")[0] as string;
		const page = await (await visit("/console/projects", jar)).text();
		return { jar, csrf: /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? "" };
	}

	it("shows a memory's cited code and what the check found, filters the list by it, and edits the citations", async () => {
		await putMemory(tenant.token, projectId, "queue-retries", "src/queue/worker.ts sets MAX_RETRIES = 5.", { type: "project" });
		await putMemory(tenant.token, projectId, "commit-style", "Imperative commit subjects.", { type: "feedback" });
		await check({ files: [{ path: "src/queue/worker.ts", blob: BLOB("3"), blobAtWrite: BLOB("2") }] });
		const { jar, csrf } = await signIn();

		const page = await (await visit(`/console/projects/${projectId}/memories/queue-retries?scope=personal`, jar)).text();
		expect(page).toContain('data-testid="memory-citations"');
		expect(page).toContain("<code>src/queue/worker.ts</code> · <code>MAX_RETRIES</code>");
		expect(page).toContain("Some of it changed, moved or went since this was written");

		const changed = await (await visit(`/console/projects/${projectId}?code=changed`, jar)).text();
		expect(changed).toContain("queue-retries");
		expect(changed).toContain("code changed");
		expect(changed).not.toContain(">commit-style<");
		expect((await visit(`/console/projects/${projectId}?code=nonsense`, jar)).status).toBe(400);

		// The writer's own citations, as edited in the form; the text's path joins them no more.
		const saved = await visit(`/console/projects/${projectId}/memories/queue-retries?scope=personal`, jar, {
			_csrf: csrf,
			version: "1",
			type: "project",
			description: "About queue-retries",
			body: "src/queue/worker.ts sets MAX_RETRIES = 5.",
			citations: "src/queue/worker.ts#MAX_RETRIES:3\nsrc/queue/backoff.ts",
			"citations-before": "",
		});
		expect(saved.status).toBe(303);
		const memory = await json(
			await call(`/v1/projects/${projectId}/memories/queue-retries`, { token: tenant.token, headers: { Accept: "application/json" } }),
		);
		expect(memory.memory.citations).toEqual([
			{ path: "src/queue/worker.ts", symbol: "MAX_RETRIES", lines: "3", source: "writer" },
			{ path: "src/queue/backoff.ts", source: "writer" },
		]);
		expect(memory.memory.codeState).toBeNull();
	});
});
