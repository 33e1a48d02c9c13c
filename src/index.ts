import { createApp } from "./app";
import { sweepOrphans } from "./maintenance/sweep";
import { handleExtractBatch } from "./pipeline/consumer";

export { ProjectCoordinator } from "./coordinator/project-coordinator";

const app = createApp();

export default {
	fetch: app.fetch,
	async queue(batch, env, _ctx) {
		await handleExtractBatch(batch, env);
	},
	async scheduled(_controller, env, ctx) {
		ctx.waitUntil(sweepOrphans(env).then((n) => console.log(`sweep: removed ${n} orphaned objects`)));
	},
} satisfies ExportedHandler<Env>;
