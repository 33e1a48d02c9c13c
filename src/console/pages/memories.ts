// A project's memories: the list, with search and filters by type, scope, source, age and cited code.
import { html } from "hono/html";
import { lookup, lookupTable } from "../../lib/lookup";
import { MEMORY_SOURCES, MEMORY_TYPES } from "../../memory/topic-file";
import { type Loose, seg } from "../api";
import { badInput, type ConsolePage, failure, loadProject, render } from "../context";
import { empty, flash, memoryPath, projectPath, SCOPES, selectOptions, when } from "../view";

const SOURCES = MEMORY_SOURCES;
const AGES: Readonly<Record<string, { label: string; test: (days: number) => boolean }>> = lookupTable({
	"1d": { label: "Changed in the last day", test: (d: number) => d <= 1 },
	"7d": { label: "Changed in the last 7 days", test: (d: number) => d <= 7 },
	"30d": { label: "Changed in the last 30 days", test: (d: number) => d <= 30 },
	older: { label: "Not changed for over 30 days", test: (d: number) => d > 30 },
});
const ageDays = (iso: string) => (Date.now() - Date.parse(iso)) / 86_400_000;
/** What the last check of a memory's cited code found (src/memory/code-check.ts). */
const CODE: Readonly<Record<string, { label: string; test: (state: string | null) => boolean }>> = lookupTable({
	changed: { label: "Cited code changed or gone", test: (s: string | null) => s === "changed" || s === "gone" },
	gone: { label: "Cited code all gone", test: (s: string | null) => s === "gone" },
	current: { label: "Cited code as written", test: (s: string | null) => s === "current" },
});

export const memoriesRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "memories" as const };
		const type = c.req.query("type") ?? "";
		const scope = c.req.query("scope") ?? "";
		const source = c.req.query("source") ?? "";
		const age = c.req.query("age") ?? "";
		const code = c.req.query("code") ?? "";
		if (code && !lookup(CODE, code)) return badInput(c, "Unknown cited-code filter.", extra);
		if (source && !(SOURCES as readonly string[]).includes(source)) return badInput(c, "Unknown source filter.", extra);
		if (age && !lookup(AGES, age)) return badInput(c, "Unknown age filter.", extra);
		const params = new URLSearchParams({ limit: "1000" });
		if (type) params.set("type", type);
		if (scope) params.set("scope", scope);
		const r = await c.var.api("GET", `/v1/projects/${seg(project.id)}/memories?${params}`);
		if (!r.ok) return failure(c, r, "Memories", extra);
		const all = (r.data.memories ?? []) as Loose[];
		const ageTest = age ? lookup(AGES, age)?.test : undefined;
		const codeTest = code ? lookup(CODE, code)?.test : undefined;
		const memories = all.filter(
			(m) =>
				(!source || m.source === source) && (!ageTest || ageTest(ageDays(m.updatedAt))) && (!codeTest || codeTest(m.codeState ?? null)),
		);
		const filtered = Boolean(type || scope || source || age || code);
		return render(
			c,
			200,
			`Memories · ${project.name}`,
			html`<h1>Memories <span class="muted small">${project.name}</span></h1>
${flash(c.req.query("msg"))}
<form method="get" action="${projectPath(project.id, "search")}" role="search" class="filters">
<div class="field grow"><label for="q">Search memories</label><input id="q" name="q" type="search" class="wide" placeholder="what is the task?" maxlength="8000"></div>
<button type="submit">Search</button>
</form>
<form method="get" action="${projectPath(project.id)}" class="filters" aria-label="Filter memories">
<div class="field"><label for="f-type">Type</label><select id="f-type" name="type"><option value="">Any type</option>${selectOptions(MEMORY_TYPES, type)}</select></div>
<div class="field"><label for="f-scope">Scope</label><select id="f-scope" name="scope"><option value="">Any scope</option>${selectOptions(SCOPES, scope)}</select></div>
<div class="field"><label for="f-source">Source</label><select id="f-source" name="source"><option value="">Any source</option>${selectOptions(SOURCES, source)}</select></div>
<div class="field"><label for="f-age">Age</label><select id="f-age" name="age"><option value="">Any age</option>${selectOptions(
				Object.keys(AGES),
				age,
				Object.fromEntries(Object.entries(AGES).map(([k, v]) => [k, v.label])),
			)}</select></div>
<div class="field"><label for="f-code">Cited code</label><select id="f-code" name="code"><option value="">Any</option>${selectOptions(
				Object.keys(CODE),
				code,
				Object.fromEntries(Object.entries(CODE).map(([k, v]) => [k, v.label])),
			)}</select></div>
<button type="submit" class="secondary">Apply filters</button>
</form>
${
	memories.length === 0
		? empty(
				filtered
					? "No memories match these filters."
					: html`No memories yet. They appear when agents write them or when sessions are extracted and consolidated (see <a href="${projectPath(project.id, "pipeline")}">Pipeline</a>).`,
			)
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table>
<caption class="muted small">${memories.length} of ${all.length} memor${all.length === 1 ? "y" : "ies"}${r.data.nextCursor ? " (first 1,000 only)" : ""}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Description</th><th scope="col">Type</th><th scope="col">Scope</th><th scope="col" class="hide-narrow">Source</th><th scope="col" class="hide-narrow">Updated</th><th scope="col" class="hide-narrow">Version</th></tr></thead>
<tbody>${memories.map(
				(m) => html`<tr>
<td><a href="${memoryPath(project.id, m.name, m.scope)}">${m.name}</a>${m.proposedScope ? html` <span class="badge">proposed: ${m.proposedScope}</span>` : ""}${m.archivedAt ? html` <span class="badge">archived</span>` : ""}${m.codeState === "changed" || m.codeState === "gone" ? html` <span class="badge">code ${m.codeState}</span>` : ""}</td>
<td>${m.description}</td><td>${m.type}</td><td>${m.scope}</td><td class="hide-narrow">${m.source}${m.sessionId ? html`<br><span class="small muted">${m.sessionId}</span>` : ""}</td>
<td class="hide-narrow">${when(m.updatedAt)}</td><td class="hide-narrow">${m.version}</td></tr>`,
			)}</tbody></table></div>`
}`,
			extra,
		);
	});
};
