import { describe, expect, it } from "vitest";
import { cjkTermIn, grams, gramText, hasCjk, MAX_QUERY_GRAMS, queryGrams, scoringTerms } from "../src/text/grams";
import { queryTerms } from "../src/text/terms";

describe("CJK grams", () => {
	it("turns Korean words into bigrams, so other particles and endings share the stem's gram", () => {
		expect(grams("배포는")).toEqual(["배포", "포는"]);
		expect(grams("배포를")).toContain("배포");
		expect(grams("배포할 때")).toEqual(["배포", "포할", "때"]);
		expect(grams("데이터베이스를")).toContain("데이");
	});

	it("indexes Han characters alone too, so a kanji stem matches across okurigana", () => {
		expect(grams("使う")).toEqual(["使う", "使"]);
		expect(grams("使って")).toContain("使");
		expect(grams("部署到生产环境")).toEqual(expect.arrayContaining(["部署", "生产", "环境", "部"]));
	});

	it("keeps Latin text out of the gram index and normalises width", () => {
		expect(gramText("Use the real database")).toBe("");
		expect(hasCjk("plain text")).toBe(false);
		expect(grams("ﾃﾞﾌﾟﾛｲ")).toEqual(grams("デプロイ"));
		expect(gramText("PostgreSQL 배포")).toBe("배포");
	});

	it("bounds a query's grams and drops repeats", () => {
		expect(queryGrams("배포 배포 배포")).toEqual(["배포"]);
		expect(queryGrams("가나다라마바사아자차카타파하".repeat(20)).length).toBeLessThanOrEqual(MAX_QUERY_GRAMS);
		expect(queryGrams('"배포" OR NEAR(x)')).toEqual(["배포"]);
	});

	it("counts a Chinese or Japanese run written without spaces as its bigrams, Korean words as words", () => {
		expect(scoringTerms(queryTerms("如何部署"))).toEqual(["如何", "何部", "部署"]);
		expect(scoringTerms(queryTerms("배포는 스테이징 서버"))).toEqual(["배포는", "스테이징", "서버"]);
		expect(scoringTerms(["grafana", "部署"])).toEqual(["grafana", "部署"]);
	});

	it("finds a CJK term in text holding another form of it", () => {
		expect(cjkTermIn("배포는", "금요일에는 배포를 하지 않는다")).toBe(true);
		expect(cjkTermIn("배포는", "테스트는 실제 데이터베이스")).toBe(false);
		expect(cjkTermIn("grafana", "grafana dashboards")).toBeNull();
	});
});
