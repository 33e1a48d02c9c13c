/**
 * Assistant mode: the pipeline writes the user's daily log itself — one short, redacted entry per
 * ended session, on the day of its last activity in the user's time zone — and the next
 * assistant-mode inject carries it; memory://root/logs/<date>.md resolves to the log.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { localDate, logEntry } from "../src/pipeline/daily-log-writer";
import { call, createProject, createTenant, expectError, json, type Loose, type Tenant, until } from "./helpers";

let tenant: Tenant;
let projectId: string;

const api = (path: string, init: Parameters<typeof call>[1] = {}) => call(path, { token: tenant.token, ...init });

async function runSession(sessionId: string, lines: Loose[]) {
	const body = lines.map((l) => JSON.stringify(l)).join("\n");
	expect(
		(await api(`/v1/projects/${projectId}/sessions/${sessionId}/transcript`, { headers: { "Content-Type": "application/x-ndjson" }, body }))
			.status,
	).toBe(200);
	expect((await api(`/v1/projects/${projectId}/sessions/${sessionId}/end`, { method: "POST" })).status).toBe(202);
	await until(
		async () => (await json(await api(`/v1/projects/${projectId}/sessions/${sessionId}`))).session as Loose,
		(s) => s.cursor === s.turns,
	);
}

beforeEach(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
});

describe("daily logs that write themselves", () => {
	it("an assistant-mode session ends; its entry lands in the day's log (user's time zone) and the next inject carries it", async () => {
		await api(`/v1/projects/${projectId}/settings`, {
			method: "PUT",
			json: { "memories.enabled": true, "memories.mode": "assistant", "memories.timeZone": "Asia/Seoul" },
		});
		const token = `ghp_${"aZ9".repeat(12)}`;
		// 21:00 UTC on 30 November is 06:00 on 1 December in Seoul.
		await runSession("trip-planning", [
			{ id: "1", role: "user", content: "Plan the Busan offsite agenda for the team.", ts: "2026-11-30T20:40:00Z" },
			{ id: "2", role: "assistant", content: "Drafted a two-day agenda.", ts: "2026-11-30T20:45:00Z" },
			{
				id: "3",
				role: "user",
				content: `From now on always book the KTX for team trips. The booking token is ${token}.`,
				ts: "2026-11-30T20:50:00Z",
			},
			{ id: "4", role: "assistant", content: "Noted. Should I also reserve the venue?", ts: "2026-11-30T21:00:00Z" },
		]);
		const log = await (await api(`/v1/projects/${projectId}/logs/2026-12-01`)).text();
		expect(log).toContain("## Sessions");
		expect(log).toContain("Plan the Busan offsite agenda for the team.");
		expect(log).toContain("Decided: From now on always book the KTX for team trips");
		expect(log).toContain("Open: Should I also reserve the venue?");
		expect(log).not.toContain(token);
		expect((await api(`/v1/projects/${projectId}/logs/2026-11-30`)).status).toBe(404);

		const resolved = await api(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root/logs/2026-12-01.md")}`);
		expect(resolved.status).toBe(200);
		expect(await resolved.text()).toBe(log);
		await expectError(
			await api(`/v1/projects/${projectId}/resolve?url=${encodeURIComponent("memory://root/logs/2026-11-29.md")}`),
			404,
			"not_found",
		);

		const inject = await json(await api(`/v1/projects/${projectId}/inject`, { json: { query: "team trip" } }));
		expect(inject.text).toContain("Recent daily logs");
		expect(inject.text).toContain("Plan the Busan offsite agenda");
		expect(inject.parts.logs.map((l: Loose) => l.date)).toContain("2026-12-01");
	});

	it("coding mode writes no log; a bad time zone is a 400", async () => {
		await api(`/v1/projects/${projectId}/settings`, { method: "PUT", json: { "memories.enabled": true } });
		await runSession("coding", [
			{ id: "1", role: "user", content: "Fix the flaky login test.", ts: "2026-11-30T10:00:00Z" },
			{ id: "2", role: "assistant", content: "Fixed.", ts: "2026-11-30T10:05:00Z" },
		]);
		expect((await json(await api(`/v1/projects/${projectId}/logs?from=2026-11-01&to=2026-12-31`))).logs).toEqual([]);
		const bad = await expectError(
			await api(`/v1/projects/${projectId}/settings`, { method: "PUT", json: { "memories.timeZone": "Mars/Olympus" } }),
			400,
			"invalid_request",
		);
		expect(bad.error.message).toContain("memories.timeZone");
	});

	it("dates in a time zone, and the entry's shape", () => {
		const at = new Date("2026-11-30T21:00:00Z");
		expect(localDate(at, "Asia/Seoul")).toBe("2026-12-01");
		expect(localDate(at, "America/Los_Angeles")).toBe("2026-11-30");
		expect(localDate(at, "Not/AZone")).toBe("2026-11-30");
		const entry = logEntry(
			{ id: "abcdef1234567890", agent: "claude", turns: 2 } as never,
			[
				{ seq: 0, id: "a", role: "user", text: "Rename the config loader. Then run the tests.", ts: null },
				{ seq: 1, id: "b", role: "assistant", text: "Done.", ts: null },
			],
			"",
			[],
		);
		expect(entry).toBe("Session abcdef123456 (claude, 2 turns, 0 tool calls): Rename the config loader.");
	});
});
