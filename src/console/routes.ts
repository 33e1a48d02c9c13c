// The web console: server-rendered pages under /console that show what the agents remember. Every
// read and write goes through the public API (see api.ts) with the signed-in key, so the console
// can do exactly what that key can do through the API, and nothing more.

import type { Context, MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { html } from "hono/html";
import { parseToken } from "../auth/keys";
import { lookup, lookupTable } from "../lib/lookup";
import { REVIEW_STATUSES } from "../memory/reviews";
import { MEMORY_SOURCES, MEMORY_TYPES, NAME_PATTERN } from "../memory/topic-file";
import { type Api, type ApiResult, apiFor, type Fetcher, type Loose, seg } from "./api";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets";
import { diffLines } from "./diff";
import {
	type ConsoleSession,
	deleteCookie,
	endSession,
	getCookie,
	openSession,
	SESSION_COOKIE,
	SESSION_SECONDS,
	sameToken,
	setCookie,
	startSession,
} from "./session";
import { apiErrorNotice, csrfField, empty, flash, type Html, notice, type ProjectTab, page, projectPath, when } from "./view";

type ConsoleEnv = {
	Bindings: Env & { CAIRN_CONSOLE_SECRET?: string };
	Variables: { session: ConsoleSession; api: Api };
};
type C = Context<ConsoleEnv>;

/** Form bodies: a topic file is at most 64 KB; leave room for the encoding. */
const FORM_LIMIT = 256 * 1024;
const SCOPES = ["personal", "team"] as const;
const SOURCES = MEMORY_SOURCES;
const AGES: Readonly<Record<string, { label: string; test: (days: number) => boolean }>> = lookupTable({
	"1d": { label: "Changed in the last day", test: (d: number) => d <= 1 },
	"7d": { label: "Changed in the last 7 days", test: (d: number) => d <= 7 },
	"30d": { label: "Changed in the last 30 days", test: (d: number) => d <= 30 },
	older: { label: "Not changed for over 30 days", test: (d: number) => d > 30 },
});
/** The budgets the agents' hooks ask for (README, "What the hooks do"). */
const AGENTS: Readonly<Record<string, { label: string; budget: { maxTokens?: number; maxChars?: number } }>> = lookupTable({
	claude: { label: "Claude Code (maxChars 9,500)", budget: { maxChars: 9500 } },
	codex: { label: "Codex (maxTokens 2,500, maxChars 9,500)", budget: { maxTokens: 2500, maxChars: 9500 } },
	none: { label: "No agent limit (service default budget)", budget: {} },
});

const secretOf = (c: C) => c.env.CAIRN_CONSOLE_SECRET ?? "";

const render = (c: C, status: number, title: string, body: Html, extra: { project?: Loose; tab?: ProjectTab } = {}) => {
	const session = c.get("session") as ConsoleSession | undefined;
	return c.html(
		page({
			title,
			csrf: session?.csrf,
			project: extra.project ? { id: String(extra.project.id), name: String(extra.project.name) } : undefined,
			tab: extra.tab,
			body,
		}),
		status as 200,
	);
};

const formString = (form: Record<string, unknown>, key: string): string => {
	const v = Object.hasOwn(form, key) ? form[key] : undefined;
	return typeof v === "string" ? v : "";
};

/** A failed API call as a page; a key that stopped working (revoked) ends the session. */
function failure(c: C, result: ApiResult, what: string, extra: { project?: Loose; tab?: ProjectTab } = {}) {
	if (result.status === 401) {
		deleteCookie(c, SESSION_COOKIE, { path: "/console" });
		return c.redirect("/console/sign-in?msg=expired", 303);
	}
	const status = result.status >= 400 && result.status < 600 ? result.status : 502;
	return render(c, status, what, html`<h1>${what}</h1>${apiErrorNotice(result.error, "The request was refused")}`, extra);
}

const badInput = (c: C, message: string, extra: { project?: Loose; tab?: ProjectTab } = {}) =>
	render(c, 400, "Invalid request", html`<h1>Invalid request</h1>${notice("error", message)}`, extra);

/** The project named in the path, through the API (404 for another tenant's, 403 for a key limited to another). */
async function loadProject(c: C): Promise<Loose | Response> {
	const r = await c.var.api("GET", `/v1/projects/${seg(c.req.param("projectId") ?? "")}`);
	if (!r.ok) return failure(c, r, "Project");
	return r.data.project as Loose;
}

const ageDays = (iso: string) => (Date.now() - Date.parse(iso)) / 86_400_000;
const fmt = (n: unknown) => (typeof n === "number" ? (Number.isInteger(n) ? String(n) : n.toFixed(3)) : n == null ? "" : String(n));

const memoryPath = (projectId: string, name: string, scope?: string, suffix = "") =>
	`${projectPath(projectId)}/memories/${encodeURIComponent(name)}${suffix}${scope ? `?scope=${encodeURIComponent(scope)}` : ""}`;

const selectOptions = (values: readonly string[], selected: string, labels: Record<string, string> = {}) =>
	values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ""}>${labels[v] ?? v}</option>`);

export function consoleRoutes(fetcher: Fetcher) {
	const app = new Hono<ConsoleEnv>();

	app.onError((err, c) => {
		console.error("console error", err instanceof Error ? err.stack : String(err));
		return render(
			c,
			500,
			"Error",
			html`<h1>Something went wrong</h1>${notice("error", "The console could not show this page. Try again.")}`,
		);
	});

	// Security headers on every console response: no inline script or style, no framing, no caching of pages.
	app.use("*", async (c, next) => {
		await next();
		c.header(
			"Content-Security-Policy",
			"default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
		);
		c.header("X-Content-Type-Options", "nosniff");
		c.header("Referrer-Policy", "same-origin");
		c.header("X-Frame-Options", "DENY");
		if (!c.req.path.startsWith("/console/assets/")) c.header("Cache-Control", "no-store");
	});

	app.get("/assets/console.css", (c) =>
		c.body(CONSOLE_CSS, 200, { "Content-Type": "text/css; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
	);
	app.get("/assets/console.js", (c) =>
		c.body(CONSOLE_JS, 200, { "Content-Type": "text/javascript; charset=utf-8", "Cache-Control": "public, max-age=3600" }),
	);

	app.use("*", bodyLimit({ maxSize: FORM_LIMIT, onError: (c) => c.text("request body too large", 413) }));

	// Without a deploy secret the console cannot seal sessions: it says so instead of signing anyone in.
	app.use("*", async (c, next) => {
		if (!secretOf(c)) {
			return render(
				c,
				503,
				"Console not configured",
				html`<h1>The console is not configured</h1>${notice("error", html`Set the <code>CAIRN_CONSOLE_SECRET</code> secret (a long random value) to enable it.`)}`,
			);
		}
		await next();
	});

	// Writes must come from the console's own pages: same origin (browsers send Origin on every form POST).
	const sameOrigin: MiddlewareHandler<ConsoleEnv> = async (c, next) => {
		if (c.req.method !== "GET" && c.req.method !== "HEAD") {
			const origin = c.req.header("Origin");
			let ok = false;
			if (origin && origin !== "null") {
				try {
					const o = new URL(origin);
					ok = o.origin === new URL(c.req.url).origin || o.host === c.req.header("Host");
				} catch {
					ok = false;
				}
			}
			if (!ok)
				return render(
					c,
					403,
					"Refused",
					html`<h1>Refused</h1>${notice("error", "This form was not sent from the console (cross-origin request).")}`,
				);
		}
		await next();
	};
	app.use("*", sameOrigin);

	// Everything but sign-in needs a session; writes also need the session's CSRF token.
	app.use("*", async (c, next) => {
		if (c.req.path === "/console/sign-in") return next();
		const session = await openSession(c.env.DB, secretOf(c), getCookie(c, SESSION_COOKIE));
		if (!session) {
			// A cookie that refers to no session any more (signed out elsewhere, key revoked, expired) says so.
			const stale = getCookie(c, SESSION_COOKIE) !== undefined;
			if (stale) deleteCookie(c, SESSION_COOKIE, { path: "/console" });
			return c.redirect(stale || c.req.method !== "GET" ? "/console/sign-in?msg=expired" : "/console/sign-in", 303);
		}
		c.set("session", session);
		if (c.req.method === "POST") {
			const form = await c.req.parseBody();
			const token = formString(form, "_csrf");
			if (!token || !sameToken(token, session.csrf)) {
				return render(
					c,
					403,
					"Refused",
					html`<h1>Refused</h1>${notice("error", "The form's security token is missing or stale. Reload the page and try again.")}`,
				);
			}
		}
		c.set("api", apiFor(fetcher, c, session.token));
		await next();
	});

	// ---- Sign-in and sign-out -------------------------------------------------------------------

	const signInPage = (c: C, status: number, message?: Html) =>
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
<p id="key-help" class="small muted">A Cairn API key (<code>cairn_…</code>). It stays on the server, sealed in a session cookie that expires in two hours; the console can do what the key can do through the API.</p>
<button type="submit">Sign in</button>
</form>
</div>`,
		);

	app.get("/sign-in", async (c) => {
		if (await openSession(c.env.DB, secretOf(c), getCookie(c, SESSION_COOKIE))) return c.redirect("/console/projects", 303);
		return signInPage(c, 200);
	});

	app.post("/sign-in", async (c) => {
		const form = await c.req.parseBody();
		const key = formString(form, "key").trim();
		if (!key || key.length > 200) return signInPage(c, 400, notice("error", "Enter an API key."));
		const r = await apiFor(fetcher, c, key)("GET", "/v1/projects");
		if (r.status === 401) return signInPage(c, 401, notice("error", "That API key is not valid."));
		if (!r.ok && r.status !== 403) return signInPage(c, 502, apiErrorNotice(r.error, "The key could not be checked"));
		const tenant = await c.env.DB.prepare("SELECT tenant_id FROM api_keys WHERE id = ?")
			.bind(parseToken(key)?.id ?? "")
			.first<string>("tenant_id");
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

	// ---- Projects --------------------------------------------------------------------------------

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

	// ---- Memories --------------------------------------------------------------------------------

	app.get("/projects/:projectId", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "memories" as const };
		const type = c.req.query("type") ?? "";
		const scope = c.req.query("scope") ?? "";
		const source = c.req.query("source") ?? "";
		const age = c.req.query("age") ?? "";
		if (source && !(SOURCES as readonly string[]).includes(source)) return badInput(c, "Unknown source filter.", extra);
		if (age && !lookup(AGES, age)) return badInput(c, "Unknown age filter.", extra);
		const params = new URLSearchParams({ limit: "1000" });
		if (type) params.set("type", type);
		if (scope) params.set("scope", scope);
		const r = await c.var.api("GET", `/v1/projects/${seg(project.id)}/memories?${params}`);
		if (!r.ok) return failure(c, r, "Memories", extra);
		const all = (r.data.memories ?? []) as Loose[];
		const ageTest = age ? lookup(AGES, age)?.test : undefined;
		const memories = all.filter((m) => (!source || m.source === source) && (!ageTest || ageTest(ageDays(m.updatedAt))));
		const filtered = Boolean(type || scope || source || age);
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
<td><a href="${memoryPath(project.id, m.name, m.scope)}">${m.name}</a>${m.proposedScope ? html` <span class="badge">proposed: ${m.proposedScope}</span>` : ""}</td>
<td>${m.description}</td><td>${m.type}</td><td>${m.scope}</td><td class="hide-narrow">${m.source}${m.sessionId ? html`<br><span class="small muted">${m.sessionId}</span>` : ""}</td>
<td class="hide-narrow">${when(m.updatedAt)}</td><td class="hide-narrow">${m.version}</td></tr>`,
			)}</tbody></table></div>`
}`,
			extra,
		);
	});

	/** One memory: JSON with its body, history and the consolidation events behind it. */
	async function memoryPage(c: C, project: Loose, name: string, scope: string | undefined, status = 200, banner: Html | string = "") {
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
<div>Source: <strong>${m.source}</strong>${m.sessionId ? html` (session <code>${m.sessionId}</code>)` : ""}</div><div>Updated: ${when(m.updatedAt)}</div><div>Served: ${m.timesServed} time${m.timesServed === 1 ? "" : "s"}${m.lastServedAt ? html`, last ${when(m.lastServedAt)}` : ""}</div></div>
<p class="muted small"><code>${m.path}</code></p>
<h2>Description</h2><p>${m.description}</p>
<h2>Body</h2><pre class="text" tabindex="0" data-testid="memory-body">${m.body}</pre>
<h2>When it applies</h2>
${
	((m.cues ?? []) as string[]).length === 0
		? empty("No cues: nothing says when this memory applies beyond its own words.")
		: html`<ul data-testid="memory-cues">${((m.cues ?? []) as string[]).map((cue) => html`<li>${cue}</li>`)}</ul>`
}
<p class="small muted">${m.cuesSource === "written" ? "Written by a person or a model." : "Derived from the concept map (edit them to write your own)."} Cues are metadata: recall matches prompts against them; the topic file does not hold them.</p>
${editForm(c, project, m.name, m.scope, m.version, { type: m.type, description: m.description, body: m.body, cues: ((m.cues ?? []) as string[]).join("\n") }, "Edit")}
<form method="post" action="${memoryPath(project.id, m.name, m.scope, "/delete")}" data-confirm="Delete ${m.name} and its history?" class="actions">
${csrfField(c.var.session.csrf)}<button type="submit" class="danger">Delete this memory</button></form>
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

	function editForm(
		c: C,
		project: Loose,
		name: string,
		scope: string,
		version: number,
		values: { type: string; description: string; body: string; cues?: string },
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
		const json =
			cues !== undefined && cues !== formString(form, "cues-before").replace(/\r\n/g, "\n")
				? {
						...fields,
						cues: cues
							.split("\n")
							.map((line) => line.trim())
							.filter(Boolean),
					}
				: fields;
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

	const diffTable = (rows: ReturnType<typeof diffLines>, left: string, right: string) =>
		html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table class="diff"><caption class="muted small">${left} (left) beside ${right} (right); changed lines are shaded</caption>
<thead><tr><th scope="col" class="no">#</th><th scope="col">${left}</th><th scope="col" class="no">#</th><th scope="col">${right}</th></tr></thead>
<tbody>${rows.map((r) =>
			r.kind === "same"
				? html`<tr><td class="no">${r.leftNo}</td><td>${r.left}</td><td class="no">${r.rightNo}</td><td>${r.right}</td></tr>`
				: html`<tr><td class="no">${r.leftNo ?? ""}</td><td class="${r.left === null ? "" : "del"}">${r.left === null ? "" : html`<del>${r.left}</del>`}</td><td class="no">${r.rightNo ?? ""}</td><td class="${r.right === null ? "" : "add"}">${r.right === null ? "" : html`<ins>${r.right}</ins>`}</td></tr>`,
		)}</tbody></table></div>`;

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

	// ---- Search with the recall trace --------------------------------------------------------------

	app.get("/projects/:projectId/search", async (c) => {
		const project = await loadProject(c);
		if (project instanceof Response) return project;
		const extra = { project, tab: "search" as const };
		const q = c.req.query("q") ?? "";
		const engine = c.req.query("engine") ?? "";
		const scope = c.req.query("scope") ?? "";
		const form = html`<h1>Search</h1>
<form method="get" action="${projectPath(project.id, "search")}" role="search" class="filters">
<div class="field grow"><label for="q">Query</label><input id="q" name="q" type="search" class="wide" value="${q}" required maxlength="8000"></div>
<div class="field"><label for="s-scope">Scope</label><select id="s-scope" name="scope"><option value="">Both</option>${selectOptions(SCOPES, scope)}</select></div>
<div class="field"><label for="s-engine">Engine</label><select id="s-engine" name="engine"><option value="">Service default</option>${selectOptions(["lexical", "llm"], engine)}</select></div>
<button type="submit">Search</button></form>`;
		if (!q.trim())
			return render(
				c,
				200,
				`Search · ${project.name}`,
				html`${form}${empty("Type what the agent is about to do; recall shows the memories that matter and why each ranked where it did.")}`,
				extra,
			);
		const body: Loose = { query: q, trace: true, limit: 10 };
		if (engine) body.engine = engine;
		if (scope) body.scope = scope;
		const r = await c.var.api("POST", `/v1/projects/${seg(project.id)}/recall`, { json: body });
		if (!r.ok) {
			if (r.status === 401) return failure(c, r, "Search");
			return render(c, r.status, `Search · ${project.name}`, html`${form}${apiErrorNotice(r.error, "Search failed")}`, extra);
		}
		const memories = (r.data.memories ?? []) as Loose[];
		const trace = (r.data.trace?.candidates ?? []) as Loose[];
		const columns = ["bm25", "typePrior", "freshness", "coverage", "lexicalRank", "similarity", "vectorRank"].filter((k) =>
			trace.some((t) => t[k] !== undefined),
		);
		return render(
			c,
			200,
			`Search · ${project.name}`,
			html`${form}
<div class="stats"><div>Engine: <strong>${r.data.engine}</strong></div><div>Retrieval: <strong>${r.data.retrieval}</strong></div>${r.data.fallbackReason ? html`<div>Fallback: ${r.data.fallbackReason}</div>` : ""}${r.data.retrievalNote ? html`<div>${r.data.retrievalNote}</div>` : ""}</div>
${((r.data.warnings ?? []) as string[]).map((w) => notice("info", w))}
<h2>Results</h2>
${
	memories.length === 0
		? empty("No memory matches this query.")
		: html`<ol>${memories.map(
				(m) =>
					html`<li><a href="${memoryPath(project.id, m.name, m.scope)}">${m.name}</a> <span class="badge">${m.type}</span> <span class="badge">${m.scope}</span> <span class="small muted">score ${fmt(m.score)}, ${m.ageDays} day${m.ageDays === 1 ? "" : "s"} old</span><br>${m.description}</li>`,
			)}</ol>`
}
<h2 id="trace">Why: the recall trace</h2>
<p class="small muted">Query terms: ${((r.data.trace?.terms ?? []) as string[]).map((t) => html`<code>${t}</code> `)}. Score = BM25 × type prior × freshness (and coverage of the query's terms).</p>
${
	trace.length === 0
		? empty("No candidate matched any query term.")
		: html`<div class="table-wrap" tabindex="0" role="region" aria-label="Scrollable table"><table data-testid="trace"><thead><tr><th scope="col">Memory</th><th scope="col">Scope</th><th scope="col">Decision</th><th scope="col">Score</th>${columns.map((k) => html`<th scope="col">${k}</th>`)}<th scope="col">Matched terms</th></tr></thead>
<tbody>${trace.map(
				(t) =>
					html`<tr><td>${t.name}</td><td>${t.scope}</td><td>${t.decision}</td><td>${fmt(t.score)}</td>${columns.map((k) => html`<td>${fmt(t[k])}</td>`)}<td>${Array.isArray(t.matchedTerms) ? t.matchedTerms.join(", ") : ""}</td></tr>`,
			)}</tbody></table></div>`
}`,
			extra,
		);
	});

	// ---- What the agent sees ---------------------------------------------------------------------

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

	// ---- Pipeline --------------------------------------------------------------------------------

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

	// ---- Review queue ----------------------------------------------------------------------------

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
		const items = (r.data.items ?? []) as Loose[];
		return render(
			c,
			200,
			`Reviews · ${project.name}`,
			html`<h1>Review queue</h1>
${flash(c.req.query("msg"))}${filter}
${
	items.length === 0
		? empty(status === "pending" ? "Nothing is waiting for review." : `No ${status} items.`)
		: html`<ul class="cards grid">${items.map((item) => reviewCard(c, project, item))}</ul>`
}`,
			extra,
		);
	});

	function reviewCard(c: C, project: Loose, item: Loose) {
		const id = String(item.id ?? "");
		const memory = (item.memory ?? {}) as Loose;
		const proposal = (item.proposal ?? {}) as Loose;
		const title = memory.name ? String(memory.name) : `Item ${id}`;
		const what =
			item.kind === "promote"
				? "Move this memory to team scope"
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
${((item.evidence ?? []) as string[]).length ? html`<p class="small">Evidence: ${((item.evidence ?? []) as string[]).map((s) => html`<code>${s}</code> `)}</p>` : ""}
${proposal.description ? html`<p><strong>Proposed description:</strong> ${proposal.description}</p>` : ""}
${proposal.body ? html`<pre class="text" tabindex="0">${proposal.body}</pre>` : ""}
${item.decidedAt ? html`<p class="small muted">Decided ${when(item.decidedAt)}${item.decidedBy ? html` by <code>${item.decidedBy}</code>` : ""}</p>` : ""}
${
	item.status === "pending"
		? html`<div class="actions">
<form method="post" action="${projectPath(project.id, "reviews")}/${encodeURIComponent(id)}/approve" class="inline">${csrfField(c.var.session.csrf)}<button type="submit" aria-label="Approve: ${what} (${title})">Approve</button></form>
<form method="post" action="${projectPath(project.id, "reviews")}/${encodeURIComponent(id)}/reject" class="inline">${csrfField(c.var.session.csrf)}<button type="submit" class="danger" aria-label="Reject: ${what} (${title})">Reject</button></form>
</div>`
		: ""
}</li>`;
	}

	app.post("/projects/:projectId/reviews/:id/:decision", async (c) => {
		const projectId = c.req.param("projectId");
		const decision = c.req.param("decision");
		if (decision !== "approve" && decision !== "reject") return badInput(c, "A review is approved or rejected.");
		const r = await c.var.api("POST", `/v1/projects/${seg(projectId)}/reviews/${seg(c.req.param("id"))}/${decision}`, { json: {} });
		if (!r.ok) return failure(c, r, "Review");
		return c.redirect(`${projectPath(projectId, "reviews")}?msg=${decision === "approve" ? "approved" : "rejected"}`, 303);
	});

	// ---- Settings and keys -----------------------------------------------------------------------

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

	const keysPage = async (c: C, status: number, banner: Html | string = "") => {
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

	app.all("*", (c) =>
		render(
			c,
			404,
			"Not found",
			html`<h1>Not found</h1>${notice("error", "There is no such console page.")}<p><a href="/console/projects">Projects</a></p>`,
		),
	);

	return app;
}
