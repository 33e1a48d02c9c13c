import { defineConfig } from "vitest/config";

// The console in a real Chromium (Debian's /usr/bin/chromium, or CHROMIUM_PATH) against the Worker under
// `wrangler dev`: `npm run test:browser`. Screenshots go to browser/screenshots/ (git-ignored).
export default defineConfig({
	test: {
		name: "browser",
		setupFiles: ["./test/each-guard.ts"],
		include: ["browser/**/*.test.ts"],
		environment: "node",
		globalSetup: ["./browser/global-setup.ts"],
		testTimeout: 120_000,
		hookTimeout: 180_000,
		fileParallelism: false,
	},
});
