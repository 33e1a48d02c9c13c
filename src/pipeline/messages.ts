import { z } from "zod";

/** One queue message = one session range to extract. Pointers only: queue messages cap at 128 KB. */
export const ExtractMessageSchema = z.object({
	projectId: z.string().min(1).max(64),
	sessionId: z.string().min(1).max(128),
	fromSeq: z.number().int().min(0),
	toSeq: z.number().int().min(0),
});
export type ExtractMessage = z.infer<typeof ExtractMessageSchema>;
