/**
 * The trust gate on what consolidation writes besides memories. A summary is served whole at session
 * start and has no review of its own, so a line the danger check flags (src/security/danger.ts) is left
 * out of it rather than held; the memories it summarises passed the gate one by one.
 */
import { assessDanger } from "../security/danger";

/** `text` without the lines (bullets, sentences on their own line) that the danger check flags. */
export function withoutFlaggedLines(text: string): string {
	return text
		.split("\n")
		.filter((line) => line.trim() === "" || assessDanger(line).length === 0)
		.join("\n");
}
