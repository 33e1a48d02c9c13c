// A memory's values over time: each value it has held, with the session that stated it and its days —
// what a newer statement replaced in place.
import { html } from "hono/html";
import type { Loose } from "../api";

/** The "Values over time" section of a memory's page; nothing when the memory has only ever held one value. */
export function valuesSection(values: Loose[]) {
	if (values.length < 2) return "";
	return html`<h2 id="values">Values over time</h2>
<p class="small muted">A newer statement about the same subject replaced the value in place; the earlier ones are kept here and in the topic file, never served as current.</p>
<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table data-testid="memory-values"><thead><tr><th scope="col">Value</th><th scope="col">Stated in session</th><th scope="col">From</th><th scope="col">Until</th></tr></thead>
<tbody>${values.map(
		(v) =>
			html`<tr${v.current ? html` class="current"` : ""}><td>${v.value}${v.current ? html` <strong>(current)</strong>` : ""}</td><td>${v.session ?? "—"}</td><td>${v.since ?? "—"}</td><td>${v.until ?? "now"}</td></tr>`,
	)}</tbody></table></div>`;
}
