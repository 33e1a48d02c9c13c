// What the agent sees: the block a SessionStart hook receives for a query, within an agent's budget.
import { html } from "hono/html";
import { lookup, lookupTable } from "../../lib/lookup";
import { type Loose, seg } from "../api";
import { badInput, type ConsolePage, failure, loadProject, render } from "../context";
import { apiErrorNotice, empty, projectPath, selectOptions } from "../view";
import { fmt, matchedCell, scoreText, warningText } from "./search";

/** The budgets the agents' hooks ask for (README, "What the hooks do"). */
const AGENTS: Readonly<Record<string, { label: string; budget: { maxTokens?: number; maxChars?: number } }>> = lookupTable({
	claude: { label: "Claude Code (maxChars 9,500)", budget: { maxChars: 9500 } },
	codex: { label: "Codex (maxTokens 2,500, maxChars 9,500)", budget: { maxTokens: 2500, maxChars: 9500 } },
	none: { label: "No agent limit (service default budget)", budget: {} },
});

/** Why each candidate was served to the prompt or held back, and what it matched. */
const whyTable = (trace: Loose[]) =>
	html`<h2 id="why">Why: each candidate, served or held back</h2>
<p class="small muted">Evidence: the weight of what the memory matched in this prompt, which decides what is served. Score: 0–1, the order candidates were considered in (Search explains it).</p>
${
	trace.length === 0
		? empty("No memory matched anything in this prompt: no word, concept or cue.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table data-testid="prompt-trace"><thead><tr><th scope="col">Memory</th><th scope="col">Decision</th><th scope="col">Evidence</th><th scope="col">Score</th><th scope="col">Matched</th></tr></thead>
<tbody>${trace.map((t) => html`<tr><td>${t.name}</td><td>${t.decision}</td><td>${fmt(t.evidence)}</td><td>${scoreText(t.score)}</td><td>${matchedCell(t)}</td></tr>`)}</tbody></table></div>`
}`;

export const injectRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/inject", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "inject" as const };
		const q = c.req.query("q") ?? "";
		const agent = c.req.query("agent") ?? "claude";
		const block = c.req.query("block") ?? "start";
		const profile = lookup(AGENTS, agent);
		if (!profile) return badInput(c, "Unknown agent.", extra);
		if (block !== "start" && block !== "prompt") return badInput(c, "Unknown block.", extra);
		const form = html`<h1>What the agent sees</h1>
<p class="muted">The block an agent's SessionStart hook receives for this query, or its UserPromptSubmit hook for this prompt, within that agent's budget — and, per prompt, why each memory was served or held back.</p>
<form method="get" action="${projectPath(project.id, "inject")}" class="filters">
<div class="field grow"><label for="q">Query <span class="muted small">(empty: what a session start with no task sees)</span></label><input id="q" name="q" type="search" class="wide" value="${q}" maxlength="8000"></div>
<div class="field"><label for="agent">Agent</label><select id="agent" name="agent">${selectOptions(
			Object.keys(AGENTS),
			agent,
			Object.fromEntries(Object.entries(AGENTS).map(([k, v]) => [k, v.label])),
		)}</select></div>
<div class="field"><label for="block">Block</label><select id="block" name="block">${selectOptions(["start", "prompt"], block, {
			start: "Session start",
			prompt: "One prompt (UserPromptSubmit)",
		})}</select></div>
<button type="submit">Show</button></form>`;
		const body: Loose = { ...profile.budget };
		if (q) body.query = q;
		if (block === "prompt") {
			if (!q.trim())
				return render(
					c,
					200,
					`Inject · ${project.name}`,
					html`${form}${empty("Type a prompt: the prompt hook sends nothing without one.")}`,
					extra,
				);
			Object.assign(body, { include: "memories", trace: true });
		}
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
${((d.warnings ?? []) as string[]).length === 0 ? html`<p>Nothing was cut.</p>` : html`<ul>${((d.warnings ?? []) as string[]).map((w) => html`<li>${warningText(w, project.id)}</li>`)}</ul>`}
<h2>Recalled memories in the block</h2>
${
	mems.length === 0
		? empty("No topic file was recalled for this query.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Memory</th><th scope="col">Type</th><th scope="col">Tokens</th><th scope="col">Cut</th><th scope="col">Matched terms</th></tr></thead>
<tbody>${mems.map((m) => html`<tr><td>${m.name}</td><td>${m.type}</td><td>${m.tokens}</td><td>${m.truncated ? "yes" : "no"}</td><td>${((m.matchedTerms ?? []) as string[]).join(", ")}</td></tr>`)}</tbody></table></div>`
}
${block === "prompt" ? whyTable((d.recall?.trace?.candidates ?? []) as Loose[]) : ""}
<h2>The block</h2>
${d.text ? html`<pre class="text" tabindex="0" data-testid="inject-text">${d.text}</pre>` : empty("The block is empty.")}`,
			extra,
		);
	});
};
