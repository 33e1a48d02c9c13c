import { MAX_ATTEMPTS, retryDelaySeconds } from "../pipeline/consumer";
import { ExtractMessageSchema } from "../pipeline/messages";
import { projectStore } from "../project/client";

/**
 * Queue consumer for the extract queue. Malformed messages are acknowledged and logged (retrying
 * cannot fix them). Each range runs in its project's object. A failed range is retried with backoff;
 * its error is recorded on the session, and after the last attempt the session shows `dead_letter`
 * as the queue moves the message aside.
 */
export async function handleExtractBatch(batch: MessageBatch<unknown>, env: Env): Promise<void> {
	for (const message of batch.messages) {
		const parsed = ExtractMessageSchema.safeParse(message.body);
		if (!parsed.success) {
			console.warn("extract queue: dropping malformed message", message.id);
			message.ack();
			continue;
		}
		const outcome = await projectStore(env, parsed.data.projectId).extractRange(parsed.data, message.attempts, MAX_ATTEMPTS);
		if (outcome === "lost-race") message.retry({ delaySeconds: 1 });
		else if (outcome === "failed") message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
		else message.ack();
	}
}
