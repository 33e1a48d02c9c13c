// What every console page shares besides the layout (view.ts): the app's types, and rendering a page,
// a refusal or a failed API call for the current request.
import type { Context, Hono } from "hono";
import { html } from "hono/html";
import { type Api, type ApiResult, type Fetcher, type Loose, seg } from "./api";
import { type ConsoleSession, deleteCookie, SESSION_COOKIE } from "./session";
import { apiErrorNotice, type Html, notice, type ProjectTab, page } from "./view";

export type ConsoleEnv = {
	Bindings: Env & { CAIRN_CONSOLE_SECRET?: string };
	Variables: { session: ConsoleSession; api: Api };
};
export type C = Context<ConsoleEnv>;
export type ConsoleApp = Hono<ConsoleEnv>;

/** A page's routes, added to the console's app; `fetcher` reaches the API without a session (sign-in). */
export type ConsolePage = (app: ConsoleApp, fetcher: Fetcher) => void;

/** The project tab a page renders under, when it belongs to a project. */
export type PageExtra = { project?: Loose; tab?: ProjectTab };

export const secretOf = (c: C) => c.env.CAIRN_CONSOLE_SECRET ?? "";

export const render = (c: C, status: number, title: string, body: Html, extra: PageExtra = {}) => {
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

export const formString = (form: Record<string, unknown>, key: string): string => {
	const v = Object.hasOwn(form, key) ? form[key] : undefined;
	return typeof v === "string" ? v : "";
};

/** A failed API call as a page; a key that stopped working (revoked) ends the session. */
export function failure(c: C, result: ApiResult, what: string, extra: PageExtra = {}) {
	if (result.status === 401) {
		deleteCookie(c, SESSION_COOKIE, { path: "/console" });
		return c.redirect("/console/sign-in?msg=expired", 303);
	}
	const status = result.status >= 400 && result.status < 600 ? result.status : 502;
	return render(c, status, what, html`<h1>${what}</h1>${apiErrorNotice(result.error, "The request was refused")}`, extra);
}

export const badInput = (c: C, message: string, extra: PageExtra = {}) =>
	render(c, 400, "Invalid request", html`<h1>Invalid request</h1>${notice("error", message)}`, extra);

/** The project named in the path, through the API (404 for another tenant's, 403 for a key limited to another). */
export async function loadProject(c: C): Promise<Loose | Response> {
	const r = await c.var.api("GET", `/v1/projects/${seg(c.req.param("projectId") ?? "")}`);
	if (!r.ok) return failure(c, r, "Project");
	return r.data.project as Loose;
}
