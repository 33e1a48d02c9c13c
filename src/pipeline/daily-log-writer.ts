/**
 * In assistant mode the pipeline keeps the user's daily log itself: when a session's last range has
 * been extracted and the session has ended (or gone idle), a short entry goes into the log for the
 * day of its last activity in the user's time zone (`memories.timeZone`, UTC when unset) — what was
 * done, what was decided, what was left open. Redacted before it is written; a failure here never
 * fails extraction.
 */
import type { Candidate } from "../extract/schema";
import { appendDailyLog } from "../memory/daily-log";
import { redactSecrets } from "../security/secrets";
import type { SessionRow } from "../sessions/sessions";
import type { Turn } from "../sessions/turns";
import type { EffectiveSettings } from "../settings/settings";
import type { ProjectEnv } from "../storage/env";

const HOUR_MS = 3_600_000;
const MAX_ITEM = 200;

/** The calendar date of an instant in a time zone (`YYYY-MM-DD`); UTC for an unknown zone. */
export function localDate(at: Date, timeZone: string): string {
	try {
		// en-CA formats as YYYY-MM-DD.
		return new Intl.DateTimeFormat("en-CA", { timeZone, year: "numeric", month: "2-digit", day: "2-digit" }).format(at);
	} catch {
		return at.toISOString().slice(0, 10);
	}
}

const firstSentence = (text: string) => {
	const s = (text.trim().split(/(?<=[.!?。])\s+|\n/)[0] ?? "").trim();
	return s.length > MAX_ITEM ? `${s.slice(0, MAX_ITEM - 1)}…` : s;
};

/** Whether the session is over for logging: ended, or quiet for the idle-scan period. */
export function sessionIsOver(session: SessionRow, settings: EffectiveSettings, now = Date.now()): boolean {
	if (session.status === "ended") return true;
	const idleHours = Number(settings["memories.minRolloutIdleHours"].value);
	return now - Date.parse(session.last_activity_at) >= idleHours * HOUR_MS;
}

/** The entry for one session: done, decided, open. Plain markdown lines, no secrets. */
export function logEntry(session: SessionRow, turns: Turn[], summary: string, candidates: Candidate[]): string {
	const users = turns.filter((t) => t.role === "user" && !t.kind && !t.sidechain);
	const tools = turns.filter((t) => t.role === "tool_call").length;
	const done = summary.trim() && !summary.startsWith("Turns ") ? firstSentence(summary) : firstSentence(users[0]?.text ?? "");
	const lines = [
		`Session ${session.id.slice(0, 12)} (${session.agent}, ${session.turns} turns, ${tools} tool calls): ${done || "no request recorded"}`,
	];
	const decided = candidates.filter((c) => !c.procedure).slice(0, 5);
	if (decided.length > 0) lines.push(`Decided: ${decided.map((c) => c.description.replace(/[.!]+$/, "")).join("; ")}`);
	const last = turns.filter((t) => !t.sidechain && (t.role === "user" || t.role === "assistant")).at(-1);
	// The session stopped on the user's word, or on a question back to them: a thread left open.
	if (last?.role === "user") lines.push(`Open: ${firstSentence(last.text)}`);
	else if (last && /\?\s*$/.test(last.text.trim())) {
		const question =
			last.text
				.trim()
				.split(/(?<=[.!?。])\s+|\n/)
				.at(-1) ?? "";
		lines.push(`Open: ${firstSentence(question)}`);
	}
	return lines.join("\n");
}

export async function writeSessionLog(
	env: ProjectEnv,
	tenantId: string,
	session: SessionRow,
	settings: EffectiveSettings,
	turns: Turn[],
	summary: string,
	candidates: Candidate[],
): Promise<boolean> {
	if (settings["memories.mode"].value !== "assistant" || settings["memories.assistantLog"].value !== true) return false;
	try {
		const at = new Date(session.last_activity_at);
		const date = localDate(at, String(settings["memories.timeZone"].value));
		const entry = (await redactSecrets(logEntry(session, turns, summary, candidates))).text;
		await appendDailyLog(env, { tenantId, userId: session.user_id, projectId: session.project_id }, date, entry, "Sessions", at);
		return true;
	} catch (err) {
		console.error("daily log entry not written", err instanceof Error ? err.message : String(err));
		return false;
	}
}
