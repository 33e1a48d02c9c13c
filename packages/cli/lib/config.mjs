// @ts-check
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

/** Where the CLI keeps its config and per-session cursors: `$XDG_CONFIG_HOME/cairn` or `~/.config/cairn`. */
export const configDir = () => join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "cairn");

/**
 * `projects`: repository root → project id. `dirs`: a directory a hook ran in → its repository root, so
 * a hook that knows its project runs no git command. `tenant`: the tenant `cairn setup` made for the key,
 * when it made one. `previous`: logins replaced by another key (`cairn setup --new-tenant`, `--key`,
 * `cairn login`), newest first, with the projects they had: `cairn doctor` finds a repository's memories
 * under one of them, and says how to log in with it again.
 * @typedef {{ url: string, key: string, tenant?: Tenant, projects?: Record<string, string>, replacedAt: string }} PreviousLogin
 * @typedef {{ id: string, name: string }} Tenant
 * @typedef {{ url?: string, key?: string, tenant?: Tenant, projects?: Record<string, string>, dirs?: Record<string, string>, previous?: PreviousLogin[] }} Config
 */

/** @returns {Config} */
export function readConfig() {
	const file = join(configDir(), "config.json");
	if (!existsSync(file)) return {};
	try {
		return JSON.parse(readFileSync(file, "utf8"));
	} catch {
		throw new Error(`${file} is not valid JSON; run \`cairn login\` again`);
	}
}

/** Writes the config with mode 600: it holds an API key. @param {Config} config */
export function writeConfig(config) {
	const dir = configDir();
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	const file = join(dir, "config.json");
	// Hooks of parallel sessions may save a project id at once: write whole files, then rename.
	const temp = `${file}.${process.pid}.tmp`;
	writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
	chmodSync(temp, 0o600);
	renameSync(temp, file);
	return file;
}

/** How many replaced logins the config keeps. */
const MAX_PREVIOUS = 5;

/**
 * The config with another login in place of the saved one: the saved one, when it had a different key,
 * goes to `previous` with the project ids it had (they are its tenant's, not the new key's), and the
 * repositories start afresh under the new key.
 * @param {Config} config @param {{ url: string, key: string, tenant?: Tenant }} login
 * @returns {Config}
 */
export function replaceLogin(config, login) {
	const { url: _u, key: _k, tenant: _t, projects: _p, dirs: _d, previous = [], ...rest } = config;
	if (config.key === login.key) return { ...config, url: login.url, ...(login.tenant ? { tenant: login.tenant } : {}) };
	const old =
		config.key && config.url
			? [
					{
						url: config.url,
						key: config.key,
						...(config.tenant ? { tenant: config.tenant } : {}),
						...(config.projects ? { projects: config.projects } : {}),
						replacedAt: new Date().toISOString(),
					},
				]
			: [];
	return {
		...rest,
		url: login.url,
		key: login.key,
		...(login.tenant ? { tenant: login.tenant } : {}),
		previous: [...old, ...previous.filter((p) => p.key !== login.key)].slice(0, MAX_PREVIOUS),
	};
}

/**
 * Deletes the CLI's folder (`cairn setup --undo`): the config file with the saved login and the
 * repositories' project ids, and what the hooks keep beside it (upload cursors, the cited-code cache).
 * Returns the folder.
 */
export function removeConfig() {
	const dir = configDir();
	rmSync(dir, { recursive: true, force: true });
	return dir;
}

/** A key as it may be shown: its public id, never its secret (`cairn_abcd…_…`). @param {string} key */
export const keyLabel = (key) => {
	const m = /^(cairn_[A-Za-z0-9]+)_/.exec(key);
	return m ? `${m[1]}_…` : `${key.slice(0, 6)}…`;
};

/** URL and key: `CAIRN_URL` / `CAIRN_KEY` override the saved config. */
export function credentials() {
	const config = readConfig();
	const url = process.env.CAIRN_URL || config.url;
	const key = process.env.CAIRN_KEY || config.key;
	if (!url || !key)
		throw new Error(
			`not logged in: no ${url ? "key" : key ? "URL" : "URL or key"} in ${join(configDir(), "config.json")} or CAIRN_URL / CAIRN_KEY — run \`cairn setup\` (against a local \`npm start\`) or \`cairn login --url <url> --key <key>\``,
		);
	return { url: url.replace(/\/+$/, ""), key, config };
}

/**
 * Where the key in use came from, and what to do about a refused one: `CAIRN_KEY` overrides the saved login.
 */
export function keyNote() {
	const file = join(configDir(), "config.json");
	const url = process.env.CAIRN_URL ? " (and the URL from CAIRN_URL)" : "";
	return process.env.CAIRN_KEY
		? `the key came from CAIRN_KEY in the environment${url}, which overrides the saved login in ${file}; unset CAIRN_KEY to use the saved login, or set it to a valid key`
		: `the key came from the saved login in ${file}${url}; run \`cairn login --url <url> --key <key>\` with a valid key (or \`cairn setup\` against a local service)`;
}

/**
 * Where the URL in use came from, and how to change it: `CAIRN_URL` overrides the saved login.
 */
export function urlNote() {
	const file = join(configDir(), "config.json");
	return process.env.CAIRN_URL
		? `the URL came from CAIRN_URL in the environment, which overrides the saved login in ${file}; unset CAIRN_URL or set it to the service's URL`
		: `\`cairn login --url <url> --key <key>\` (the URL came from the saved login in ${file})`;
}

/** Where per-session cursors, locks and the background log live. */
export const stateDir = () => join(configDir(), "state");

/** A small JSON file under the config dir (per-session upload cursors). @param {string} name */
export function readState(name) {
	const file = join(stateDir(), `${name}.json`);
	if (!existsSync(file)) return null;
	try {
		return JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return null;
	}
}

/** @param {string} name @param {unknown} value */
export function writeState(name, value) {
	const dir = stateDir();
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	// Write then rename: a hook killed mid-write must not leave a truncated cursor behind.
	const file = join(dir, `${name}.json`);
	const temp = `${file}.${process.pid}.tmp`;
	writeFileSync(temp, JSON.stringify(value), { mode: 0o600 });
	renameSync(temp, file);
}

/** How many directories `dirs` remembers (the most recent). */
const MAX_DIRS = 200;

/**
 * The project a directory's hooks use when it is already known — `CAIRN_PROJECT`, or the id saved for
 * the repository root this directory was last found in — without running git. Null when unknown.
 * @param {Config} config @param {string} dir an absolute path
 */
export function knownProject(config, dir) {
	if (process.env.CAIRN_PROJECT) return process.env.CAIRN_PROJECT;
	const root = config.dirs?.[dir];
	return (root && config.projects?.[root]) || null;
}

/** Records that `dir` belongs to the repository at `root`. @param {Config} config @param {string} dir @param {string} root */
export function rememberDir(config, dir, root) {
	if (config.dirs?.[dir] === root) return false;
	const dirs = Object.entries(config.dirs ?? {}).filter(([d]) => d !== dir);
	config.dirs = Object.fromEntries([...dirs.slice(-(MAX_DIRS - 1)), [dir, root]]);
	return true;
}
