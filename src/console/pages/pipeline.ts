// The pipeline: consolidation status, sessions (with a retry for failed extraction), pending
// candidates, skills, the summary and MEMORY.md.
import { html } from "hono/html";
import { type Loose, seg } from "../api";
import { type ConsolePage, failure, loadProject, render } from "../context";
import { apiErrorNotice, csrfField, empty, flash, projectPath, when } from "../view";

export const pipelineRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/pipeline", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "pipeline" as const };
		const base = `/v1/projects/${seg(project.id)}`;
		const [status, sessions, candidates, skills, summary, index] = await Promise.all([
			c.var.api("GET", `${base}/status`),
			c.var.api("GET", `${base}/sessions?limit=200`),
			c.var.api("GET", `${base}/candidates?limit=50`),
			c.var.api("GET", `${base}/skills`),
			c.var.api("GET", `${base}/summary`),
			c.var.api("GET", `${base}/index`),
		]);
		for (const r of [status, sessions, candidates, skills, index]) if (!r.ok) return failure(c, r, "Pipeline", extra);
		const p = (status.data.pipeline ?? {}) as Loose;
		const list = (sessions.data.sessions ?? []) as Loose[];
		const outputs = (candidates.data.outputs ?? []) as Loose[];
		const skillList = (skills.data.skills ?? []) as Loose[];
		return render(
			c,
			200,
			`Pipeline · ${project.name}`,
			html`<h1>Pipeline</h1>
${flash(c.req.query("msg"))}
<h2>Consolidation</h2>
<div class="stats"><div>Pending outputs: <strong>${p.pendingOutputs}</strong></div><div>Running: <strong>${p.running ? "yes" : "no"}</strong></div><div>Dead letters: <strong>${p.deadLetters}</strong></div>
<div>Last run: ${p.lastRun ? html`${when(p.lastRun.at)} — <strong>${p.lastRun.outcome}</strong>, ${p.lastRun.changes} change${p.lastRun.changes === 1 ? "" : "s"}${p.lastRun.error ? html` <span class="badge bad">${p.lastRun.error}</span>` : ""}` : "never"}</div></div>
<h2>Sessions</h2>
${
	list.length === 0
		? empty("No sessions yet. The agents' hooks upload transcripts as sessions run.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Session</th><th scope="col">Agent</th><th scope="col">Turns</th><th scope="col">Cursor</th><th scope="col">Status</th><th scope="col">Extraction</th><th scope="col">Last error</th><th scope="col">Action</th></tr></thead>
<tbody>${list.map(
				(
					s,
				) => html`<tr><td><code>${s.id}</code><br><span class="small muted">${when(s.lastActivityAt)}</span></td><td>${s.agent}</td><td>${s.turns}</td><td>${s.cursor}</td><td>${s.status}</td>
<td><span class="badge ${s.extraction?.state === "dead_letter" || s.extraction?.state === "retrying" ? "bad" : ""}">${s.extraction?.state}</span></td><td>${s.extraction?.lastError ?? "—"}</td>
<td>${
					s.extraction?.state === "dead_letter" || s.extraction?.state === "retrying"
						? html`<form method="post" action="${projectPath(project.id)}/sessions/${encodeURIComponent(s.id)}/retry" class="inline">${csrfField(c.var.session.csrf)}<button type="submit" aria-label="Retry extraction of session ${s.id}">Retry</button></form>`
						: ""
				}</td></tr>`,
			)}</tbody></table></div>`
}
<h2>Pending candidates</h2>
${
	outputs.length === 0
		? empty("No candidates waiting for consolidation.")
		: outputs.map(
				(
					o,
				) => html`<div class="card"><h3>Session <code>${o.sessionId}</code>, turns ${o.fromSeq}–${o.toSeq} <span class="badge">${o.extractor}</span></h3>
${o.summary ? html`<p>${o.summary}</p>` : ""}
${((o.candidates ?? []) as Loose[]).length === 0 ? html`<p class="muted">No candidates in this range.</p>` : html`<ul>${((o.candidates ?? []) as Loose[]).map((k) => html`<li><strong>${k.name}</strong> <span class="badge">${k.type}</span> ${k.description}<pre class="text" tabindex="0">${k.body}</pre></li>`)}</ul>`}</div>`,
			)
}
<h2>Skills</h2>
${skillList.length === 0 ? empty("No skills learned yet.") : html`<ul>${skillList.map((s) => html`<li><strong>${s.name}</strong>: ${s.description} <span class="small muted">${when(s.updatedAt)}</span></li>`)}</ul>`}
<h2>Summary (memory_summary.md)</h2>
${summary.ok ? html`<pre class="text" tabindex="0">${summary.text}</pre>` : summary.status === 404 ? empty("No summary yet: consolidation writes it.") : apiErrorNotice(summary.error, "Summary")}
<h2>MEMORY.md</h2>
${index.text.trim() ? html`<pre class="text" tabindex="0">${index.text}</pre>` : empty("MEMORY.md is empty.")}`,
			extra,
		);
	});

	app.post("/projects/:projectId/sessions/:sessionId/retry", async (c) => {
		const projectId = c.req.param("projectId");
		const sessionId = c.req.param("sessionId");
		const r = await c.var.api("POST", `/v1/projects/${seg(projectId)}/sessions/${seg(sessionId)}/retry`);
		if (!r.ok) return failure(c, r, "Retry");
		return c.redirect(`${projectPath(projectId, "pipeline")}?msg=retried`, 303);
	});
};
