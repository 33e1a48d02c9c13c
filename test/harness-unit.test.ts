// The test harness's own claims: a wait that is not met fails, an empty data table fails, the bench
// transcripts are there. Each of these once passed whatever happened.
import { describe, expect, it } from "vitest";
import { benchTranscripts } from "./bench-transcripts";
import { until } from "./helpers";

describe("until", () => {
	it("returns the first value that meets the condition", async () => {
		let n = 0;
		expect(
			await until(
				async () => ++n,
				(v) => v >= 3,
				5_000,
			),
		).toBe(3);
	});

	it("throws with the last value it read when the condition is never met", async () => {
		await expect(
			until(
				async () => ({ parts: ["served-again"] }),
				(v) => v.parts.length === 0,
				500,
			),
		).rejects.toThrow(/not reached within 500 ms; last read: \{"parts":\["served-again"\]\}/);
	});
});

describe("data-driven tests", () => {
	it("an empty table fails instead of making no tests", () => {
		expect(() => it.each([])("over %s", () => {})).toThrow(/it\.each\("over %s"\) was given an empty table/);
		expect(() => describe.each([])("over %s", () => {})).toThrow(/empty table/);
	});

	it("the bench transcripts are present for both agents", () => {
		const paths = benchTranscripts().map(([path]) => path);
		expect(paths.filter((p) => p.includes("/claude/")).length).toBeGreaterThan(0);
		expect(paths.filter((p) => p.includes("/codex/")).length).toBeGreaterThan(0);
	});
});
