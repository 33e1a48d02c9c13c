// API keys: listed, created (the token shown once) and revoked; managing them needs the admin scope.
import { html } from "hono/html";
import { type Loose, seg } from "../api";
import { type C, type ConsolePage, failure, formString, render } from "../context";
import { apiErrorNotice, csrfField, empty, flash, type Html, notice, when } from "../view";

export const keysPage = async (c: C, status: number, banner: Html | string = "") => {
	const r = await c.var.api("GET", "/v1/keys");
	if (r.status === 403) {
		return render(
			c,
			403,
			"Keys",
			html`<h1>API keys</h1>${notice("error", "Managing keys needs an admin key (this key lacks the admin scope).")}`,
		);
	}
	if (!r.ok) return failure(c, r, "Keys");
	const keys = (r.data.keys ?? []) as Loose[];
	return render(
		c,
		status,
		"Keys",
		html`<h1>API keys</h1>
${flash(c.req.query("msg"))}${banner}
${
	keys.length === 0
		? empty("No keys.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table><thead><tr><th scope="col">Key</th><th scope="col">Scopes</th><th scope="col">Project</th><th scope="col" class="hide-narrow">User</th><th scope="col" class="hide-narrow">Created</th><th scope="col">Action</th></tr></thead>
<tbody>${keys.map(
				(
					k,
				) => html`<tr><td>${k.name}<br><code class="small">${k.id}</code></td><td>${((k.scopes ?? []) as string[]).join(", ")}</td><td>${k.projectId ?? "all"}</td><td class="hide-narrow">${k.userId}</td><td class="hide-narrow">${when(k.createdAt)}</td>
<td><form method="post" action="/console/keys/${encodeURIComponent(k.id)}/delete" class="inline" data-confirm="Revoke key ${k.name}? Anything using it stops working.">${csrfField(c.var.session.csrf)}<button type="submit" class="danger" aria-label="Revoke key ${k.name}">Revoke</button></form></td></tr>`,
			)}</tbody></table></div>`
}
<h2>New key</h2>
<form method="post" action="/console/keys">
${csrfField(c.var.session.csrf)}
<label for="k-name">Name</label><input id="k-name" name="name" type="text" maxlength="120" required>
<fieldset class="plain"><legend class="legend">Scopes</legend>
${["read", "write", "admin"].map((s) => html`<label class="check"><input type="checkbox" name="scopes" value="${s}"${s !== "admin" ? html` checked` : ""}> ${s}</label>`)}</fieldset>
<label for="k-project">Limit to project <span class="muted small">(optional project id)</span></label><input id="k-project" name="projectId" type="text" maxlength="64">
<div class="actions"><button type="submit">Create key</button></div>
</form>`,
	);
};

export const keysRoutes: ConsolePage = (app) => {
	app.get("/keys", (c) => keysPage(c, 200));

	app.post("/keys", async (c) => {
		const form = await c.req.parseBody({ all: true });
		const scopes = ([] as unknown[]).concat(form.scopes ?? []).filter((s): s is string => typeof s === "string");
		const projectId = formString(form, "projectId").trim();
		const body: Loose = { name: formString(form, "name").trim(), scopes };
		if (projectId) body.projectId = projectId;
		const r = await c.var.api("POST", "/v1/keys", { json: body });
		if (!r.ok) {
			if (r.status === 401) return failure(c, r, "Keys");
			return keysPage(c, r.status, apiErrorNotice(r.error, "No key was created"));
		}
		const key = r.data.key as Loose;
		return keysPage(
			c,
			201,
			notice(
				"ok",
				html`Key created. Copy it now: it is shown only once.<pre class="text" tabindex="0" data-testid="new-key">${key.token}</pre>`,
			),
		);
	});

	app.post("/keys/:id/delete", async (c) => {
		const r = await c.var.api("DELETE", `/v1/keys/${seg(c.req.param("id"))}`);
		if (!r.ok) return failure(c, r, "Revoke key");
		return c.redirect("/console/keys?msg=revoked", 303);
	});
};
