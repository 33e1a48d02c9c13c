import { defineConfig } from "vitest/config";

// The real agents (agents/agents.test.ts): Claude Code and Codex from npm, pinned in agents/package.json
// and installed there by `npm run test:agents`, against the Worker under `wrangler dev` (the CLI tests'
// global setup) and a local stand-in for their model APIs.
export default defineConfig({
	test: {
		name: "agents",
		setupFiles: ["./test/each-guard.ts"],
		include: ["agents/**/*.test.ts"],
		environment: "node",
		globalSetup: ["./packages/cli/test/global-setup.ts"],
		testTimeout: 180_000,
		hookTimeout: 180_000,
		fileParallelism: false,
	},
});
