// @ts-check
// `cairn list`, `show`, `edit` and `forget`: the memories themselves, through the REST API
// (GET/PUT/DELETE /v1/projects/{id}/memories/{name}, `?scope=personal|team`). A name is personal unless
// `--team` (or `--scope team`) says team; without either, `show` and `edit` read the personal memory of
// that name and else the team one, as the service does, and `forget` deletes a team memory only when told.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiError, describeError } from "./api.mjs";
import { choose } from "./choose.mjs";
import { nearest } from "./suggest.mjs";

export const NAME = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const TYPES = /** @type {const} */ (["user", "feedback", "project", "reference"]);
export const SCOPES = /** @type {const} */ (["personal", "team"]);

/** @typedef {ReturnType<typeof import("./api.mjs").client>} Api */
/** @typedef {(s: string) => void} Out */

/** The scope the command line asks for: `--scope personal|team`, or `--team`; undefined when neither. @param {Record<string, any>} values */
export function scopeOf(values) {
	if (values.scope !== undefined) {
		const scope = choose(values.scope, SCOPES, { what: "--scope", as: (k) => `--scope ${k}` });
		if (values.team && scope !== "team") throw new Error("--team and --scope personal ask for different scopes: give one");
		return scope;
	}
	return values.team ? "team" : undefined;
}

/** A memory name from the command line, or a refusal that says what one looks like. @param {unknown} name @param {string} usage */
export function memoryName(name, usage) {
	if (typeof name !== "string" || !name) throw new Error(usage);
	if (!NAME.test(name))
		throw new Error(
			`"${name.slice(0, 64)}" is not a memory name: lowercase letters, digits and '-', at most 64 (\`cairn list\` shows them)`,
		);
	return name;
}

/** Every memory of the project the key can see, page by page. @param {Api} c @param {string} projectId @param {{ scope?: string, type?: string }} [filter] */
export async function allMemories(c, projectId, filter = {}) {
	/** @type {any[]} */
	const memories = [];
	let cursor = "";
	do {
		const query = [
			"limit=1000",
			filter.scope ? `scope=${filter.scope}` : "",
			filter.type ? `type=${filter.type}` : "",
			cursor ? `cursor=${encodeURIComponent(cursor)}` : "",
		].filter(Boolean);
		const page = /** @type {any} */ (await c.get(`/v1/projects/${projectId}/memories?${query.join("&")}`));
		memories.push(...page.memories);
		cursor = page.nextCursor ?? "";
	} while (cursor);
	return memories;
}

/**
 * A 404 for a memory, as a refusal naming the nearest memory the project has. @param {Api} c
 * @param {string} projectId @param {string} name @param {string | undefined} scope
 */
async function notFound(c, projectId, name, scope) {
	const names = await allMemories(c, projectId, scope ? { scope } : {})
		.then((ms) => [...new Set(ms.map((m) => String(m.name)))])
		.catch(() => []);
	const near = nearest(name, names);
	return new Error(
		`no ${scope ? `${scope} ` : ""}memory named "${name}" in project ${projectId}${near ? `; did you mean \`${near}\`?` : ""} (\`cairn list\` shows them all)`,
	);
}

/** `?scope=…` when a scope is given. @param {string | undefined} scope */
const scopeQuery = (scope) => (scope ? `?scope=${scope}` : "");

/**
 * `cairn list [--type t] [--scope s | --team] [--json]`.
 * @param {Api} c @param {string} projectId @param {Record<string, any>} values @param {Out} out
 */
export async function listMemories(c, projectId, values, out) {
	const scope = scopeOf(values);
	const type = values.type === undefined ? undefined : choose(values.type, TYPES, { what: "--type", as: (k) => `--type ${k}` });
	const memories = await allMemories(c, projectId, { scope, type });
	if (values.json) return out(JSON.stringify({ memories }));
	if (memories.length === 0) {
		out(
			`no ${[type, scope].filter(Boolean).join(" ")}${type || scope ? " " : ""}memories in project ${projectId} — \`cairn remember "…"\` writes one`,
		);
		return;
	}
	for (const m of memories) out(`${m.scope === "team" ? "team/" : ""}${m.name} (${m.type}, ${m.scope}, v${m.version}) — ${m.description}`);
	out(`${memories.length} memor${memories.length === 1 ? "y" : "ies"}; \`cairn show <name>\` prints one`);
}

/**
 * `cairn show <name> [--team] [--json]`: the topic file as it is stored (frontmatter and body), or its
 * metadata and body as JSON.
 * @param {Api} c @param {string} projectId @param {string[]} args @param {Record<string, any>} values @param {Out} out
 */
export async function showMemory(c, projectId, args, values, out) {
	const name = memoryName(args[0], "usage: cairn show <name> [--team] [--json]");
	const scope = scopeOf(values);
	try {
		if (values.json) {
			const res = /** @type {any} */ (
				await c.request("GET", `/v1/projects/${projectId}/memories/${name}${scopeQuery(scope)}`, { accept: "application/json" })
			);
			return out(JSON.stringify(res));
		}
		out(
			/** @type {string} */ (
				await c.request("GET", `/v1/projects/${projectId}/memories/${name}${scopeQuery(scope)}`, { accept: "text/markdown" })
			),
		);
	} catch (err) {
		if (err instanceof ApiError && err.status === 404) throw await notFound(c, projectId, name, scope);
		throw err;
	}
}

/** A path as a shell reads it, inside single quotes. @param {string} s */
const shellQuoted = (s) => `'${s.replaceAll("'", "'\\''")}'`;

/** An error that leaves a file behind for the user: its path goes with the message (and into `--json`'s error). */
export class KeptError extends Error {
	/** @param {string} message @param {string} file @param {string} [code] */
	constructor(message, file, code) {
		super(message);
		this.file = file;
		this.code = code;
	}
}

/**
 * `cairn edit <name> [--team] [--json]`: the topic file in `$VISUAL` / `$EDITOR`, written back with
 * `If-Match` on the version it was read at. A version written meanwhile (412) writes nothing and keeps
 * the edited text in a file it names; so does any other refusal.
 * @param {Api} c @param {string} projectId @param {string[]} args @param {Record<string, any>} values @param {Out} out
 */
export async function editMemory(c, projectId, args, values, out) {
	const name = memoryName(args[0], "usage: cairn edit <name> [--team] [--json]");
	const editor = process.env.VISUAL || process.env.EDITOR || "";
	if (!editor && !process.stdin.isTTY)
		throw new Error("no editor: set EDITOR (or VISUAL) to the program that edits a file, e.g. EDITOR=nano cairn edit <name>");
	const scope = scopeOf(values);
	const path = `/v1/projects/${projectId}/memories/${name}`;
	/** @type {{ headers: Headers, body: any }} */
	let read;
	try {
		read = /** @type {any} */ (await c.request("GET", `${path}${scopeQuery(scope)}`, { accept: "text/markdown", full: true }));
	} catch (err) {
		if (err instanceof ApiError && err.status === 404) throw await notFound(c, projectId, name, scope);
		throw err;
	}
	const etag = read.headers.get("ETag") ?? "";
	const version = /\d+/.exec(etag)?.[0] ?? "?";
	// The scope of the memory read: a name without --team is the personal memory, else the team one.
	const json = /** @type {any} */ (await c.request("GET", `${path}${scopeQuery(scope)}`, { accept: "application/json" }));
	const at = /** @type {"personal" | "team"} */ (scope ?? json.memory.scope);
	const before = String(read.body);
	const dir = mkdtempSync(join(tmpdir(), "cairn-edit-"));
	const file = join(dir, `${name}.md`);
	writeFileSync(file, before);
	const ran = spawnSync(`${editor || "vi"} ${shellQuoted(file)}`, { shell: true, stdio: "inherit" });
	if (ran.error || ran.status !== 0)
		throw new KeptError(
			`the editor (${editor || "vi"}) ${ran.error ? `did not start: ${ran.error.message}` : `exited with ${ran.status ?? ran.signal}`}; nothing was written — your text is in ${file}`,
			file,
		);
	const after = readFileSync(file, "utf8");
	if (after === before) {
		rmSync(dir, { recursive: true, force: true });
		if (values.json) return out(JSON.stringify({ memory: json.memory, unchanged: true }));
		return out(`no change to ${name}; nothing written`);
	}
	let res;
	try {
		res = /** @type {any} */ (
			await c.request("PUT", `${path}?scope=${at}`, {
				body: after,
				contentType: "text/markdown",
				headers: { "If-Match": etag || `"${version}"` },
			})
		);
	} catch (err) {
		if (err instanceof ApiError && err.code === "version_conflict")
			throw new KeptError(
				`${name} changed on the service since you opened it at version ${version} (${err.message}); nothing was written — your edited text is in ${file}: \`cairn show ${name}${at === "team" ? " --team" : ""}\` shows the current version, then \`cairn edit ${name}${at === "team" ? " --team" : ""}\` and copy your changes over`,
				file,
				"version_conflict",
			);
		throw new KeptError(
			`${describeError(err)}; nothing was written — your edited text is in ${file}`,
			file,
			err instanceof ApiError ? err.code : undefined,
		);
	}
	if (res?.error?.code === "held_for_review") {
		if (values.json) return out(JSON.stringify(res));
		return out(
			`held the edit of ${name} for review: it asks for ${(res.error.details?.classes ?? []).join(", ")}; a project admin approves it before anyone is served it (your text is in ${file})`,
		);
	}
	rmSync(dir, { recursive: true, force: true });
	if (values.json) return out(JSON.stringify(res));
	out(`saved ${name} (${res.memory.type}, ${res.memory.scope}, version ${version} → ${res.memory.version})`);
}

/**
 * `cairn forget <name> [--team] [--json]`: deletes the memory and its history. Without `--team` the
 * personal one; a name that is only a team memory is refused with the flag that deletes it for everyone.
 * @param {Api} c @param {string} projectId @param {string[]} args @param {Record<string, any>} values @param {Out} out
 */
export async function forgetMemory(c, projectId, args, values, out) {
	const name = memoryName(args[0], "usage: cairn forget <name> [--team] [--json]");
	const scope = scopeOf(values) ?? "personal";
	try {
		await c.del(`/v1/projects/${projectId}/memories/${name}?scope=${scope}`);
	} catch (err) {
		if (!(err instanceof ApiError && err.status === 404)) throw err;
		if (scope === "personal") {
			const team = await c.get(`/v1/projects/${projectId}/memories/${name}?scope=team`).catch(() => null);
			if (team)
				throw new Error(
					`${name} is a team memory, not a personal one: \`cairn forget ${name} --team\` deletes it for everyone on the team`,
				);
		}
		throw await notFound(c, projectId, name, scope);
	}
	if (values.json) return out(JSON.stringify({ forgotten: { name, scope } }));
	out(`forgot ${scope === "team" ? "team memory " : ""}${name} and its history`);
}
