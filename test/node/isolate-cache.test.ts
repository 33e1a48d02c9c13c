// The isolate cache's two bounds: an entry lives at most its time, and a table holds at most its size.
import { describe, expect, it } from "vitest";
import { ISOLATE_CACHE_ENTRIES, ISOLATE_CACHE_SECONDS, IsolateCache } from "../../src/lib/isolate-cache";

describe("IsolateCache", () => {
	it("answers until the bound and not after it", () => {
		const cache = new IsolateCache<string>();
		cache.set("k", "v", 1_000);
		expect(cache.get("k", 1_000 + ISOLATE_CACHE_SECONDS * 1000 - 1)).toBe("v");
		expect(cache.get("k", 1_000 + ISOLATE_CACHE_SECONDS * 1000)).toBeUndefined();
		expect(cache.size).toBe(0);
	});

	it("holds at most its size, dropping the oldest first", () => {
		const cache = new IsolateCache<number>();
		for (let i = 0; i < ISOLATE_CACHE_ENTRIES + 50; i++) cache.set(`k${i}`, i, 0);
		expect(cache.size).toBe(ISOLATE_CACHE_ENTRIES);
		expect(cache.get("k0", 0)).toBeUndefined();
		expect(cache.get("k49", 0)).toBeUndefined();
		expect(cache.get("k50", 0)).toBe(50);
		expect(cache.get(`k${ISOLATE_CACHE_ENTRIES + 49}`, 0)).toBe(ISOLATE_CACHE_ENTRIES + 49);
	});

	it("drops what a change touched", () => {
		const cache = new IsolateCache<{ keyId: string }>();
		cache.set("a", { keyId: "k1" }, 0);
		cache.set("b", { keyId: "k2" }, 0);
		cache.drop((_, v) => v.keyId === "k1");
		expect(cache.get("a", 0)).toBeUndefined();
		expect(cache.get("b", 0)).toEqual({ keyId: "k2" });
	});
});
