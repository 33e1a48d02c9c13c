// The projects the signed-in key can see.
import { html } from "hono/html";
import type { Loose } from "../api";
import { type ConsolePage, failure, render } from "../context";
import { empty, projectPath, when } from "../view";

export const projectsRoutes: ConsolePage = (app) => {
	app.get("/projects", async (c) => {
		const r = await c.var.api("GET", "/v1/projects");
		if (!r.ok) return failure(c, r, "Projects");
		const projects = (r.data.projects ?? []) as Loose[];
		return render(
			c,
			200,
			"Projects",
			html`<h1>Projects</h1>
${
	projects.length === 0
		? empty(html`No projects yet. Run <code>cairn init</code> in a repository to register it.`)
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><caption class="muted small">${projects.length} project${projects.length === 1 ? "" : "s"}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Identity</th><th scope="col" class="hide-narrow">Registered</th></tr></thead>
<tbody>${projects.map(
				(p) =>
					html`<tr><td><a href="${projectPath(p.id)}">${p.name}</a></td><td><code>${p.canonicalKey}</code></td><td class="hide-narrow">${when(p.createdAt)}</td></tr>`,
			)}</tbody></table></div>`
}`,
		);
	});
};
