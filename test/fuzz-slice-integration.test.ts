// A small seeded slice of the OpenAPI-driven fuzzer (fuzz/core.ts; the full run is `npm run fuzz`):
// about 300 fuzzed schema-valid and schema-breaking requests through the real Worker, then an end sweep
// of about 300 reads, with every invariant checked — no 5xx, stable error bodies that never echo input,
// no cross-tenant or cross-user reads, a well-formed MEMORY.md, no planted secret stored, consistent
// history after concurrent writes.
import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";
import { runFuzz } from "../fuzz/core";
import { SETTING_KEYS } from "../src/settings/settings";
import { ADMIN_TOKEN } from "./helpers";

it("survives a seeded fuzz slice with every invariant intact", { timeout: 60_000 }, async () => {
	const result = await runFuzz({
		seed: 20261201,
		count: 600,
		sweep: "light",
		adminToken: ADMIN_TOKEN,
		fetch: (req) => exports.default.fetch(req),
		recordKeys: [...SETTING_KEYS],
	});
	expect(result.sent).toBeGreaterThanOrEqual(600);
	expect(result.fiveXX).toEqual([]);
	expect(result.violations).toEqual([]);
	for (const inv of [
		"no-5xx",
		"error-shape",
		"tenant-isolation",
		"user-isolation",
		"index-well-formed",
		"history-consistent",
		"prototype-inert",
	])
		expect(result.checks[inv]?.checked, inv).toBeGreaterThan(0);
});
