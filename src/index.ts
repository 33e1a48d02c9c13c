import { createApp } from "./app";
import { sweepOrphans } from "./maintenance/sweep";
import { handleExtractBatch } from "./pipeline/consumer";
import { scanIdleSessions } from "./pipeline/triggers";

export { ProjectCoordinator } from "./coordinator/project-coordinator";

const app = createApp();

export default {
	fetch: app.fetch,
	async queue(batch, env, _ctx) {
		await handleExtractBatch(batch, env);
	},
	async scheduled(_controller, env, ctx) {
		ctx.waitUntil(sweepOrphans(env).then((n) => console.log(`sweep: removed ${n} orphaned objects`)));
		ctx.waitUntil(scanIdleSessions(env).then((chosen) => console.log(`idle scan: queued ${chosen.length} sessions`)));
	},
} satisfies ExportedHandler<Env>;
