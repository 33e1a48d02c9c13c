// Fuzz configuration: the same Worker and bindings as the tests, running fuzz/worker.fuzz.ts inside
// workerd. Started by `npm run fuzz` (fuzz/run.ts), which passes seed and count and reads the result line.
import { defineConfig } from "vitest/config";
import { workersPlugin } from "./vitest.workers";

export default defineConfig({
	plugins: [
		await workersPlugin({
			CAIRN_ADMIN_TOKEN: "fuzz-admin-token",
			FUZZ_INPUT: JSON.stringify({
				seed: Number(process.env.CAIRN_FUZZ_SEED ?? 1),
				count: Number(process.env.CAIRN_FUZZ_COUNT ?? 10_000),
				dump: process.env.CAIRN_FUZZ_DUMP === "1",
			}),
		}),
	],
	test: {
		include: ["fuzz/**/*.fuzz.ts"],
		setupFiles: ["./test/setup.ts"],
		testTimeout: 3_600_000,
	},
});
