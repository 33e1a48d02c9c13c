// Page frame and small view helpers. Every value from storage or the request goes through
// hono/html's escaping interpolation; `raw` is never applied to anything but this file's own markup.
import { html } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";
import { lookup, lookupTable } from "../lib/lookup";
import type { ApiError } from "./api";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

export type ProjectTab = "memories" | "search" | "inject" | "pipeline" | "reviews" | "settings";

export interface PageOptions {
	title: string;
	/** Present when signed in: the CSRF token for the sign-out form. */
	csrf?: string;
	project?: { id: string; name: string };
	tab?: ProjectTab;
	body: Html;
}

const TABS: [ProjectTab, string][] = [
	["memories", "Memories"],
	["search", "Search"],
	["inject", "What the agent sees"],
	["pipeline", "Pipeline"],
	["reviews", "Review queue"],
	["settings", "Settings"],
];

export const projectPath = (projectId: string, tab: ProjectTab | "" = "") =>
	`/console/projects/${encodeURIComponent(projectId)}${tab && tab !== "memories" ? `/${tab}` : ""}`;

export function page(options: PageOptions): Html {
	const { project, tab } = options;
	return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Cairn console</title>
<link rel="stylesheet" href="/console/assets/console.css">
<script src="/console/assets/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/console">Cairn console</a>
${
	options.csrf
		? html`<nav aria-label="Account" class="actions">
<a href="/console/projects">Projects</a>
<a href="/console/keys">Keys</a>
<form method="post" action="/console/sign-out" class="inline"><input type="hidden" name="_csrf" value="${options.csrf}"><button type="submit">Sign out</button></form>
</nav>`
		: ""
}
</header>
${
	project
		? html`<nav class="project" aria-label="Project ${project.name}">
${TABS.map(([t, label]) => html`<a href="${projectPath(project.id, t)}"${t === tab ? html` aria-current="page"` : ""}>${label}</a>`)}
</nav>`
		: ""
}
<main id="main">
${options.body}
</main>
</body>
</html>`;
}

export const notice = (kind: "ok" | "error" | "info", text: Html | string) =>
	html`<div class="notice ${kind === "info" ? "" : kind}" role="${kind === "error" ? "alert" : "status"}">${text}</div>`;

export const apiErrorNotice = (error: ApiError | null, what: string) =>
	notice(
		"error",
		html`${what}: ${error?.message ?? "unknown error"}${error?.code ? html` <span class="badge bad">${error.code}</span>` : ""}`,
	);

export const empty = (text: Html | string) => html`<p class="empty">${text}</p>`;

export const csrfField = (csrf: string) => html`<input type="hidden" name="_csrf" value="${csrf}">`;

export const when = (date: string | null | undefined) =>
	date ? html`<time datetime="${date}">${date.replace("T", " ").slice(0, 16)}</time>` : "—";

/** Fixed confirmation messages after a redirect; anything else in `?msg=` is ignored. */
export const MESSAGES: Readonly<Record<string, string>> = lookupTable({
	saved: "Saved.",
	deleted: "Memory deleted.",
	restored: "The memory is served again.",
	retried: "The session's extraction was queued again.",
	approved: "Approved.",
	"approved-batch": "Approved: the team proposals are served to every teammate from the next request.",
	rejected: "Rejected.",
	revoked: "Key revoked.",
	"signed-out": "You are signed out.",
	expired: "Your session ended. Sign in again.",
});

export const flash = (msg: string | undefined) => {
	const text = msg ? lookup(MESSAGES, msg) : undefined;
	return text ? notice("ok", text) : "";
};

/** The scopes a memory lives in, as the console's filters offer them. */
export const SCOPES = ["personal", "team"] as const;

/** A memory's console page, optionally in one scope, with an optional sub-path (`/delete`, `/diff`). */
export const memoryPath = (projectId: string, name: string, scope?: string, suffix = "") =>
	`${projectPath(projectId)}/memories/${encodeURIComponent(name)}${suffix}${scope ? `?scope=${encodeURIComponent(scope)}` : ""}`;

export const selectOptions = (values: readonly string[], selected: string, labels: Record<string, string> = {}) =>
	values.map((v) => html`<option value="${v}"${v === selected ? html` selected` : ""}>${labels[v] ?? v}</option>`);
