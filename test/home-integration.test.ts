// GET /: a small page that says what answers here and links the console and the docs (not a JSON 404),
// JSON for Accept: application/json, and its place in the OpenAPI document as the one public operation.
import { describe, expect, it } from "vitest";
import { call, json } from "./helpers";

describe("GET /", () => {
	it("is a small HTML page linking the console, the OpenAPI document and the README", async () => {
		const res = await call("/", { headers: { Accept: "text/html,application/xhtml+xml,*/*;q=0.8" } });
		expect(res.status).toBe(200);
		expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
		expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
		const page = await res.text();
		expect(page).toContain('<a href="/console">');
		expect(page).toContain('<a href="/openapi.json">');
		expect(page).toContain("README.md");
		expect(page).toContain("cairn setup");
		expect(page).not.toContain("<script");
	});

	it("answers curl's */* with the page too, and JSON when asked for it", async () => {
		expect((await call("/", { headers: { Accept: "*/*" } })).headers.get("Content-Type")).toMatch(/^text\/html/);
		const res = await call("/", { headers: { Accept: "application/json" } });
		expect(res.status).toBe(200);
		const body = await json(res);
		expect(body).toMatchObject({
			service: "cairn",
			console: expect.stringMatching(/\/console$/),
			openapi: expect.stringMatching(/\/openapi\.json$/),
		});
		expect(body.docs).toContain("README.md");
		expect(body.next).toContain("cairn setup");
	});

	it("needs no key, ignores one, and other unknown paths stay JSON 404s", async () => {
		expect((await call("/", { token: "not-a-key" })).status).toBe(200);
		const missing = await call("/nothing-here");
		expect(missing.status).toBe(404);
		expect((await json(missing)).error.code).toBe("not_found");
	});

	it("is in the OpenAPI document, declared public: no security, marked x-cairn-public", async () => {
		const doc = await json(await call("/openapi.json"));
		const op = doc.paths["/"]?.get;
		expect(op).toBeDefined();
		expect(op.security).toEqual([]);
		expect(op["x-cairn-public"]).toBe(true);
		expect(Object.keys(op.responses["200"].content)).toEqual(["text/html", "application/json"]);
		// The only public operation: every other one names its caller.
		const publicOps = Object.entries(doc.paths as Record<string, Record<string, { security?: unknown[] }>>).flatMap(([path, item]) =>
			Object.entries(item)
				.filter(([, o]) => Array.isArray(o.security) && o.security.length === 0)
				.map(([method]) => `${method} ${path}`),
		);
		expect(publicOps).toEqual(["get /"]);
	});
});
