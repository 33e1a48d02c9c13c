// Runs inside workerd (vitest.fuzz.config.ts) against real local D1, R2, Queues and Durable Objects,
// calling the Worker's own fetch entry point. Started by `npm run fuzz` (fuzz/run.ts), which passes
// seed and count and reads the result line.
import { env, exports } from "cloudflare:workers";
import { it } from "vitest";
import { SETTING_KEYS } from "../src/settings/settings";
import { runFuzz } from "./core";

const input = JSON.parse((env as unknown as { FUZZ_INPUT: string }).FUZZ_INPUT) as { seed: number; count: number };

it("fuzzes the Worker", { timeout: 3_600_000 }, async () => {
	const result = await runFuzz({
		seed: input.seed,
		count: input.count,
		adminToken: (env as unknown as { CAIRN_ADMIN_TOKEN: string }).CAIRN_ADMIN_TOKEN,
		fetch: (req) => exports.default.fetch(req),
		recordKeys: [...SETTING_KEYS],
		log: (line) => console.log(`[fuzz] ${line}`),
	});
	console.log(`CAIRN_FUZZ_RESULT ${JSON.stringify(result)}`);
});
