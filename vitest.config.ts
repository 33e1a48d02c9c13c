import { defineConfig } from "vitest/config";
import { workersPlugin } from "./vitest.workers";

export default defineConfig({
	plugins: [await workersPlugin({ CAIRN_ADMIN_TOKEN: "test-admin-token" })],
	test: {
		include: ["test/**/*.test.ts"],
		setupFiles: ["./test/setup.ts"],
		// Generous: some tests seed hundreds of memories or wait for the local queue; a loaded machine must not fail them.
		testTimeout: 30_000,
	},
});
