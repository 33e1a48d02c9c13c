/**
 * Team memory sync: the project's team-scope topic files as `<name>.md` paths with the sha256 of their
 * rendered content, the shape of Claude Code's team folder (`cairn team pull|push|status`). Runs in the
 * Worker; the files are reached through the project's object. Needs memory and team memory on.
 */
import { badRequest, CairnError } from "../errors";
import { sha256Hex } from "../lib/ids";
import { findSecrets, ruleNames } from "../security/secrets";
import { effectiveSettings, requireFeature } from "../settings/settings";
import type { ProjectContext } from "../storage/context";
import { isServedTo } from "../trust/vouch";
import type { MemoryRow } from "./rows";
import { readMemoryContent, type WriteInput, type WriteResult } from "./store";
import { NAME_SOURCE, parseTopicFile, renderTopicFile, type TopicFile } from "./topic-file";

/** A team file's path: `<name>.md`. */
export const TEAM_FILE_PATH = new RegExp(`^(${NAME_SOURCE})\\.md$`);

/** Content objects read at once while a full pull is gathered. */
const READ_CONCURRENCY = 16;

export interface PushEntry {
	path: string;
	content: string;
	/** The server hash the edit started from; absent for a file new to the caller. */
	baseSha256?: string;
}

export interface PushResult {
	path: string;
	/** `held`: the file asks for what the trust gate holds (docs/memory-trust.md); it waits for a project admin, unwritten. */
	status: "created" | "updated" | "unchanged" | "held";
	sha256: string;
	/** A team proposal: pulled by its writer only until a person vouches for it (src/trust/vouch.ts). */
	awaitingReview?: true;
}

/**
 * The project's store as team sync uses it: the Worker hands in the project's typed client (team sync
 * runs in the Worker; the store's methods run in the project's object).
 */
export interface TeamStore {
	teamMemories(ctx: ProjectContext, names?: string[], servedOnly?: boolean): Promise<MemoryRow[]>;
	writeMemory(ctx: ProjectContext, input: WriteInput): Promise<WriteResult>;
	deleteMemory(ctx: ProjectContext, scope: "team", name: string): Promise<void>;
}

/** Team sync needs memory on and team memory on; policy wins over project and user settings. */
async function requireTeamSync(env: Env, ctx: ProjectContext) {
	const settings = await effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
	requireFeature(settings, "team memory sync", ["memories.enabled", "memories.teamMemory"]);
}

function nameOf(path: string): string {
	const name = TEAM_FILE_PATH.exec(path)?.[1];
	if (!name) throw badRequest(`${path}: a team file's path is <name>.md`, { path });
	return name;
}

/**
 * Every team file's hash by path: those a person vouched for, and the caller's own proposals
 * (src/trust/vouch.ts) — a teammate's proposal is not pulled.
 */
export async function teamHashes(env: Env, store: TeamStore, ctx: ProjectContext): Promise<Record<string, string>> {
	await requireTeamSync(env, ctx);
	const rows = await store.teamMemories(ctx, undefined, true);
	return Object.fromEntries(rows.map((r) => [`${r.name}.md`, r.content_hash]));
}

/** Every team file served to the caller with its content and hash, by path (as teamHashes). */
export async function teamFiles(
	env: Env,
	store: TeamStore,
	ctx: ProjectContext,
): Promise<Record<string, { content: string; sha256: string }>> {
	await requireTeamSync(env, ctx);
	const rows = await store.teamMemories(ctx, undefined, true);
	const files: Record<string, { content: string; sha256: string }> = {};
	for (let i = 0; i < rows.length; i += READ_CONCURRENCY) {
		const chunk = rows.slice(i, i + READ_CONCURRENCY);
		const contents = await Promise.all(chunk.map((r) => readMemoryContent(env, ctx, r)));
		chunk.forEach((r, j) => {
			files[`${r.name}.md`] = { content: contents[j] ?? "", sha256: r.content_hash };
		});
	}
	return files;
}

/** Each entry as a topic file whose frontmatter name is its file name; a path given twice or a malformed file is a 400. */
async function parseEntries(entries: PushEntry[]) {
	const seen = new Set<string>();
	const parsed: (PushEntry & { name: string; file: TopicFile; sha256: string })[] = [];
	for (const entry of entries) {
		if (seen.has(entry.path)) throw badRequest(`${entry.path} appears twice in the push`, { path: entry.path });
		seen.add(entry.path);
		const name = nameOf(entry.path);
		let file: TopicFile;
		try {
			file = parseTopicFile(entry.content);
		} catch (err) {
			if (err instanceof CairnError) throw badRequest(`${entry.path}: ${err.message}`, { path: entry.path, ...(err.details ?? {}) });
			throw err;
		}
		if (file.name !== name) throw badRequest(`${entry.path}: frontmatter name must match the file name`, { path: entry.path });
		parsed.push({ ...entry, name, file, sha256: await sha256Hex(renderTopicFile(file)) });
	}
	return parsed;
}

/**
 * A push, all or nothing: every entry is parsed, scanned for secrets (422 `secret_detected`, the paths
 * with rule names) and checked against the hash it was edited from (412 `version_conflict`, the paths
 * with the server's hash) before any is written. An entry without a base is stale when the server has
 * a different file of that name. Files absent from the push are left alone.
 */
export async function pushTeamMemory(env: Env, store: TeamStore, ctx: ProjectContext, entries: PushEntry[]): Promise<PushResult[]> {
	await requireTeamSync(env, ctx);
	const parsed = await parseEntries(entries);

	const secrets = [];
	for (const p of parsed) {
		const findings = await findSecrets(`${p.file.description}\n${p.file.body}`);
		if (findings.length > 0) secrets.push({ path: p.path, rules: ruleNames(findings) });
	}
	if (secrets.length > 0) {
		throw new CairnError("secret_detected", "team memory push refused: some files contain what looks like a secret", { paths: secrets });
	}

	const rows = await store.teamMemories(
		ctx,
		parsed.map((p) => p.name),
	);
	const current = new Map(rows.map((r) => [r.name, r]));
	const conflicts = [];
	for (const p of parsed) {
		const row = current.get(p.name);
		const stale = p.baseSha256 ? row?.content_hash !== p.baseSha256 : row !== undefined && row.content_hash !== p.sha256;
		// A teammate's change awaiting review (src/trust/vouch.ts) is not overwritten unseen, nor its hash shown: the push waits for the review.
		if (stale && row && !isServedTo(row, ctx.userId)) conflicts.push({ path: p.path, serverSha256: null, awaitingReview: true });
		else if (stale) conflicts.push({ path: p.path, serverSha256: row?.content_hash ?? null });
	}
	if (conflicts.length > 0) {
		const waiting = conflicts.some((c) => "awaitingReview" in c);
		throw new CairnError(
			"version_conflict",
			waiting
				? "team memory changed on the server since these files were read; a teammate's change to some of them awaits a person's review (cairn review): push those once it is decided, pull, merge and push the rest again"
				: "team memory changed on the server since these files were read; pull, merge and push again",
			{ conflicts },
		);
	}

	const results: PushResult[] = [];
	for (const p of parsed) {
		const row = current.get(p.name);
		// The team folder is an agent's channel (its hooks push it): its files are an agent's writes, proposals
		// until a person vouches for them (src/trust/vouch.ts).
		const written = await store
			.writeMemory(ctx, { scope: "team", file: p.file, source: "user", trust: { tier: "agent" }, ifMatch: row ? row.version : undefined })
			.catch((err: unknown) => {
				if (err instanceof CairnError && err.code === "held_for_review") return null;
				throw err;
			});
		results.push({
			path: p.path,
			status: written ? written.status : "held",
			sha256: p.sha256,
			...(written?.memory.awaitingReview ? { awaitingReview: true as const } : {}),
		});
	}
	return results;
}

/** Deletes one team file: the only way one is removed (a push never deletes). */
export async function deleteTeamFile(env: Env, store: TeamStore, ctx: ProjectContext, path: string): Promise<void> {
	await requireTeamSync(env, ctx);
	await store.deleteMemory(ctx, "team", nameOf(path));
}
