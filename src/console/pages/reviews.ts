// The review queue: proposed changes to memories, approved or rejected one by one.
import { html } from "hono/html";
import { REVIEW_STATUSES } from "../../memory/reviews";
import { type Loose, seg } from "../api";
import { badInput, type C, type ConsolePage, failure, formString, loadProject, render } from "../context";
import { apiErrorNotice, csrfField, empty, flash, memoryPath, projectPath, selectOptions, when } from "../view";

export function reviewCard(c: C, project: Loose, item: Loose) {
	const id = String(item.id ?? "");
	const memory = (item.memory ?? {}) as Loose;
	const proposal = (item.proposal ?? {}) as Loose;
	const title = memory.name ? String(memory.name) : `Item ${id}`;
	const what =
		item.kind === "held"
			? "Held for review: this write asks for what a planted instruction would (approving needs an admin)"
			: item.kind === "vouch"
				? "Team proposal: approving serves this text to every teammate's agent"
				: item.kind === "promote"
					? "Move this memory to team scope"
					: item.kind === "secret"
						? "Delete this memory: it holds what the secret policy calls a credential"
						: item.kind === "archive"
							? "Archive this memory: served in many sessions, never used (it is not deleted)"
							: proposal.op === "delete"
								? "Delete this memory"
								: proposal.op === "merge"
									? `Merge ${((proposal.from ?? []) as string[]).join(", ")} into this memory`
									: "Change this memory";
	return html`<li class="card" data-review-id="${id}">
<h2 class="card-title">${memory.name ? html`<a href="${memoryPath(project.id, memory.name, memory.currentVersion === null ? undefined : memory.scope)}">${title}</a>` : title}</h2>
<p><strong>${what}</strong> <span class="badge">${item.kind}</span> <span class="badge">${item.status}</span></p>
<div class="stats small"><div>Scope: ${memory.scope}</div><div>Proposed against version ${memory.baseVersion ?? "—"}; now ${memory.currentVersion ?? "deleted"}</div><div>${when(item.createdAt)}</div></div>
${item.reason ? html`<p><strong>Why:</strong> ${item.reason}</p>` : ""}
${item.kind === "vouch" || item.kind === "held" ? checks(item) : ""}
${((item.evidence ?? []) as string[]).length ? html`<p class="small">Evidence: ${((item.evidence ?? []) as string[]).map((s) => html`<code>${s}</code> `)}</p>` : ""}
${proposal.description ? html`<p><strong>Proposed description:</strong> ${proposal.description}</p>` : ""}
${proposal.body ? html`<pre class="text" tabindex="0">${proposal.body}</pre>` : ""}
${item.decidedAt ? html`<p class="small muted">Decided ${when(item.decidedAt)}${item.decidedBy ? html` by <code>${item.decidedBy}</code>` : ""}</p>` : ""}
${
	item.status === "pending"
		? html`<div class="actions">
<form method="post" action="${projectPath(project.id, "reviews")}/${encodeURIComponent(id)}/approve" class="inline">${csrfField(c.var.session.csrf)}<input type="hidden" name="kind" value="${item.kind ?? ""}"><button type="submit" aria-label="Approve: ${what} (${title})">Approve</button></form>
<form method="post" action="${projectPath(project.id, "reviews")}/${encodeURIComponent(id)}/reject" class="inline">${csrfField(c.var.session.csrf)}<input type="hidden" name="kind" value="${item.kind ?? ""}"><button type="submit" class="danger" aria-label="Reject: ${what} (${title})">Reject</button></form>
</div>`
		: ""
}</li>`;
}

/** The danger findings and the provenance of a proposal, beside its text (docs/memory-trust.md). */
function checks(item: Loose) {
	const findings = (item.findings ?? []) as Loose[];
	const p = (item.provenance ?? {}) as Loose;
	const origin = ((p.fromToolOutput ?? []) as string[]).join(", ");
	return html`<dl class="stats small review-checks">
<div><dt>Danger check</dt><dd>${findings.length === 0 ? "nothing flagged" : findings.map((f) => html`<span class="badge">${f.class}</span> ${f.reason}; `)}</dd></div>
<div><dt>Written</dt><dd>by <code>${item.writer ?? "—"}</code>${p.tier ? html` (${p.tier})` : ""}${p.session ? html`, in session <code>${p.session}</code>` : ""}</dd></div>
${origin ? html`<div><dt>From tool output</dt><dd>${origin}${(p.turns ?? []).length ? html` (${(p.turns as string[]).join(", ")})` : ""}</dd></div>` : ""}
</dl>`;
}

/** One-click approval of a writer's or a session's pending team proposals. */
function batchForms(c: C, project: Loose, items: Loose[]) {
	const pending = items.filter((i) => i.kind === "vouch" && i.status === "pending");
	if (pending.length < 2) return "";
	const count = (key: (i: Loose) => string | null) => {
		const by = new Map<string, number>();
		for (const i of pending) {
			const k = key(i);
			if (k) by.set(k, (by.get(k) ?? 0) + 1);
		}
		return [...by].filter(([, n]) => n > 1);
	};
	const form = (field: "writer" | "session", value: string, n: number, label: string) =>
		html`<form method="post" action="${projectPath(project.id, "reviews")}/batch" class="inline">${csrfField(c.var.session.csrf)}<input type="hidden" name="${field}" value="${value}"><button type="submit">Approve all ${n} team proposals ${label}</button></form>`;
	const writers = count((i) => i.writer ?? null);
	const sessions = count((i) => i.provenance?.session ?? null);
	if (writers.length + sessions.length === 0) return "";
	return html`<div class="actions batch">${writers.map(([w, n]) => form("writer", w, n, `by ${w}`))}${sessions.map(([s, n]) => form("session", s, n, `from session ${s}`))}</div>`;
}

export const reviewsRoutes: ConsolePage = (app) => {
	app.get("/projects/:projectId/reviews", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "reviews" as const };
		const status = c.req.query("status") ?? "pending";
		if (!(REVIEW_STATUSES as readonly string[]).includes(status))
			return badInput(c, "Status must be pending, approved or rejected.", extra);
		const r = await c.var.api("GET", `/v1/projects/${seg(project.id)}/reviews?status=${seg(status)}`);
		const filter = html`<form method="get" action="${projectPath(project.id, "reviews")}" class="filters" aria-label="Filter reviews">
<div class="field"><label for="r-status">Status</label><select id="r-status" name="status">${selectOptions(REVIEW_STATUSES, status)}</select></div>
<button type="submit" class="secondary">Show</button></form>`;
		if (!r.ok) {
			if (r.status === 401) return failure(c, r, "Review queue");
			return render(
				c,
				r.status,
				`Reviews · ${project.name}`,
				html`<h1>Review queue</h1>${filter}${apiErrorNotice(r.error, "The review queue could not be read")}`,
				extra,
			);
		}
		// Held writes (docs/memory-trust.md): signed in with an admin key, every writer's; otherwise the caller's own, already listed.
		const held = await c.var.api("GET", `/v1/projects/${seg(project.id)}/held?status=${seg(status)}`);
		const listed = new Set(((r.data.items ?? []) as Loose[]).map((i) => i.id));
		const items = [...((r.data.items ?? []) as Loose[]), ...((held.ok ? held.data.items : []) as Loose[]).filter((i) => !listed.has(i.id))];
		const awaiting = Number(r.data.awaiting ?? 0);
		return render(
			c,
			200,
			`Reviews · ${project.name}`,
			html`<h1>Review queue</h1>
${flash(c.req.query("msg"))}${filter}
${awaiting > 0 ? html`<p class="awaiting"><strong>${awaiting} team ${awaiting === 1 ? "memory waits" : "memories wait"} for review</strong>: teammates' agents are served ${awaiting === 1 ? "it" : "them"} once a person approves.</p>` : ""}
${status === "pending" ? batchForms(c, project, items) : ""}
${
	items.length === 0
		? empty(status === "pending" ? "Nothing is waiting for review." : `No ${status} items.`)
		: html`<ul class="cards grid">${items.map((item) => reviewCard(c, project, item))}</ul>`
}`,
			extra,
		);
	});

	app.post("/projects/:projectId/reviews/batch", async (c) => {
		const projectId = c.req.param("projectId");
		const form = await c.req.parseBody();
		const writer = formString(form, "writer");
		const session = formString(form, "session");
		if (!writer && !session) return badInput(c, "Name the writer or the session whose proposals to approve.");
		const r = await c.var.api("POST", `/v1/projects/${seg(projectId)}/reviews/approve`, {
			json: { ...(writer ? { writer } : {}), ...(session ? { session } : {}) },
		});
		if (!r.ok) return failure(c, r, "Review");
		return c.redirect(`${projectPath(projectId, "reviews")}?msg=approved-batch`, 303);
	});

	app.post("/projects/:projectId/reviews/:id/:decision", async (c) => {
		const projectId = c.req.param("projectId");
		const decision = c.req.param("decision");
		if (decision !== "approve" && decision !== "reject") return badInput(c, "A review is approved or rejected.");
		// A held write is decided through its own route (an admin approves it); any other item through the queue's.
		const id = seg(c.req.param("id"));
		const kind = formString(await c.req.parseBody(), "kind");
		const viaQueue = () => c.var.api("POST", `/v1/projects/${seg(projectId)}/reviews/${id}/${decision}`, { json: {} });
		const asHeld =
			kind && kind !== "held" ? null : await c.var.api("POST", `/v1/projects/${seg(projectId)}/held/${id}/${decision}`, { json: {} });
		const r = !asHeld || asHeld.status === 404 ? await viaQueue() : asHeld;
		if (!r.ok) return failure(c, r, "Review");
		return c.redirect(`${projectPath(projectId, "reviews")}?msg=${decision === "approve" ? "approved" : "rejected"}`, 303);
	});
};
