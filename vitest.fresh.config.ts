import { defineConfig } from "vitest/config";

// The newcomer's path (test/fresh): a fresh clone with an empty home and npm cache, running the README's
// agent path as written (install, `npm start` on a port that is not the default and watched for outbound
// requests, the CLI, `cairn setup`, the first memory, what the agent sees), then `cairn doctor`. Slow: it
// downloads every package, so it runs on its own (`npm run test:fresh`, `.ci/run`), not in `npm test`.
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
