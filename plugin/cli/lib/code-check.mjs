// @ts-check
// What the repository says of the code memories cite, for the service to mark them: each cited path's
// blob id in git's index now, the blob it had when a memory citing it from its text was written, and
// where git's rename detection followed a path no longer tracked. Paths and blob ids only — never file
// contents. A bounded number of git calls: one `ls-files`; for blobs at write time one `log` and one
// `ls-tree` per distinct commit (at most MAX_BASE_COMMITS); for renames one `log`, only when a path is gone.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { citationsFile, savedHead } from "./code-head.mjs";
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
 * Renames git saw in recent history, old path → newest path (chains followed), for the paths asked; null
 * when git could not say in time.
 * @param {string} root @param {Set<string>} wanted @param {number} timeout
 */
function renamesOf(root, wanted, timeout) {
	/** @type {Map<string, string>} */
	const renamed = new Map();
	const out = git(["log", "-M", "--diff-filter=R", "--name-status", "-z", "--format=", "-n", "1000", "HEAD"], root, timeout);
	if (out === null) return null;
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
 * @typedef {{ path: string, since?: string, unchecked?: boolean }} CitedPath
 * @typedef {{ path: string, blob: string | null, blobAtWrite?: string | null, movedTo?: string, movedBlob?: string | null }} CheckedFile
 * @typedef {{ blob: string | null, movedTo?: string, movedBlob?: string | null }} Known what the service was last told of a path
 */

/**
 * The check of `cited` (as `GET …/citations` lists them) in the repository at `root`: null when git is
 * not there. `renames`: follow paths no longer tracked (session start, `cairn doctor`; the prompt hook
 * skips it) — not again for a path `known` to be gone already. Paths whose blob at write time could not
 * be read this time are left out, for the next check.
 * @param {string} root @param {CitedPath[]} cited
 * @param {{ renames?: boolean, timeoutMs?: number, known?: Record<string, Known> }} [options]
 * @returns {{ files: CheckedFile[], renames: boolean } | null}
 */
export function checkCitedCode(root, cited, { renames = true, timeoutMs = 1500, known = {} } = {}) {
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
	// A path gone that was there when written: did git see it renamed? What an earlier check found stands.
	/** @type {Set<string>} */
	const gone = new Set();
	for (const f of files) {
		if (f.blob !== null || f.blobAtWrite === null) continue;
		const before = known[f.path];
		if (before && before.blob === null && !f.blobAtWrite) {
			if (before.movedTo) Object.assign(f, { movedTo: before.movedTo, movedBlob: before.movedBlob ?? null });
		} else gone.add(f.path);
	}
	if (renames && gone.size > 0) {
		const moved = renamesOf(root, gone, left());
		// Not known whether they moved: left out, for the next check, rather than called gone.
		if (moved === null) return { files: files.filter((f) => !gone.has(f.path)), renames };
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

/**
 * What the service has not been told yet: files whose blob or rename differs from `known`, and every
 * path it asks for (`since`, `unchecked`). The rest it already has.
 * @param {CheckedFile[]} files @param {Record<string, Known>} known @param {CitedPath[]} [cited]
 */
export function untold(files, known, cited = []) {
	const asked = new Set(cited.filter((c) => c.since || c.unchecked).map((c) => c.path));
	return files.filter((f) => {
		const k = known[f.path];
		return (
			asked.has(f.path) ||
			!k ||
			k.blob !== f.blob ||
			(k.movedTo ?? null) !== (f.movedTo ?? null) ||
			(k.movedBlob ?? null) !== (f.movedBlob ?? null)
		);
	});
}

/** `known` with what `files` told the service. @param {Record<string, Known>} known @param {CheckedFile[]} files */
export function told(known, files) {
	/** @type {Record<string, Known>} */
	const next = { ...known };
	for (const f of files) next[f.path] = { blob: f.blob, ...(f.movedTo ? { movedTo: f.movedTo, movedBlob: f.movedBlob ?? null } : {}) };
	return next;
}

export { indexStamp, savedHead } from "./code-head.mjs";

/**
 * @typedef {{ root: string, known: Record<string, Known>, stamp?: string, index?: string }} Saved what the
 * service was told (`known`), the stamp of the cited list it answered, and the index it was read from
 */

/**
 * Saves what the service now knows of the cited paths at `root`; with `cited`, only the paths it lists stay.
 * @param {string} projectId @param {string} root @param {Record<string, Known>} known
 * @param {{ cited?: CitedPath[], stamp?: string | null, index?: string | null }} [extra]
 */
export function saveCited(projectId, root, known, { cited, stamp, index } = {}) {
	try {
		const keep = cited ? new Set(cited.map((c) => c.path)) : null;
		const entries = Object.entries(known).filter(([path]) => !keep || keep.has(path));
		mkdirSync(join(configDir(), "citations"), { recursive: true, mode: 0o700 });
		/** @type {import("./code-head.mjs").Head} */
		const head = { root, ...(stamp ? { stamp } : {}), ...(index ? { index } : {}) };
		// What was told first, then the head that vouches for it: a head never names a state not written.
		const write = (/** @type {string} */ file, /** @type {unknown} */ value) => {
			const temp = `${file}.${process.pid}.tmp`;
			writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
			renameSync(temp, file);
		};
		rmSync(citationsFile(projectId, ".head.json"), { force: true });
		write(citationsFile(projectId), { root, known: Object.fromEntries(entries) });
		write(citationsFile(projectId, ".head.json"), head);
	} catch {
		// the next check then tells the service everything again
	}
}

/** @param {string} projectId @returns {Saved | null} */
export function savedCited(projectId) {
	try {
		const head = savedHead(projectId);
		const file = citationsFile(projectId);
		if (!head || !existsSync(file)) return null;
		const saved = JSON.parse(readFileSync(file, "utf8"));
		return saved?.root === head.root && saved.known && typeof saved.known === "object" ? { ...head, known: saved.known } : null;
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
	// Everything, renames looked for afresh: what a person asks for should not rest on what a hook remembers.
	const code = checkCitedCode(root, listed.paths, { renames: true, timeoutMs: 10_000 });
	if (!code) return null;
	const res = /** @type {{ memories: CodeMark[] }} */ (await api.post(`/v1/projects/${projectId}/citations/check`, code));
	saveCited(projectId, root, told({}, code.files), { cited: listed.paths });
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
