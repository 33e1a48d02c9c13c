// @ts-check
// The small part of what the hooks remember about cited code, read on every prompt: the repository root,
// the stamp of the cited list last checked, the git index it was read from, and whether some path was read
// from the working tree. While the index is the same, only the working tree can have changed the cited code:
// the prompt hook then reads no larger file and runs no git command, the session start asks git which files
// are dirty.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { configDir } from "./config.mjs";

/** @typedef {{ root: string, stamp?: string, index?: string, tree?: boolean }} Head `tree`: some path was told from the working tree */

/** Where a project's cited-code state is kept: `<dir>/<id>.json` (what the service was told) and `<id>.head.json`. @param {string} projectId */
export const citationsFile = (projectId, suffix = ".json") =>
	join(configDir(), "citations", `${projectId.replace(/[^A-Za-z0-9_-]/g, "_")}${suffix}`);

/** @param {string} projectId @returns {Head | null} */
export function savedHead(projectId) {
	try {
		const file = citationsFile(projectId, ".head.json");
		if (!existsSync(file)) return null;
		const head = JSON.parse(readFileSync(file, "utf8"));
		return typeof head?.root === "string" ? head : null;
	} catch {
		return null;
	}
}

/**
 * What names git's index as it is now (its file's time, size and inode): `ls-files -s` reads only the
 * index, so while this is the same the blob ids it gives are too. Null when there is no index to look at.
 * @param {string} root
 */
export function indexStamp(root) {
	try {
		const dir = gitDir(root);
		if (!dir) return null;
		const s = statSync(join(dir, "index"));
		return `${s.mtimeMs}:${s.size}:${s.ino}`;
	} catch {
		return null;
	}
}

/** The git directory of the repository whose top level is `root`; null when there is none. @param {string} root */
function gitDir(root) {
	try {
		const dir = join(root, ".git");
		if (statSync(dir).isDirectory()) return dir;
		// A worktree or a submodule: `.git` is a file naming the real git directory.
		const named = /^gitdir:\s*(.+)$/m.exec(readFileSync(dir, "utf8"))?.[1]?.trim();
		return named ? resolve(root, named) : null;
	} catch {
		return null;
	}
}

/**
 * The branch checked out at `root`, read from git's HEAD file (no git process): "" when HEAD is detached,
 * null when the file does not say plainly (a reftable repository's placeholder, an unusual ref) — ask git then.
 * @param {string} root
 */
export function headBranch(root) {
	try {
		const dir = gitDir(root);
		if (!dir) return null;
		const head = readFileSync(join(dir, "HEAD"), "utf8").trim();
		if (/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(head)) return "";
		const branch = /^ref: refs\/heads\/(.+)$/.exec(head)?.[1];
		return branch && branch !== ".invalid" ? branch : null;
	} catch {
		return null;
	}
}
