import { describe, expect, it } from "vitest";
import { type LabelledTurn, scoreOffline } from "../src/extract/evaluate";
import { extractOffline, matchStatement, statements } from "../src/extract/offline";
import type { Turn } from "../src/ingest/turns";
import written from "./fixtures/offline-statements.jsonl?raw";

const items = (written as string)
	.trim()
	.split("\n")
	.map((l) => JSON.parse(l) as LabelledTurn);
const user = (seq: number, text: string, extra: Partial<Turn> = {}): Turn => ({
	seq,
	id: String(seq),
	role: "user",
	text,
	ts: null,
	...extra,
});

describe("offline extractor", () => {
	it("scores at least 0.9 precision and 0.8 recall on the written labelled set", () => {
		const score = scoreOffline(items);
		expect(score.turns).toBe(40);
		expect(score.precision).toBeGreaterThanOrEqual(0.9);
		expect(score.recall).toBeGreaterThanOrEqual(0.8);
		expect(score.typeMatches).toBe(score.truePositives);
	});

	it("turns a standing rule into one feedback candidate with evidence, merging repeats", () => {
		const out = extractOffline("s1", [
			user(0, "From now on always use pnpm, never npm."),
			{ seq: 1, id: "1", role: "assistant", text: "Switched to pnpm.", ts: null },
			user(2, "from now on always use pnpm, never npm"),
		]);
		expect(out.candidates).toEqual([
			{
				name: "use-pnpm-never-npm",
				type: "feedback",
				description: "From now on always use pnpm, never npm",
				body: "From now on always use pnpm, never npm.\n\nStated by the user in session s1.",
				evidence: ["t0", "t2"],
				userStated: true,
			},
		]);
		expect(out.summary).toContain("2 user message(s)");
		expect(out.raw_memory).toContain("(feedback) From now on always use pnpm");
	});

	it("ignores sub-agents, slash commands, pasted text, code and questions", () => {
		const long = `Never do this. ${"log line ".repeat(1000)}`;
		const out = extractOffline("s", [
			user(0, "Never commit to main.", { sidechain: true }),
			user(1, "/remember never use npm", { kind: "command" }),
			user(2, long),
			user(3, "```\nalways_run()\n```"),
			user(4, "Should we always run the linter?"),
		]);
		expect(out.candidates).toEqual([]);
		expect(out.summary).toContain("No durable statements found.");
		expect(statements("a line\n```\nnever x\n```\n> never quote\nUse ruff instead of flake8.")).toEqual(["Use ruff instead of flake8."]);
	});

	it("turns an explicit procedure into a procedure candidate", () => {
		const out = extractOffline("s", [user(0, "Here's how to cut a release:\n1. bump the version\n2. tag it\n3. push the tag\nThanks.")]);
		expect(out.candidates).toEqual([
			{
				name: "how-to-cut-a-release",
				type: "reference",
				description: "How to cut a release",
				body: "1. bump the version\n2. tag it\n3. push the tag",
				evidence: ["t0"],
				userStated: true,
				procedure: true,
			},
		]);
		expect(extractOffline("s", [user(0, "How to run it:\n1. build\n2. run")]).candidates).toEqual([]);
	});

	it("classifies remembered statements by wording", () => {
		expect(matchStatement("Remember that the runbook is at https://wiki.acme.dev/ops")?.type).toBe("reference");
		expect(matchStatement("Remember that I like answers in Korean")?.type).toBe("user");
		expect(matchStatement("Remember that the payments service owns refunds")?.type).toBe("project");
		expect(matchStatement("Keep in mind: never rebase shared branches")?.type).toBe("feedback");
	});
});
