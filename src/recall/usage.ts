import { projectStore } from "../project/client";
import type { ProjectContext } from "../storage/context";

/**
 * From the Worker: records what was served (and, for a session, which index lines alone and which topic lines it was shown)
 * in the project's object. Never fails the caller: a failure is logged. The caller awaits the promise
 * or hands it to waitUntil, off the response path.
 */
export function recordServedMemories(
	env: Env,
	ctx: ProjectContext,
	memoryIds: number[],
	sessionId?: string,
	listedIds: number[] = [],
	topicKeys: string[] = [],
): Promise<void> {
	if (memoryIds.length === 0 && ((listedIds.length === 0 && topicKeys.length === 0) || !sessionId)) return Promise.resolve();
	return projectStore(env, ctx.projectId)
		.recordServed(ctx, memoryIds, sessionId, listedIds, topicKeys)
		.catch((err) => console.error("recording served memories failed", err instanceof Error ? err.message : String(err)));
}
