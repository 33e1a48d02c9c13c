// The pure parts of use counting: which paths are topic files, which tool calls are reads, what a
// session's turns used, and the score ranking can weigh a memory by.
import { describe, expect, it } from "vitest";
import { detectMemoryRead, keepLatestUses, usesInTurns } from "../src/ingest/memory-use";
import { type MemoryUse, topicPaths, USE_PRIOR, useOf, useScore } from "../src/memory/use";

const NOW = Date.parse("2026-11-20T00:00:00Z");
const DAY = 86_400_000;
const daysAgo = (n: number) => new Date(NOW - n * DAY).toISOString();

describe("topicPaths", () => {
	it("finds topic files by their memory:// paths, personal and team, once each", () => {
		expect(
			topicPaths(
				"Per memory://root/pnpm-only.md and `memory://root/team/ci-cache.md` (again memory://root/pnpm-only.md); memory://root/team.md is a personal one.",
			),
		).toEqual([
			{ name: "pnpm-only", team: false },
			{ name: "ci-cache", team: true },
			{ name: "team", team: false },
		]);
	});

	it("leaves out what is not a topic file's path", () => {
		for (const text of [
			"memory://root/MEMORY.md",
			"memory://root",
			"memory://root/skills/release/SKILL.md",
			"memory://root/logs/2026-11-03.md",
			"memory://root/Upper.md",
			"memory://root/name.mdx",
			"memory://root/<name>.md",
			"memory://other/name.md",
			"memory://root/team/team/x.md",
			`memory://root/${"a".repeat(65)}.md`,
		])
			expect(topicPaths(text), text).toEqual([]);
	});
});

describe("detectMemoryRead", () => {
	it("reads Cairn's memory_read under any server name, and the agents' MCP resource readers", () => {
		const url = "memory://root/release-process.md";
		expect(detectMemoryRead("mcp__cairn__memory_read", { url })).toEqual({ readsMemory: url });
		expect(detectMemoryRead("mcp__cairn-memory__memory_read", JSON.stringify({ url }))).toEqual({ readsMemory: url });
		expect(detectMemoryRead("cairn__memory_read", `{"url": "${url}"}`)).toEqual({ readsMemory: url });
		expect(detectMemoryRead("ReadMcpResourceTool", { server: "cairn", uri: url })).toEqual({ readsMemory: url });
		expect(detectMemoryRead("read_mcp_resource", '{"server":"cairn","uri":"memory://root/team/ci-cache.md"}')).toEqual({
			readsMemory: "memory://root/team/ci-cache.md",
		});
	});

	it("is null for other tools, other URIs and unreadable input", () => {
		expect(detectMemoryRead("Read", { file_path: "/home/dev/.claude/projects/x/memory/a.md" })).toBeNull();
		expect(detectMemoryRead("mcp__cairn__memory_recall", { query: "memory://root/a.md" })).toBeNull();
		expect(detectMemoryRead("mcp__other__read_file", { url: "memory://root/a.md" })).toBeNull();
		expect(detectMemoryRead("ReadMcpResourceTool", { server: "docs", uri: "file:///etc/hosts" })).toBeNull();
		expect(detectMemoryRead("mcp__cairn__memory_read", "{not json")).toBeNull();
		expect(detectMemoryRead("mcp__cairn__memory_read", { url: 42 })).toBeNull();
	});
});

describe("usesInTurns", () => {
	it("counts the assistant's own text as citations and read calls as reads, nothing else, each at its turn's time", () => {
		const now = "2026-11-20T00:00:00.000Z";
		const uses = usesInTurns(
			[
				{ role: "user", text: "what does memory://root/a.md say?", ts: "2026-11-10T00:00:00Z" },
				{ role: "tool_result", text: "see memory://root/b.md", ts: "2026-11-10T00:00:01Z" },
				{ role: "assistant", text: "Per memory://root/team/c.md, done.", ts: "2026-11-10T00:00:02Z" },
				{ role: "tool_call", text: "mcp__cairn__memory_read {}", ts: "2027-01-01T00:00:00Z", readsMemory: "memory://root/d.md" },
				{ role: "tool_call", text: 'Bash {"command":"cat memory://root/e.md"}', ts: null },
				{ role: "assistant", text: "Also memory://root/f.md", ts: "not a time" },
			],
			now,
		);
		expect(uses).toEqual([
			{ kind: "cited", name: "c", team: true, at: "2026-11-10T00:00:02.000Z" },
			// A time in the future, or none, is the post's.
			{ kind: "read", name: "d", team: false, at: now },
			{ kind: "cited", name: "f", team: false, at: now },
		]);
	});

	it("keepLatestUses holds one entry per kind and path, the latest", () => {
		const uses = new Map<string, MemoryUse>();
		keepLatestUses(uses, [
			{ kind: "cited", name: "a", team: false, at: "2026-01-02T00:00:00.000Z" },
			{ kind: "cited", name: "a", team: false, at: "2026-01-01T00:00:00.000Z" },
			{ kind: "read", name: "a", team: false, at: "2026-01-01T00:00:00.000Z" },
			{ kind: "cited", name: "a", team: true, at: "2026-01-01T00:00:00.000Z" },
		]);
		expect([...uses.values()].map((u) => [u.kind, u.team, u.at])).toEqual([
			["cited", false, "2026-01-02T00:00:00.000Z"],
			["read", false, "2026-01-01T00:00:00.000Z"],
			["cited", true, "2026-01-01T00:00:00.000Z"],
		]);
	});
});

describe("useScore", () => {
	const score = (served: number, cited: number, read: number, lastUsed: number | null) =>
		useScore({ served, cited, read, lastUsedAt: lastUsed === null ? null : daysAgo(lastUsed) }, NOW);

	it("sits at the prior without history, falls with sessions served and never used, rises with use", () => {
		expect(score(0, 0, 0, null)).toBeCloseTo(USE_PRIOR);
		expect(score(40, 0, 0, null)).toBeLessThan(0.03);
		expect(score(10, 6, 2, 0)).toBeCloseTo(8 / 15);
		expect(score(3, 0, 0, null)).toBeLessThan(score(0, 0, 0, null));
		expect(score(20, 0, 0, null)).toBeLessThan(score(3, 0, 0, null));
		expect(score(20, 5, 0, 1)).toBeGreaterThan(score(20, 0, 5, 1));
		expect(score(20, 10, 0, 1)).toBeGreaterThan(score(20, 5, 0, 1));
	});

	it("fades old use: the same counts weigh less the longer ago the last use", () => {
		expect(score(10, 8, 0, 1)).toBeGreaterThan(score(10, 8, 0, 90));
		expect(score(10, 8, 0, 90)).toBeGreaterThan(score(10, 8, 0, 400));
		// Half the weight after the half-life.
		expect(score(10, 8, 0, 90)).toBeCloseTo((8 * 0.5 + 1) / 15, 2);
	});

	it("stays within 0 and 1 whatever it is handed", () => {
		for (const [served, cited, read, last] of [
			[0, 50, 50, 0],
			[1, 1, 1, -5],
			[0, 0, 0, 10_000],
		] as const) {
			const value = score(served, cited, read, last);
			expect(value).toBeGreaterThanOrEqual(0);
			expect(value).toBeLessThanOrEqual(1);
		}
		expect(useScore({ served: 5, cited: 1, read: 0, lastUsedAt: "garbage" }, NOW)).toBeCloseTo(2 / 10);
	});

	it("useOf reads a row's counts, its last use the later of citation and read", () => {
		expect(
			useOf({
				served_sessions: 4,
				cited_sessions: 1,
				read_sessions: 2,
				last_cited_at: "2026-11-01T00:00:00Z",
				last_read_at: "2026-11-05T00:00:00Z",
			}),
		).toEqual({ served: 4, cited: 1, read: 2, lastUsedAt: "2026-11-05T00:00:00Z" });
		expect(useOf({})).toEqual({ served: 0, cited: 0, read: 0, lastUsedAt: null });
	});
});
