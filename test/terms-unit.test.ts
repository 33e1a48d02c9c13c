import { describe, expect, it } from "vitest";
import { documentsToolInUse, type ScoredMemory, toolNames } from "../src/recall/ranking";
import { matchExpression, queryTerms } from "../src/text/terms";

describe("query terms", () => {
	it("keeps content words and drops stopwords", () => {
		expect(queryTerms("How do I run the integration tests against the database?")).toEqual(["run", "integration", "tests", "database"]);
	});

	it("neutralises FTS5 syntax", () => {
		expect(queryTerms('NEAR("a b", 2) OR data* -mock name:x (y AND NOT z)')).toEqual(["near", "2", "data", "mock", "name"]);
		expect(matchExpression(["near", "data"])).toBe('"near" OR "data"');
		expect(queryTerms('"""*^:{}')).toEqual([]);
	});

	it("drops question-shaping words when asked, unless nothing else is left", () => {
		const q = "How many days ago did I mention the kind of yoga class I took recently?";
		expect(queryTerms(q)).toEqual(["many", "days", "ago", "mention", "kind", "yoga", "class", "took", "recently"]);
		expect(queryTerms(q, true)).toEqual(["days", "mention", "yoga", "class", "took"]);
		expect(queryTerms("What happened?", true)).toEqual(["happened"]);
		expect(queryTerms("How long ago?", true)).toEqual(["long", "ago"]);
	});

	it("keeps non-Latin words and numbers", () => {
		expect(queryTerms("데이터베이스 테스트 2024")).toEqual(["데이터베이스", "테스트", "2024"]);
	});

	it("cuts Korean particles and endings off a word written in Latin letters, and keeps Korean words whole", () => {
		expect(queryTerms("dw.orders에 coupon_discount 컬럼 추가해줘")).toEqual(["dw", "orders", "coupon", "discount", "컬럼", "추가해줘"]);
		expect(queryTerms("PR을 main에 rebase해줘")).toEqual(["pr", "main", "rebase"]);
		expect(queryTerms("prod에서 redis가 느려")).toEqual(["prod", "redis", "느려"]);
		expect(queryTerms("지금 DP 당번 누구야?")).toEqual(["dp", "당번"]);
		expect(queryTerms("지우님 노트북 세팅 좀 도와줘")).toEqual(["지우님", "노트북", "세팅"]);
		expect(queryTerms("merge했는데 deploy된 거 확인")).toEqual(["merge", "deploy", "확인"]);
		// Korean that is not grammar after a Latin word stays a word of its own, also when it begins like a verb
		// ending: API한도 (limit), SHA해시 (hash).
		expect(queryTerms("API한도 SHA해시")).toEqual(["api", "한도", "sha", "해시"]);
		expect(queryTerms("api서버 배포는")).toEqual(["api", "서버", "배포는"]);
	});
});

describe("tools in use", () => {
	it("extracts product names from tool identifiers", () => {
		expect(toolNames(["Bash(gh pr create:*)", "mcp__github__create_issue", "Read", "kubectl"]).sort()).toEqual(["gh", "github", "kubectl"]);
	});

	const ref = (name: string, description: string, body: string) =>
		({ row: { type: "reference", name, description }, body }) as unknown as ScoredMemory;

	it("skips usage docs for a tool in use and keeps warnings about it", () => {
		expect(
			documentsToolInUse(ref("kubectl-usage", "How to use kubectl for rollouts", "kubectl rollout status deploy/api"), ["kubectl"]),
		).toBe("kubectl");
		expect(documentsToolInUse(ref("kubectl-pitfalls", "kubectl rollout gotchas", "Never use --force on prod"), ["kubectl"])).toBeNull();
		expect(documentsToolInUse(ref("kubectl-usage", "How to use kubectl", "x"), ["terraform"])).toBeNull();
	});
});
