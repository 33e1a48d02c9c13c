import { describe, expect, it } from "vitest";
import { updateScore } from "../src/consolidate/updates";
import { extractOffline } from "../src/extract/offline";
import { currentText, earlierValue, renderHistory, splitHistory, valueTimeline } from "../src/memory/value-history";
import type { Turn } from "../src/sessions/turns";
import { onlySaysChanged, valuesOf } from "../src/text/statement-values";

const user = (text: string): Turn => ({ seq: 0, id: "0", role: "user", text, ts: null });

describe("what a statement is about and the value it gives", () => {
	it("reads values in both languages: numbers with units, versions, days, hosts, people", () => {
		expect([...valuesOf("The partner API rate limit is 1,000 requests per minute")]).toContain("1000");
		expect([...valuesOf("We deploy to production only on Tuesdays")]).toContain("day:1");
		expect([...valuesOf("프로덕션 배포는 화요일에만 해요")]).toContain("day:1");
		expect([...valuesOf("Staging moved to stg-api.orbitapp.dev")]).toContain("stg-api.orbitapp.dev");
		expect([...valuesOf("Joon took over billing on-call")]).toContain("who:joon");
		expect([...valuesOf("결제 on-call은 이준호님이 넘겨받았어")]).toContain("who:준호");
	});

	it("a later statement of the same subject with another value is an update; another subject or the same value is not", () => {
		expect(
			updateScore("We deploy to production only on Tuesdays", "From now on we deploy to production only on Thursdays"),
		).toBeGreaterThan(0);
		expect(updateScore("우리 팀은 프로덕션 배포를 화요일에만 해요", "이제부터 프로덕션 배포는 목요일에만 해요")).toBeGreaterThan(0);
		expect(
			updateScore(
				"The partner API rate limit is 600 requests per minute, enforced at the gateway",
				"The gateway team raised the partner API rate limit to 1,000 requests per minute",
			),
		).toBeGreaterThan(0);
		// A request that sets the value, a count with its Korean counter, a value of the same kind.
		expect(updateScore("일일 쿼터는 키당 50,000건이야", "계약 갱신하면서 파트너 쿼터 일 80,000건으로 늘려줬어")).toBeGreaterThan(0);
		expect(
			updateScore("트래픽 늘어서 `notify.events` 파티션 24개로 늘렸어", "블프 대비해서 `notify.events` 파티션 48개로 증설 끝났어"),
		).toBeGreaterThan(0);
		expect(
			updateScore("Products는 프라이머리 샤드 3개로 줄였어", "상품 수 늘어서 products는 샤드 6개로 다시 늘리기로 했어"),
		).toBeGreaterThan(0);
		expect(
			updateScore(
				"Finance pushed back on the EC2 bill, so we cut the node group max to 16 nodes",
				"Spring sale prep: raise the general node group max to 30 nodes",
			),
		).toBeGreaterThan(0);
		expect(updateScore("We support iOS 15 and up, nothing older", "The minimum is iOS 16 from the next release")).toBeGreaterThan(0);
		expect(
			updateScore("카테고리 페이지는 쿼리가 무거워서 timeout을 1500ms로 늘렸어", "응답 빨라져서 timeout 원래대로 800ms로 되돌리자"),
		).toBeGreaterThan(0);
		expect(updateScore("The request timeout is 1500 ms", "The upload size limit is now 800 MB")).toBe(0);
		// Another subject with a value of the same kind, or a value of another kind: not an update.
		expect(updateScore("일일 쿼터는 키당 50,000건이야", "업로드 파일은 최대 10MB로 올렸어")).toBe(0);
		expect(updateScore("The node group max is 16 nodes", "Raise the Lighthouse performance bar to 90")).toBe(0);
		expect(updateScore("Staging Postgres runs on port 5432", "Production Postgres runs on port 5433")).toBe(0);
		expect(updateScore("We deploy to production only on Tuesdays", "We deploy to production only on Tuesdays, as always")).toBe(0);
		expect(updateScore("Use pnpm for installs", "Commit messages follow Conventional Commits")).toBe(0);
	});

	it("a sentence that only says something changed is never a memory, in English or Korean", () => {
		for (const s of [
			"The deploy day changed.",
			"Our deploy schedule has changed again",
			"배포 요일이 바뀌었어요.",
			"배포 요일 또 바뀌었어",
		]) {
			expect(onlySaysChanged(s), s).toBe(true);
			expect(extractOffline("s", [user(s)]).candidates, s).toEqual([]);
		}
		expect(onlySaysChanged("Deploys changed to Wednesdays")).toBe(false);
		expect(onlySaysChanged("배포 요일이 수요일로 바뀌었어요")).toBe(false);
	});

	it("keeps limits and values people rely on, in both languages", () => {
		for (const s of [
			"The partner API rate limit is 600 requests per minute, enforced at the gateway.",
			"Uploads are capped at 5 MB.",
			"우리 보관 기간은 90일이야.",
			"게이트웨이 팀이 한도를 분당 1,000 requests로 올려줬어.",
		])
			expect(extractOffline("s", [user(s)]).candidates.length, s).toBe(1);
	});

	it("keeps a durable value set inside a request, and leaves a one-off change of the task alone", () => {
		for (const s of [
			"Also the nightly run can go earlier — set it to 01:15 UTC now.",
			"For the general node group, cap the autoscaler at 12 nodes.",
			"We're on Go 1.22, so feel free to use the new ServeMux patterns.",
			"Vercel switched our projects to Node 22, so bump CI to match.",
			"Product images should come from our image CDN at img.example.shop instead of the S3 URLs.",
			"CTR is up, so ranker_v2 is fully enabled now.",
			"Sentry 비용 너무 나온대. tracesSampleRate 0.05로 낮춰줘.",
			"CDC 최적화 끝났대. 이번엔 02:00으로 해줘.",
			"MLflow 말고 사내 `https://registry.ml.example.kr` 쓰니까 init container 수정해줘.",
			"새 주문 테이블 반응 좋아서 flag 100% 켰어.",
		])
			expect(extractOffline("s", [user(s)]).candidates.length, s).toBeGreaterThan(0);
		for (const s of [
			"Need to bump the ingress-nginx helm chart to 4.10.",
			"배치 사이즈는 1000 말고 5000으로 해줘.",
			"Move the button to the left.",
			"이 함수 이름 바꿔줘.",
		])
			expect(extractOffline("s", [user(s)]).candidates, s).toEqual([]);
	});

	it("names a memory without its value, so an old value does not live on in its path", () => {
		const [c] = extractOffline("s", [user("We deploy to production only on Tuesdays.")]).candidates;
		expect(c?.name).toBe("deploy-production-only");
	});
});

describe("a memory's earlier values", () => {
	it("round-trips the Earlier section and lists every value with its session and days", () => {
		const earlier = [
			earlierValue(
				"We deploy on Tuesdays",
				{ session: "s-1@u", at: "2026-03-02T09:00:00Z" },
				{ session: "s-3", at: "2026-03-09T10:00:00Z" },
			),
		];
		const body = `We deploy on Thursdays.\n\n${renderHistory(earlier)}\n\nSources: session s-1, session s-3.`;
		expect(body).toContain('- was "We deploy on Tuesdays" (session s-1, 2026-03-02) until 2026-03-09 (session s-3).');
		expect(splitHistory(body).earlier).toEqual([
			{ value: "We deploy on Tuesdays", session: "s-1", since: "2026-03-02", until: "2026-03-09", replacedBy: "s-3" },
		]);
		expect(currentText(body)).toBe("We deploy on Thursdays.\n\nSources: session s-1, session s-3.");
		expect(valueTimeline("We deploy on Thursdays", body, { session: "s-3", updatedAt: "2026-12-01T00:00:00Z" })).toEqual([
			{ value: "We deploy on Tuesdays", session: "s-1", since: "2026-03-02", until: "2026-03-09", current: false },
			{ value: "We deploy on Thursdays", session: "s-3", since: "2026-03-09", until: null, current: true },
		]);
		expect(valueTimeline("One value", "One value.", { session: null, updatedAt: "2026-12-01T00:00:00Z" })).toEqual([
			{ value: "One value", session: null, since: "2026-12-01", until: null, current: true },
		]);
	});
});
