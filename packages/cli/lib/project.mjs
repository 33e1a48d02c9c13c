// @ts-check
import { execFileSync } from "node:child_process";
import { basename, resolve } from "node:path";
import { readConfig, writeConfig } from "./config.mjs";

/** @param {string[]} args @param {string} cwd */
const git = (args, cwd) => {
	try {
		return execFileSync("git", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], timeout: 2000 }).trim();
	} catch {
		return "";
	}
};

/** The repository a directory belongs to: its top level and its remote (origin, else the first), if any. @param {string} dir */
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
 * The project id for a directory: the one `cairn init` saved for its repository root, else registered
 * now (registration is idempotent: every clone of one remote maps to one project).
 * @param {ReturnType<import("./api.mjs").client>} api @param {string} dir
 */
export async function projectFor(api, dir) {
	const repo = repository(dir);
	const saved = readConfig().projects?.[repo.root];
	if (saved) return { id: saved, ...repo };
	const body = repo.remote ? { name: repo.name, gitRemote: repo.remote } : { name: repo.name, rootPath: repo.root };
	const res = /** @type {{ project: { id: string } }} */ (await api.post("/v1/projects", body));
	const config = readConfig();
	config.projects = { ...(config.projects ?? {}), [repo.root]: res.project.id };
	writeConfig(config);
	return { id: res.project.id, ...repo };
}
