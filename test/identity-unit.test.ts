import { describe, expect, it } from "vitest";
import { canonicalKeyFromPath, canonicalKeyFromRemote } from "../src/projects/identity";

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
		];
		for (const f of forms) expect(canonicalKeyFromRemote(f), f).toBe("git:github.com/acme/api");
	});

	it("keeps nested groups and self-hosted hosts apart", () => {
		expect(canonicalKeyFromRemote("git@gitlab.example.com:group/sub/repo.git")).toBe("git:gitlab.example.com/group/sub/repo");
		expect(canonicalKeyFromRemote("https://gitlab.example.com/group/sub/repo")).toBe("git:gitlab.example.com/group/sub/repo");
		expect(canonicalKeyFromRemote("git@github.com:acme/api.git")).not.toBe(canonicalKeyFromRemote("git@gitlab.com:acme/api.git"));
	});

	it("rejects what is not a remote", () => {
		for (const bad of ["", "   ", "not a remote", "https://github.com", "git@github.com:", "https://github.com/a/../b"]) {
			expect(canonicalKeyFromRemote(bad), bad).toBeNull();
		}
	});

	it("normalises root paths", () => {
		expect(canonicalKeyFromPath("/home/dev/app/")).toBe("path:/home/dev/app");
		expect(canonicalKeyFromPath("/home/dev/./x/../app")).toBe("path:/home/dev/app");
		expect(canonicalKeyFromPath("C:\\Users\\dev\\app")).toBe("path:/C:/Users/dev/app");
		expect(canonicalKeyFromPath("relative")).toBeNull();
		expect(canonicalKeyFromPath("/a\0b")).toBeNull();
	});
});
