// The service's front page: what answers at this address and where to go next — the console, the API's
// OpenAPI document, the README's agent path. HTML for a browser, JSON for `Accept: application/json`.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import { accepts } from "hono/accepts";
import { html } from "hono/html";
import type { AppEnv } from "../context";
import { route } from "../route";

export const homeRoutes = new OpenAPIHono<AppEnv>();

const HomeSchema = z
	.object({
		service: z.literal("cairn"),
		description: z.string(),
		console: z.string().openapi({ description: "The web console (sign in with an API key)", example: "http://127.0.0.1:8787/console" }),
		openapi: z.string().openapi({ description: "This API's OpenAPI document", example: "http://127.0.0.1:8787/openapi.json" }),
		health: z.string().openapi({ example: "http://127.0.0.1:8787/health" }),
		docs: z.string().openapi({ description: "Where the documentation is" }),
		next: z.string().openapi({ description: "What to do to connect an agent" }),
	})
	.openapi("Home");

const DESCRIPTION = "Long-term memory for coding agents.";
const DOCS = "README.md in the Cairn repository: install, `npm start`, `cairn setup`, the first memory; docs/ for the rest";
const NEXT = "In the repository you work in, run `cairn setup` (the CLI in packages/cli of the Cairn repository)";

/** No script, no style, no framing: the page is text and links. */
const PAGE_HEADERS = {
	"Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
	"X-Content-Type-Options": "nosniff",
	"Cache-Control": "no-store",
};

homeRoutes.openapi(
	route({
		method: "get",
		path: "/",
		auth: "public",
		tags: ["service"],
		summary:
			"What this service is, with links to the console, the OpenAPI document and the docs (HTML, or JSON with Accept: application/json)",
		responses: {
			200: {
				description: "A small page linking the console and the docs",
				content: { "text/html": { schema: z.string() }, "application/json": { schema: HomeSchema } },
			},
		},
	}),
	async (c) => {
		const origin = new URL(c.req.url).origin;
		const links = { console: `${origin}/console`, openapi: `${origin}/openapi.json`, health: `${origin}/health` };
		const type = accepts(c, { header: "Accept", supports: ["text/html", "application/json"], default: "text/html" });
		if (type === "application/json") {
			return c.json({ service: "cairn" as const, description: DESCRIPTION, ...links, docs: DOCS, next: NEXT }, 200, PAGE_HEADERS);
		}
		const page = await html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn</title>
</head>
<body>
<main>
<h1>Cairn</h1>
<p>${DESCRIPTION} This service is running.</p>
<ul>
<li><a href="/console">The console</a>: what the agents remember and why (sign in with an API key).</li>
<li><a href="/openapi.json">The API</a>: its OpenAPI document.</li>
<li><a href="/health">Health</a>.</li>
</ul>
<h2>Connect an agent</h2>
<p>In the repository you work in, run <code>cairn setup</code> (the CLI in <code>packages/cli</code> of the Cairn repository). It prints your key and connects Claude Code and Codex.</p>
<p>Documentation: <code>README.md</code> in the Cairn repository (install, <code>npm start</code>, <code>cairn setup</code>, the first memory), and <code>docs/</code> for the rest.</p>
</main>
</body>
</html>`;
		return c.html(page, 200, PAGE_HEADERS);
	},
);
