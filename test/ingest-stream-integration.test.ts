import { runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { beforeEach, describe, expect, it } from "vitest";
import { streamLines } from "../src/ingest/stream";
import { sweepProjectOrphans } from "../src/maintenance/sweep";
import type { ProjectCoordinator } from "../src/project/object";
import { ORPHAN_GRACE_MS } from "../src/storage/content-holds";
import { call, createProject, createTenant, expectError, json, projectDb, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

const MB = 1024 * 1024;
const encoder = new TextEncoder();

/** A body produced piece by piece as it is read, with no declared length (sent chunked). */
function lazyBody(pieces: () => Generator<string>): ReadableStream<Uint8Array> {
	const it = pieces();
	return new ReadableStream<Uint8Array>({
		pull(controller) {
			const next = it.next();
			if (next.done) controller.close();
			else controller.enqueue(encoder.encode(next.value));
		},
	});
}

const postStream = (sessionId: string, body: ReadableStream<Uint8Array>) =>
	exports.default.fetch(
		new Request(`https://cairn.test/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
			method: "POST",
			headers: { Authorization: `Bearer ${tenant.token}`, "Content-Type": "application/x-ndjson" },
			body,
		}),
	);
const post = (sessionId: string, body: string) =>
	call(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, {
		token: tenant.token,
		headers: { "Content-Type": "application/x-ndjson" },
		body,
	});
const sessionObjects = async () =>
	(await env.FILES.list({ prefix: `tenants/${tenant.tenantId}/projects/${projectId}/sessions/` })).objects.map((o) => o.key);

/** Generic records: a user and an assistant turn per pair, each about `size` characters. */
function* turns(pairs: number, size: number, from = 0): Generator<string> {
	const filler = "word ".repeat(Math.ceil(size / 5)).slice(0, size);
	for (let i = from; i < from + pairs; i++) {
		yield `${JSON.stringify({ id: `u${i}`, role: "user", content: `question ${i} ${filler}`, ts: "2026-11-02T10:00:00Z" })}\n${JSON.stringify({ id: `a${i}`, role: "assistant", content: `answer ${i} ${filler}`, ts: "2026-11-02T10:00:01Z" })}\n`;
	}
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
});

describe("streamed transcript posts", () => {
	it("a 31 MB transcript sent without a length streams into bounded chunks, every turn stored once", async () => {
		// 2,000 pairs × 2 × ~8 KB ≈ 31 MB.
		const res = await postStream(
			"big-stream",
			lazyBody(() => turns(2_000, 8_000)),
		);
		expect(res.status).toBe(200);
		expect(await json(res)).toMatchObject({ accepted: 4_000, duplicates: 0, turns: 4_000, agent: "generic" });
		const chunks = await projectDb(projectId)
			.prepare("SELECT first_seq, last_seq, bytes FROM session_chunks WHERE project_id = ? ORDER BY first_seq")
			.bind(projectId)
			.all<{ first_seq: number; last_seq: number; bytes: number }>();
		// Written as it streamed: many chunks, none much over the chunk size, contiguous from 0.
		expect(chunks.results.length).toBeGreaterThan(25);
		expect(Math.max(...chunks.results.map((c) => c.bytes))).toBeLessThan(1.2 * MB);
		chunks.results.forEach((c, i) => {
			expect(c.first_seq).toBe(i === 0 ? 0 : (chunks.results[i - 1]?.last_seq as number) + 1);
		});
		expect(chunks.results.at(-1)?.last_seq).toBe(3_999);
		const keys = await projectDb(projectId).prepare("SELECT count(*) AS n FROM session_records").first<{ n: number }>();
		expect(keys?.n).toBe(4_000);
		expect((await sessionObjects()).length).toBe(chunks.results.length);

		// The same file again: all known, nothing written.
		const again = await json(
			await postStream(
				"big-stream",
				lazyBody(() => turns(2_000, 8_000)),
			),
		);
		expect(again).toMatchObject({ accepted: 0, duplicates: 4_000, turns: 4_000 });
		expect((await sessionObjects()).length).toBe(chunks.results.length);
	});

	it("a streamed body past 32 MB is a 413 and leaves nothing stored", async () => {
		const res = await postStream(
			"too-big",
			lazyBody(() => turns(2_200, 8_000)),
		);
		const body = await expectError(res, 413, "payload_too_large");
		expect(body.error.message).toContain(String(32 * MB));
		await expectError(await call(`/v1/projects/${projectId}/sessions/too-big`, { token: tenant.token }), 404, "not_found");
		expect(await sessionObjects()).toEqual([]);
	});

	it("a bad line after several chunks were written fails the post and removes them", async () => {
		function* body() {
			yield* turns(400, 8_000);
			yield '{"id": "x", "role": "user", "content": \n';
		}
		const res = await postStream("bad-late", lazyBody(body));
		const err = await expectError(res, 400, "invalid_request");
		expect(err.error.details.line).toBe(801);
		await expectError(await call(`/v1/projects/${projectId}/sessions/bad-late`, { token: tenant.token }), 404, "not_found");
		expect(await sessionObjects()).toEqual([]);
	});

	it("a line over 8 MB is skipped unread and counted; the lines around it are stored", async () => {
		function* body() {
			yield* turns(1, 100);
			yield `{"id":"huge","role":"user","content":"`;
			for (let i = 0; i < 9; i++) yield "z".repeat(MB);
			yield `"}\n`;
			yield* turns(1, 100, 1);
		}
		const res = await postStream("huge-line", lazyBody(body));
		expect(await json(res)).toMatchObject({ accepted: 4, skipped: 1, turns: 4 });
	});

	it("two posts of different records racing on one session both land, numbered without gaps or overlaps", async () => {
		const a = [...turns(300, 4_000, 0)].join("");
		const b = [...turns(300, 4_000, 300)].join("");
		const [ra, rb] = await Promise.all([post("race", a), post("race", b)]);
		expect([ra.status, rb.status]).toEqual([200, 200]);
		const [ja, jb] = [await json(ra), await json(rb)];
		expect(ja.accepted + jb.accepted).toBe(1_200);
		const chunks = await projectDb(projectId)
			.prepare("SELECT first_seq, last_seq, object_key FROM session_chunks WHERE project_id = ? ORDER BY first_seq")
			.bind(projectId)
			.all<{ first_seq: number; last_seq: number; object_key: string }>();
		let next = 0;
		for (const c of chunks.results) {
			expect(c.first_seq).toBe(next);
			next = c.last_seq + 1;
		}
		expect(next).toBe(1_200);
		// Every stored chunk is referenced; a renumbered post left no stray object behind.
		expect((await sessionObjects()).sort()).toEqual(chunks.results.map((c) => c.object_key).sort());
		const seqs = new Set<number>();
		for (const c of chunks.results) {
			const text = (await (await env.FILES.get(c.object_key))?.text()) ?? "";
			for (const line of text.split("\n").filter(Boolean)) seqs.add((JSON.parse(line) as { seq: number }).seq);
		}
		expect(seqs.size).toBe(1_200);
	});
});

describe("the same transcript, whole or in pieces", () => {
	const own = import.meta.glob<string>("./fixtures/transcripts/*.jsonl", { query: "?raw", import: "default", eager: true });
	it.each(Object.keys(own))("%s reads the same when its bytes arrive 7 at a time", async (path) => {
		const text = own[path] as string;
		const whole = await json(await post("whole", text));
		const bytes = encoder.encode(text);
		const pieces = new ReadableStream<Uint8Array>({
			start(controller) {
				for (let i = 0; i < bytes.length; i += 7) controller.enqueue(bytes.slice(i, i + 7));
				controller.close();
			},
		});
		expect(await json(await postStream("pieces", pieces))).toEqual(whole);
		const stored = async (sessionId: string) => {
			const { results } = await projectDb(projectId)
				.prepare("SELECT object_key FROM session_chunks WHERE session_id = ? ORDER BY first_seq")
				.bind(sessionId)
				.all<{ object_key: string }>();
			const texts = await Promise.all(results.map(async (r) => (await env.FILES.get(r.object_key))?.text()));
			return texts.join("");
		};
		expect(await stored("pieces")).toBe(await stored("whole"));
	});
});

describe("chunks a post staged but never committed", () => {
	it("are removed by the orphan sweep after the grace period; committed chunks stay", async () => {
		expect((await json(await post("kept", [...turns(3, 50)].join("")))).accepted).toBe(6);
		const [committed] = await sessionObjects();
		const stray = (committed as string).replace(/chunks\/.*$/, "chunks/00000006-interrupted.ndjson");
		await env.FILES.put(stray, '{"seq":6}\n');
		const sweep = (now: number) =>
			runInDurableObject(env.PROJECT_COORDINATOR.getByName(projectId), (i: ProjectCoordinator) =>
				sweepProjectOrphans(i.penv, projectId, tenant.tenantId, now, ORPHAN_GRACE_MS),
			);
		expect(await sweep(Date.now())).toBe(0); // a post may still be streaming
		expect(await sweep(Date.now() + 2 * ORPHAN_GRACE_MS)).toBe(1);
		expect(await sessionObjects()).toEqual([committed]);
	});
});

describe("streamLines", () => {
	const stream = (parts: Uint8Array[]) =>
		new ReadableStream<Uint8Array>({
			start(controller) {
				for (const p of parts) controller.enqueue(p);
				controller.close();
			},
		});
	const collect = async (parts: Uint8Array[], maxLine = 100) => {
		const out: (string | null)[] = [];
		for await (const l of streamLines(stream(parts), { maxBytes: 1_000, maxLine })) out.push(l.text);
		return out;
	};

	it("joins lines and multi-byte characters split across chunks", async () => {
		const bytes = encoder.encode('{"t":"배포"}\n{"t":"two"}\r\n{"t":"last"}');
		// Split inside the first Korean character and inside the second line.
		const parts = [bytes.subarray(0, 8), bytes.subarray(8, 20), bytes.subarray(20)];
		expect(await collect(parts)).toEqual(['{"t":"배포"}', '{"t":"two"}\r', '{"t":"last"}']);
	});

	it("drops an over-long line without holding it, and counts the body against its limit", async () => {
		expect(await collect([encoder.encode(`short\n${"x".repeat(300)}\nafter\n`)])).toEqual(["short", null, "after"]);
		await expect(collect([encoder.encode("y".repeat(600)), encoder.encode("y".repeat(600))], 2_000)).rejects.toMatchObject({
			code: "payload_too_large",
		});
	});
});
