// The real Claude Code and Codex session files of the shared bench material (../shared/bench/transcripts),
// which the transcript tests run over. They are required: without them those tests would pass having read
// nothing, so their absence fails the files that use them, saying what is missing.
const found = import.meta.glob<string>("../../shared/bench/transcripts/*/*.jsonl", { query: "?raw", import: "default", eager: true });

/** Every bench transcript as [path, text], Claude Code's and Codex's; throws when either agent has none. @asserts */
export function benchTranscripts(): [string, string][] {
	const files = Object.entries(found);
	for (const agent of ["claude", "codex"])
		if (!files.some(([path]) => path.includes(`/transcripts/${agent}/`)))
			throw new Error(
				`no ${agent} session files under ../shared/bench/transcripts/${agent}/: the transcript tests need the bench material`,
			);
	return files;
}
