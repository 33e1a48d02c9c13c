import { describe, expect, it } from "vitest";
import { decide, heldTerms, type Relevance } from "../src/recall/relevance";

describe("the prompt words a memory holds", () => {
	it("matches words as words, by their stem from four letters on", () => {
		expect(heldTerms(["retries", "email", "pr"], "Retry failed emails with backoff; open a PR")).toEqual(["retries", "email", "pr"]);
		expect(heldTerms(["pr"], "prod deploys need approval")).toEqual([]);
	});

	it("holds a Korean word by its stem, not by its ending", () => {
		expect(heldTerms(["배포해줘"], "배포는 금요일 오후에 하지 않는다")).toEqual(["배포해줘"]);
		expect(heldTerms(["배포해줘"], "테스트 해줘")).toEqual([]);
	});

	it("leaves out bare one- and two-digit numbers", () => {
		expect(heldTerms(["12", "2024"], "line 12 of the 2024 report")).toEqual(["2024"]);
	});
});

describe("the decision over judged candidates", () => {
	const judged = (name: string, evidence: number, relevant: boolean, semantic = false) => ({
		item: name,
		r: { evidence, coverage: 0, concepts: [], about: [], held: [], relevant } as Relevance,
		semantic,
		score: evidence,
	});

	it("keeps the relevant ones by evidence, drops those far below the best, and never more than the limit", () => {
		const { kept, belowBest } = decide(
			[
				judged("a", 10, true),
				judged("b", 9, true),
				judged("c", 8, true),
				judged("d", 7, true),
				judged("e", 3, true),
				judged("f", 20, false),
			],
			3,
		);
		expect(kept).toEqual(["a", "b", "c"]);
		expect(belowBest).toEqual(["e"]);
	});

	it("keeps a strong semantic match whatever its words", () => {
		expect(decide([judged("a", 10, true), judged("s", 0, false, true)], 3).kept).toEqual(["a", "s"]);
	});
});
