import type { SessionRow } from "../sessions/sessions";
import { markQueued } from "../sessions/sessions";
import { type EffectiveSettings, featureOff, resolveSettings, type SettingsRow, settingsStatement } from "../settings/settings";
import type { ProjectEnv } from "../storage/env";
import type { ExtractMessage } from "./messages";

/** Extraction runs only when memory is on and automatic extraction is allowed. */
/** The switches that must be on for transcripts to be extracted. */
export const EXTRACTION_SWITCHES = ["memories.enabled", "memories.autoMemory"] as const;
export const extractionAllowed = (settings: EffectiveSettings) => featureOff(settings, "extraction", EXTRACTION_SWITCHES) === null;

/** A queued range that has not finished within this long is considered lost and may be queued again. */
const QUEUE_STALE_MS = 60 * 60 * 1000;
const HOUR_MS = 60 * 60 * 1000;

/** The message for a session's unprocessed turns, or null when it has none. */
export const pendingRange = (s: Pick<SessionRow, "project_id" | "id" | "cursor" | "turns">): ExtractMessage | null =>
	s.turns > s.cursor ? { projectId: s.project_id, sessionId: s.id, fromSeq: s.cursor, toSeq: s.turns - 1 } : null;

/**
 * Sends one message per session with unprocessed turns (pointers only) and marks them queued.
 * Returns how many were enqueued.
 */
export async function enqueueSessions(
	env: ProjectEnv,
	rows: Pick<SessionRow, "project_id" | "id" | "cursor" | "turns">[],
): Promise<number> {
	const messages = rows.map(pendingRange).filter((m): m is ExtractMessage => m !== null);
	if (messages.length === 0) return 0;
	for (let i = 0; i < messages.length; i += 100) {
		await env.EXTRACT_QUEUE.sendBatch(messages.slice(i, i + 100).map((body) => ({ body, contentType: "json" as const })));
	}
	await env.PDB.batch(
		markQueued(
			env.PDB,
			messages[0]?.projectId ?? "",
			messages.map((m) => m.sessionId),
		),
	);
	return messages.length;
}

export interface IdleCandidate {
	project_id: string;
	id: string;
	user_id: string;
	tenant_id: string;
	turns: number;
	cursor: number;
	status: "active" | "ended";
	last_activity_at: string;
	queued_at: string | null;
}

/**
 * The idle trigger's choice (SPEC §3): per project, sessions with unprocessed turns that have been
 * quiet for at least `minRolloutIdleHours` (anything more recent is still active), whose last
 * activity is within `maxRolloutAgeDays`, not already queued, newest first, at most
 * `maxRolloutsPerStartup`. Projects with memory off, or in per-turn mode, are left alone.
 */
export function selectIdleSessions(
	candidates: IdleCandidate[],
	settingsFor: (c: IdleCandidate) => EffectiveSettings,
	now: number,
): IdleCandidate[] {
	const perProject = new Map<string, number>();
	const chosen: IdleCandidate[] = [];
	const sorted = [...candidates].sort((a, b) =>
		a.last_activity_at < b.last_activity_at ? 1 : a.last_activity_at > b.last_activity_at ? -1 : 0,
	);
	for (const c of sorted) {
		const settings = settingsFor(c);
		if (!extractionAllowed(settings) || settings["memories.extractionTrigger"].value !== "idle") continue;
		const last = Date.parse(c.last_activity_at);
		const idleHours = Number(settings["memories.minRolloutIdleHours"].value);
		const maxAgeDays = Number(settings["memories.maxRolloutAgeDays"].value);
		const limit = Number(settings["memories.maxRolloutsPerStartup"].value);
		if (c.status === "active" && now - last < idleHours * HOUR_MS) continue;
		if (now - last > maxAgeDays * 24 * HOUR_MS) continue;
		if (c.queued_at && now - Date.parse(c.queued_at) < QUEUE_STALE_MS) continue;
		const taken = perProject.get(c.project_id) ?? 0;
		if (taken >= limit) continue;
		perProject.set(c.project_id, taken + 1);
		chosen.push(c);
	}
	return chosen;
}

/** The widest window any project may configure; per-project limits are applied after reading. */
const SCAN_MAX_AGE_DAYS = 365;
const SCAN_ROWS = 5_000;

/**
 * The idle scan for one project (inside its object): its sessions with unprocessed turns, each
 * owner's settings, the project's tunables, then enqueue. Returns what was chosen and how many
 * sessions still hold unprocessed turns (the cron stops visiting a project that has none).
 */
export async function scanProjectIdleSessions(
	env: ProjectEnv,
	projectId: string,
	tenantId: string,
	now = Date.now(),
): Promise<{ chosen: IdleCandidate[]; pending: number }> {
	const since = new Date(now - SCAN_MAX_AGE_DAYS * 24 * HOUR_MS).toISOString();
	const { results: rows } = await env.PDB.prepare(
		`SELECT project_id, id, user_id, turns, cursor, status, last_activity_at, queued_at, extraction_state
		 FROM sessions WHERE project_id = ? AND cursor < turns ORDER BY last_activity_at DESC LIMIT ?`,
	)
		.bind(projectId, SCAN_ROWS)
		.all<Omit<IdleCandidate, "tenant_id"> & { extraction_state: string }>();
	const results = rows
		.filter((r) => r.extraction_state !== "dead_letter" && r.last_activity_at >= since)
		.map(({ extraction_state: _s, ...r }) => ({ ...r, tenant_id: tenantId }));
	if (results.length === 0) return { chosen: [], pending: rows.length };
	const users = [...new Set(results.map((c) => c.user_id))];
	const settingRows = await env.DB.batch<SettingsRow>(users.map((u) => settingsStatement(env.DB, tenantId, u, projectId)));
	const resolved = new Map(users.map((u, i) => [u, resolveSettings(settingRows[i]?.results ?? [])]));
	const chosen = selectIdleSessions(results, (c) => resolved.get(c.user_id) as EffectiveSettings, now);
	await enqueueSessions(env, chosen);
	return { chosen, pending: rows.length };
}
