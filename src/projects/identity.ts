/**
 * Canonical project identity. Every clone and worktree of one repository must map to one key,
 * whatever remote syntax the client reports:
 *   git@github.com:a/b.git, https://github.com/a/b, ssh://git@github.com:22/a/b → git:github.com/a/b
 * Credentials in a remote URL are dropped before anything is stored.
 */
export function canonicalKeyFromRemote(remote: string): string | null {
	let s = remote.trim();
	if (!s || s.length > 2048 || /\s/.test(s)) return null;
	let host: string;
	let path: string;
	const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/\/)(.+)$/.exec(s);
	if (/^[a-z][a-z0-9+.-]*:\/\//i.test(s)) {
		s = s.replace(/^[a-z][a-z0-9+.-]*:\/\//i, "");
		const slash = s.indexOf("/");
		if (slash < 0) return null;
		host = s.slice(0, slash).replace(/^.*@/, "").replace(/:\d+$/, "");
		path = s.slice(slash + 1);
	} else if (scp?.[1] && scp[2]) {
		host = scp[1];
		path = scp[2];
	} else {
		return null;
	}
	path = path
		.replace(/[?#].*$/, "")
		.replace(/\/+$/, "")
		.replace(/\.git$/i, "")
		.replace(/^\/+/, "")
		.replace(/^~[^/]*\//, "");
	host = host.toLowerCase();
	if (!host || !path || path.split("/").some((seg) => seg === ".." || seg === "")) return null;
	// Hosting services treat owner and repository names case-insensitively.
	return `git:${host}/${path.toLowerCase()}`;
}

/** Identity for a project without a remote: its absolute root path, normalised. */
export function canonicalKeyFromPath(rootPath: string): string | null {
	let p = rootPath.trim().replace(/\\/g, "/");
	if (!p || p.length > 1024 || p.includes("\0")) return null;
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
