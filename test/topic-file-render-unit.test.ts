// The canonical file text and its body read back without a second YAML parse (a memory's JSON read):
// for any header and body, the body read from the rendered text is the body the full parser reads.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalBody, parseTopicFile, renderTopicFile } from "../src/memory/topic-file";

describe("canonical topic files", () => {
	it("canonicalBody reads what parseTopicFile reads, and renderTopicFile gives the same text for the same header", () => {
		fc.assert(
			fc.property(
				fc.stringMatching(/^[a-z0-9][a-z0-9-]{0,20}$/),
				fc.string({ minLength: 1, maxLength: 80 }).filter((d) => !/[\r\n]/.test(d) && d.trim() === d && d.length > 0),
				fc.constantFrom("user", "feedback", "project", "reference"),
				fc.string({ maxLength: 200 }),
				(name, description, type, body) => {
					const file = { name, description, type, body } as const;
					const text = renderTopicFile(file);
					expect(renderTopicFile(file)).toBe(text);
					expect(canonicalBody(text)).toBe(parseTopicFile(text).body);
				},
			),
			{ numRuns: 300 },
		);
	});
});
