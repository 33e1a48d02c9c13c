// `npm start`'s launcher: the port and host from flags or PORT / HOST, refused clearly when malformed.
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Plain JavaScript outside the type-checked tree: loaded by path.
const launcher: {
	startOptions: (argv: string[], env: Record<string, string | undefined>) => { port: number; host: string; rest: string[] };
	localUrl: (host: string, port: number) => string;
} = await import(resolve("scripts/start.mjs"));
const { startOptions, localUrl } = launcher;

describe("npm start's port and host", () => {
	it("defaults to 127.0.0.1:8787; PORT / HOST set them; flags win; other flags go to wrangler", () => {
		expect(startOptions([], {})).toEqual({ port: 8787, host: "127.0.0.1", rest: [] });
		expect(startOptions([], { PORT: "8795", HOST: "0.0.0.0" })).toEqual({ port: 8795, host: "0.0.0.0", rest: [] });
		expect(startOptions(["--port", "8796", "--persist-to", "/tmp/x"], { PORT: "8795" })).toEqual({
			port: 8796,
			host: "127.0.0.1",
			rest: ["--persist-to", "/tmp/x"],
		});
		expect(startOptions(["--port=8797", "--ip", "::1"], {})).toMatchObject({ port: 8797, host: "::1" });
	});

	it("refuses a port or host it cannot use, saying what it expects", () => {
		expect(() => startOptions(["--port"], {})).toThrow("--port expects a value, e.g. --port 8795");
		expect(() => startOptions(["--port", "eighty"], {})).toThrow("the port must be a whole number from 1 to 65535");
		expect(() => startOptions([], { PORT: "70000" })).toThrow("e.g. PORT=8795 npm start");
		expect(() => startOptions(["--host", "a b"], {})).toThrow("the host must be an address or host name");
	});

	it("links to a wildcard address through the loopback", () => {
		expect(localUrl("127.0.0.1", 8795)).toBe("http://127.0.0.1:8795");
		expect(localUrl("0.0.0.0", 8795)).toBe("http://127.0.0.1:8795");
		expect(localUrl("::1", 8795)).toBe("http://[::1]:8795");
	});
});
