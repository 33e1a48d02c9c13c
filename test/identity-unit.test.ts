import { describe, expect, it } from "vitest";
import { CairnError } from "../src/errors";
import {
	canonicalKeyFromPath,
	canonicalKeyFromRemote,
	INVALID_REMOTE_MESSAGE,
	parseRemote,
	projectIdentity,
	RELATIVE_REMOTE_MESSAGE,
} from "../src/registry/identity";

/** The 400 projectIdentity throws, as {code, message, details}. */
function refusal(request: { gitRemote?: string; rootPath?: string }) {
	try {
		projectIdentity(request);
	} catch (err) {
		if (err instanceof CairnError) return { code: err.code, message: err.message, details: err.details };
		throw err;
	}
	throw new Error("expected a refusal");
}

describe("canonical project identity", () => {
	it("normalises the common remote syntaxes to one key", () => {
		const forms = [
			"git@github.com:acme/api.git",
			"https://github.com/acme/api",
			"https://github.com/acme/api.git",
			"ssh://git@github.com/acme/api",
			"ssh://git@github.com:22/acme/api.git",
			"git://github.com/acme/api.git",
			"https://token:x-oauth@github.com/Acme/API/",
			"GIT@GitHub.com:acme/api",
			"github.com:acme/api.git",
			"git+ssh://git@github.com/acme/api.git",
			"ssh+git://git@github.com/acme/api",
			"http://github.com/acme/api.git",
			"https://github.com/acme/api.git?ref=main#readme",
			"  git@github.com:acme/api.git\n",
		];
		for (const f of forms) {
			expect(canonicalKeyFromRemote(f), f).toBe("git:github.com/acme/api");
			expect(parseRemote(f).kind, f).toBe("url");
		}
	});

	it("drops credentials and ports from remote URLs", () => {
		expect(canonicalKeyFromRemote("https://ada:s3cr3t-pat@gitlab.example.com/group/app.git")).toBe("git:gitlab.example.com/group/app");
		expect(canonicalKeyFromRemote("https://oauth2:glpat-xxxxxxxxxxxx@gitlab.example.com:8443/group/app")).toBe(
			"git:gitlab.example.com/group/app",
		);
		expect(canonicalKeyFromRemote("https://ada:s3cr3t-pat@gitlab.example.com/group/app.git")).not.toContain("s3cr3t");
	});

	it("keeps nested groups and self-hosted hosts apart", () => {
		expect(canonicalKeyFromRemote("git@gitlab.example.com:group/sub/repo.git")).toBe("git:gitlab.example.com/group/sub/repo");
		expect(canonicalKeyFromRemote("https://gitlab.example.com/group/sub/repo")).toBe("git:gitlab.example.com/group/sub/repo");
		expect(canonicalKeyFromRemote("git@github.com:acme/api.git")).not.toBe(canonicalKeyFromRemote("git@gitlab.com:acme/api.git"));
	});

	it("rejects what is neither a remote nor a path", () => {
		for (const bad of [
			"",
			"   ",
			"https://github.com",
			"git@github.com:",
			"https://github.com/a/../b",
			"git@github.com:acme/a b",
			"https://github.com/acme/api\u0000",
			"file://",
			"/",
			"/.git",
			`https://github.com/${"a".repeat(2050)}`,
		]) {
			expect(canonicalKeyFromRemote(bad), bad).toBeNull();
			expect(parseRemote(bad).kind, bad).toBe("invalid");
		}
	});

	it("gives an absolute local-path remote a path: key, with .git dropped and case kept", () => {
		const forms: [string, string][] = [
			["/srv/git/tool.git", "path:/srv/git/tool"],
			["/srv/git/tool", "path:/srv/git/tool"],
			["/srv/git/tool.git/", "path:/srv/git/tool"],
			["/srv/git/./x/../tool.git", "path:/srv/git/tool"],
			["/home/dev/app/.git", "path:/home/dev/app"],
			["/Users/Ada/My Repos/Tool.git", "path:/Users/Ada/My Repos/Tool"],
			["file:///srv/git/tool.git", "path:/srv/git/tool"],
			["file://localhost/srv/git/tool.git", "path:/srv/git/tool"],
			["FILE:///srv/git/tool.git", "path:/srv/git/tool"],
			["C:\\repos\\tool.git", "path:/C:/repos/tool"],
			["C:/repos/tool.git", "path:/C:/repos/tool"],
			["file:///C:/repos/tool.git", "path:/C:/repos/tool"],
			["file://C:/repos/tool.git", "path:/C:/repos/tool"],
			["\\\\server\\share\\tool.git", "path:/server/share/tool"],
			["//server/share/tool.git", "path:/server/share/tool"],
			["file://server/share/tool.git", "path:/server/share/tool"],
		];
		for (const [remote, key] of forms) {
			expect(parseRemote(remote), remote).toEqual({ kind: "path", key });
			expect(canonicalKeyFromRemote(remote), remote).toBe(key);
		}
		// A clone of a working tree joins the project that tree registered by its root path.
		expect(canonicalKeyFromRemote("/home/dev/app")).toBe(canonicalKeyFromPath("/home/dev/app"));
		expect(canonicalKeyFromRemote("/srv/git/Tool.git")).not.toBe(canonicalKeyFromRemote("/srv/git/tool.git"));
	});

	it("recognises relative local-path remotes, which only the client can resolve", () => {
		for (const rel of [
			"../tool.git",
			"./tool.git",
			"..\\tool.git",
			"tool.git",
			"repos/tool",
			"~/repos/tool.git",
			"~ada/tool.git",
			"C:repos\\tool.git",
			"./a:b",
		]) {
			expect(parseRemote(rel), rel).toEqual({ kind: "relative" });
			expect(canonicalKeyFromRemote(rel), rel).toBeNull();
		}
	});

	it("normalises root paths", () => {
		expect(canonicalKeyFromPath("/home/dev/app/")).toBe("path:/home/dev/app");
		expect(canonicalKeyFromPath("/home/dev/./x/../app")).toBe("path:/home/dev/app");
		expect(canonicalKeyFromPath("C:\\Users\\dev\\app")).toBe("path:/C:/Users/dev/app");
		expect(canonicalKeyFromPath("/srv/tool.git")).toBe("path:/srv/tool.git");
		expect(canonicalKeyFromPath("relative")).toBeNull();
		expect(canonicalKeyFromPath("/a\0b")).toBeNull();
		expect(canonicalKeyFromPath("/a\nb")).toBeNull();
		expect(canonicalKeyFromPath(`/${"a".repeat(1024)}`)).toBeNull();
	});
});

describe("projectIdentity: what a client sends → the project key", () => {
	it("uses the remote when there is one, the root path otherwise", () => {
		expect(projectIdentity({ gitRemote: "git@github.com:acme/api.git" })).toEqual({
			canonicalKey: "git:github.com/acme/api",
			from: "gitRemote",
			rootPath: null,
		});
		expect(projectIdentity({ gitRemote: "git@github.com:acme/api.git", rootPath: "/home/dev/api" }).canonicalKey).toBe(
			"git:github.com/acme/api",
		);
		expect(projectIdentity({ gitRemote: "/srv/git/tool.git" })).toEqual({
			canonicalKey: "path:/srv/git/tool",
			from: "gitRemote",
			rootPath: null,
		});
		expect(projectIdentity({ rootPath: "/home/dev/api/" })).toEqual({
			canonicalKey: "path:/home/dev/api",
			from: "rootPath",
			rootPath: "/home/dev/api",
		});
		expect(projectIdentity({ gitRemote: "", rootPath: "/home/dev/api" }).from).toBe("rootPath");
	});

	it("falls back to rootPath for a relative remote, and otherwise says what to send", () => {
		expect(projectIdentity({ gitRemote: "../tool.git", rootPath: "/home/dev/tool" })).toEqual({
			canonicalKey: "path:/home/dev/tool",
			from: "rootPath",
			rootPath: "/home/dev/tool",
		});
		const relative = refusal({ gitRemote: "../tool.git" });
		expect(relative).toEqual({ code: "invalid_request", message: RELATIVE_REMOTE_MESSAGE, details: { field: "gitRemote" } });
		expect(relative.message).toContain("send rootPath");
		expect(relative.message).not.toContain("../tool.git");
	});

	it("refuses a bad remote, a bad root path and nothing at all, naming the field", () => {
		expect(refusal({ gitRemote: "https://github.com" })).toEqual({
			code: "invalid_request",
			message: INVALID_REMOTE_MESSAGE,
			details: { field: "gitRemote" },
		});
		// A bad remote is reported even when rootPath is sent: it is a mistake, not a missing remote.
		expect(refusal({ gitRemote: "https://github.com", rootPath: "/home/dev/api" }).details).toEqual({ field: "gitRemote" });
		expect(refusal({ rootPath: "relative/dir" })).toEqual({
			code: "invalid_request",
			message: "rootPath must be an absolute path",
			details: { field: "rootPath" },
		});
		expect(refusal({ gitRemote: "../tool.git", rootPath: "relative/dir" }).details).toEqual({ field: "rootPath" });
		expect(refusal({})).toEqual({ code: "invalid_request", message: "gitRemote or rootPath is required", details: { field: "gitRemote" } });
	});
});
