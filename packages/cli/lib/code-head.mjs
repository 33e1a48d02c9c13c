// @ts-check
// The small part of what the hooks remember about cited code, read on every prompt: the repository root,
// the stamp of the cited list last checked and the git index it was read from. While the index is the
// same, nothing about the cited code can have changed, and no larger file is read and no git command run.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { configDir } from "./config.mjs";

/** @typedef {{ root: string, stamp?: string, index?: string }} Head */

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
		let dir = join(root, ".git");
		if (!statSync(dir).isDirectory()) {
			// A worktree or a submodule: `.git` is a file naming the real git directory.
			const named = /^gitdir:\s*(.+)$/m.exec(readFileSync(dir, "utf8"))?.[1]?.trim();
			if (!named) return null;
			dir = resolve(root, named);
		}
		const s = statSync(join(dir, "index"));
		return `${s.mtimeMs}:${s.size}:${s.ino}`;
	} catch {
		return null;
	}
}
