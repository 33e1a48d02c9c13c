import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import type { MemoryRow } from "../src/memory/rows";
import type { ProjectCoordinator } from "../src/project/object";
import { adjacentPairs, score } from "../src/recall/ranking";
import { refreshSessionMemory } from "../src/session-memory/session-memory";
import { getSession } from "../src/sessions/sessions";
import type { ProjectEnv } from "../src/storage/env";
import { call, createProject, createTenant, type Tenant } from "./helpers";

describe("session memory rebuilds read a bounded number of turns", () => {
	let tenant: Tenant;
	let projectId: string;
	beforeEach(async () => {
		tenant = await createTenant();
		projectId = await createProject(tenant.token);
		await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	});

	it("offline: only the opening and latest turns are read, however long the session", async () => {
		const posts = 8;
		const perPost = 50;
		for (let p = 0; p < posts; p++) {
			const lines = Array.from({ length: perPost }, (_, k) => {
				const n = p * perPost + k;
				const role = n % 2 === 0 ? "user" : "assistant";
				return JSON.stringify({
					id: `r${n}`,
					role,
					content: role === "user" ? `Request number ${n} about module${n}` : `Done ${n}.`,
					ts: "2026-01-01T00:00:00Z",
				});
			});
			const res = await call(`/v1/projects/${projectId}/sessions/long/transcript?format=generic`, {
				token: tenant.token,
				headers: { "Content-Type": "application/x-ndjson" },
				body: lines.join("\n"),
			});
			expect(res.status).toBe(200);
		}
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId };
		const { text, chunkReads } = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), async (i: ProjectCoordinator) => {
			const session = await getSession(i.db, projectId, "long");
			expect(session?.turns).toBe(posts * perPost);
			let chunkReads = 0;
			const files = i.penv.FILES;
			const counting = {
				get: (key: string, options?: R2GetOptions) => {
					if (key.includes("/chunks/")) chunkReads++;
					return files.get(key, options);
				},
				put: files.put.bind(files),
				head: files.head.bind(files),
				delete: files.delete.bind(files),
				list: files.list.bind(files),
			} as unknown as R2Bucket;
			const penv: ProjectEnv = { ...i.penv, FILES: counting };
			// Bounds: the first 20 and the last 60 turns of 400.
			const result = await refreshSessionMemory(penv, ctx, session as NonNullable<typeof session>, 8_000, null, {
				headTurns: 20,
				tailTurns: 60,
			});
			return { text: result.text, chunkReads };
		});
		// One chunk for the head, at most two for the tail — not all eight.
		expect(chunkReads).toBeLessThanOrEqual(3);
		expect(text).toContain("Turns so far: 400");
		expect(text).toContain("Request number 0 about module0"); // the task, from the opening turns
		expect(text).toContain("Request number 398 about module398"); // the latest request
		expect(text).not.toMatch(/about module200\b/); // the middle was not read
	});
});

describe("word-pair ranking is linear", () => {
	const row = (body: string): MemoryRow =>
		({
			id: 1,
			scope: "personal",
			owner_id: "u",
			name: "notes",
			type: "project",
			description: "notes",
			version: 1,
			content_hash: "x",
			bytes: body.length,
			source: "user",
			session_id: null,
			author_id: "u",
			created_at: "2026-01-01T00:00:00Z",
			updated_at: "2026-01-01T00:00:00Z",
			verified_at: "2026-01-01T00:00:00Z",
			times_served: 0,
			last_served_at: null,
		}) as MemoryRow;

	/** The original definition, as the reference for what a pair is. */
	function referencePairs(text: string, terms: string[]): number {
		const prefix = (t: string) => t.slice(0, Math.max(3, t.length - 2));
		const words = text.match(/[\p{L}\p{N}]+/gu) ?? [];
		const positions = terms.map((t) => words.flatMap((w, i) => (w.startsWith(prefix(t)) ? [i] : [])));
		let pairs = 0;
		for (let i = 0; i + 1 < terms.length; i++) {
			const next = positions[i + 1] ?? [];
			if ((positions[i] ?? []).some((p) => next.some((q) => q > p && q - p <= 2))) pairs++;
		}
		return pairs;
	}

	it("ranks as before on small texts", () => {
		const vocabulary = ["support", "group", "deploy", "deployment", "staging", "api", "port", "the", "of", "grouping", "sup"];
		let seed = 7;
		const rand = (n: number) => {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			return seed % n;
		};
		for (let trial = 0; trial < 300; trial++) {
			const body = Array.from({ length: 5 + rand(40) }, () => vocabulary[rand(vocabulary.length)]).join(" ");
			const terms = Array.from({ length: 2 + rand(4) }, () => vocabulary[rand(vocabulary.length)] as string);
			const [scored] = score([{ row: row(body), body, bm25: 1 }], terms, Date.parse("2026-01-02T00:00:00Z"));
			const haystack = `notes notes ${body}`.toLowerCase();
			const matched = terms.filter((t) => haystack.includes(t.slice(0, Math.max(3, t.length - 2))));
			const coverage = (Math.max(1, matched.length) / terms.length) ** 0.5 * (1 + 0.15 * referencePairs(haystack, terms));
			expect(scored?.trace.coverage, `${terms.join(",")} in ${body}`).toBeCloseTo(coverage, 10);
		}
	});

	it("a large body full of both words, never adjacent, is scored in one pass and finds no pair", () => {
		// 30,000 occurrences of each word, always four words apart: the pairwise check was 9 × 10^8 steps
		// (3.9 s here); the one-pass scan reads each word once. Speed is a benchmark figure, not asserted here.
		const body = "alpha one two three bravo four five six ".repeat(30_000);
		const terms = ["alpha", "bravo", "alpha", "bravo"];
		const [scored] = score([{ row: row(body), body, bm25: 1 }], terms);
		expect(scored?.trace.matchedTerms.length).toBe(4);
		expect(adjacentPairs(`notes notes ${body}`.toLowerCase(), terms)).toBe(0);
		expect(adjacentPairs("alpha bravo ".repeat(30_000), ["alpha", "bravo"])).toBe(1);
	});
});
