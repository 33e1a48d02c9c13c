import { defineConfig } from "vitest/config";
import { workersPlugin } from "./vitest.workers";

export default defineConfig({
	test: {
		projects: [
			{
				// The Worker, inside workerd against local D1, R2, Queues and Durable Objects.
				plugins: [await workersPlugin({ CAIRN_ADMIN_TOKEN: "test-admin-token", CAIRN_CONSOLE_SECRET: "test-console-secret" })],
				test: {
					name: "worker",
					include: ["test/**/*.test.ts"],
					exclude: ["test/node/**", "test/fresh/**"],
					// One runtime for every file (each test makes its own tenant and projects). With a fresh runtime
					// per file, the Worker's module graph is sent to each new one in a message past workerd's 1 MB
					// WebSocket limit once the console is part of it, and every file after the first fails.
					isolate: false,
					setupFiles: ["./test/each-guard.ts", "./test/setup.ts"],
					// Generous: some tests seed hundreds of memories or wait for the local queue; a loaded machine must not fail them.
					testTimeout: 30_000,
				},
			},
			{
				// Node-side checks that need no Worker: the deployment configuration as wrangler reads it.
				test: { name: "node", include: ["test/node/**/*.test.ts"], environment: "node", setupFiles: ["./test/each-guard.ts"] },
			},
			{
				// The `cairn` CLI, in Node, against the Worker running under `wrangler dev` (see packages/cli/test/global-setup.ts).
				test: {
					name: "cli",
					include: ["packages/cli/test/**/*.test.ts"],
					environment: "node",
					setupFiles: ["./test/each-guard.ts"],
					globalSetup: ["./packages/cli/test/global-setup.ts"],
					testTimeout: 60_000,
					hookTimeout: 120_000,
					fileParallelism: false,
				},
			},
		],
	},
});
