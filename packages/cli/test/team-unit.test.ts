// The CLI's canonical topic-file form against the service's: the same `yaml` rendering and parse, so a
// file written by the CLI hashes as the service hashes it. Also the client-side secret check.

import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { parseTopicFile, readTeamFile, renderTopicFile, yamlString } from "../lib/canonical.mjs";
import { findSecrets } from "../lib/secrets.mjs";
import { touchedTeamFiles, withMarkers } from "../lib/team.mjs";

const SAMPLES = [
	"plain text",
	"a: b",
	"a:b",
	"- x",
	"x #y",
	"x#y",
	"#x",
	"true",
	"True",
	"null",
	"~",
	"123",
	"1.5",
	"0x1F",
	"1e3",
	".inf",
	"'q'",
	'"q"',
	"it's",
	'say "hi"',
	"both ' and \"",
	"café ☕",
	"tab\tin",
	"@at",
	"`bt",
	"!bang",
	"&amp",
	"*star",
	"%pc",
	"|pipe",
	"> gt",
	"{brace",
	"[br",
	"]x",
	"x]",
	"x, y",
	"x:",
	"?q",
	"? q",
	",c",
	"yes",
	"no",
	"on",
	"2024-01-01",
	"12:30",
	"1_000",
	"+1",
	"-1",
	"0o7",
	".5",
	"-",
	"--- x",
	"...",
	"a\\b",
	"emoji 😀",
	"= eq",
	"<<",
	"a  b",
	"nan",
	".NaN",
	"-.inf",
	"0b101",
	"x - y",
	"x !y",
	"x | y",
	"%",
	"'",
	'"',
	"x'",
	"\\",
	"déjà vu: oui",
	"12e",
	"a\u2028b",
	"\u007f",
	"0.",
	"+.5",
	"a\u0000b",
	"bell\u0007",
	"esc\u001b",
	"nbsp\u00a0x",
	"\u0085x",
	"lone \ud800 surrogate",
	"x\u0001y",
	"Deploys freeze from Friday 12:00 UTC: no exceptions",
	"see https://example.com/a#b",
];

describe("canonical topic files", () => {
	it("renders every scalar as the yaml package does (lineWidth 0)", () => {
		for (const s of SAMPLES) {
			expect(`description: ${yamlString(s)}\n`, JSON.stringify(s)).toBe(stringify({ description: s }, { lineWidth: 0 }));
		}
	});

	it("reads back each rendering as YAML does, and renders a parsed file identically", () => {
		for (const s of SAMPLES) {
			const d = s.trim();
			if (!d || /[\r\n]/.test(d)) continue;
			const text = renderTopicFile({ name: "n", type: "project", description: d, body: "Body" });
			const expected = `---\n${stringify({ name: "n", description: d, type: "project" }, { lineWidth: 0 })}---\n\nBody\n`;
			expect(text, JSON.stringify(s)).toBe(expected);
			const parsed = parseTopicFile(text);
			expect(parsed.description).toBe(parse(`d: ${yamlString(d)}`).d);
			expect(renderTopicFile(parsed)).toBe(text);
		}
	});

	it("normalises what the service normalises and refuses what it refuses", () => {
		const loose = readTeamFile(
			"deploys.md",
			"---\r\nname: 'deploys'\r\ntype: project   # the kind\r\ndescription:   \"No Friday deploys\"  \r\n---\r\nBody",
		);
		expect(loose.problem).toBeNull();
		expect(loose.canonical).toBe("---\nname: deploys\ndescription: No Friday deploys\ntype: project\n---\n\nBody\n");
		expect(readTeamFile("x.md", "---\nname: y\ndescription: d\ntype: user\n---\n").problem).toMatch(/must be "x"/);
		expect(readTeamFile("x.md", "---\nname: x\ndescription: 123\ntype: user\n---\n").problem).toMatch(/description/);
		expect(readTeamFile("x.md", "---\nname: x\ndescription: d\ntype: user\nmetadata: 1\n---\n").problem).toMatch(/only hold/);
		expect(readTeamFile("x.md", "no frontmatter").problem).toMatch(/frontmatter/);
	});
});

describe("client-side secret check", () => {
	it("finds common credentials and leaves prose and placeholders alone", () => {
		expect(findSecrets("token: ghp_0123456789abcdefghijABCDEFGHIJ0123456789")).toContain("github-token");
		expect(findSecrets("AWS key AKIAZ7QW3ERT5YUI8OPL in the CI env")).toContain("aws-access-key-id");
		expect(findSecrets("DATABASE_PASSWORD=Xk9#vQ2mLp7Rt")).toContain("secret-assignment");
		expect(findSecrets("postgres://app:S3cr3tPa55@db.internal:5432/app")).toContain("url-credentials");
		expect(findSecrets("-----BEGIN OPENSSH PRIVATE KEY-----\nabc\n-----END OPENSSH PRIVATE KEY-----")).toContain("private-key");
		expect(findSecrets("Rotate the API token every quarter; password=<your password>; api_key=$" + "{API_KEY}")).toEqual([]);
		expect(findSecrets("Integration tests use the real database, never mocks.")).toEqual([]);
	});
});

describe("team sync helpers", () => {
	it("conflict markers keep common lines once", () => {
		expect(withMarkers("a\nb\nc\n", "a\nB\nc\n")).toBe("a\n<<<<<<< local\nb\n=======\nB\n>>>>>>> server\nc\n");
	});

	it("finds team files in Claude Code's Write/Edit payloads and Codex's apply_patch input", () => {
		const dir = "/home/u/.claude/projects/-r/memory/team";
		expect(touchedTeamFiles({ tool_name: "Edit", tool_input: { file_path: `${dir}/deploys.md` } }, "/r", dir)).toEqual(["deploys.md"]);
		expect(touchedTeamFiles({ tool_name: "Write", tool_input: { file_path: "/r/src/a.md" } }, "/r", dir)).toEqual([]);
		expect(touchedTeamFiles({ tool_name: "Write", tool_input: { file_path: `${dir}/Notes.md` } }, "/r", dir)).toEqual([]);
		const patch = `*** Begin Patch\n*** Update File: ${dir}/testing.md\n@@\n-a\n+b\n*** End Patch`;
		expect(touchedTeamFiles({ tool_name: "apply_patch", tool_input: { command: patch } }, "/r", dir)).toEqual(["testing.md"]);
	});
});
