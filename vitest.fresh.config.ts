import { defineConfig } from "vitest/config";

// The newcomer's path (test/fresh): a fresh clone installed with an empty home and npm cache, the service
// on a port that is not the default, `cairn setup` and `cairn doctor` against it. Slow: it downloads every
// package, so it runs on its own (`npm run test:fresh`, `.ci/run`), not in `npm test`.
export default defineConfig({
	test: {
		name: "fresh",
		setupFiles: ["./test/each-guard.ts"],
		include: ["test/fresh/**/*.test.ts"],
		environment: "node",
		testTimeout: 25 * 60_000,
		hookTimeout: 120_000,
	},
});
