import { describe, expect, it } from "vitest";
import { adjacentPairs } from "../src/recall/ranking";

describe("query words standing next to each other", () => {
	it("counts a pair within two words, and the words between them count as positions whatever they are", () => {
		expect(adjacentPairs("support group meeting", ["support", "group"])).toBe(1);
		expect(adjacentPairs("support the group", ["support", "group"])).toBe(1);
		expect(adjacentPairs("support of the group", ["support", "group"])).toBe(0);
		expect(adjacentPairs("supported 이 groups", ["support", "group"])).toBe(1);
		expect(adjacentPairs("supporting x y z groups", ["support", "group"])).toBe(0);
		// Words shorter than every prefix, and words starting like none, still move the position.
		expect(adjacentPairs("support a b group", ["support", "group"])).toBe(0);
		expect(adjacentPairs("group support", ["support", "group"])).toBe(0);
	});
});
