// What is in front of the model: whether a memory's body or its index line is in a block an agent was handed.
// Read from the block's text, as the model reads it, not from the response's parts.

/** How a memory is in a block: its body (a `### memory://…` section), its index line (name and description), or not at all. */
export type Presence = "body" | "line" | null;

/** Index lines escape brackets so that a description cannot forge a link; the model reads them as written. */
const unescapeBrackets = (s: string) => s.replace(/\\([[\]])/g, "$1");

/** The lines of a block, unescaped once; a block is checked for many memories. */
export function blockLines(text: string): string[] {
	return text ? unescapeBrackets(text).split("\n") : [];
}

const nameAt = (line: string, name: string) => {
	let at = line.indexOf(name);
	while (at >= 0) {
		const before = line[at - 1] ?? " ";
		const after = line[at + name.length] ?? " ";
		if (!/[a-z0-9-]/.test(before) && !/[a-z0-9-]/.test(after)) return true;
		at = line.indexOf(name, at + 1);
	}
	return false;
};

/**
 * The body counts when the block holds the memory's section (`### memory://root/<name>.md` or its team
 * path); the line counts when one line names the memory and carries its whole description.
 */
export function presence(lines: string[], memory: { name: string; description: string }): Presence {
	const paths = [`### memory://root/${memory.name}.md`, `### memory://root/team/${memory.name}.md`];
	if (lines.some((l) => paths.some((p) => l.startsWith(p)))) return "body";
	const description = memory.description.trim();
	return lines.some((l) => nameAt(l, memory.name) && l.includes(description)) ? "line" : null;
}

/** The topic files a block names (`topics/<key>.md`), with the line that names each. */
export function topicLines(lines: string[]): Map<string, string> {
	const out = new Map<string, string>();
	for (const line of lines) for (const m of line.matchAll(/\btopics\/([a-z0-9][a-z0-9-]*)\.md/g)) if (m[1]) out.set(m[1], line);
	return out;
}

/** The memory names a topic file lists (its lines `- memory://root/<name>.md …`). */
export const topicMemberNames = (text: string): string[] =>
	[...text.matchAll(/^- memory:\/\/root\/(?:team\/)?([a-z0-9][a-z0-9-]*)\.md/gm)].map((m) => m[1] ?? "");
