// @ts-check
// What the repository says of the code memories cite, for the service to mark them: each cited path's
// blob id in git's index now, the blob it had when a memory citing it from its text was written, and
// where git's rename detection followed a path no longer tracked. Paths and blob ids only — never file
// contents. A bounded number of git calls: one `ls-files`; for blobs at write time one `log` and one
// `ls-tree` per distinct commit (at most MAX_BASE_COMMITS); for renames one `log`, only when a path is gone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { configDir } from "./config.mjs";

/** Distinct commits read for blobs at write time per check; paths of older commits wait for the next one. */
export const MAX_BASE_COMMITS = 8;
/** Above this many paths one whole `ls-files` is cheaper than as many pathspecs. */
const PATHSPEC_LIMIT = 100;
const BLOB = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

/**
 * @param {string[]} args @param {string} cwd @param {number} timeout
 * @returns {string | null} stdout, or null when git failed or took too long
 */
function git(args, cwd, timeout) {
	try {
		return execFileSync("git", args, {
			cwd,
			encoding: "utf8",
			stdio: ["ignore", "pipe", "ignore"],
			timeout: Math.max(1, Math.floor(timeout)),
			maxBuffer: 64 * 1024 * 1024,
			// Paths are names, never patterns.
			env: { ...process.env, GIT_LITERAL_PATHSPECS: "1" },
		});
	} catch {
		return null;
	}
}

/** `<mode> <blob> <stage>\t<path>` (ls-files -s) or `<mode> blob <blob>\t<path>` (ls-tree) records, NUL-separated → path → blob. @param {string} out */
function blobsOf(out) {
	/** @type {Map<string, string>} */
	const blobs = new Map();
	for (const record of out.split("\0")) {
		const tab = record.indexOf("\t");
		if (tab < 0) continue;
		const fields = record.slice(0, tab).split(" ");
		const blob = fields.find((f) => BLOB.test(f));
		// Stage 0 (or the first stage of a conflict) wins.
		if (blob && !blobs.has(record.slice(tab + 1))) blobs.set(record.slice(tab + 1), blob);
	}
	return blobs;
}

/**
 * The blob ids git's index holds for `paths` (run at the repository root); null when git is not there.
 * @param {string} root @param {string[]} paths @param {number} [timeout]
 */
export function indexBlobs(root, paths, timeout = 1000) {
	const args = ["ls-files", "-s", "-z", "--full-name"];
	const out = git(paths.length <= PATHSPEC_LIMIT ? [...args, "--", ...paths] : args, root, timeout);
	return out === null ? null : blobsOf(out);
}

/** The blob id git would give a file not in its index yet. @param {string} root @param {string} path */
export function hashObject(root, path) {
	const out = git(["hash-object", "--", path], root, 2000)?.trim();
	return out && BLOB.test(out) ? out : null;
}

/**
 * For each time, the last commit on HEAD at or before it (one `git log`), or undefined when history
 * does not reach back that far.
 * @param {string} root @param {string[]} times ISO dates @param {number} timeout
 */
function commitsAt(root, times, timeout) {
	const out = git(["log", "-n", "5000", "--format=%H %ct"], root, timeout);
	/** @type {Map<string, string | undefined>} */
	const at = new Map();
	if (out === null) return at;
	const log = out
		.split("\n")
		.filter(Boolean)
		.map((line) => {
			const [hash = "", seconds = "0"] = line.split(" ");
			return { hash, t: Number(seconds) * 1000 };
		});
	for (const time of times) at.set(time, log.find((c) => c.t <= Date.parse(time))?.hash);
	return at;
}

/**
 * Renames git saw in recent history, old path → newest path (chains followed), for the paths asked.
 * @param {string} root @param {Set<string>} wanted @param {number} timeout
 */
function renamesOf(root, wanted, timeout) {
	/** @type {Map<string, string>} */
	const renamed = new Map();
	const out = git(["log", "-M", "--diff-filter=R", "--name-status", "-z", "--format=", "-n", "1000", "HEAD"], root, timeout);
	if (out === null) return renamed;
	const fields = out.split("\0").map((f) => f.replace(/^\n+/, ""));
	/** @type {Map<string, string>} */
	const next = new Map();
	for (let i = 0; i + 2 < fields.length; i++) {
		if (!/^R\d*$/.test(fields[i] ?? "")) continue;
		const from = fields[i + 1] ?? "";
		const to = fields[i + 2] ?? "";
		// Newest first: the first rename of a path is its latest.
		if (!next.has(from)) next.set(from, to);
		i += 2;
	}
	for (const path of wanted) {
		let to = next.get(path);
		const seen = new Set([path]);
		while (to && next.has(to) && !seen.has(to)) {
			seen.add(to);
			to = next.get(to);
		}
		if (to) renamed.set(path, to);
	}
	return renamed;
}

/**
 * @typedef {{ path: string, since?: string }} CitedPath
 * @typedef {{ path: string, blob: string | null, blobAtWrite?: string | null, movedTo?: string, movedBlob?: string | null }} CheckedFile
 */

/**
 * The check of `cited` (as `GET …/citations` lists them) in the repository at `root`: null when git is
 * not there. `renames`: follow paths no longer tracked (session start, `cairn doctor`; the prompt hook
 * skips it). Paths whose blob at write time could not be read this time are left out, for the next check.
 * @param {string} root @param {CitedPath[]} cited @param {{ renames?: boolean, timeoutMs?: number }} [options]
 * @returns {{ files: CheckedFile[], renames: boolean } | null}
 */
export function checkCitedCode(root, cited, { renames = true, timeoutMs = 1500 } = {}) {
	if (cited.length === 0) return { files: [], renames };
	const deadline = Date.now() + timeoutMs;
	const left = () => Math.max(50, deadline - Date.now());
	const now = indexBlobs(
		root,
		cited.map((c) => c.path),
		left(),
	);
	if (now === null) return null;
	/** @type {CheckedFile[]} */
	const files = [];
	// Blobs at write time, for the paths asked with `since`: the commits of those times, the newest first.
	const since = cited.filter((c) => c.since);
	/** @type {Map<string, Map<string, string>>} commit → its blobs of the asked paths */
	const trees = new Map();
	/** @type {Map<string, string | undefined>} */
	let commitOf = new Map();
	if (since.length > 0) {
		commitOf = commitsAt(root, [...new Set(since.map((c) => /** @type {string} */ (c.since)))], left());
		const commits = [...new Set([...commitOf.values()].filter((c) => c !== undefined))].slice(0, MAX_BASE_COMMITS);
		for (const commit of commits) {
			const paths = since.filter((c) => commitOf.get(/** @type {string} */ (c.since)) === commit).map((c) => c.path);
			const out = git(["ls-tree", "-r", "-z", "--full-tree", commit, "--", ...paths], root, left());
			if (out !== null) trees.set(commit, blobsOf(out));
		}
	}
	for (const c of cited) {
		/** @type {CheckedFile} */
		const file = { path: c.path, blob: now.get(c.path) ?? null };
		if (c.since) {
			const commit = commitOf.get(c.since);
			if (commit !== undefined) {
				const tree = trees.get(commit);
				if (!tree) continue;
				file.blobAtWrite = tree.get(c.path) ?? null;
			}
		}
		files.push(file);
	}
	// A path gone that was there when written: did git see it renamed?
	const gone = new Set(files.filter((f) => f.blob === null && f.blobAtWrite !== null).map((f) => f.path));
	if (renames && gone.size > 0) {
		const moved = renamesOf(root, gone, left());
		const targets = [...new Set(moved.values())];
		const at = targets.length > 0 ? (indexBlobs(root, targets, left()) ?? new Map()) : new Map();
		for (const f of files) {
			const to = moved.get(f.path);
			if (to && at.has(to)) {
				f.movedTo = to;
				f.movedBlob = at.get(to) ?? null;
			}
		}
	}
	return { files, renames };
}

// The prompt hook checks the paths the last session start listed, without a request of its own.
const cacheFile = (/** @type {string} */ projectId) => join(configDir(), "citations", `${projectId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);

/** Saves what the session start listed, for the prompt hooks that follow. @param {string} projectId @param {string} root @param {CitedPath[]} cited */
export function saveCited(projectId, root, cited) {
	try {
		const file = cacheFile(projectId);
		mkdirSync(join(configDir(), "citations"), { recursive: true, mode: 0o700 });
		const temp = `${file}.${process.pid}.tmp`;
		// Paths still waiting for their blob at write time are the session start's to set.
		writeFileSync(temp, JSON.stringify({ root, paths: cited.filter((c) => !c.since).map((c) => c.path) }), { mode: 0o600 });
		renameSync(temp, file);
	} catch {
		// the prompt hook then checks nothing: the marks of the session start stand
	}
}

/** @param {string} projectId @returns {{ root: string, paths: string[] } | null} */
export function savedCited(projectId) {
	try {
		const file = cacheFile(projectId);
		if (!existsSync(file)) return null;
		const saved = JSON.parse(readFileSync(file, "utf8"));
		return typeof saved?.root === "string" && Array.isArray(saved.paths) ? saved : null;
	} catch {
		return null;
	}
}

/**
 * @typedef {{ name: string, scope: string, path: string, state: "changed" | "gone", changed: string[], moved: { from: string, to: string }[], gone: string[] }} CodeMark
 */

/**
 * Checks the code the caller's memories cite in the repository at `root` and returns the memories whose
 * code changed or went (`cairn doctor`, `cairn status`); null when git is not there.
 * @param {ReturnType<import("./api.mjs").client>} api @param {string} projectId @param {string} root
 * @returns {Promise<CodeMark[] | null>}
 */
export async function codeReport(api, projectId, root) {
	const listed = /** @type {{ paths: CitedPath[] }} */ (await api.get(`/v1/projects/${projectId}/citations`));
	saveCited(projectId, root, listed.paths);
	const code = checkCitedCode(root, listed.paths, { renames: true, timeoutMs: 10_000 });
	if (!code) return null;
	const res = /** @type {{ memories: CodeMark[] }} */ (await api.post(`/v1/projects/${projectId}/citations/check`, code));
	return res.memories;
}

/** One line per memory: its path and what changed. @param {CodeMark} m */
export function markLine(m) {
	const parts = [
		...m.changed.map((p) => `${p} changed`),
		...m.moved.map((x) => `${x.from} moved to ${x.to}`),
		...m.gone.map((p) => `${p} gone`),
	];
	return `${m.path}${m.state === "gone" ? " (every cited file gone: in the review queue)" : ""} — ${parts.join(", ")}`;
}
