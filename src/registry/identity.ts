/**
 * Canonical project identity. Every clone and worktree of one repository must map to one key,
 * whatever remote syntax the client reports:
 *   git@github.com:a/b.git, https://github.com/a/b, ssh://git@github.com:22/a/b → git:github.com/a/b
 * Credentials in a remote URL are dropped before anything is stored.
 *
 * A remote that is a local path (`/srv/git/tool.git`, `file:///srv/git/tool.git`,
 * `C:\repos\tool.git`, `\\server\share\tool.git`) names a repository on the client's filesystem, so
 * it gets the same kind of key as a root path: `path:/srv/git/tool` — normalised like a root path,
 * with a trailing `.git` or `/.git` dropped (git itself finds `tool.git` when asked for `tool`, and
 * `repo/.git` is the repository of `repo`), case kept (paths may be case-sensitive). So every clone
 * of `/srv/git/tool.git` shares one project, and a clone of a working tree at `/home/dev/app` shares
 * the project that `/home/dev/app` registered by its root path. A relative remote (`../tool.git`,
 * `~/tool.git`) means nothing on the server: the client resolves it, or sends `rootPath` instead.
 */
import { z } from "zod";
import { badRequest } from "../errors";

export const MAX_REMOTE_LENGTH = 2048;
export const MAX_ROOT_PATH_LENGTH = 1024;
export const MAX_PROJECT_NAME_LENGTH = 200;

/** The `gitRemote` and `rootPath` inputs, with the same limits wherever a project is named. */
export const GitRemoteSchema = z.string().max(MAX_REMOTE_LENGTH);
export const RootPathSchema = z.string().max(MAX_ROOT_PATH_LENGTH);
/** A project's display name. */
export const ProjectNameSchema = z.string().trim().min(1).max(MAX_PROJECT_NAME_LENGTH);

/** What a remote string is: a URL (or scp-like address), an absolute local path, a relative path, or neither. */
export type RemoteIdentity = { kind: "url" | "path"; key: string } | { kind: "relative" } | { kind: "invalid" };

const INVALID: RemoteIdentity = { kind: "invalid" };
const hasControl = (s: string) => [...s].some((ch) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f);
const DRIVE = /^[A-Za-z]:/;
const ABSOLUTE_DRIVE = /^[A-Za-z]:[\\/]/;

export function parseRemote(remote: string): RemoteIdentity {
	const s = remote.trim();
	if (!s || s.length > MAX_REMOTE_LENGTH || hasControl(s)) return INVALID;

	const file = /^file:\/\/([^/\\]*)(.*)$/i.exec(s);
	if (file) {
		const host = file[1] ?? "";
		let path = file[2] ?? "";
		if (DRIVE.test(host))
			path = host + path; // file://C:/repos/tool.git
		else if (/^[\\/][A-Za-z]:[\\/]/.test(path))
			path = path.slice(1); // file:///C:/repos/tool.git
		else if (host && host.toLowerCase() !== "localhost") path = `//${host}${path}`; // file://server/share → UNC
		return localPath(path);
	}

	// git's own rule: a path when there is no colon, a slash before the first colon, or a drive letter.
	const colon = s.indexOf(":");
	const slash = s.search(/[\\/]/);
	if (colon < 0 || (slash >= 0 && slash < colon) || DRIVE.test(s)) {
		return s.startsWith("/") || s.startsWith("\\\\") || ABSOLUTE_DRIVE.test(s) ? localPath(s) : { kind: "relative" };
	}

	if (/\s/.test(s)) return INVALID;
	let host: string;
	let path: string;
	let rest = s;
	const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(rest);
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
		rest = rest.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
		const at = rest.indexOf("/");
		if (at < 0) return INVALID;
		host = rest.slice(0, at).replace(/^.*@/, "").replace(/:\d+$/, "");
		path = rest.slice(at + 1);
	} else if (scp?.[1] && scp[2]) {
		host = scp[1];
		path = scp[2];
	} else {
		return INVALID;
	}
	path = path
		.replace(/[?#].*$/, "")
		.replace(/\/+$/, "")
		.replace(/\.git$/i, "")
		.replace(/^\/+/, "")
		.replace(/^~[^/]*\//, "");
	host = host.toLowerCase();
	if (!host || !path || path.split("/").some((seg) => seg === ".." || seg === "")) return INVALID;
	// Hosting services treat owner and repository names case-insensitively.
	return { kind: "url", key: `git:${host}/${path.toLowerCase()}` };
}

/** An absolute local path of a repository (bare or not) as a `path:` key. */
function localPath(path: string): RemoteIdentity {
	const key = canonicalKeyFromPath(path);
	if (!key) return INVALID;
	const repo = key.replace(/\/\.git$/i, "").replace(/\.git$/i, "");
	return repo === "path:" || repo === "path:/" ? INVALID : { kind: "path", key: repo };
}

/** The canonical key of a remote (URL, scp-like address or absolute local path); null otherwise. */
export function canonicalKeyFromRemote(remote: string): string | null {
	const parsed = parseRemote(remote);
	return parsed.kind === "url" || parsed.kind === "path" ? parsed.key : null;
}

/** Identity for a project without a usable remote: its absolute root path, normalised. */
export function canonicalKeyFromPath(rootPath: string): string | null {
	let p = rootPath.trim().replace(/\\/g, "/");
	if (!p || p.length > MAX_ROOT_PATH_LENGTH || hasControl(p)) return null;
	if (!p.startsWith("/") && !/^[A-Za-z]:\//.test(p)) return null;
	const parts: string[] = [];
	for (const seg of p.split("/")) {
		if (seg === "" || seg === ".") continue;
		if (seg === "..") parts.pop();
		else parts.push(seg);
	}
	p = `/${parts.join("/")}`;
	return `path:${p}`;
}

export const RELATIVE_REMOTE_MESSAGE =
	"gitRemote is a relative path, which only the client can resolve: send rootPath (the repository's absolute root path) instead, or the remote resolved to an absolute path";
export const INVALID_REMOTE_MESSAGE =
	"gitRemote is not a recognisable git remote: send a URL (https://host/owner/repo, ssh://…, git@host:owner/repo.git) or an absolute path, or send rootPath instead";

/**
 * The one resolution of a project's identity from what a client sends (REST registration and MCP
 * tools alike). `gitRemote` wins; a relative `gitRemote` cannot name anything on the server, so
 * `rootPath` is used when it is sent too, and otherwise the 400 says what to send.
 * `rootPath` in the result is set only when the key came from it (it is stored with the project).
 */
export function projectIdentity(request: { gitRemote?: string | null; rootPath?: string | null }): {
	canonicalKey: string;
	from: "gitRemote" | "rootPath";
	rootPath: string | null;
} {
	if (request.gitRemote) {
		const remote = parseRemote(request.gitRemote);
		if (remote.kind === "url" || remote.kind === "path") return { canonicalKey: remote.key, from: "gitRemote", rootPath: null };
		if (remote.kind === "invalid") throw badRequest(INVALID_REMOTE_MESSAGE, { field: "gitRemote" });
		if (!request.rootPath) throw badRequest(RELATIVE_REMOTE_MESSAGE, { field: "gitRemote" });
	}
	if (!request.rootPath) throw badRequest("gitRemote or rootPath is required", { field: "gitRemote" });
	const canonicalKey = canonicalKeyFromPath(request.rootPath);
	if (!canonicalKey) throw badRequest("rootPath must be an absolute path", { field: "rootPath" });
	return { canonicalKey, from: "rootPath", rootPath: canonicalKey.slice("path:".length) };
}
