import { projectStore } from "../project/client";
import type { ProjectContext } from "../storage/context";

/** From the Worker: records what was served in the project's object, off the response path. */
export function servedInBackground(
	env: Env,
	waitUntil: (p: Promise<unknown>) => void,
	ctx: ProjectContext,
	memoryIds: number[],
	sessionId?: string,
): void {
	if (memoryIds.length === 0) return;
	waitUntil(
		projectStore(env, ctx.projectId)
			.recordServed(ctx, memoryIds, sessionId)
			.catch((err) => console.error("recording served memories failed", err instanceof Error ? err.message : String(err))),
	);
}
