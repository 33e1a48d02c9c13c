import { describe, expect, it } from "vitest";
import { type LabelledTurn, scoreOffline } from "../src/extract/evaluate";
import { extractOffline, matchStatement, statements } from "../src/extract/offline";
import type { Turn } from "../src/sessions/turns";
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
				name: "pnpm-npm",
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
		expect(statements("hi\n```\nnever x\n```\n> never quote\nUse ruff instead of flake8.")).toEqual(["Use ruff instead of flake8."]);
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

	it("names Korean statements with stable, distinct ASCII slugs, and marks team rules and corrections", () => {
		const out = extractOffline("k", [
			user(0, "앞으로 커밋 메시지는 한글로 써주세요. 우리 팀 규칙이에요."),
			user(1, "그리고 main 브랜치에 직접 push는 절대 하지 마세요."),
			user(2, "배포 관련 문의는 민수님 담당이에요."),
		]);
		const names = out.candidates.map((c) => c.name);
		expect(names.length).toBe(3);
		expect(new Set(names).size).toBe(3);
		for (const n of names) expect(n).toMatch(/^[a-z0-9-]+$/);
		expect(out.candidates[0]?.team).toBe(true);
		// The same statement gets the same name in another session.
		expect(extractOffline("other", [user(5, "앞으로 커밋 메시지는 한글로 써주세요.")]).candidates[0]?.name).toBe(names[0]);

		const corrected = extractOffline("c", [user(0, "아 그리고 지난번에 GPU 서버 g5라고 했는데 비용 때문에 지금은 g6.xlarge로 옮겼어요")])
			.candidates[0];
		expect(corrected?.correction).toBe(true);
		expect(corrected?.type).toBe("project");
		expect(corrected?.description).toContain("g6.xlarge");
		expect(corrected?.description).not.toContain("g5");
	});

	it("keeps the passing moment, today's task, questions and musings out, in both languages", () => {
		for (const text of [
			"CI is super slow today, don't wait on it",
			"for this PR don't touch the tests",
			"maybe we should switch to pnpm someday?",
			"Tom thinks we should move to Redis eventually",
			"thanks, that works!",
			"지금 스테이징 서버 죽어있어서 확인은 나중에 할게요",
			"이번 PR에선 테스트 건드리지 마",
			"나중에 Tanstack Table로 갈아탈까 싶기도 한데... 모르겠다",
			"calculateRefund 리턴 타입 BigDecimal 맞죠?",
		]) {
			expect(extractOffline("t", [user(0, text)]).candidates, text).toEqual([]);
		}
	});
});
