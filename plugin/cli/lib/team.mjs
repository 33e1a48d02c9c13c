// @ts-check
// Team memory sync (`cairn team pull|push|status`): the `team/` folder of the agent's memory directory
// for the repository, one `<name>.md` topic file per team memory, against the service's
// `…/team-memory` routes. The server wins on pull unless the local file changed too; a push names the
// server hash each file was edited from, so nothing is ever overwritten unseen; files with secrets
// never leave the machine; deleting a local file deletes nothing on the server.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { ApiError } from "./api.mjs";
import { readTeamFile, sha256 } from "./canonical.mjs";
import { readState, writeState } from "./config.mjs";
import { repository } from "./project.mjs";
import { findSecrets } from "./secrets.mjs";
import { tryLock } from "./sync.mjs";

const PATH = /^[a-z0-9][a-z0-9-]{0,63}\.md$/;
/** What one push request may carry (the service takes 200 KB); entries are packed below it. */
const BATCH_BYTES = 190 * 1024;
const BATCH_ENTRIES = 200;
const MARKERS = /^(<{7}|>{7})(?: |$)/m;

/**
 * Claude Code's memory directory for a repository: `~/.claude/projects/<root>/memory`, `<root>` being
 * the main worktree's path with every character other than a letter or digit turned into `-` (all
 * worktrees of a repository share it). `CLAUDE_CONFIG_DIR` moves `~/.claude`.
 * @param {string} dir
 */
export function memoryDir(dir) {
	const root = repository(dir).root;
	let main = root;
	try {
		const common = execFileSync("git", ["rev-parse", "--path-format=absolute", "--git-common-dir"], {
			cwd: root,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
			timeout: 1000,
		}).trim();
		if (common && /[\\/]\.git$/.test(common)) main = dirname(common);
	} catch {
		// not a git repository: the directory itself
	}
	const home = process.env.CLAUDE_CONFIG_DIR || join(homedir(), ".claude");
	return join(home, "projects", main.replace(/[^a-zA-Z0-9]/g, "-"), "memory");
}

/** The team folder: `--dir`, else `team/` of the repository's memory directory. @param {string} cwd @param {string} [given] */
export const teamDir = (cwd, given) => (given ? resolve(cwd, given) : join(memoryDir(cwd), "team"));

/**
 * @typedef {{ files: Record<string, string>, conflicts: Record<string, { server: string | null, local: string }> }} TeamState
 * @typedef {{ out: (line: string) => void, err: (line: string) => void }} Report
 * @typedef {ReturnType<import("./api.mjs").client>} Api
 */

const stateName = (/** @type {string} */ projectId, /** @type {string} */ dir) =>
	`team-${createHash("sha256")
		.update(`${projectId}\0${canonicalPath(dir)}`)
		.digest("hex")
		.slice(0, 24)}`;

/** @param {string} dir */
function canonicalPath(dir) {
	try {
		return realpathSync(dir);
	} catch {
		return resolve(dir);
	}
}

/** The last-synced server hash of each file and the conflicts shown but not yet merged. @param {string} projectId @param {string} dir @returns {TeamState} */
function loadState(projectId, dir) {
	const s = readState(stateName(projectId, dir));
	return { files: s?.files ?? {}, conflicts: s?.conflicts ?? {} };
}

/** @param {string} projectId @param {string} dir @param {TeamState} state */
function saveState(projectId, dir, state) {
	writeState(stateName(projectId, dir), { projectId, dir: canonicalPath(dir), files: state.files, conflicts: state.conflicts });
}

/** @typedef {ReturnType<typeof readTeamFile> & { path: string }} LocalFile */

/**
 * The team folder's files: every `<name>.md` as team sync reads it; other markdown files are listed
 * as not syncable (except MEMORY.md, the index the agent keeps).
 * @param {string} dir
 */
function readLocal(dir) {
	/** @type {Map<string, LocalFile>} */
	const files = new Map();
	/** @type {{ path: string, problem: string }[]} */
	const ignored = [];
	if (!existsSync(dir)) return { files, ignored };
	for (const entry of readdirSync(dir).sort()) {
		if (!entry.endsWith(".md") || entry.startsWith(".") || entry === "MEMORY.md") continue;
		const full = join(dir, entry);
		if (!statSync(full).isFile()) continue;
		if (!PATH.test(entry)) {
			ignored.push({ path: entry, problem: "not synced: team file names are <lowercase-name>.md (letters, digits, '-')" });
			continue;
		}
		files.set(entry, { path: entry, ...readTeamFile(entry, readFileSync(full, "utf8")) });
	}
	return { files, ignored };
}

/** Whole-file writes: a sync killed halfway never leaves a torn memory file. @param {string} dir @param {string} path @param {string} text */
function writeFile(dir, path, text) {
	mkdirSync(dir, { recursive: true });
	const file = join(dir, path);
	const temp = join(dir, `.${path}.${process.pid}.tmp`);
	writeFileSync(temp, text);
	renameSync(temp, file);
}

/** Takes the folder's sync lock, waiting up to `ms`. @param {string} projectId @param {string} dir @param {number} ms */
async function lock(projectId, dir, ms) {
	const until = Date.now() + ms;
	for (;;) {
		const release = tryLock(projectId, `team-sync\0${canonicalPath(dir)}`);
		if (release || Date.now() >= until) return release;
		await new Promise((r) => setTimeout(r, 100));
	}
}

/** @param {Api} api @param {string} projectId @param {number} [timeoutMs] @returns {Promise<Record<string, { content: string, sha256: string }>>} */
async function fetchFull(api, projectId, timeoutMs) {
	const res = /** @type {any} */ (await api.request("GET", `/v1/projects/${projectId}/team-memory`, { timeoutMs }));
	return res.entries ?? {};
}

/** @param {Api} api @param {string} projectId @param {number} [timeoutMs] @returns {Promise<Record<string, string>>} */
async function fetchHashes(api, projectId, timeoutMs) {
	const res = /** @type {any} */ (await api.request("GET", `/v1/projects/${projectId}/team-memory?view=hashes`, { timeoutMs }));
	return res.entries ?? {};
}

/**
 * The differing middle of two texts as `-`/`+` lines (common leading and trailing lines left out),
 * at most `max` lines.
 * @param {string} server @param {string} local @param {number} [max]
 */
export function shortDiff(server, local, max = 24) {
	const a = server.split("\n");
	const b = local.split("\n");
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) start++;
	let endA = a.length;
	let endB = b.length;
	while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
		endA--;
		endB--;
	}
	const lines = [...a.slice(start, endA).map((l) => `- ${l}`), ...b.slice(start, endB).map((l) => `+ ${l}`)];
	return lines.length > max ? [...lines.slice(0, max), `  … ${lines.length - max} more lines`] : lines;
}

/**
 * Both versions in one file, git-style: common leading and trailing lines once, the differing middle
 * between `<<<<<<< local` / `=======` / `>>>>>>> server`. A push refuses a file while markers remain.
 * @param {string} local @param {string} server
 */
export function withMarkers(local, server) {
	const a = local.replace(/\n$/, "").split("\n");
	const b = server.replace(/\n$/, "").split("\n");
	let start = 0;
	while (start < a.length && start < b.length && a[start] === b[start]) start++;
	let endA = a.length;
	let endB = b.length;
	while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
		endA--;
		endB--;
	}
	return `${[
		...a.slice(0, start),
		"<<<<<<< local",
		...a.slice(start, endA),
		"=======",
		...b.slice(start, endB),
		">>>>>>> server",
		...a.slice(endA),
	].join("\n")}\n`;
}

/**
 * Shows one conflict: which file, what each side says, and how to go on.
 * @param {Report} report @param {string} dir @param {string} path @param {string | null} local @param {{ content: string, sha256: string } | undefined} server @param {boolean} merged
 */
function showConflict(report, dir, path, local, server, merged) {
	if (!server) {
		report.err(
			`conflict: ${path} was deleted on the server since your last sync; push again to create it anew, or delete ${join(dir, path)}`,
		);
		return;
	}
	report.err(`conflict: ${path} changed on the server since your last sync (server ${server.sha256.slice(0, 12)})`);
	if (local !== null) for (const line of shortDiff(server.content, local)) report.err(`  ${line}`);
	report.err(
		merged
			? `  both versions are now in ${join(dir, path)} between <<<<<<< local / ======= / >>>>>>> server; keep what belongs, remove the markers, then run \`cairn team push\``
			: `  merge the server's lines (-) into ${join(dir, path)}, then run \`cairn team push\` again (or \`cairn team pull --merge\` writes both versions into the file with conflict markers)`,
	);
}

/**
 * `cairn team pull`: writes what changed on the server. A file changed on both sides is left as it is
 * and reported as a conflict (with `merge`, both versions go into it with conflict markers); a file
 * deleted locally stays deleted unless the server's copy changed since; a file deleted on the server
 * is removed locally when it was not edited here.
 * @param {Api} api @param {{ projectId: string, dir: string, merge?: boolean, report: Report, timeoutMs?: number }} options
 */
export async function teamPull(api, { projectId, dir, merge = false, report, timeoutMs }) {
	const release = await lock(projectId, dir, timeoutMs ?? 10_000);
	if (!release) throw new Error(`another team sync of ${dir} is running`);
	try {
		const server = await fetchFull(api, projectId, timeoutMs);
		const state = loadState(projectId, dir);
		const { files: local } = readLocal(dir);
		const result = { written: 0, removed: 0, conflicts: 0, keptDeleted: 0 };
		for (const [path, entry] of Object.entries(server)) {
			if (!PATH.test(path)) continue;
			const base = state.files[path];
			const mine = local.get(path);
			if (!mine) {
				if (base === entry.sha256) {
					result.keptDeleted++;
					continue;
				}
				writeFile(dir, path, entry.content);
				state.files[path] = entry.sha256;
				delete state.conflicts[path];
				result.written++;
				report.out(`${base ? "restored (changed on the server since you deleted it)" : "new"}  ${path}`);
			} else if (mine.hash === entry.sha256) {
				state.files[path] = entry.sha256;
				delete state.conflicts[path];
			} else if (base && mine.hash === base && !state.conflicts[path]) {
				writeFile(dir, path, entry.content);
				state.files[path] = entry.sha256;
				result.written++;
				report.out(`updated  ${path}`);
			} else if (base === entry.sha256) {
				// edited here only: `cairn team push` sends it
			} else {
				result.conflicts++;
				const marked = merge && !MARKERS.test(mine.text);
				if (marked) writeFile(dir, path, withMarkers(mine.text, entry.content));
				const localHash = marked ? sha256(withMarkers(mine.text, entry.content)) : mine.hash;
				state.conflicts[path] = { server: entry.sha256, local: localHash };
				showConflict(report, dir, path, mine.text, entry, marked);
			}
		}
		for (const [path, base] of Object.entries(state.files)) {
			if (server[path]) continue;
			const mine = local.get(path);
			if (mine && mine.hash === base) {
				unlinkSync(join(dir, path));
				result.removed++;
				report.out(`removed  ${path} (deleted on the server)`);
			} else if (mine) {
				report.err(`${path} was deleted on the server; your edited copy stays (\`cairn team push\` creates it again)`);
			}
			delete state.files[path];
		}
		saveState(projectId, dir, state);
		return result;
	} finally {
		release();
	}
}

/**
 * `cairn team push`: uploads the files changed here since the last sync (or only `paths`), each with
 * the server hash it was edited from. Files with secrets, conflict markers or an unreadable
 * frontmatter are reported and skipped before anything is sent. A stale base re-reads the server's
 * hashes, shows the conflicting files and sends the rest; after the user merges (edits the file), the
 * next push sends it against the server version that was shown. With `hook`, files in conflict are
 * left for a person.
 * @param {Api} api
 * @param {{ projectId: string, dir: string, paths?: string[], merge?: boolean, hook?: boolean, report: Report, timeoutMs?: number }} options
 */
export async function teamPush(api, { projectId, dir, paths, merge = false, hook = false, report, timeoutMs }) {
	const release = await lock(projectId, dir, timeoutMs ?? 10_000);
	if (!release) throw new Error(`another team sync of ${dir} is running`);
	const result = { pushed: 0, unchanged: 0, conflicts: 0, skipped: 0 };
	try {
		const state = loadState(projectId, dir);
		const { files: local, ignored } = readLocal(dir);
		if (!paths) for (const f of ignored) report.err(`skipped ${f.path}: ${f.problem}`);
		/** @type {{ path: string, content: string, baseSha256?: string, file: LocalFile }[]} */
		const entries = [];
		for (const file of local.values()) {
			const { path } = file;
			if (paths && !paths.includes(path)) continue;
			const conflict = state.conflicts[path];
			if (!conflict && state.files[path] === file.hash) continue;
			const skip = (/** @type {string} */ why) => {
				result.skipped++;
				report.err(`skipped ${path}: ${why}`);
			};
			if (MARKERS.test(file.text)) {
				skip("it still has conflict markers (<<<<<<< / >>>>>>>); keep what belongs and remove them");
				continue;
			}
			if (file.problem) {
				skip(file.problem);
				continue;
			}
			const rules = findSecrets(file.text);
			if (rules.length > 0) {
				skip(`it looks like it contains a secret (${rules.join(", ")}); not uploaded — remove the secret and push again`);
				continue;
			}
			let base = state.files[path];
			if (conflict) {
				if (hook || file.hash === conflict.local) {
					result.conflicts++;
					report.err(
						`conflict: ${path} changed on the server since your last sync; merge it (see \`cairn team status\`), then run \`cairn team push\``,
					);
					continue;
				}
				base = conflict.server ?? undefined;
			}
			entries.push({ path, content: file.text, ...(base ? { baseSha256: base } : {}), file });
		}

		/** @type {string[]} */
		const refetch = [];
		let pending = entries;
		while (pending.length > 0) {
			const batch = [];
			let bytes = 0;
			for (const e of pending) {
				const size = Buffer.byteLength(JSON.stringify({ path: e.path, content: e.content, baseSha256: e.baseSha256 })) + 1;
				if (batch.length > 0 && (bytes + size > BATCH_BYTES || batch.length >= BATCH_ENTRIES)) break;
				batch.push(e);
				bytes += size;
			}
			pending = pending.slice(batch.length);
			let send = batch;
			while (send.length > 0) {
				try {
					const res = /** @type {any} */ (
						await api.request("PUT", `/v1/projects/${projectId}/team-memory`, {
							json: { entries: send.map(({ path, content, baseSha256 }) => ({ path, content, ...(baseSha256 ? { baseSha256 } : {}) })) },
							timeoutMs,
						})
					);
					for (const r of res.results) {
						const e = /** @type {(typeof send)[number]} */ (send.find((x) => x.path === r.path));
						if (r.status === "held") {
							// Not stored: it stays a local change until a project admin approves it (docs/memory-trust.md).
							report.out(`held     ${r.path} — it waits for a project admin's review before anyone is served it`);
							continue;
						}
						state.files[r.path] = r.sha256;
						delete state.conflicts[r.path];
						if (r.status === "unchanged") result.unchanged++;
						else {
							result.pushed++;
							report.out(
								`${r.status === "created" ? "created" : "pushed "}  ${r.path}${r.awaitingReview ? " — a team proposal: teammates get it once a person approves it (cairn review)" : ""}`,
							);
						}
						// The local file takes the canonical form, so it hashes as the server's copy does.
						if (e.file.canonical !== null && sha256(e.file.canonical) === r.sha256) {
							if (e.file.canonical !== e.file.text) writeFile(dir, r.path, e.file.canonical);
						} else refetch.push(r.path);
					}
					send = [];
				} catch (err) {
					if (!(err instanceof ApiError)) throw err;
					const details = /** @type {any} */ (err.details) ?? {};
					/** @type {Set<string>} */
					const drop = new Set();
					if (err.status === 412 && Array.isArray(details.conflicts)) {
						// Stale: re-read what the server holds now and show each conflict, then send the rest.
						const hashes = await fetchHashes(api, projectId, timeoutMs);
						const full = await fetchFull(api, projectId, timeoutMs);
						for (const c of details.conflicts) {
							const e = send.find((x) => x.path === c.path);
							if (!e) continue;
							drop.add(c.path);
							result.conflicts++;
							const serverEntry = full[c.path];
							const marked = merge && serverEntry !== undefined;
							const text = marked ? withMarkers(e.file.text, serverEntry.content) : e.file.text;
							if (marked) writeFile(dir, c.path, text);
							state.conflicts[c.path] = {
								server: hashes[c.path] ?? serverEntry?.sha256 ?? null,
								local: marked ? sha256(text) : e.file.hash,
							};
							showConflict(report, dir, c.path, e.file.text, serverEntry, marked);
						}
					} else if (err.status === 422 && Array.isArray(details.paths)) {
						for (const p of details.paths) {
							drop.add(p.path);
							result.skipped++;
							report.err(
								`skipped ${p.path}: the service found what looks like a secret (${(p.rules ?? []).join(", ")}); nothing was stored`,
							);
						}
					} else if (err.status === 400 && typeof details.path === "string") {
						drop.add(details.path);
						result.skipped++;
						report.err(`skipped ${err.message}`);
					}
					if (drop.size === 0) throw err;
					send = send.filter((x) => !drop.has(x.path));
				}
			}
		}
		if (refetch.length > 0) {
			const full = await fetchFull(api, projectId, timeoutMs);
			for (const path of refetch) if (full[path]) writeFile(dir, path, full[path].content);
		}
		saveState(projectId, dir, state);
		return result;
	} finally {
		release();
	}
}

/**
 * `cairn team status`: each file that is not in sync — new, modified, deleted-locally,
 * changed-on-server, new-on-server, deleted-on-server or conflict — from the local files, the
 * last-synced hashes and the server's hashes.
 * @param {Api} api @param {{ projectId: string, dir: string }} options
 * @returns {Promise<{ rows: { path: string, state: string, note?: string }[], inSync: number }>}
 */
export async function teamStatus(api, { projectId, dir }) {
	const server = await fetchHashes(api, projectId);
	const state = loadState(projectId, dir);
	const { files: local, ignored } = readLocal(dir);
	const rows = [];
	let inSync = 0;
	const all = new Set([...Object.keys(server), ...local.keys(), ...Object.keys(state.files)]);
	for (const path of [...all].sort()) {
		const mine = local.get(path);
		const theirs = server[path];
		const base = state.files[path];
		/** @type {string[]} */
		const notes = [];
		if (mine?.problem) notes.push(`cannot be pushed: ${mine.problem}`);
		else if (mine && MARKERS.test(mine.text)) notes.push("has conflict markers");
		else if (mine && findSecrets(mine.text).length > 0) notes.push("looks like it contains a secret: never pushed");
		const note = notes.length ? notes.join("; ") : undefined;
		let label;
		if (state.conflicts[path] && mine) label = "conflict";
		else if (mine && theirs && mine.hash === theirs) label = null;
		else if (mine && !theirs) label = base ? "deleted-on-server" : "new";
		else if (!mine && theirs) label = !base ? "new-on-server" : theirs === base ? "deleted-locally" : "deleted-locally, changed-on-server";
		else if (!mine) label = null;
		else {
			const localChanged = mine.hash !== base;
			const serverChanged = theirs !== base;
			label = localChanged && serverChanged ? "conflict" : localChanged ? "modified" : "changed-on-server";
		}
		if (label) rows.push({ path, state: label, ...(note ? { note } : {}) });
		else inSync++;
	}
	for (const f of ignored) rows.push({ path: f.path, state: "ignored", note: f.problem });
	return { rows, inSync };
}

/**
 * The team files an agent's tool call wrote: `file_path` (Claude Code's Write, Edit, MultiEdit), `path`,
 * the tool response's `filePath`, and the files an `apply_patch` patch adds or updates (Codex).
 * @param {Record<string, any>} payload @param {string} cwd @param {string} dir
 * @returns {string[]} paths inside `dir`, as `<name>.md`
 */
export function touchedTeamFiles(payload, cwd, dir) {
	const input = payload.tool_input && typeof payload.tool_input === "object" ? payload.tool_input : {};
	const response = payload.tool_response && typeof payload.tool_response === "object" ? payload.tool_response : {};
	/** @type {string[]} */
	const candidates = [input.file_path, input.path, response.filePath].filter((p) => typeof p === "string" && p);
	const texts = [input.input, input.patch, input.command, typeof payload.tool_input === "string" ? payload.tool_input : null].flat();
	for (const t of texts) {
		if (typeof t !== "string") continue;
		for (const m of t.matchAll(/^\*\*\* (?:Add|Update) File: (.+)$/gm)) candidates.push((m[1] ?? "").trim());
	}
	const team = canonicalPath(dir);
	const found = new Set();
	for (const c of candidates) {
		const full = isAbsolute(c) ? c : resolve(cwd, c);
		const parent = canonicalPath(dirname(full));
		const name = full.split(/[\\/]/).at(-1) ?? "";
		if ((parent === team || dirname(full) === resolve(dir)) && PATH.test(name)) found.add(name);
	}
	return [...found];
}
