/**
 * The newest statement wins, end to end: rules and facts stated and then changed across sessions (one
 * returning to its first value, one change said in a sentence of its own), among unrelated sessions,
 * posted as Claude Code and Codex transcripts, extracted by the queue consumer and consolidated by the
 * project's object — with no model, and with scripted models answering as the schemas expect. Each
 * subject's probe is then asked as a prompt's block and through recall: the newest value is served, no
 * older value as current, no memory only says something changed, and the history lists every value
 * with its session and day.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { type Caller, waitFor } from "../bench/extraction-eval";
import { runTimeline, scriptedModels, type Timeline } from "../bench/updates-eval";
import type { ProjectCoordinator } from "../src/project/object";
import { call, createProject, createTenant, type Loose } from "./helpers";
import { setSeams } from "./worker";

const filler = (id: string, date: string, agent: "claude" | "codex" = "claude") => ({
	id,
	date,
	agent,
	turns: [
		{ role: "user" as const, text: "The CSV export drops the last row when the file has no trailing newline. Can you fix it?" },
		{
			role: "assistant" as const,
			text: "Fixed the reader loop to flush the final buffer; added a test for a file without a trailing newline.",
		},
	],
});

const english: Timeline = {
	id: "t-en",
	lang: "en",
	project: "ledger",
	subjects: [
		{
			id: "deploy-day",
			kind: "rule",
			scope: "team",
			values: [{ key: ["Tuesday"] }, { key: ["Thursday"] }, { key: ["Wednesday"] }],
			final: 2,
			probe: "The invoice fix is approved. Which day can we deploy it to production?",
		},
		{
			id: "partner-rate-limit",
			kind: "fact",
			scope: "team",
			values: [{ key: ["600 requests"] }, { key: ["1,000 requests"] }, { key: ["1,200 requests"] }],
			final: 2,
			probe: "What should the throttle be for the partner API rate limit?",
		},
		{
			id: "billing-oncall",
			kind: "fact",
			scope: "team",
			values: [{ key: ["Priya"] }, { key: ["Joon"] }, { key: ["Priya"] }],
			final: 2,
			probe: "Billing reconciliation failed overnight. Who is on billing on-call to page?",
		},
		{
			// A value set inside a request, and changed by another request.
			id: "node-group-max",
			kind: "fact",
			scope: "team",
			values: [{ key: ["12 nodes"] }, { key: ["30 nodes"] }],
			final: 1,
			probe: "How far can the general node group autoscaler scale out?",
		},
	],
	sessions: [
		{
			id: "s1",
			date: "2026-03-02",
			agent: "claude",
			turns: [
				{
					role: "user",
					text: "We deploy to production only on Tuesdays. And the partner API rate limit is 600 requests per minute, enforced at the gateway.",
					states: [
						{ subject: "deploy-day", value: 0 },
						{ subject: "partner-rate-limit", value: 0 },
					],
				},
				{ role: "assistant", text: "Noted: production deploys on Tuesdays, partner API at 600 requests per minute." },
				{ role: "user", text: "Priya is on billing on-call this quarter.", states: [{ subject: "billing-oncall", value: 0 }] },
				{ role: "assistant", text: "Got it." },
				{
					role: "user",
					text: "Add a retry to the export job. For the general node group, cap the autoscaler at 12 nodes.",
					states: [{ subject: "node-group-max", value: 0 }],
				},
				{ role: "assistant", text: "Retry added; the general node group's autoscaler is capped at 12 nodes." },
			],
		},
		filler("s2", "2026-03-04", "codex"),
		{
			id: "s3",
			date: "2026-03-09",
			agent: "codex",
			turns: [
				{
					role: "user",
					text: "From now on we deploy to production only on Thursdays. The gateway team raised the partner API rate limit to 1,000 requests per minute.",
					states: [
						{ subject: "deploy-day", value: 1 },
						{ subject: "partner-rate-limit", value: 1 },
					],
				},
				{ role: "assistant", text: "Understood." },
				{ role: "user", text: "Joon took over billing on-call.", states: [{ subject: "billing-oncall", value: 1 }] },
				{ role: "assistant", text: "Noted." },
			],
		},
		filler("s4", "2026-03-11"),
		{
			id: "s5",
			date: "2026-03-16",
			agent: "claude",
			turns: [
				{
					role: "user",
					text: "The deploy day changed again. Production deploys are only on Wednesdays now.",
					states: [{ subject: "deploy-day", value: 2 }],
				},
				{ role: "assistant", text: "Wednesday it is." },
				{
					role: "user",
					text: "The partner API rate limit was raised to 1,200 requests per minute. And Priya is back on billing on-call.",
					states: [
						{ subject: "partner-rate-limit", value: 2 },
						{ subject: "billing-oncall", value: 2 },
					],
				},
				{ role: "assistant", text: "Updated." },
				{
					role: "user",
					text: "Spring sale prep: raise the general node group max to 30 nodes.",
					states: [{ subject: "node-group-max", value: 1 }],
				},
				{ role: "assistant", text: "Done." },
			],
		},
	],
};

const korean: Timeline = {
	id: "t-ko",
	lang: "ko",
	project: "payments",
	subjects: [
		{
			id: "deploy-day",
			kind: "rule",
			scope: "team",
			values: [{ key: ["화요일"] }, { key: ["목요일"] }, { key: ["수요일"] }],
			final: 2,
			probe: "환불 버그 픽스 프로덕션 배포 언제 할 수 있어?",
		},
		{
			id: "gateway-limit",
			kind: "fact",
			scope: "team",
			values: [{ key: ["600"] }, { key: ["1,000"] }],
			final: 1,
			probe: "파트너 API 요청 한도에 맞춰 throttle 몇으로 잡아야 돼?",
		},
		{
			// A value set inside a request, and changed by another request.
			id: "sentry-sample-rate",
			kind: "fact",
			scope: "team",
			values: [{ key: ["0.2"] }, { key: ["0.05"] }],
			final: 1,
			probe: "Sentry tracesSampleRate 지금 몇으로 잡혀 있어?",
		},
	],
	sessions: [
		{
			id: "s1",
			date: "2026-04-01",
			agent: "claude",
			turns: [
				{ role: "user", text: "우리 팀은 프로덕션 배포를 화요일에만 해요.", states: [{ subject: "deploy-day", value: 0 }] },
				{ role: "assistant", text: "알겠습니다." },
				{ role: "user", text: "파트너 API 요청 한도는 분당 600건이에요.", states: [{ subject: "gateway-limit", value: 0 }] },
				{ role: "assistant", text: "네." },
				{
					role: "user",
					text: "배포 스크립트 정리해줘. Sentry tracesSampleRate는 0.2로 설정해줘.",
					states: [{ subject: "sentry-sample-rate", value: 0 }],
				},
				{ role: "assistant", text: "정리했고 tracesSampleRate도 0.2로 맞췄어요." },
			],
		},
		filler("s2", "2026-04-03"),
		{
			id: "s3",
			date: "2026-04-08",
			agent: "codex",
			turns: [
				{ role: "user", text: "이제부터 프로덕션 배포는 목요일에만 해요.", states: [{ subject: "deploy-day", value: 1 }] },
				{ role: "assistant", text: "알겠습니다." },
				{
					role: "user",
					text: "게이트웨이 팀이 파트너 API 요청 한도를 분당 1,000건으로 올렸어.",
					states: [{ subject: "gateway-limit", value: 1 }],
				},
				{ role: "assistant", text: "반영할게요." },
			],
		},
		{
			id: "s4",
			date: "2026-04-15",
			agent: "claude",
			turns: [
				{
					role: "user",
					text: "배포 요일 또 바뀌었어. 이제 프로덕션 배포는 수요일에만 해.",
					states: [{ subject: "deploy-day", value: 2 }],
				},
				{ role: "assistant", text: "수요일로 알고 있을게요." },
				{
					role: "user",
					text: "Sentry 비용 너무 나온대. tracesSampleRate 0.05로 낮춰줘.",
					states: [{ subject: "sentry-sample-rate", value: 1 }],
				},
				{ role: "assistant", text: "0.05로 낮췄어요." },
			],
		},
	],
};

async function run(timeline: Timeline, scripted: boolean) {
	const tenant = await createTenant();
	const projectId = await createProject(tenant.token);
	const caller: Caller = (path, init = {}) => call(path, { ...init, token: tenant.token });
	const models = scriptedModels(timeline);
	const result = await runTimeline(caller, timeline, projectId, async (id) => {
		await runInDurableObject(env.PROJECT_COORDINATOR.getByName(id), async (instance: ProjectCoordinator) => {
			setSeams(instance, scripted ? { model: models.consolidate, extractModel: models.extract } : { model: null, extractModel: null });
		});
	});
	return { ...result, caller, projectId };
}

describe("the newest statement wins, end to end", () => {
	for (const timeline of [english, korean]) {
		it(`${timeline.lang}, no model: the newest value served, no older one as current, no "it changed" memory`, async () => {
			const { rows, changeOnly, caller, projectId } = await run(timeline, false);
			expect(changeOnly).toEqual([]);
			for (const row of rows) expect({ subject: row.subject, ...row.block }).toEqual({ subject: row.subject, newest: true, stale: false });
			for (const row of rows) expect({ subject: row.subject, ...row.recall, first: null }).toMatchObject({ newest: true, stale: false });
			// The history: every value with its session and day, oldest first, the current one last.
			const listed = (await (await caller(`/v1/projects/${projectId}/memories`)).json()) as Loose;
			const day = timeline.subjects[0]?.values.map((v) => v.key[0] ?? "") ?? [];
			const named = await Promise.all(
				(listed.memories as Loose[]).map(async (m) => ({
					name: m.name as string,
					history: (await (await caller(`/v1/projects/${projectId}/memories/${m.name}/history`)).json()) as Loose,
				})),
			);
			const deploy = named.find((m) => (m.history.values as Loose[]).some((v) => String(v.value).includes(day.at(-1) ?? "\u0000")));
			expect(deploy).toBeDefined();
			const values = deploy?.history.values as Loose[];
			expect(values.map((v) => day.findIndex((d) => String(v.value).includes(d)))).toEqual([0, 1, 2]);
			expect(values.map((v) => v.current)).toEqual([false, false, true]);
			for (const v of values) {
				expect(v.session).toMatch(/^t-/);
				expect(v.since ?? v.until).toMatch(/^2026-0\d-\d\d$/);
			}
		});

		it(`${timeline.lang}, scripted models: updates applied in place, the old values kept as history`, async () => {
			const { rows, changeOnly, caller, projectId } = await run(timeline, true);
			expect(changeOnly).toEqual([]);
			for (const row of rows) expect({ subject: row.subject, ...row.block }).toEqual({ subject: row.subject, newest: true, stale: false });
			const memory = await waitFor(
				async () => (await caller(`/v1/projects/${projectId}/memories/deploy-day`)).text(),
				(t) => t.length > 0,
			);
			const final = timeline.subjects[0]?.values.at(-1)?.key[0] ?? "";
			expect(memory).toContain(final);
			expect(memory).toMatch(/Earlier:\n- was "[^"]+" \(session t-\w+-s1\) until 2026-\d\d-\d\d \(session t-\w+-s3\)\./);
		});
	}
});
