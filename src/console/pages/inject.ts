// What the agent sees: the block a SessionStart hook receives for a query, within an agent's budget.
import { html } from "hono/html";
import { lookup, lookupTable } from "../../lib/lookup";
import { type Loose, seg } from "../api";
import { badInput, type ConsolePage, failure, loadProject, render } from "../context";
import { apiErrorNotice, empty, projectPath, selectOptions } from "../view";

/** The budgets the agents' hooks ask for (README, "What the hooks do"). */
const AGENTS: Readonly<Record<string, { label: string; budget: { maxTokens?: number; maxChars?: number } }>> = lookupTable({
	claude: { label: "Claude Code (maxChars 9,500)", budget: { maxChars: 9500 } },
	codex: { label: "Codex (maxTokens 2,500, maxChars 9,500)", budget: { maxTokens: 2500, maxChars: 9500 } },
	none: { label: "No agent limit (service default budget)", budget: {} },
});

export const injectRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/inject", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "inject" as const };
		const q = c.req.query("q") ?? "";
		const agent = c.req.query("agent") ?? "claude";
		const profile = lookup(AGENTS, agent);
		if (!profile) return badInput(c, "Unknown agent.", extra);
		const form = html`<h1>What the agent sees</h1>
<p class="muted">The block an agent's SessionStart hook receives for this query, within that agent's budget.</p>
<form method="get" action="${projectPath(project.id, "inject")}" class="filters">
<div class="field grow"><label for="q">Query <span class="muted small">(empty: what a session start with no task sees)</span></label><input id="q" name="q" type="search" class="wide" value="${q}" maxlength="8000"></div>
<div class="field"><label for="agent">Agent</label><select id="agent" name="agent">${selectOptions(
			Object.keys(AGENTS),
			agent,
			Object.fromEntries(Object.entries(AGENTS).map(([k, v]) => [k, v.label])),
		)}</select></div>
<button type="submit">Show</button></form>`;
		const body: Loose = { ...profile.budget };
		if (q) body.query = q;
		const r = await c.var.api("POST", `/v1/projects/${seg(project.id)}/inject`, { json: body });
		if (!r.ok) {
			if (r.status === 401) return failure(c, r, "Inject");
			return render(c, r.status, `Inject · ${project.name}`, html`${form}${apiErrorNotice(r.error, "Could not build the block")}`, extra);
		}
		const d = r.data;
		const parts = (d.parts ?? {}) as Loose;
		const mems = (parts.memories ?? []) as Loose[];
		return render(
			c,
			200,
			`Inject · ${project.name}`,
			html`${form}
<div class="stats" data-testid="inject-stats"><div>Tokens: <strong>${d.tokens}</strong>${profile.budget.maxTokens ? html` of ${profile.budget.maxTokens}` : ""}</div><div>Characters: <strong>${d.chars}</strong>${profile.budget.maxChars ? html` of ${profile.budget.maxChars}` : ""}</div><div>Truncated: <strong>${d.truncated ? "yes" : "no"}</strong></div></div>
<h2>What was cut</h2>
${((d.warnings ?? []) as string[]).length === 0 ? html`<p>Nothing was cut.</p>` : html`<ul>${((d.warnings ?? []) as string[]).map((w) => html`<li>${w}</li>`)}</ul>`}
<h2>Recalled memories in the block</h2>
${
	mems.length === 0
		? empty("No topic file was recalled for this query.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Memory</th><th scope="col">Type</th><th scope="col">Tokens</th><th scope="col">Cut</th><th scope="col">Matched terms</th></tr></thead>
<tbody>${mems.map((m) => html`<tr><td>${m.name}</td><td>${m.type}</td><td>${m.tokens}</td><td>${m.truncated ? "yes" : "no"}</td><td>${((m.matchedTerms ?? []) as string[]).join(", ")}</td></tr>`)}</tbody></table></div>`
}
<h2>The block</h2>
${d.text ? html`<pre class="text" tabindex="0" data-testid="inject-text">${d.text}</pre>` : empty("The block is empty.")}`,
			extra,
		);
	});
};
