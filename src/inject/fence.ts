/**
 * Memory text is data. It is placed in a backtick fence longer than any backtick run inside it, so
 * nothing in a memory can close the fence (CommonMark: a closing fence needs at least as many
 * backticks) and everything it says — headings, "ignore previous instructions", fake framing —
 * stays inside the quoted data.
 */
export function fence(content: string, info = "markdown"): string {
	const longest = Math.max(0, ...(content.match(/`+/g) ?? []).map((run) => run.length));
	const ticks = "`".repeat(Math.max(4, longest + 1));
	const body = content.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
	return `${ticks}${info}\n${body}\n${ticks}`;
}
