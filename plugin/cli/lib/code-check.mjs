// @ts-check
// What the repository says of the code memories cite, for the service to mark them: each cited path's
// blob id now (git's index, or the working tree's file where it was edited or deleted and not staged), the
// blob it had when a memory citing it from its text was written, and where git's rename detection followed
// a path no longer tracked. Paths and blob ids only — never file contents. A bounded number of git calls:
// one `ls-files` (index and working tree together); one `hash-object` when cited files were edited (at
// most MAX_HASHED); for blobs at write time one `log` and one `ls-tree` per distinct commit (at most
// MAX_BASE_COMMITS); for renames one `log`, only when a path is gone.
import { execFile, execFileSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { citationsFile, savedHead } from "./code-head.mjs";
import { configDir } from "./config.mjs";

/** Distinct commits read for blobs at write time per check; paths of older commits wait for the next one. */
export const MAX_BASE_COMMITS = 8;
/** Cited files edited in the working tree hashed per check; the rest keep the index's blob until a later one. */
export const MAX_HASHED = 100;
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
 * The blob ids of `paths` as the repository has them now (run at its root): the index's, and where the
 * working tree differs from the index, the working tree's — the blob id git would give an edited file,
 * none for a file deleted from it. One `git ls-files` (the index's stages with its -m/-d tags) and, when
 * cited files were edited, one `git hash-object` of at most MAX_HASHED of them. `tree`: the paths whose
 * blob (or its absence) came from the working tree. Null when git is not there.
 * @param {string} root @param {string[]} paths @param {number} [timeout]
 * @returns {{ blobs: Map<string, string>, tree: Set<string> } | null}
 */
export function currentBlobs(root, paths, timeout = 1000) {
	if (paths.length === 0) return { blobs: new Map(), tree: new Set() };
	const started = Date.now();
	const args = ["ls-files", "-s", "-t", "-c", "-m", "-d", "-z", "--full-name"];
	const out = git(paths.length <= PATHSPEC_LIMIT ? [...args, "--", ...paths] : args, root, timeout);
	if (out === null) return null;
	const wanted = new Set(paths);
	/** @type {Map<string, string>} */
	const blobs = new Map();
	/** @type {Set<string>} */
	const deleted = new Set();
	/** @type {Set<string>} */
	const edited = new Set();
	for (const record of out.split("\0")) {
		const tab = record.indexOf("\t");
		const path = record.slice(tab + 1);
		if (tab < 0 || !wanted.has(path)) continue;
		// `<tag> <mode> <blob> <stage>`: C edited in the working tree, R deleted from it, any other tag the index.
		const [tag, mode = "", blob = ""] = record.slice(0, tab).split(" ");
		if (tag === "R") deleted.add(path);
		// Regular files only: a symlink or a submodule is not hashed as its contents.
		else if (tag === "C") {
			if (mode.startsWith("100")) edited.add(path);
		} else if (BLOB.test(blob) && !blobs.has(path)) blobs.set(path, blob);
	}
	const tree = new Set(deleted);
	for (const path of deleted) blobs.delete(path);
	const hash = [...edited].filter((p) => !deleted.has(p)).slice(0, MAX_HASHED);
	const ids = hashObjects(root, hash, Math.max(50, timeout - (Date.now() - started)));
	hash.forEach((path, i) => {
		const id = ids?.[i];
		if (!id) return;
		// Touched but the same: the index's blob stands.
		if (blobs.get(path) !== id) tree.add(path);
		blobs.set(path, id);
	});
	return { blobs, tree };
}

/**
 * The blob ids git would give the working tree's files at `paths` (one `git hash-object`); null when git
 * could not say. @param {string} root @param {string[]} paths @param {number} timeout @returns {string[] | null}
 */
export function hashObjects(root, paths, timeout) {
	if (paths.length === 0) return [];
	const ids = git(["hash-object", "--", ...paths], root, timeout)
		?.trim()
		.split("\n");
	return ids?.length === paths.length && ids.every((id) => BLOB.test(id)) ? ids : null;
}

/**
 * The tracked paths whose working-tree file differs from the index or is gone from it (`git ls-files -m -d`,
 * the whole repository: few lines however many files), asked without blocking, so the hook's other git
 * calls run meanwhile. Null when git failed or took longer than `timeout`.
 * @param {string} root @param {number} timeout @returns {Promise<Set<string> | null>}
 */
export function dirtyPaths(root, timeout) {
	return new Promise((done) => {
		execFile(
			"git",
			["ls-files", "-m", "-d", "-z", "--full-name"],
			{ cwd: root, encoding: "utf8", timeout: Math.max(1, Math.floor(timeout)), maxBuffer: 64 * 1024 * 1024 },
			(error, stdout) => done(error ? null : new Set(stdout.split("\0").filter(Boolean))),
		);
	});
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
 * @typedef {{ blob: string | null, movedTo?: string, movedBlob?: string | null, tree?: true }} Known what the service was last
 * told of a path (`tree`: read from the working tree, which git's index does not show)
 */

/**
 * The check of `cited` (as `GET …/citations` lists them) in the repository at `root`: null when git is
 * not there. `renames`: follow paths no longer tracked (session start, `cairn doctor`; the prompt hook
 * skips it) — not again for a path `known` to be gone already. Paths whose blob at write time could not
 * be read this time are left out, for the next check.
 * @param {string} root @param {CitedPath[]} cited
 * @param {{ renames?: boolean, timeoutMs?: number, known?: Record<string, Known> }} [options]
 * @returns {{ files: CheckedFile[], renames: boolean, tree: Set<string> } | null} `tree`: the paths read from the working tree
 */
export function checkCitedCode(root, cited, { renames = true, timeoutMs = 1500, known = {} } = {}) {
	if (cited.length === 0) return { files: [], renames, tree: new Set() };
	const deadline = Date.now() + timeoutMs;
	const left = () => Math.max(50, deadline - Date.now());
	const current = currentBlobs(
		root,
		cited.map((c) => c.path),
		left(),
	);
	if (current === null) return null;
	const now = current.blobs;
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
		if (moved === null) return { files: files.filter((f) => !gone.has(f.path)), renames, tree: current.tree };
		const targets = [...new Set(moved.values())];
		const at = targets.length > 0 ? (currentBlobs(root, targets, left())?.blobs ?? new Map()) : new Map();
		for (const f of files) {
			const to = moved.get(f.path);
			if (to && at.has(to)) {
				f.movedTo = to;
				f.movedBlob = at.get(to) ?? null;
			}
		}
	}
	return { files, renames, tree: current.tree };
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

/**
 * `known` with what `files` told the service (`tree`: those read from the working tree).
 * @param {Record<string, Known>} known @param {CheckedFile[]} files @param {Set<string>} [tree]
 */
export function told(known, files, tree = new Set()) {
	/** @type {Record<string, Known>} */
	const next = { ...known };
	for (const f of files)
		next[f.path] = {
			blob: f.blob,
			...(f.movedTo ? { movedTo: f.movedTo, movedBlob: f.movedBlob ?? null } : {}),
			...(tree.has(f.path) ? { tree: true } : {}),
		};
	return next;
}

/**
 * The paths the service was told of, read again (one `git ls-files` and maybe a `hash-object`, never
 * history): `files` what changed since it was told (to send), `remember` saves it once the service has it.
 * Where a session start followed a path gone stands. Null when git could not say in time.
 * @param {string} projectId @param {Saved} saved @param {number} timeoutMs @param {string | null} index the index read
 */
export function recheckKnown(projectId, saved, timeoutMs, index) {
	const paths = Object.keys(saved.known);
	const current = currentBlobs(saved.root, paths, timeoutMs);
	return current && reread(projectId, saved, index, paths, current);
}

/**
 * What `paths` are now (`current`) against what the service was told of them.
 * @param {string} projectId @param {Saved} saved @param {string | null} index @param {string[]} paths
 * @param {{ blobs: Map<string, string>, tree: Set<string> }} current
 */
function reread(projectId, saved, index, paths, current) {
	const files = paths.map((path) => {
		const blob = current.blobs.get(path) ?? null;
		const before = saved.known[path];
		return blob === null && before?.blob === null && before.movedTo
			? { path, blob, movedTo: before.movedTo, movedBlob: before.movedBlob ?? null }
			: { path, blob };
	});
	const changed = untold(files, saved.known);
	const same = changed.length === 0 && paths.every((p) => !!saved.known[p]?.tree === current.tree.has(p)) && index === saved.index;
	return {
		files: changed,
		remember: () =>
			same ||
			saveCited(projectId, saved.root, told(saved.known, files, current.tree), {
				...(saved.stamp ? { stamp: saved.stamp } : {}),
				...(index ? { index } : {}),
			}),
	};
}

/**
 * The quiet session start's check (the cited list and git's index as last time): only paths the working
 * tree changed can have moved on — the cited ones among `dirty` (from `dirtyPaths`), and those last read
 * from the working tree, which may be back as the index has them. Reads what the service was told only
 * when there are such paths; a dirty regular file is hashed (one `git hash-object`), a dirty path that is
 * not there is gone from the working tree, and only the others ask the index (`git ls-files`). Null when
 * there is nothing to read again.
 * @param {string} projectId @param {import("./code-head.mjs").Head} head @param {Set<string> | null} dirty
 * @param {number} timeoutMs @param {string | null} index
 */
export function recheckDirty(projectId, head, dirty, timeoutMs, index) {
	if (!dirty || (dirty.size === 0 && !head.tree)) return null;
	const saved = savedCited(projectId);
	if (!saved || saved.root !== head.root) return null;
	const deadline = Date.now() + timeoutMs;
	/** @type {string[]} */
	const hash = [];
	/** @type {string[]} */
	const asked = [];
	/** @type {string[]} */
	const deleted = [];
	for (const [path, k] of Object.entries(saved.known)) {
		if (!dirty.has(path)) {
			if (k.tree) asked.push(path);
			continue;
		}
		/** @type {import("node:fs").Stats | null} */
		let stat = null;
		try {
			stat = lstatSync(join(saved.root, path));
		} catch {
			// not there: deleted from the working tree
		}
		if (!stat) deleted.push(path);
		else if (stat.isFile() && hash.length < MAX_HASHED) hash.push(path);
		// A symlink, a submodule, or more edits than are hashed in one check: as the index has it.
		else asked.push(path);
	}
	const paths = [...hash, ...asked, ...deleted];
	if (paths.length === 0) return null;
	const ids = hashObjects(saved.root, hash, timeoutMs);
	const current = currentBlobs(saved.root, asked, Math.max(50, deadline - Date.now()));
	if (!ids || !current) return null;
	hash.forEach((path, i) => {
		const id = /** @type {string} */ (ids[i]);
		const k = saved.known[path];
		// Touched but the same as the index had it (the index is as it was when the service was told).
		if (!(k && !k.tree && k.blob === id)) current.tree.add(path);
		current.blobs.set(path, id);
	});
	for (const path of deleted) current.tree.add(path);
	return reread(projectId, saved, index, paths, current);
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
		const head = {
			root,
			...(stamp ? { stamp } : {}),
			...(index ? { index } : {}),
			// Paths told from the working tree: the quiet session start reads them again even when git calls them clean.
			...(entries.some(([, k]) => k.tree) ? { tree: true } : {}),
		};
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
	const res = /** @type {{ memories: CodeMark[] }} */ (
		await api.post(`/v1/projects/${projectId}/citations/check`, { files: code.files, renames: code.renames })
	);
	saveCited(projectId, root, told({}, code.files, code.tree), { cited: listed.paths });
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
