/**
 * The lexical ranking's cues beyond the words themselves: dates in the query (src/text/dates.ts),
 * irregular word forms (src/text/forms.ts) and the neighbours of the first result — through
 * `POST /recall` on the real Worker, with memories backdated and tied to sessions as a consolidation
 * run after an older session leaves them.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { candidateSql } from "../src/memory/lexical";
import { dateWindows } from "../src/text/dates";
import { otherForms, withForms } from "../src/text/forms";
import { call, createProject, createTenant, expectError, type Loose, projectDb, putMemory, recallAs, type Tenant } from "./helpers";

const DAY = 86_400_000;
const ANCHOR = new Date("2026-03-18T10:00:00Z"); // a Wednesday
const day = (iso: string) => iso.slice(0, 10);

describe("date windows", () => {
	const windows = (q: string) => dateWindows(q, ANCHOR).map((w) => [day(w.from), day(w.to)]);
	const holds = (q: string, date: string) =>
		dateWindows(q, ANCHOR).some((w) => w.from <= `${date}T12:00:00.000Z` && `${date}T12:00:00.000Z` < w.to);

	it("reads relative English expressions against the anchor, widening approximate ones", () => {
		expect(holds("which book did I finish a week ago?", "2026-03-11")).toBe(true);
		expect(holds("which book did I finish a week ago?", "2026-03-01")).toBe(false);
		expect(holds("what did we decide yesterday", "2026-03-17")).toBe(true);
		expect(holds("I got it last Saturday", "2026-03-14")).toBe(true);
		// "two months ago" is about mid-January; a few weeks either side still counts, last autumn does not.
		expect(holds("the incident two months ago", "2026-01-10")).toBe(true);
		expect(holds("the incident two months ago", "2025-11-01")).toBe(false);
	});

	it("reads absolute dates, months and years", () => {
		expect(windows("what did Maria share on 16 June, 2025?")).toEqual([["2025-06-15", "2025-06-18"]]);
		expect(holds("what changed in February", "2026-02-20")).toBe(true);
		expect(holds("what changed in February", "2026-03-10")).toBe(false);
		expect(holds("the outage in November 2025", "2025-11-30")).toBe(true);
	});

	it("reads Korean, Japanese and Chinese expressions", () => {
		expect(holds("3일 전에 배포한 버전", "2026-03-15")).toBe(true);
		expect(holds("지난주 회의에서 정한 규칙", "2026-03-10")).toBe(true);
		expect(holds("지난주 회의에서 정한 규칙", "2026-03-17")).toBe(false);
		expect(holds("지난달 장애", "2026-02-14")).toBe(true);
		expect(holds("5월 10일에 정한 것", "2025-05-10")).toBe(true); // no year: the last 10 May before the anchor
		expect(holds("3日前のデプロイ", "2026-03-15")).toBe(true);
		expect(holds("先週の会議", "2026-03-11")).toBe(true);
		expect(holds("上个月的发布", "2026-02-20")).toBe(true);
		expect(holds("三天前的部署", "2026-03-15")).toBe(true);
		expect(holds("昨天的讨论", "2026-03-17")).toBe(true);
	});

	it("finds nothing in queries without a date, and nothing in the future", () => {
		for (const q of [
			"deploy at 3pm",
			"bump version 1.2.3",
			"I have 2 kids",
			"may I ask about the cache",
			"what is planned for next week",
			"",
		])
			expect(windows(q), q).toEqual([]);
		expect(dateWindows("a week ago", new Date(Number.NaN))).toEqual([]);
	});
});

describe("irregular word forms", () => {
	it("joins forms the stemmer cannot", () => {
		expect(otherForms("went")).toEqual(expect.arrayContaining(["go", "gone"]));
		expect(otherForms("children")).toEqual(["child"]);
		expect(otherForms("deploy")).toEqual([]);
		expect(withForms(["won", "tournament"])).toEqual(["won", "tournament", "win"]);
	});
});

let tenant: Tenant;
let projectId: string;

/** Backdates a memory and ties it to a session, as if a consolidation run after that session had written it. */
async function writtenBy(name: string, at: string, session: string) {
	const db = projectDb(projectId);
	await db
		.prepare("UPDATE memories SET created_at = ?1, updated_at = ?1, verified_at = ?1, session_id = ?2 WHERE project_id = ?3 AND name = ?4")
		.bind(at, session, projectId, name)
		.run();
}

async function write(name: string, body: string, description = body) {
	expect((await putMemory(tenant.token, projectId, name, body, { description, type: "project" })).status).toBeLessThan(300);
}

const names = (r: Loose) => (r.memories as { name: string }[]).map((m) => m.name);

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { method: "PUT", token: tenant.token, json: { "memories.enabled": true } });
	// Written in order: ids follow, as a session's memories do.
	await write("cache-outage", "The cache cluster went down during the release");
	await write("root-cause", "The root cause was an expired TLS certificate on the proxy");
	await write("cache-ttl", "The cache keeps entries for ten minutes by default in the cache cluster");
	await write("cache-eviction", "Cache eviction uses LRU across the cache cluster nodes");
	await write("cache-sizing", "The cache cluster has six nodes of 8 GB each");
	await write("cache-metrics", "Cache hit rate for the cache cluster is on the ops dashboard");
	await write("cache-owner", "The platform team owns the cache cluster");
	await write("kids-theme", "Mira's children picked the blue theme for the app", "Theme picked by the children");
	await write("release-notes", "Release notes are drafted in the wiki first");
	const lastWeek = new Date(ANCHOR.getTime() - 7 * DAY).toISOString();
	const long = "2025-06-01T09:00:00.000Z";
	await writtenBy("cache-outage", lastWeek, "sess-outage");
	await writtenBy("root-cause", lastWeek, "sess-outage");
	for (const n of ["cache-ttl", "cache-eviction", "cache-sizing", "cache-metrics", "cache-owner", "kids-theme", "release-notes"])
		await writtenBy(n, long, `sess-${n}`);
});

describe("recall with date cues", () => {
	it("prefers the memory written when the query says, and marks it in the trace", async () => {
		const plain = await recallAs(tenant.token, projectId, { query: "cache cluster", at: ANCHOR.toISOString(), trace: true });
		expect(names(plain)[0]).not.toBe("cache-outage");
		const dated = await recallAs(tenant.token, projectId, { query: "cache cluster a week ago", at: ANCHOR.toISOString(), trace: true });
		expect(names(dated)[0]).toBe("cache-outage");
		const entry = dated.trace.candidates.find((c: Loose) => c.name === "cache-outage");
		expect(entry.dated).toBe(true);
		// Asked from another moment, "a week ago" is another week: no preference.
		const later = await recallAs(tenant.token, projectId, { query: "cache cluster a week ago", at: "2026-09-01T00:00:00Z" });
		expect(names(later)[0]).not.toBe("cache-outage");
	});

	it("reads the best matches written in the window even when they are not among the ordinary candidates", async () => {
		// Thirty memories that say "release" more strongly than the outage does fill the ordinary candidates (25).
		for (let i = 0; i < 30; i++) {
			const name = `release-step-${i}`;
			await write(name, `Release checklist step ${i}: tag the release, then announce the release`, `Release step ${i}`);
			await writtenBy(name, "2025-06-01T09:00:00.000Z", `sess-${name}`);
		}
		const plain = await recallAs(tenant.token, projectId, { query: "the release", limit: 10, at: ANCHOR.toISOString(), trace: true });
		expect(plain.trace.candidates.map((c: Loose) => c.name)).not.toContain("cache-outage");
		const windowed = await recallAs(tenant.token, projectId, {
			query: "what happened at the release last Wednesday",
			at: ANCHOR.toISOString(),
			trace: true,
		});
		expect(names(windowed)[0]).toBe("cache-outage");
	});

	it("reads a window's matches through the word index, each one's dates by its row id: never the index once per id, nor every memory's row", async () => {
		const plan = await projectDb(projectId)
			.prepare(`EXPLAIN QUERY PLAN ${candidateSql(["personal", "team"], "memories_fts", true)}`)
			.bind('"cache"', projectId, tenant.userId, 10, "2026-03-01T00:00:00.000Z", "2026-03-18T00:00:00.000Z")
			.all<{ detail: string }>();
		const details = plan.results.map((r) => r.detail).join("\n");
		// One scan of the match (not `INDEX 0:=`, the index searched per row id), then each match's row by its id.
		expect(details).toMatch(/SCAN memories_fts VIRTUAL TABLE INDEX 0:M/);
		expect(details).not.toMatch(/memories_fts VIRTUAL TABLE INDEX 0:=M/);
		expect(details).toContain("SEARCH d USING INTEGER PRIMARY KEY (rowid=?)");
		expect(details).not.toMatch(/(SEARCH|SCAN) memories USING (COVERING )?INDEX/);
		expect(details).not.toMatch(/SCAN (memories|d)$/m);
	});

	it("refuses an `at` that is not an ISO 8601 instant", async () => {
		for (const at of ["last week", "2026-13-01T00:00:00Z", 5]) {
			const res = await call(`/v1/projects/${projectId}/recall`, { token: tenant.token, json: { query: "cache", at } });
			const body = await expectError(res, 400, "invalid_request");
			expect(body.error.message).toContain("at");
		}
	});
});

describe("recall with word forms and neighbours", () => {
	it("finds a memory by an irregular form of the query's word", async () => {
		const r = await recallAs(tenant.token, projectId, { query: "child", trace: true });
		expect(names(r)).toContain("kids-theme");
		expect(r.trace.candidates.find((c: Loose) => c.name === "kids-theme").matchedTerms).toEqual(["child"]);
	});

	it("adds what the first result's session wrote next to it, below the direct matches", async () => {
		const r = await recallAs(tenant.token, projectId, {
			query: "cache cluster went down",
			limit: 10,
			at: ANCHOR.toISOString(),
			trace: true,
		});
		const order = names(r);
		expect(order[0]).toBe("cache-outage");
		// The cause shares no word with the query; it is there because the outage's session wrote it next.
		expect(order).toContain("root-cause");
		expect(order.indexOf("root-cause")).toBeGreaterThanOrEqual(5);
		expect(r.trace.candidates.find((c: Loose) => c.name === "root-cause").neighbourOf).toBe("cache-outage");
		// Neighbours of other sessions are not added.
		const other = await recallAs(tenant.token, projectId, { query: "cache eviction LRU nodes", limit: 10, trace: true });
		expect(names(other)).not.toContain("root-cause");
	});
});
