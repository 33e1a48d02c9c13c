import { ExtractMessageSchema } from "./messages";

/**
 * Queue consumer for the extract queue. Malformed messages are acknowledged and logged (retrying
 * cannot fix them); well-formed ones tell the project's coordinator that new material exists.
 */
export async function handleExtractBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	for (const message of batch.messages) {
		const parsed = ExtractMessageSchema.safeParse(message.body);
		if (!parsed.success) {
			console.warn("extract queue: dropping malformed message", message.id);
			message.ack();
			continue;
		}
		try {
			await env.PROJECT_COORDINATOR.getByName(parsed.data.projectId).markDirty();
			message.ack();
		} catch (err) {
			console.error("extract queue: coordinator unavailable", err instanceof Error ? err.message : String(err));
			message.retry({ delaySeconds: Math.min(300, 2 ** message.attempts * 5) });
		}
	}
}
