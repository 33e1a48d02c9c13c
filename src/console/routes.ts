// The web console: server-rendered pages under /console that show what the agents remember. Every
// read and write goes through the public API (see api.ts) with the signed-in key, so the console
// can do exactly what that key can do through the API, and nothing more.

// The app below is the frame every page shares: error page, security headers, assets, body limit,
// the deploy secret, same-origin writes, and the session and CSRF checks. Each page's routes and
// rendering live in pages/; shared layout in view.ts, shared request helpers in context.ts.

import type { MiddlewareHandler } from "hono";
import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { html } from "hono/html";
import { apiFor, type Fetcher } from "./api";
import { CONSOLE_CSS, CONSOLE_JS } from "./assets";
import { type ConsoleEnv, type ConsolePage, formString, render, secretOf } from "./context";
import { injectRoutes } from "./pages/inject";
import { keysRoutes } from "./pages/keys";
import { memoriesRoutes } from "./pages/memories";
import { memoryRoutes } from "./pages/memory";
import { pipelineRoutes } from "./pages/pipeline";
import { projectsRoutes } from "./pages/projects";
import { reviewsRoutes } from "./pages/reviews";
import { searchRoutes } from "./pages/search";
import { settingsRoutes } from "./pages/settings";
import { signInRoutes } from "./pages/sign-in";
import { deleteCookie, getCookie, openSession, SESSION_COOKIE, sameToken } from "./session";
import { notice } from "./view";

/** Form bodies: a topic file is at most 64 KB; leave room for the encoding. */
const FORM_LIMIT = 256 * 1024;

/** Every page of the console, registered in this order after the shared middleware. */
const PAGES: readonly ConsolePage[] = [
	signInRoutes,
	projectsRoutes,
	memoriesRoutes,
	memoryRoutes,
	searchRoutes,
	injectRoutes,
	pipelineRoutes,
	reviewsRoutes,
	settingsRoutes,
	keysRoutes,
];

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

	for (const register of PAGES) register(app, fetcher);

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
