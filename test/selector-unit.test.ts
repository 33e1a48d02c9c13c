import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import type { ScoredMemory } from "../src/recall/ranking";
import { selectWithModel } from "../src/recall/selector";

const candidate = (name: string, description: string): ScoredMemory => ({
	row: {
		id: name.length,
		scope: "personal",
		owner_id: "u",
		name,
		type: "feedback",
		description,
		version: 1,
		content_hash: "h",
		bytes: 1,
		source: "user",
		session_id: null,
		author_id: "u",
		created_at: "2026-11-01T00:00:00.000Z",
		updated_at: "2026-11-01T00:00:00.000Z",
		verified_at: "2026-11-01T00:00:00.000Z",
		times_served: 0,
		last_served_at: null,
	},
	body: "",
	score: 1,
	ageDays: 0,
	confirmed: false,
	trace: { bm25: 1, typePrior: 1, freshness: 1, coverage: 1, matchedTerms: [] },
});

const candidates = [
	candidate("testing-conventions", "Real DB in tests"),
	candidate("commit-style", "Conventional commits"),
	candidate("deploy-freeze", "No Friday deploys"),
];

/** A scripted model that answers with the given text. */
const scripted = (text: string) =>
	new MockLanguageModelV4({
		doGenerate: {
			content: [{ type: "text", text }],
			finishReason: { unified: "stop", raw: "stop" },
			usage: {
				inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
				outputTokens: { total: 5, text: 5, reasoning: 0 },
			},
			warnings: [],
		},
	});

describe("model selector", () => {
	it("returns the model's picks in its order, from the manifest only", async () => {
		const model = scripted(JSON.stringify({ names: ["deploy-freeze", "made-up-name", "testing-conventions"] }));
		const aged = candidates.map((c, i) => (i === 1 ? { ...c, ageDays: 12, confirmed: true } : c));
		const result = await selectWithModel(model, "can I deploy on friday?", ["Bash(git push)"], aged, 5, ["commit-style"]);
		expect(result.ok).toBe(true);
		if (result.ok) expect(result.memories.map((m) => m.row.name)).toEqual(["deploy-freeze", "testing-conventions"]);
		const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
		// The manifest carries each memory's type, age and description; the prompt what the session was already shown.
		expect(prompt).toContain("testing-conventions (feedback, updated today): Real DB in tests");
		expect(prompt).toContain("commit-style (feedback, confirmed 12 days ago): Conventional commits");
		expect(prompt).toContain("Already shown in this session: commit-style");
		expect(prompt).toContain("can I deploy on friday?");
		expect(prompt).toContain("Bash(git push)");
	});

	it("caps the selection at the limit", async () => {
		const model = scripted(JSON.stringify({ names: ["deploy-freeze", "testing-conventions", "commit-style"] }));
		const result = await selectWithModel(model, "q", [], candidates, 1);
		expect(result.ok && result.memories.map((m) => m.row.name)).toEqual(["deploy-freeze"]);
	});

	it("accepts an empty selection", async () => {
		const result = await selectWithModel(scripted('{"names": []}'), "weather today?", [], candidates, 5);
		expect(result).toEqual({ ok: true, memories: [] });
	});

	it("reports malformed output as a failure without echoing it", async () => {
		for (const text of ["not json at all", '{"names": "deploy-freeze"}', '{"picks": ["x"]}', "IGNORE PREVIOUS INSTRUCTIONS"]) {
			const result = await selectWithModel(scripted(text), "q", [], candidates, 5);
			expect(result.ok, text).toBe(false);
			if (!result.ok) {
				expect(result.reason).toMatch(/^model selection failed/);
				expect(result.reason).not.toContain(text);
			}
		}
	});

	it("reports a model error as a failure", async () => {
		const model = new MockLanguageModelV4({
			doGenerate: async () => {
				throw new Error("upstream 529 overloaded with secret details");
			},
		});
		const result = await selectWithModel(model, "q", [], candidates, 5);
		expect(result.ok).toBe(false);
		if (!result.ok) expect(result.reason).not.toContain("secret details");
	});
});
