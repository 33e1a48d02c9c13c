import { describe, expect, it } from "vitest";
import { fitsTokens, surelyWithin, tokenCount, truncateToTokens } from "../src/text/tokens";

const SAMPLES = [
	"Use pnpm in this repository; never run npm install.",
	"금요일 오후에는 프로덕션에 배포하지 않습니다. 긴급 수정은 팀장 승인을 받습니다.",
	"金曜日の午後は本番環境へのデプロイを禁止する。",
	"🚀🔥🎉 deploy 🧪 tests ✅ — ünïcödé, Ωμέγα, 𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
	"`".repeat(40),
	"\n\n  \t \n",
];

describe("token budgets", () => {
	it("counts a text only when it could be over the limit: three tokens per UTF-16 unit are never exceeded", () => {
		for (const text of SAMPLES) {
			expect(tokenCount(text)).toBeLessThanOrEqual(text.length * 3);
			for (const limit of [0, 1, 5, 20, 60, text.length * 3 - 1, text.length * 3, 10_000]) {
				expect(fitsTokens(text, limit)).toBe(tokenCount(text) <= limit);
				if (surelyWithin(text, limit)) expect(truncateToTokens(text, limit)).toEqual({ text, truncated: false });
			}
		}
	});
});
