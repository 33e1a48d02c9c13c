import { describe, expect, it } from "vitest";
import { stampStatementTimes } from "../src/extract/statement-time";
import { normalise, readRecords } from "../src/ingest/parse";

describe("statement times on stage-1 candidates", () => {
	it("take the cited user turn's timestamp from a real Claude Code transcript, not the model's and not the session's end", async () => {
		const session = {
			sessionId: "9b2f6c1e-5a7d-4f3e-8c21-7e0d4b9a6f10",
			version: "2.1.197",
			cwd: "/w",
			userType: "external",
			isSidechain: false,
		};
		const lines = [
			{
				...session,
				parentUuid: null,
				type: "user",
				message: { role: "user", content: "Always use pnpm here." },
				uuid: "u1",
				timestamp: "2026-11-30T10:00:00.000Z",
			},
			{
				...session,
				parentUuid: "u1",
				type: "assistant",
				message: { id: "m1", type: "message", role: "assistant", model: "claude-opus-4-5", content: [{ type: "text", text: "Noted." }] },
				uuid: "a1",
				timestamp: "2026-11-30T10:00:05.000Z",
			},
			{
				...session,
				parentUuid: "a1",
				type: "user",
				message: { role: "user", content: "Now fix the build." },
				uuid: "u2",
				timestamp: "2026-11-30T11:30:00.000Z",
			},
		];
		const { turns } = normalise(await readRecords(lines.map((l) => JSON.stringify(l)).join("\n")), "claude");
		const stored = turns.map((t, seq) => ({ ...t, seq }));
		const candidate = { name: "pnpm", type: "feedback" as const, description: "Use pnpm", body: "Use pnpm.", userStated: true };
		const out = stampStatementTimes(
			{
				raw_memory: "",
				summary: "",
				candidates: [
					{ ...candidate, evidence: ["t0", "t1"], statedAt: "2030-01-01T00:00:00.000Z" } as never,
					{ ...candidate, name: "reply", evidence: ["t1"] },
					{ ...candidate, name: "none", evidence: [] },
				],
			},
			stored,
		);
		expect(out.candidates.map((c) => [c.name, c.statedAt ?? null])).toEqual([
			["pnpm", "2026-11-30T10:00:00.000Z"],
			["reply", "2026-11-30T10:00:05.000Z"],
			["none", null],
		]);
	});
});
