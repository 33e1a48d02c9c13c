import { createApp } from "./app";
import { idleScanSlice, secretRescanSlice, sweepSlice } from "./worker/cron";
import { handleExtractBatch } from "./worker/queue";

export { ProjectCoordinator } from "./project/object";

const app = createApp();

export default {
	fetch: app.fetch,
	async queue(batch, env, _ctx) {
		await handleExtractBatch(batch, env);
	},
	async scheduled(_controller, env, ctx) {
		ctx.waitUntil(sweepSlice(env).then((r) => console.log(`sweep: removed ${r.removed} orphaned objects in ${r.projects} projects`)));
		ctx.waitUntil(idleScanSlice(env).then((r) => console.log(`idle scan: queued ${r.queued} sessions in ${r.projects} projects`)));
		ctx.waitUntil(
			secretRescanSlice(env).then((r) =>
				console.log(`secret re-scan: ${r.scanned} memories scanned, ${r.queued} queued for review in ${r.projects} projects`),
			),
		);
	},
} satisfies ExportedHandler<Env>;
