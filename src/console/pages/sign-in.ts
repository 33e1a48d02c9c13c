// Signing in with an API key (sealed in a server-side session), signing out, and the console's root.
import { html } from "hono/html";
import { parseToken } from "../../auth/keys";
import { keyTenant } from "../../registry/projects";
import { apiFor } from "../api";
import { type C, type ConsolePage, formString, render, secretOf } from "../context";
import { deleteCookie, endSession, getCookie, openSession, SESSION_COOKIE, SESSION_SECONDS, setCookie, startSession } from "../session";
import { apiErrorNotice, flash, type Html, notice } from "../view";

/**
 * A key the service refused: what is wrong with it, where a key comes from, and what to do. `malformed`:
 * the text is not shaped like a key at all (a URL, a token of something else, a cut-off paste).
 */
export const refusedKey = (malformed: boolean) =>
	notice(
		"error",
		html`<p><strong>${malformed ? "That API key is not valid" : "That API key is not valid here"}</strong>: ${
			malformed
				? html`it is not shaped like a Cairn key, which looks like <code>cairn_&lt;id&gt;_&lt;secret&gt;</code> — paste all of it.`
				: "this service does not know it, or it was revoked. A key works only on the service that made it: a key from a local npm start does not sign in to a deployment, nor the other way round."
		}</p>
<p>Where a key comes from:</p>
<ul>
<li><code>cairn setup</code> prints yours once (<code>export CAIRN_KEY=cairn_…</code>) and saves it on the machine where it ran, in <code>~/.config/cairn/config.json</code> (its <code>"key"</code>; under <code>$XDG_CONFIG_HOME/cairn/</code> when that is set).</li>
<li>An admin of your tenant makes keys in this console's <strong>Keys</strong> page (or with <code>POST /v1/keys</code>); each is shown once.</li>
<li>A new tenant's first key comes with it: <code>POST /v1/admin/tenants</code> with the deployment's operator token, which <code>cairn setup</code> does for you against a local <code>npm start</code>.</li>
</ul>
<p>What to do: paste the key from one of those. Have none, or lost it? Against a local service, run <code>cairn setup</code> in your repository; against a deployment, ask your tenant's admin for a new key.</p>`,
	);

export const signInPage = (c: C, status: number, message?: Html) =>
	render(
		c,
		status,
		"Sign in",
		html`<div class="signin">
<h1>Sign in</h1>
${flash(c.req.query("msg"))}${message ?? ""}
<form method="post" action="/console/sign-in">
<label for="key">API key</label>
<input id="key" name="key" type="password" autocomplete="off" spellcheck="false" required maxlength="200" class="wide" aria-describedby="key-help">
<p id="key-help" class="small muted">A Cairn API key (<code>cairn_…</code>): <code>cairn setup</code> prints yours and saves it in <code>~/.config/cairn/config.json</code>; an admin can make you one. It stays on the server, sealed in a session cookie that expires in two hours; the console can do what the key can do through the API.</p>
<button type="submit">Sign in</button>
</form>
</div>`,
	);

export const signInRoutes: ConsolePage = (app, fetcher) => {
	app.get("/sign-in", async (c) => {
		if (await openSession(c.env.DB, secretOf(c), getCookie(c, SESSION_COOKIE))) return c.redirect("/console/projects", 303);
		return signInPage(c, 200);
	});

	app.post("/sign-in", async (c) => {
		const form = await c.req.parseBody();
		const key = formString(form, "key").trim();
		if (!key || key.length > 200) return signInPage(c, 400, notice("error", "Enter an API key."));
		const r = await apiFor(fetcher, c, key)("GET", "/v1/projects");
		if (r.status === 401) return signInPage(c, 401, refusedKey(parseToken(key) === null));
		if (!r.ok && r.status !== 403) return signInPage(c, 502, apiErrorNotice(r.error, "The key could not be checked"));
		const tenant = await keyTenant(c.env.DB, parseToken(key)?.id ?? "");
		const { cookie } = await startSession(c.env.DB, secretOf(c), tenant ?? "", key);
		setCookie(c, SESSION_COOKIE, cookie, {
			path: "/console",
			httpOnly: true,
			secure: new URL(c.req.url).protocol === "https:",
			sameSite: "Strict",
			maxAge: SESSION_SECONDS,
		});
		return c.redirect("/console/projects", 303);
	});

	app.post("/sign-out", async (c) => {
		// The row goes: this cookie, and any copy of it, refers to nothing from now on.
		await endSession(c.env.DB, c.var.session.id);
		deleteCookie(c, SESSION_COOKIE, { path: "/console" });
		return c.redirect("/console/sign-in?msg=signed-out", 303);
	});

	app.get("/", (c) => c.redirect("/console/projects", 303));
};
