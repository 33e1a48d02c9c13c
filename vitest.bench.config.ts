// Benchmark configuration: the same Worker and bindings as the tests, with the benchmark's input.
// Run through `npm run bench`, which writes the input file and reads the result.
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { workersPlugin } from "./vitest.workers";

const inputFile = process.env.CAIRN_BENCH_INPUT;
if (!inputFile) throw new Error("CAIRN_BENCH_INPUT is not set; run `npm run bench`");

export default defineConfig({
	// Server-Timing off, as deployed: the latency figures are the product's, not the instrumentation's.
	plugins: [
		await workersPlugin({ CAIRN_ADMIN_TOKEN: "bench-admin-token", CAIRN_SERVER_TIMING: "", BENCH_INPUT: readFileSync(inputFile, "utf8") }),
	],
	test: {
		include: ["bench/**/*.bench.ts"],
		setupFiles: ["./test/setup.ts"],
		testTimeout: 3_600_000,
	},
});
