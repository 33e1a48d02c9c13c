import { clientSessionId } from "../sessions/turns";

/**
 * A memory's earlier values, kept in its body under "Earlier:" when a newer statement replaced them:
 *
 *     Earlier:
 *     - was "We deploy on Tuesdays" (session s-1, 2026-01-12) until 2026-02-18 (session s-4).
 *
 * Each line names the old value, the session that stated it (and when, where known), and the day and
 * session of the statement that replaced it. The reader sees an old value only as history; the API
 * and the console list every value with its session and date (`valueTimeline`).
 */

export interface EarlierValue {
	value: string;
	/** The session that stated the value, and its day (YYYY-MM-DD) when known. */
	session: string | null;
	since: string | null;
	/** The day and session of the statement that replaced it. */
	until: string;
	replacedBy: string | null;
}

const HEADING = "Earlier:";
const LINE =
	/^- was "(.*)"(?: \((?:session ([^,)]+))?(?:, )?(\d{4}-\d{2}-\d{2})?\))? until (\d{4}-\d{2}-\d{2})(?: \(session ([^)]+)\))?\.$/;

const day = (iso: string | null | undefined) => (iso && /^\d{4}-\d{2}-\d{2}/.test(iso) ? iso.slice(0, 10) : null);

function renderLine(e: EarlierValue): string {
	const origin = [e.session ? `session ${e.session}` : null, e.since].filter(Boolean).join(", ");
	const value = e.value.replace(/"/g, "'").replace(/\s+/g, " ").trim();
	return `- was "${value}"${origin ? ` (${origin})` : ""} until ${e.until}${e.replacedBy ? ` (session ${e.replacedBy})` : ""}.`;
}

/** The body's text without its "Earlier:" section, and the earlier values the section lists, oldest first. */
export function splitHistory(body: string): { text: string; earlier: EarlierValue[] } {
	const lines = body.split("\n");
	const at = lines.indexOf(HEADING);
	if (at < 0) return { text: body, earlier: [] };
	const earlier: EarlierValue[] = [];
	let end = at + 1;
	for (; end < lines.length; end++) {
		const m = LINE.exec(lines[end] ?? "");
		if (!m) break;
		earlier.push({
			value: m[1] ?? "",
			session: m[2] ?? null,
			since: m[3] ?? null,
			until: m[4] ?? "",
			replacedBy: m[5] ?? null,
		});
	}
	const text = [...lines.slice(0, at), ...lines.slice(end)]
		.join("\n")
		.replace(/\n{3,}/g, "\n\n")
		.trim();
	return { text, earlier };
}

/** The "Earlier:" section for a body (empty when there is nothing earlier). */
export const renderHistory = (earlier: EarlierValue[]) => (earlier.length ? `${HEADING}\n${earlier.map(renderLine).join("\n")}` : "");

/** Removes the "Earlier:" lines from a text: what a memory says is current. */
export const currentText = (text: string) => splitHistory(text).text;

/** An earlier value, from the statement replaced and the one replacing it (ISO times or days). */
export const earlierValue = (
	value: string,
	stated: { session: string | null; at?: string | null },
	replaced: { session: string | null; at?: string | null },
): EarlierValue => ({
	value,
	session: stated.session === null ? null : clientSessionId(stated.session),
	since: day(stated.at),
	until: day(replaced.at) ?? new Date().toISOString().slice(0, 10),
	replacedBy: replaced.session === null ? null : clientSessionId(replaced.session),
});

/** Every value a memory has held, oldest first, the current one last: what the API and the console show. */
export function valueTimeline(
	description: string,
	body: string,
	current: { session: string | null; updatedAt: string },
): { value: string; session: string | null; since: string | null; until: string | null; current: boolean }[] {
	const { earlier } = splitHistory(body);
	const last = earlier.at(-1);
	return [
		...earlier.map((e) => ({ value: e.value, session: e.session, since: e.since, until: e.until, current: false })),
		{
			value: description,
			session: last ? (last.replacedBy ?? current.session) : current.session,
			since: last ? last.until : day(current.updatedAt),
			until: null,
			current: true,
		},
	];
}
