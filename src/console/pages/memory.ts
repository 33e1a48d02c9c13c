// One memory: its body, cues, history and evidence; editing it (with the conflict page when someone
// saved first), deleting it, and two of its versions side by side.
import { html } from "hono/html";
import { lookup, lookupTable } from "../../lib/lookup";
import { MEMORY_TYPES, NAME_PATTERN } from "../../memory/topic-file";
import { type Loose, seg } from "../api";
import { badInput, type C, type ConsolePage, failure, formString, loadProject, render } from "../context";
import { diffLines } from "../diff";
import { apiErrorNotice, csrfField, empty, flash, type Html, memoryPath, notice, projectPath, SCOPES, selectOptions, when } from "../view";
import { valuesSection } from "./value-history";

/** One memory: JSON with its body, history and the consolidation events behind it. */
export async function memoryPage(c: C, project: Loose, name: string, scope: string | undefined, status = 200, banner: Html | string = "") {
	const extra = { project, tab: "memories" as const };
	const q = scope ? `?scope=${seg(scope)}` : "";
	const base = `/v1/projects/${seg(project.id)}/memories/${seg(name)}`;
	const r = await c.var.api("GET", `${base}${q}`, { headers: { Accept: "application/json" } });
	if (!r.ok) return failure(c, r, `Memory ${name}`, extra);
	const m = r.data.memory as Loose;
	const sq = `?scope=${seg(m.scope)}`;
	const [history, events] = await Promise.all([c.var.api("GET", `${base}/history${sq}`), c.var.api("GET", `${base}/events${sq}`)]);
	const versions = (history.data.versions ?? []) as Loose[];
	const evs = (events.data.events ?? []) as Loose[];
	const latest = versions[0]?.version ?? m.version;
	const previous = versions[1]?.version ?? latest;
	return render(
		c,
		status,
		`${m.name} · ${project.name}`,
		html`<p class="small"><a href="${projectPath(project.id)}">← Memories</a></p>
<h1>${m.name}</h1>
${flash(c.req.query("msg"))}${banner}
<div class="stats"><div>Type: <strong>${m.type}</strong></div><div>Scope: <strong>${m.scope}</strong></div><div>Version: <strong>${m.version}</strong></div>
<div>Source: <strong>${m.source}</strong>${m.sessionId ? html` (session <code>${m.sessionId}</code>)` : ""}</div><div>Updated: ${when(m.updatedAt)}</div></div>
${useStats(m)}
<p class="muted small"><code>${m.path}</code></p>
${m.archivedAt ? archivedNotice(c, project, m) : ""}
<h2>Description</h2><p>${m.description}</p>
<h2>Body</h2><pre class="text" tabindex="0" data-testid="memory-body">${m.body}</pre>
<h2>When it applies</h2>
${
	((m.cues ?? []) as string[]).length === 0
		? empty("No cues: nothing says when this memory applies beyond its own words.")
		: html`<ul data-testid="memory-cues">${((m.cues ?? []) as string[]).map((cue) => html`<li>${cue}</li>`)}</ul>`
}
<p class="small muted">${m.cuesSource === "written" ? "Written by a person or a model." : "Derived from the concept map (edit them to write your own)."} Cues are metadata: recall matches prompts against them; the topic file does not hold them.</p>
${citedCode(m)}
${editForm(
	c,
	project,
	m.name,
	m.scope,
	m.version,
	{
		type: m.type,
		description: m.description,
		body: m.body,
		cues: ((m.cues ?? []) as string[]).join("\n"),
		citations: citationLines((m.citations ?? []) as Loose[]),
	},
	"Edit",
)}
<form method="post" action="${memoryPath(project.id, m.name, m.scope, "/delete")}" data-confirm="Delete ${m.name} and its history?" class="actions">
${csrfField(c.var.session.csrf)}<button type="submit" class="danger">Delete this memory</button></form>
${valuesSection((history.data.values ?? []) as Loose[])}
<h2 id="history">History</h2>
${
	versions.length === 0
		? empty("No history.")
		: html`<form method="get" action="${memoryPath(project.id, m.name, undefined, "/diff")}" class="filters" aria-label="Compare versions">
<input type="hidden" name="scope" value="${m.scope}">
<div class="field"><label for="from">From version</label><select id="from" name="from">${selectOptions(
				versions.map((v) => String(v.version)),
				String(previous),
			)}</select></div>
<div class="field"><label for="to">To version</label><select id="to" name="to">${selectOptions(
				versions.map((v) => String(v.version)),
				String(latest),
			)}</select></div>
<button type="submit" class="secondary">Compare side by side</button></form>
<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Version</th><th scope="col">When</th><th scope="col">Source</th><th scope="col">Session</th><th scope="col">Run</th><th scope="col">Rests on</th></tr></thead>
<tbody>${versions.map(
				(v) =>
					html`<tr><td>${v.version}</td><td>${when(v.updatedAt)}</td><td>${v.source}</td><td>${v.sessionId ?? "—"}</td><td>${v.runId ?? "—"}</td><td>${
						((v.evidence ?? []) as Loose[]).length === 0
							? "—"
							: ((v.evidence ?? []) as Loose[])
									.map((e) => `${e.session}${e.turns?.length ? ` (${(e.turns as string[]).join(", ")})` : ""}`)
									.join("; ")
					}</td></tr>`,
			)}</tbody></table></div>`
}
<h2 id="evidence">Evidence</h2>
${
	evs.length === 0
		? empty("No consolidation changes recorded for this memory (it was written directly).")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">When</th><th scope="col">Change</th><th scope="col">Outcome</th><th scope="col">Reason</th><th scope="col">Sessions</th></tr></thead>
<tbody>${evs.map(
				(e) =>
					html`<tr><td>${when(e.createdAt)}</td><td>${e.op}</td><td>${e.outcome}</td><td>${e.reason}</td><td>${((e.sessions ?? []) as string[]).map((s) => html`<code>${s}</code> `)}</td></tr>`,
			)}</tbody></table></div>`
}`,
		extra,
	);
}

const times = (n: number, one: string) => `${n} ${one}${n === 1 ? "" : "s"}`;

/** What the memory was worth to the sessions it reached: served, cited, read (each a count of sessions). */
function useStats(m: Loose) {
	const last = (at: unknown) => (at ? html`, last ${when(String(at))}` : "");
	return html`<div class="stats" data-testid="memory-use"><div>Served: <strong>${times(Number(m.sessionsServed ?? 0), "session")}</strong> (${times(Number(m.timesServed ?? 0), "time")}${last(m.lastServedAt)})</div>
<div>Cited: <strong>${times(Number(m.sessionsCited ?? 0), "session")}</strong>${last(m.lastCitedAt)}</div>
<div>Read: <strong>${times(Number(m.sessionsRead ?? 0), "session")}</strong>${last(m.lastReadAt)}</div></div>
<p class="small muted">Cited: the agent wrote this memory's path in its reply; read: it opened the file. Counted from the transcripts the agents post, once per session.</p>`;
}

function archivedNotice(c: C, project: Loose, m: Loose) {
	return html`${notice("info", html`Archived ${when(String(m.archivedAt))}: it is no longer served at session start, per prompt or by recall. It stays readable and keeps its history.`)}
<form method="post" action="${memoryPath(project.id, m.name, m.scope, "/restore")}" class="actions">
${csrfField(c.var.session.csrf)}<button type="submit" class="secondary">Serve it again</button></form>`;
}

/** The code a memory cites and what the last check from the repository found (src/memory/code-check.ts). */
function citedCode(m: Loose) {
	const citations = (m.citations ?? []) as Loose[];
	const state: Record<string, string> = {
		current: "As it was when this was written (last check from the repository).",
		changed: "Some of it changed, moved or went since this was written: blocks say so next to the memory.",
		gone: "Every file it cites is gone from the repository: it left the session-start block and waits in the review queue.",
	};
	return html`<h2>Code it cites</h2>
${
	citations.length === 0
		? empty("No citations: a change in the repository never marks this memory.")
		: html`<ul data-testid="memory-citations">${citations.map(
				(cite) =>
					html`<li><code>${cite.path}</code>${cite.symbol ? html` · <code>${cite.symbol}</code>` : ""}${cite.lines ? html` · lines ${cite.lines}` : ""} <span class="muted small">${lookup(CITATION_SOURCES, String(cite.source)) ?? "given by the writer"}${cite.blob ? html`, blob ${String(cite.blob).slice(0, 12)}` : ""}</span></li>`,
			)}</ul>
<p class="small${m.codeState === "current" || !m.codeState ? " muted" : ""}" data-testid="memory-code-state">${m.codeState ? state[m.codeState] : "Not checked from a repository yet (the hooks check it at session start)."}</p>`
}`;
}

/** How each citation's origin reads on the page. */
const CITATION_SOURCES: Readonly<Record<string, string>> = lookupTable({
	text: "read from the text",
	transcript: "read or edited in the session",
	writer: "given by the writer",
});

/** Citations as the edit form shows them: `path#symbol:lines`, one a line. */
const citationLines = (citations: Loose[]) =>
	citations
		.filter((cite) => cite.source === "writer")
		.map((cite) => `${cite.path}${cite.symbol ? `#${cite.symbol}` : ""}${cite.lines ? `:${cite.lines}` : ""}`)
		.join("\n");

/** A field's new value when the form changed it, else null. */
function edited(form: Record<string, unknown>, field: string): string | null {
	if (typeof form[field] !== "string") return null;
	const now = formString(form, field).replace(/\r\n/g, "\n");
	return now === formString(form, `${field}-before`).replace(/\r\n/g, "\n") ? null : now;
}

/** The memory's citations now, for the blob ids of lines left as they were. */
async function currentCitations(c: C, projectId: string, name: string, scope: string): Promise<Loose[]> {
	const r = await c.var.api("GET", `/v1/projects/${seg(projectId)}/memories/${seg(name)}?scope=${seg(scope)}`, {
		headers: { Accept: "application/json" },
	});
	return r.ok ? ((r.data.memory?.citations ?? []) as Loose[]) : [];
}

/** `path#symbol:lines` lines → citations (the API checks them); an unchanged path keeps its blob id. */
function parseCitationLines(text: string, before: Loose[]): Loose[] {
	const blobs = new Map(before.filter((b) => b.blob).map((b) => [b.path, b.blob]));
	return text
		.split("\n")
		.map((line) => line.trim())
		.filter(Boolean)
		.map((line) => {
			const m = /^(.+?)(?:#([^:#]+))?(?::(\d+(?:-\d+)?))?$/.exec(line);
			const path = m?.[1] ?? line;
			return {
				path,
				...(m?.[2] ? { symbol: m[2] } : {}),
				...(m?.[3] ? { lines: m[3] } : {}),
				...(blobs.has(path) ? { blob: blobs.get(path) } : {}),
			};
		});
}

export function editForm(
	c: C,
	project: Loose,
	name: string,
	scope: string,
	version: number,
	values: { type: string; description: string; body: string; cues?: string; citations?: string },
	heading: string,
	submit = "Save",
) {
	return html`<h2>${heading}</h2>
<form method="post" action="${memoryPath(project.id, name, scope)}" aria-label="${heading} ${name}">
${csrfField(c.var.session.csrf)}<input type="hidden" name="version" value="${version}">
<label for="e-type">Type</label><select id="e-type" name="type" required>${selectOptions(MEMORY_TYPES, values.type)}</select>
<label for="e-description">Description <span class="muted small">(one line, up to 500 characters)</span></label>
<input id="e-description" name="description" type="text" class="wide" required maxlength="500" value="${values.description}">
<label for="e-body">Body</label>
<textarea id="e-body" name="body" rows="12">${values.body}</textarea>
${
	values.cues === undefined
		? ""
		: html`<label for="e-cues">When it applies <span class="muted small">(one situation per line, up to 8; empty: derived from the concept map)</span></label>
<textarea id="e-cues" name="cues" rows="4">${values.cues}</textarea><input type="hidden" name="cues-before" value="${values.cues}">`
}
${
	values.citations === undefined
		? ""
		: html`<label for="e-citations">Code it cites <span class="muted small">(one file per line from the repository root: <code>path#symbol:lines</code>, up to 20; empty: the paths its text names)</span></label>
<textarea id="e-citations" name="citations" rows="3">${values.citations}</textarea><input type="hidden" name="citations-before" value="${values.citations}">`
}
<div class="actions"><button type="submit">${submit}</button><span class="small muted">Saves over version ${version}; if someone changed it since, you will see their version first.</span></div>
</form>`;
}

const memoryRoute = async (c: C) => {
	const project = await loadProject(c);
	if (project instanceof Response) return project;
	const name = c.req.param("name") ?? "";
	const scope = c.req.query("scope");
	if (!NAME_PATTERN.test(name)) return badInput(c, "That is not a memory name.", { project, tab: "memories" });
	if (scope !== undefined && !(SCOPES as readonly string[]).includes(scope))
		return badInput(c, "Scope must be personal or team.", { project, tab: "memories" });
	return { project, name, scope };
};

export const diffTable = (rows: ReturnType<typeof diffLines>, left: string, right: string) =>
	html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table class="diff"><caption class="muted small">${left} (left) beside ${right} (right); changed lines are shaded</caption>
<thead><tr><th scope="col" class="no">#</th><th scope="col">${left}</th><th scope="col" class="no">#</th><th scope="col">${right}</th></tr></thead>
<tbody>${rows.map((r) =>
		r.kind === "same"
			? html`<tr><td class="no">${r.leftNo}</td><td>${r.left}</td><td class="no">${r.rightNo}</td><td>${r.right}</td></tr>`
			: html`<tr><td class="no">${r.leftNo ?? ""}</td><td class="${r.left === null ? "" : "del"}">${r.left === null ? "" : html`<del>${r.left}</del>`}</td><td class="no">${r.rightNo ?? ""}</td><td class="${r.right === null ? "" : "add"}">${r.right === null ? "" : html`<ins>${r.right}</ins>`}</td></tr>`,
	)}</tbody></table></div>`;

export const memoryRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/memories/:name", async (c) => {
		const m = await memoryRoute(c);
		if (m instanceof Response) return m;
		return memoryPage(c, m.project, m.name, m.scope);
	});

	app.post("/projects/:projectId/memories/:name", async (c) => {
		const m = await memoryRoute(c);
		if (m instanceof Response) return m;
		const { project, name } = m;
		const extra = { project, tab: "memories" as const };
		const scope = m.scope ?? "personal";
		const form = await c.req.parseBody();
		const values = {
			type: formString(form, "type"),
			description: formString(form, "description"),
			body: formString(form, "body").replace(/\r\n/g, "\n"),
			...(typeof form.cues === "string" ? { cues: formString(form, "cues").replace(/\r\n/g, "\n") } : {}),
		};
		// Cues are sent only when edited (one per line): unchanged derived cues stay derived.
		const { cues, ...fields } = values;
		const cited = edited(form, "citations");
		const json = {
			...fields,
			...(cues !== undefined && cues !== formString(form, "cues-before").replace(/\r\n/g, "\n")
				? {
						cues: cues
							.split("\n")
							.map((line) => line.trim())
							.filter(Boolean),
					}
				: {}),
			// Citations likewise; a line left as it was keeps the blob id its writer saw.
			...(cited === null ? {} : { citations: parseCitationLines(cited, await currentCitations(c, project.id, name, scope)) }),
		};
		const version = formString(form, "version");
		if (!/^\d{1,9}$/.test(version))
			return badInput(c, "The form lost the version it was editing. Reload the memory and edit again.", extra);
		const r = await c.var.api("PUT", `/v1/projects/${seg(project.id)}/memories/${seg(name)}?scope=${seg(scope)}`, {
			json,
			headers: { "If-Match": `"${version}"` },
		});
		if (r.ok) return c.redirect(`${memoryPath(project.id, name, scope)}&msg=saved`, 303);
		if (r.status === 401) return failure(c, r, "Edit");
		if (r.status === 412) {
			// Someone saved first: show their version beside this one and let the user keep theirs or save this over it.
			const cur = await c.var.api("GET", `/v1/projects/${seg(project.id)}/memories/${seg(name)}?scope=${seg(scope)}`, {
				headers: { Accept: "application/json" },
			});
			if (!cur.ok) return failure(c, cur, `Memory ${name}`, extra);
			const theirs = cur.data.memory as Loose;
			return render(
				c,
				409,
				`Conflict · ${name}`,
				html`<p class="small"><a href="${memoryPath(project.id, name, scope)}">← ${name}</a></p>
<h1>Edit conflict: ${name}</h1>
${notice("error", html`Version ${theirs.version} was saved while you were editing version ${version}. Compare, then save yours over it or keep theirs.`)}
<h2>Their version (${theirs.version})</h2>
<div class="stats"><div>Type: <strong>${theirs.type}</strong></div><div>Source: ${theirs.source}</div><div>Updated: ${when(theirs.updatedAt)}</div></div>
<p><strong>Description:</strong> ${theirs.description}</p>
<pre class="text" tabindex="0" data-testid="their-body">${theirs.body}</pre>
<h2>Their body beside yours</h2>
${diffTable(diffLines(String(theirs.body), values.body), `Version ${theirs.version}`, "Your edit")}
${editForm(c, project, name, scope, theirs.version, values, "Your version", `Save mine over version ${theirs.version}`)}
<p><a href="${memoryPath(project.id, name, scope)}">Discard mine and keep version ${theirs.version}</a></p>`,
				extra,
			);
		}
		return render(
			c,
			r.status,
			`Edit · ${name}`,
			html`<p class="small"><a href="${memoryPath(project.id, name, scope)}">← ${name}</a></p><h1>Edit ${name}</h1>
${apiErrorNotice(r.error, "Not saved")}
${editForm(c, project, name, scope, Number(version), values, "Edit")}`,
			extra,
		);
	});

	app.post("/projects/:projectId/memories/:name/delete", async (c) => {
		const m = await memoryRoute(c);
		if (m instanceof Response) return m;
		const r = await c.var.api("DELETE", `/v1/projects/${seg(m.project.id)}/memories/${seg(m.name)}?scope=${seg(m.scope ?? "personal")}`);
		if (!r.ok) return failure(c, r, `Delete ${m.name}`, { project: m.project, tab: "memories" });
		return c.redirect(`${projectPath(m.project.id)}?msg=deleted`, 303);
	});

	app.post("/projects/:projectId/memories/:name/restore", async (c) => {
		const m = await memoryRoute(c);
		if (m instanceof Response) return m;
		const scope = m.scope ?? "personal";
		const r = await c.var.api("POST", `/v1/projects/${seg(m.project.id)}/memories/${seg(m.name)}/restore?scope=${seg(scope)}`);
		if (!r.ok) return failure(c, r, `Restore ${m.name}`, { project: m.project, tab: "memories" });
		return c.redirect(`${memoryPath(m.project.id, m.name, scope)}&msg=restored`, 303);
	});

	app.get("/projects/:projectId/memories/:name/diff", async (c) => {
		const m = await memoryRoute(c);
		if (m instanceof Response) return m;
		const extra = { project: m.project, tab: "memories" as const };
		const from = c.req.query("from") ?? "";
		const to = c.req.query("to") ?? "";
		if (!/^[1-9]\d{0,8}$/.test(from) || !/^[1-9]\d{0,8}$/.test(to)) return badInput(c, "Pick two versions to compare.", extra);
		const base = `/v1/projects/${seg(m.project.id)}/memories/${seg(m.name)}/history`;
		const sq = m.scope ? `?scope=${seg(m.scope)}` : "";
		const [a, b] = await Promise.all([c.var.api("GET", `${base}/${from}${sq}`), c.var.api("GET", `${base}/${to}${sq}`)]);
		if (!a.ok) return failure(c, a, `Version ${from}`, extra);
		if (!b.ok) return failure(c, b, `Version ${to}`, extra);
		return render(
			c,
			200,
			`Diff · ${m.name}`,
			html`<p class="small"><a href="${memoryPath(m.project.id, m.name, m.scope)}#history">← ${m.name}</a></p>
<h1>${m.name}: version ${from} → ${to}</h1>
${a.text === b.text ? notice("info", "The two versions are identical.") : ""}
${diffTable(diffLines(a.text, b.text), `Version ${from}`, `Version ${to}`)}`,
			extra,
		);
	});
};
