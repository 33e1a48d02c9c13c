import { z } from "zod";
import { badRequest, CairnError } from "../errors";
import { nowIso } from "../lib/ids";
import { IsolateCache } from "../lib/isolate-cache";
import { hasKey, lookupTable } from "../lib/lookup";
import { timed } from "../lib/timing";

function validTimeZone(zone: string): boolean {
	try {
		new Intl.DateTimeFormat("en", { timeZone: zone });
		return zone.length <= 64;
	} catch {
		return false;
	}
}

/**
 * Every setting with its type and default (SPEC §5). Keys are dotted; bodies are partial objects.
 * Precedence: tenant managed policy > project settings > user settings > default.
 */
export const SETTING_DEFINITIONS = lookupTable({
	"memories.enabled": { schema: z.boolean(), default: false, doc: "Master switch; off for a new project." },
	"memories.autoMemory": { schema: z.boolean(), default: true, doc: "Extract memories from transcripts automatically." },
	"memories.sessionMemory": { schema: z.boolean(), default: true, doc: "Keep a compressed summary inside long sessions." },
	"memories.teamMemory": { schema: z.boolean(), default: true, doc: "Team-scope memory and its sync." },
	"memories.personalMemory": { schema: z.boolean(), default: true, doc: "Personal-scope memory." },
	"memories.teamPublishUnreviewed": {
		schema: z.boolean(),
		default: false,
		doc: "Team writes reach teammates at once, without a person vouching for them (docs/memory-trust.md). A project setting: set by an admin, recorded in the project's audit events; a user's own level does not count.",
	},
	"memories.assistantLog": { schema: z.boolean(), default: true, doc: "Daily logs, injected in assistant mode." },
	"memories.mode": { schema: z.enum(["coding", "assistant"]), default: "coding", doc: "coding or assistant." },
	"memories.extractionTrigger": { schema: z.enum(["per-turn", "idle"]), default: "idle", doc: "When stage-1 extraction runs." },
	"memories.maxRolloutAgeDays": { schema: z.number().int().min(1).max(365), default: 30, doc: "Oldest session the idle scan picks." },
	"memories.minRolloutIdleHours": { schema: z.number().min(0).max(720), default: 12, doc: "Idle time before a session is extracted." },
	"memories.maxRolloutsPerStartup": { schema: z.number().int().min(1).max(1000), default: 64, doc: "Sessions per idle scan." },
	"memories.summaryInjectionTokenLimit": {
		schema: z.number().int().min(0).max(50_000),
		default: 5000,
		doc: "Tokens of memory_summary.md injected.",
	},
	"memories.sessionMemoryTokenLimit": {
		schema: z.number().int().min(500).max(12_000),
		default: 12_000,
		doc: "Session memory cap in tokens.",
	},
	"memories.sessionMemoryRefreshTurns": {
		schema: z.number().int().min(1).max(10_000),
		default: 40,
		doc: "New turns since the last refresh that rebuild a session's memory automatically.",
	},
	"memories.startBudget": {
		schema: z.number().int().min(2_000).max(100_000),
		default: 25_000,
		doc: "Size of the whole session-start block, in the agent's unit (characters for Claude Code, UTF-8 bytes for Codex), spread over its parts (one per SessionStart hook entry, each within the agent's per-hook cap).",
	},
	"memories.promptBudget": {
		schema: z.number().int().min(500).max(9_500),
		default: 3_000,
		doc: "Most of a prompt's block: the memories recall is sure of and the index lines of its next candidates, in the agent's unit.",
	},
	"memories.recallLimit": { schema: z.number().int().min(1).max(20), default: 5, doc: "Memories returned by recall." },
	"memories.dailyLogDays": { schema: z.number().int().min(0).max(30), default: 3, doc: "Recent daily logs added in assistant mode." },
	"memories.extractionConcurrency": { schema: z.number().int().min(1).max(16), default: 2, doc: "Parallel extraction jobs per project." },
	"memories.timeZone": {
		schema: z.string().refine(validTimeZone, "must be an IANA time zone such as Europe/Berlin or Asia/Seoul"),
		default: "UTC",
		doc: "The user's time zone: which day a daily-log entry belongs to.",
	},
	"memories.transcriptRetentionDays": {
		schema: z.number().int().min(1).max(3650),
		default: 30,
		doc: "Days a session's raw transcript is kept after its last activity, once extraction has consumed it.",
	},
	"memories.archiveUnusedAfterSessions": {
		schema: z.number().int().min(0).max(10_000),
		default: 20,
		doc: "Sessions a memory is served in and never cited or read before it is proposed for archiving in the review queue (0: never).",
	},
} as const);

export type SettingKey = keyof typeof SETTING_DEFINITIONS;
export type SettingValue = boolean | number | string;
export type SettingsLevel = "user" | "project" | "policy";
export type SettingSource = "default" | SettingsLevel;

export const SETTING_KEYS = Object.keys(SETTING_DEFINITIONS) as SettingKey[];
const isSettingKey = (key: string): key is SettingKey => hasKey(SETTING_DEFINITIONS, key);

/**
 * Validates a partial settings body. `null` clears a key at this level. Errors name the key,
 * never echo the value.
 */
export function parseSettingsPatch(body: unknown): Record<SettingKey, SettingValue | null> {
	if (!body || typeof body !== "object" || Array.isArray(body)) {
		throw badRequest("settings body must be a JSON object of dotted keys", { field: "body" });
	}
	// Null prototype: a `__proto__` key below is refused, and could not reach a prototype if it were not.
	const out = Object.create(null) as Record<SettingKey, SettingValue | null>;
	for (const [index, [key, value]] of Object.entries(body).entries()) {
		if (!isSettingKey(key)) {
			// The caller's key is untrusted text: the error names its position and the keys that exist, never the key.
			throw badRequest(`unknown setting: key number ${index + 1} of the body is not one of the known settings`, {
				field: "body",
				position: index + 1,
				known: SETTING_KEYS,
			});
		}
		if (value === null) {
			out[key] = null;
			continue;
		}
		const parsed = SETTING_DEFINITIONS[key].schema.safeParse(value);
		if (!parsed.success) {
			throw badRequest(`invalid value for "${key}": ${parsed.error.issues[0]?.message ?? "wrong type"}`, { field: key });
		}
		out[key] = parsed.data as SettingValue;
	}
	return out;
}

export async function readLevel(db: D1Database, tenantId: string, level: SettingsLevel, subjectId: string) {
	const key = `${tenantId}\u0000${level}\u0000${subjectId}`;
	const hit = levels.get(key);
	if (hit) return hit;
	const row = await timed("settings", () =>
		db
			.prepare("SELECT values_json FROM settings WHERE tenant_id = ? AND level = ? AND subject_id = ?")
			.bind(tenantId, level, subjectId)
			.first<{ values_json: string }>(),
	);
	const values = Object.freeze(row ? storedLevel(row.values_json) : {});
	levels.set(key, values);
	return values;
}

/** Applies a validated patch to one level. The upsert is one statement, so concurrent patches of different keys both land. */
export async function writeLevel(
	db: D1Database,
	tenantId: string,
	level: SettingsLevel,
	subjectId: string,
	patch: Record<string, SettingValue | null>,
) {
	const patchJson = JSON.stringify(patch);
	forgetSettings(tenantId);
	await db
		.prepare(
			`INSERT INTO settings (tenant_id, level, subject_id, values_json, updated_at)
			 VALUES (?1, ?2, ?3, json_patch('{}', ?4), ?5)
			 ON CONFLICT (tenant_id, level, subject_id) DO UPDATE SET values_json = json_patch(values_json, ?4), updated_at = ?5`,
		)
		.bind(tenantId, level, subjectId, patchJson, nowIso())
		.run();
	// Again after the write: a read that raced it in this isolate may have cached the old values.
	forgetSettings(tenantId);
	return readLevel(db, tenantId, level, subjectId);
}

export interface EffectiveSetting {
	value: SettingValue;
	source: SettingSource;
}

export type EffectiveSettings = Record<SettingKey, EffectiveSetting>;

/** Resolves every setting for (user, project) and names where each value came from. */
/** The settings that switch something on or off. */
export type SwitchKey = { [K in SettingKey]: (typeof SETTING_DEFINITIONS)[K]["default"] extends boolean ? K : never }[SettingKey];

/**
 * Why `feature` is off — the first of `switches` that is not on, as "<feature> is off (<key>, set by
 * <source>)", the one wording every refusal and warning uses — or null when all of them are on.
 */
export function featureOff(settings: EffectiveSettings, feature: string, switches: readonly SwitchKey[]): string | null {
	for (const key of switches) {
		if (settings[key].value !== true) return `${feature} is off (${key}, set by ${settings[key].source})`;
	}
	return null;
}

/** Refuses with `feature_disabled` (naming the switch and who set it) while `feature` is off. */
export function requireFeature(settings: EffectiveSettings, feature: string, switches: readonly SwitchKey[]): void {
	const off = featureOff(settings, feature, switches);
	if (off !== null) throw new CairnError("feature_disabled", off);
}

export interface SettingsRow {
	level: SettingsLevel;
	values_json: string;
}

/** The one query behind effective settings; callers may batch it with other statements. */
export function settingsStatement(db: D1Database, tenantId: string, userId: string, projectId: string): D1PreparedStatement {
	return db
		.prepare(
			`SELECT level, values_json FROM settings WHERE tenant_id = ?1 AND (
			 (level = 'user' AND subject_id = ?2) OR (level = 'project' AND subject_id = ?3) OR (level = 'policy' AND subject_id = ?1))`,
		)
		.bind(tenantId, userId, projectId);
}

/** A stored level's known keys only: anything else (written before keys were checked by their own names) is dropped. */
function storedLevel(json: string): Partial<Record<SettingKey, SettingValue>> {
	const parsed = JSON.parse(json) as Record<string, SettingValue>;
	const out: Partial<Record<SettingKey, SettingValue>> = {};
	for (const key of SETTING_KEYS) if (Object.hasOwn(parsed, key)) out[key] = parsed[key];
	return out;
}

/** Resolves every setting from the stored levels and names where each value came from. */
export function resolveSettings(rows: SettingsRow[]): EffectiveSettings {
	const level = (name: SettingsLevel) => {
		const row = rows.find((r) => r.level === name);
		return row ? storedLevel(row.values_json) : {};
	};
	const [user, project, policy] = [level("user"), level("project"), level("policy")];
	const out = {} as EffectiveSettings;
	for (const key of SETTING_KEYS) {
		const layers: [SettingSource, SettingValue | undefined][] = [
			["policy", policy[key]],
			["project", project[key]],
			["user", user[key]],
		];
		const hit = layers.find(([, v]) => v !== undefined);
		out[key] = hit ? { value: hit[1] as SettingValue, source: hit[0] } : { value: SETTING_DEFINITIONS[key].default, source: "default" };
	}
	return out;
}

/** Effective settings by tenant, user and project, for at most the isolate cache's bound (src/lib/isolate-cache.ts). */
const cached = new IsolateCache<EffectiveSettings>();
/** One level's own values as read (GET …/settings), kept and cleared with the effective settings. */
const levels = new IsolateCache<Readonly<Partial<Record<SettingKey, SettingValue>>>>();
const cacheKey = (tenantId: string, userId: string, projectId: string) => `${tenantId}\u0000${userId}\u0000${projectId}`;

/** Drops this isolate's cached settings of a tenant (every level of it changed, or may have). */
export function forgetSettings(tenantId: string): void {
	cached.drop((key) => key.startsWith(`${tenantId}\u0000`));
	levels.drop((key) => key.startsWith(`${tenantId}\u0000`));
}

/**
 * Every setting for (user, project): one query, this runs on every memory write and hook call, so the
 * answer is kept in the isolate for the cache's bound. A change through `writeLevel` clears this
 * isolate's copies of the tenant at once; other isolates see it within the bound. The value is frozen:
 * callers share it.
 */
export async function effectiveSettings(db: D1Database, tenantId: string, userId: string, projectId: string): Promise<EffectiveSettings> {
	const key = cacheKey(tenantId, userId, projectId);
	const hit = cached.get(key);
	if (hit) return hit;
	const { results } = await timed("settings", () => settingsStatement(db, tenantId, userId, projectId).all<SettingsRow>());
	const settings = resolveSettings(results);
	for (const entry of Object.values(settings)) Object.freeze(entry);
	cached.set(key, Object.freeze(settings));
	return settings;
}
