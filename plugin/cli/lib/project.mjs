// @ts-check
import { execFileSync } from "node:child_process";
import { homedir } from "node:os";
import { basename, isAbsolute, join, resolve } from "node:path";
import { ApiError } from "./api.mjs";
import { headBranch } from "./code-head.mjs";
import { readConfig, rememberDir, writeConfig } from "./config.mjs";

/** @param {string[]} args @param {string} cwd @param {number} [timeout] */
const git = (args, cwd, timeout = 1000) => {
	try {
		return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout }).trim();
	} catch {
		return "";
	}
};

/**
 * Whether a remote names a hosted repository the service can key on (`https://host/owner/repo`,
 * `ssh://…`, `git@host:owner/repo`), as opposed to a path on this machine (`/srv/git/tool.git`,
 * `../tool.git`, `file:///…`, `C:\repos\tool`), which says nothing about the project elsewhere.
 * @param {string} remote
 */
export function isHostedRemote(remote) {
	const r = remote.trim();
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(r)) return !/^file:/i.test(r) && /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/[^/]/i.test(r);
	if (r.startsWith("/") || r.startsWith(".") || r.startsWith("~")) return false;
	// scp-like `[user@]host:path`; a one-letter host is a Windows drive, and a slash before the colon makes it a path (as git reads it).
	return /^(?:[^@/\s]+@)?[^:/\s]{2,}:(?!\/\/)\S+$/.test(r);
}

/**
 * The remote as the service can read it: a hosted URL or an absolute path (`/srv/git/tool.git`,
 * `file://…`) as it is — every clone of it then maps to one project; a relative path (`../tool.git`),
 * which only this machine can resolve, resolved against the repository root.
 * @param {string} remote @param {string} root
 */
export function resolvedRemote(remote, root) {
	const r = remote.trim();
	if (isHostedRemote(r) || /^file:/i.test(r) || isAbsolute(r)) return r;
	if (r === "~" || r.startsWith("~/")) return join(homedir(), r.slice(1));
	return resolve(root, r);
}

/**
 * The repository a directory belongs to: its top level and its remote (origin, else the first), if any.
 * @param {string} dir
 */
export function repository(dir) {
	const cwd = resolve(dir);
	const root = git(["rev-parse", "--show-toplevel"], cwd) || cwd;
	let remote = git(["remote", "get-url", "origin"], root);
	if (!remote) {
		const first = git(["remote"], root).split("\n")[0];
		if (first) remote = git(["remote", "get-url", first], root);
	}
	return { root, remote: remote || null, name: basename(root) };
}

/**
 * What the work is about before the first prompt, as git says it: the directory, the branch, the last
 * few commit subjects and the files they changed. Paths and subjects only, never contents; bounded (two
 * git calls at most, a hook has little time: with the repository's top level known, the branch is read
 * from git's HEAD file).
 * @param {string} dir @param {string} [root] the repository's top level
 * @returns {{ folder: string, branch: string, commits: string[], files: string[] }}
 */
export function repositoryContext(dir, root) {
	const cwd = resolve(dir);
	const branch = (root ? headBranch(root) : null) ?? git(["symbolic-ref", "--quiet", "--short", "HEAD"], cwd, 500);
	// Each commit: a NUL, its subject, then the paths it changed, one per line.
	const log = git(["log", "-5", "--no-merges", "--name-only", "--format=%x00%s"], cwd, 500);
	/** @type {string[]} */
	const commits = [];
	/** @type {Set<string>} */
	const files = new Set();
	for (const entry of log.split("\0").slice(1)) {
		const [subject = "", ...paths] = entry.split("\n");
		if (subject.trim()) commits.push(subject.trim().slice(0, 300));
		for (const path of paths) if (path.trim() && files.size < 100) files.add(path.trim().slice(0, 300));
	}
	return { folder: basename(cwd).slice(0, 200), branch: branch.slice(0, 200), commits, files: [...files] };
}

/**
 * The project id for a directory: `CAIRN_PROJECT` when set (scripts, CI); else the one saved for its
 * repository root; else registered now by its remote (every clone of a hosted repository, or of one
 * repository on this machine, maps to one project) with the root path alongside, which the service
 * uses when there is no remote or the remote names nothing it can key on.
 * @param {ReturnType<import("./api.mjs").client>} api @param {string} dir @param {{ timeoutMs?: number }} [options]
 * @returns {Promise<{ id: string, root: string, remote: string | null, name: string }>}
 */
export async function projectFor(api, dir, options = {}) {
	const fixed = process.env.CAIRN_PROJECT;
	const repo = repository(dir);
	if (fixed) return { id: fixed, ...repo };
	const known = readConfig();
	const saved = known.projects?.[repo.root];
	if (saved) {
		// The next prompt hook in this directory then finds the project without git.
		if (rememberDir(known, resolve(dir), repo.root)) writeConfig(known);
		return { id: saved, ...repo };
	}
	const byPath = { name: repo.name, rootPath: repo.root };
	/** @type {{ project: { id: string } }} */
	let res;
	try {
		res = /** @type {any} */ (
			await api.post("/v1/projects", repo.remote ? { ...byPath, gitRemote: resolvedRemote(repo.remote, repo.root) } : byPath, options)
		);
	} catch (err) {
		// A remote the service cannot key on (or an older service that takes URLs only): the root path still identifies it.
		if (!(repo.remote && err instanceof ApiError && err.status === 400)) throw err;
		res = /** @type {any} */ (await api.post("/v1/projects", byPath, options));
	}
	const config = readConfig();
	config.projects = { ...(config.projects ?? {}), [repo.root]: res.project.id };
	rememberDir(config, resolve(dir), repo.root);
	writeConfig(config);
	return { id: res.project.id, ...repo };
}
