// The Node requirement is stated once and holds everywhere: the README, the root and CLI `engines`, the
// CLI's own check, and every installed package (so a supported Node installs without EBADENGINE warnings).
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";

const json = (file: string) => JSON.parse(readFileSync(file, "utf8"));
// semver comes with npm's own dependency tree here (it is what npm checks engines with).
const semver = createRequire(import.meta.url)("semver") as {
	satisfies: (v: string, range: string) => boolean;
	minVersion: (r: string) => { version: string };
};

describe("the Node requirement", () => {
	const root = json("package.json");
	const cli = json("packages/cli/package.json");
	const readme = readFileSync("README.md", "utf8");

	it("README, engines and the CLI's check say the same", () => {
		expect(root.engines.node).toBe(">=22.12");
		expect(readme).toContain("**Node.js 22.12 or newer**");
		expect(cli.engines.node).toBe(">=20");
		expect(readme).toContain("The\n`cairn` CLI on its own (the agents' hooks) needs Node.js 20 or newer");
		expect(readFileSync("packages/cli/cairn.mjs", "utf8")).toContain("if (major < 20)");
		expect(readme).not.toMatch(/Node(?:\.js)? 20 or newer \(the toolchain/);
	});

	it("every installed package accepts the oldest supported Node: no EBADENGINE on a supported one", () => {
		const oldest = semver.minVersion(root.engines.node).version;
		const lock = json("package-lock.json");
		const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>)
			.filter(([path, p]) => path && existsSync(path) && p.engines?.node && !semver.satisfies(oldest, p.engines.node))
			.map(([path, p]) => `${path} ${p.engines?.node}`);
		expect(refusing).toEqual([]);
	});

	it("the toolchain's pinned Node meets it, and no native module needs building", () => {
		const lock = json("package-lock.json");
		expect(semver.satisfies(lock.packages["node_modules/node"].version, root.engines.node)).toBe(true);
		const built = Object.entries(lock.packages as Record<string, { hasInstallScript?: boolean }>)
			.filter(([path, p]) => p.hasInstallScript && existsSync(path))
			.map(([path]) => path.replace(/^.*node_modules\//, ""));
		// esbuild and workerd fetch their binary from an npm package; node installs the pinned Node the same way.
		expect([...new Set(built)].sort()).toEqual(["esbuild", "node", "workerd"]);
		expect(JSON.stringify(root)).not.toContain("better-sqlite3");
	});
});
