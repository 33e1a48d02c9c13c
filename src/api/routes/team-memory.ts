import { OpenAPIHono, z } from "@hono/zod-openapi";
import { buildInjection } from "../../inject/inject";
import { sha256Hex } from "../../lib/ids";
import { type ProjectContext, readMemoryContent } from "../../memory/store";
import { NAME_SOURCE, parseTopicFile, renderTopicFile } from "../../memory/topic-file";
import { projectStore } from "../../project/client";
import { findSecrets, ruleNames } from "../../security/secrets";
import { effectiveSettings, requireFeature } from "../../settings/settings";
import type { AppEnv } from "../context";
import { badRequest, CairnError } from "../errors";
import { taggedRoutes } from "../route";
import { errors, jsonBody, jsonResponse, ProjectIdParam, ProjectParams } from "../schemas";
import { InjectResultSchema } from "./recall";

export const teamMemoryRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("team memory");

/** A team sync push carries at most this much. */
export const TEAM_SYNC_BODY_LIMIT = 200 * 1024;
const PATH = new RegExp(`^(${NAME_SOURCE})\\.md$`);
const PathSchema = z.string().regex(PATH).openapi({ example: "testing-conventions.md" });
const Sha = z.string().regex(/^[0-9a-f]{64}$/);

/** Team sync needs memory on and team memory on; policy wins over project and user settings. */
async function requireTeamSync(env: Env, ctx: ProjectContext) {
	const settings = await effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId);
	requireFeature(settings, "team memory sync", ["memories.enabled", "memories.teamMemory"]);
}

teamMemoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/team-memory",
		scope: "read",
		summary: "Team memory for sync: `?view=hashes` → path → sha256; otherwise every file with its content",
		request: {
			params: ProjectParams,
			query: z.object({
				view: z
					.enum(["hashes", "full"])
					.default("full")
					.openapi({ param: { name: "view", in: "query" } }),
			}),
		},
		responses: {
			200: jsonResponse(
				"Entries keyed by path (`<name>.md`)",
				z.object({ entries: z.record(z.string(), z.union([Sha, z.object({ content: z.string(), sha256: Sha })])) }),
			),
			...errors(400, 401, 403, 404),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		await requireTeamSync(c.env, ctx);
		const rows = await projectStore(c.env, ctx.projectId).teamMemories(ctx);
		if (c.req.valid("query").view === "hashes") {
			return c.json({ entries: Object.fromEntries(rows.map((r) => [`${r.name}.md`, r.content_hash])) }, 200);
		}
		const entries: Record<string, { content: string; sha256: string }> = {};
		for (let i = 0; i < rows.length; i += 16) {
			const chunk = rows.slice(i, i + 16);
			const contents = await Promise.all(chunk.map((r) => readMemoryContent(c.env, ctx, r)));
			chunk.forEach((r, j) => {
				entries[`${r.name}.md`] = { content: contents[j] ?? "", sha256: r.content_hash };
			});
		}
		return c.json({ entries }, 200);
	},
);

const PushSchema = z.object({
	entries: z
		.array(
			z.object({
				path: PathSchema,
				content: z.string().max(TEAM_SYNC_BODY_LIMIT),
				baseSha256: Sha.optional().openapi({ description: "The server hash this edit started from; omit for a new file" }),
			}),
		)
		.min(1)
		.max(200),
});

teamMemoryRoutes.openapi(
	route({
		method: "put",
		path: "/v1/projects/{projectId}/team-memory",
		scope: "write",
		bodyLimit: TEAM_SYNC_BODY_LIMIT,
		summary: "Push changed team files (≤ 200 KB). Each entry names the hash it was edited from; stale → 412, secret → 422",
		description:
			"All entries are checked before any is written: a stale or missing base (412 version_conflict, details.conflicts), " +
			"a secret (422 secret_detected, details.paths with rule names), or a malformed file (400) refuses the whole push. " +
			"Files absent from the push are left alone: deleting a file locally deletes nothing here.",
		request: { params: ProjectParams, body: jsonBody(PushSchema) },
		responses: {
			200: jsonResponse(
				"Per-entry results",
				z.object({
					results: z.array(z.object({ path: z.string(), status: z.enum(["created", "updated", "unchanged"]), sha256: Sha })),
				}),
			),
			...errors(400, 401, 403, 404, 412, 413, 422),
		},
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		await requireTeamSync(c.env, ctx);
		const { entries } = c.req.valid("json");
		const seen = new Set<string>();
		const parsed = [];
		for (const entry of entries) {
			if (seen.has(entry.path)) throw badRequest(`${entry.path} appears twice in the push`, { path: entry.path });
			seen.add(entry.path);
			const name = PATH.exec(entry.path)?.[1] as string;
			let file: ReturnType<typeof parseTopicFile>;
			try {
				file = parseTopicFile(entry.content);
			} catch (err) {
				if (err instanceof CairnError) throw badRequest(`${entry.path}: ${err.message}`, { path: entry.path, ...(err.details ?? {}) });
				throw err;
			}
			if (file.name !== name) throw badRequest(`${entry.path}: frontmatter name must match the file name`, { path: entry.path });
			parsed.push({ ...entry, name, file, sha256: await sha256Hex(renderTopicFile(file)) });
		}

		const secrets = [];
		for (const p of parsed) {
			const findings = await findSecrets(`${p.file.description}\n${p.file.body}`);
			if (findings.length > 0) secrets.push({ path: p.path, rules: ruleNames(findings) });
		}
		if (secrets.length > 0) {
			throw new CairnError("secret_detected", "team memory push refused: some files contain what looks like a secret", {
				paths: secrets,
			});
		}

		const current = new Map(
			(
				await projectStore(c.env, ctx.projectId).teamMemories(
					ctx,
					parsed.map((p) => p.name),
				)
			).map((r) => [r.name, r]),
		);
		const conflicts = [];
		for (const p of parsed) {
			const row = current.get(p.name);
			const stale = p.baseSha256 ? row?.content_hash !== p.baseSha256 : row !== undefined && row.content_hash !== p.sha256;
			if (stale) conflicts.push({ path: p.path, serverSha256: row?.content_hash ?? null });
		}
		if (conflicts.length > 0) {
			throw new CairnError(
				"version_conflict",
				"team memory changed on the server since these files were read; pull, merge and push again",
				{
					conflicts,
				},
			);
		}

		const results = [];
		for (const p of parsed) {
			const row = current.get(p.name);
			const written = await projectStore(c.env, ctx.projectId).writeMemory(ctx, {
				scope: "team",
				file: p.file,
				source: "user",
				ifMatch: row ? row.version : undefined,
			});
			results.push({ path: p.path, status: written.status, sha256: p.sha256 });
		}
		return c.json({ results }, 200);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/projects/{projectId}/team-memory/{path}",
		scope: "write",
		summary: "Delete one team file explicitly (the only way a team file is removed)",
		request: { params: z.object({ projectId: ProjectIdParam, path: PathSchema.openapi({ param: { name: "path", in: "path" } }) }) },
		responses: { 204: { description: "Deleted" }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		await requireTeamSync(c.env, ctx);
		const name = PATH.exec(c.req.valid("param").path)?.[1] as string;
		await projectStore(c.env, ctx.projectId).deleteMemory(ctx, "team", name);
		return c.body(null, 204);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/view",
		scope: "read",
		tags: ["memory commands"],
		summary: "/memory view: the current inject payload for an empty query",
		request: { params: ProjectParams },
		responses: { 200: jsonResponse("The inject payload", InjectResultSchema), ...errors(401, 403, 404) },
	}),
	async (c) => {
		const { servedIds: _ids, ...body } = await buildInjection(c.env, c.get("projectContext"), {});
		return c.json(body, 200);
	},
);

teamMemoryRoutes.openapi(
	route({
		method: "delete",
		path: "/v1/projects/{projectId}/memory",
		scope: ["admin", "write"],
		tags: ["memory commands"],
		summary: "/memory clear: delete every memory artifact of the project (confirm with ?confirm=<projectId>)",
		description:
			"Removes personal and team topic files with their versions and search rows, stage-1 outputs, summaries, skills, " +
			"daily logs, sessions with their transcripts and session memories, and audit events — in the project's object and R2. " +
			"The project, its keys and its settings stay. Needs the admin scope.",
		request: {
			params: ProjectParams,
			query: z.object({
				confirm: z
					.string()
					.max(64)
					.optional()
					.openapi({ param: { name: "confirm", in: "query" } }),
			}),
		},
		responses: { 204: { description: "Cleared" }, ...errors(400, 401, 403, 404) },
	}),
	async (c) => {
		const ctx = c.get("projectContext");
		if (c.req.valid("query").confirm !== ctx.projectId) {
			throw new CairnError("confirmation_required", "clearing memory needs ?confirm=<projectId> with this project's id");
		}
		await projectStore(c.env, ctx.projectId).clear(ctx);
		return c.body(null, 204);
	},
);
