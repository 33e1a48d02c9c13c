// Settings: each value as it applies to the signed-in user in a project, and where it comes from.
import { html } from "hono/html";
import { type Loose, seg } from "../api";
import { type ConsolePage, failure, loadProject, render } from "../context";
import { empty } from "../view";

export const settingsRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/settings", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "settings" as const };
		const r = await c.var.api("GET", `/v1/projects/${seg(project.id)}/settings/effective`);
		if (!r.ok) return failure(c, r, "Settings", extra);
		const entries = Object.entries((r.data.settings ?? {}) as Record<string, Loose>).sort(([a], [b]) => a.localeCompare(b));
		return render(
			c,
			200,
			`Settings · ${project.name}`,
			html`<h1>Settings</h1>
<p class="muted">Each value as it applies to you in this project, and where it comes from (tenant policy &gt; project &gt; user &gt; default). <a href="/console/keys">API keys</a></p>
${
	entries.length === 0
		? empty("No settings.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Setting</th><th scope="col">Value</th><th scope="col">Source</th></tr></thead>
<tbody>${entries.map(([k, v]) => html`<tr><td><code>${k}</code></td><td>${String(v.value)}</td><td><span class="badge">${v.source}</span></td></tr>`)}</tbody></table></div>`
}`,
			extra,
		);
	});
};
