// Search: recall for a query, with the trace of why each candidate ranked where it did.
import { html } from "hono/html";
import { type Loose, seg } from "../api";
import { type ConsolePage, failure, loadProject, render } from "../context";
import { apiErrorNotice, empty, memoryPath, notice, projectPath, SCOPES, selectOptions } from "../view";

/** A number as the trace shows it: three decimals, or three significant digits when smaller (a BM25 of 1.2e-6 is not 0.000). */
export const fmt = (n: unknown) =>
	typeof n === "number"
		? Number.isInteger(n)
			? String(n)
			: Math.abs(n) < 0.0005 && n !== 0
				? n.toPrecision(3)
				: n.toFixed(3)
		: n == null
			? ""
			: String(n);

/** A recall score (0–1) as every surface prints it: two decimals, `0.83`. */
export const scoreText = (n: unknown) => (typeof n === "number" && Number.isFinite(n) ? n.toFixed(2) : "");

/** A service warning, with the fix when it is the one that empties every answer: memory switched off. */
export const warningText = (w: string, projectId: string) =>
	w.includes("memories.enabled")
		? html`${w}. Nothing is recalled or injected until it is on: turn on <code>memories.enabled</code> in <a href="${projectPath(projectId, "settings")}">Settings</a>, or run <code>cairn init</code> in the repository.`
		: w;

/** What a traced candidate matched: words, the concepts and cues that brought it in, the time the query names. */
export function matchedCell(t: Loose) {
	const list = (v: unknown) => (Array.isArray(v) ? (v as string[]) : []);
	const parts = [
		list(t.matchedTerms).length ? html`<div>words: ${list(t.matchedTerms).join(", ")}</div>` : "",
		list(t.concepts).length ? html`<div>concepts: ${list(t.concepts).join(", ")}</div>` : "",
		list(t.cues).length ? html`<div>cues: ${list(t.cues).map((c, i) => html`${i ? "; " : ""}“${c}”`)}</div>` : "",
		t.dated ? html`<div>written when the query says</div>` : "",
		typeof t.neighbourOf === "string" ? html`<div>written next to ${t.neighbourOf}</div>` : "",
		typeof t.similarity === "number" ? html`<div>meaning: similarity ${fmt(t.similarity)}</div>` : "",
	].filter(Boolean);
	return parts.length ? parts : html`<span class="muted">nothing</span>`;
}

export const searchRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/search", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "search" as const };
		const q = c.req.query("q") ?? "";
		const engine = c.req.query("engine") ?? "";
		const scope = c.req.query("scope") ?? "";
		const form = html`<h1>Search</h1>
<form method="get" action="${projectPath(project.id, "search")}" role="search" class="filters">
<div class="field grow"><label for="q">Query</label><input id="q" name="q" type="search" class="wide" value="${q}" required maxlength="8000"></div>
<div class="field"><label for="s-scope">Scope</label><select id="s-scope" name="scope"><option value="">Both</option>${selectOptions(SCOPES, scope)}</select></div>
<div class="field"><label for="s-engine">Engine</label><select id="s-engine" name="engine"><option value="">Service default</option>${selectOptions(["lexical", "llm"], engine)}</select></div>
<button type="submit">Search</button></form>`;
		if (!q.trim())
			return render(
				c,
				200,
				`Search · ${project.name}`,
				html`${form}${empty("Type what the agent is about to do; recall shows the memories that matter and why each ranked where it did.")}`,
				extra,
			);
		const body: Loose = { query: q, trace: true, limit: 10 };
		if (engine) body.engine = engine;
		if (scope) body.scope = scope;
		const r = await c.var.api("POST", `/v1/projects/${seg(project.id)}/recall`, { json: body });
		if (!r.ok) {
			if (r.status === 401) return failure(c, r, "Search");
			return render(c, r.status, `Search · ${project.name}`, html`${form}${apiErrorNotice(r.error, "Search failed")}`, extra);
		}
		const memories = (r.data.memories ?? []) as Loose[];
		const trace = (r.data.trace?.candidates ?? []) as Loose[];
		const columns = ["rankingScore", "bm25", "typePrior", "freshness", "coverage", "lexicalRank", "similarity", "vectorRank"].filter((k) =>
			trace.some((t) => t[k] !== undefined),
		);
		return render(
			c,
			200,
			`Search · ${project.name}`,
			html`${form}
<div class="stats"><div>Engine: <strong>${r.data.engine}</strong></div><div>Retrieval: <strong>${r.data.retrieval}</strong></div>${r.data.fallbackReason ? html`<div>Fallback: ${r.data.fallbackReason}</div>` : ""}${r.data.retrievalNote ? html`<div>${r.data.retrievalNote}</div>` : ""}</div>
${((r.data.warnings ?? []) as string[]).map((w) => notice("info", warningText(w, project.id)))}
<h2>Results</h2>
${
	memories.length === 0
		? empty("No memory matches this query.")
		: html`<ol>${memories.map(
				(m) =>
					html`<li><a href="${memoryPath(project.id, m.name, m.scope)}">${m.name}</a> <span class="badge">${m.type}</span> <span class="badge">${m.scope}</span> <span class="small muted">score ${scoreText(m.score)}, ${m.ageDays} day${m.ageDays === 1 ? "" : "s"} old</span><br>${m.description}</li>`,
			)}</ol>`
}
<h2 id="trace">Why: the recall trace</h2>
<p class="small muted">Query terms: ${((r.data.trace?.terms ?? []) as string[]).map((t) => html`<code>${t}</code> `)}${((r.data.trace?.concepts ?? []) as string[]).length ? html`; concepts: ${((r.data.trace?.concepts ?? []) as string[]).map((t) => html`<code>${t}</code> `)}` : ""}. Score: 0–1, the ranking score as a share of the best this search could hold, in ranking order. The ranking score (rankingScore) is BM25 (words, and at half weight the cue index of cues and concepts) × type prior × freshness × coverage of the query's terms, and the first candidate's reads 1; with hybrid retrieval it is the reciprocal-rank share of the two lists, and first place in both reads 1.</p>
${
	trace.length === 0
		? empty("No candidate matched any query term.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table data-testid="trace"><thead><tr><th scope="col">Memory</th><th scope="col">Scope</th><th scope="col">Decision</th><th scope="col">Score</th>${columns.map((k) => html`<th scope="col">${k}</th>`)}<th scope="col">Matched</th></tr></thead>
<tbody>${trace.map(
				(t) =>
					html`<tr><td>${t.name}</td><td>${t.scope}</td><td>${t.decision}</td><td>${scoreText(t.score)}</td>${columns.map((k) => html`<td>${fmt(t[k])}</td>`)}<td>${matchedCell(t)}</td></tr>`,
			)}</tbody></table></div>`
}`,
			extra,
		);
	});
};
