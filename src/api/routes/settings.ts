import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { effectiveSettings, parseSettingsPatch, readLevel, type SettingsLevel, writeLevel } from "../../settings/settings";
import { PUBLISH_SETTING } from "../../trust/vouch";
import { type AppEnv, isAdmin, projectOf } from "../context";
import { badRequest, CairnError } from "../errors";
import { taggedRoutes } from "../route";
import { errors, jsonResponse, ProjectParams, SettingsPatchSchema, UNCOMPRESSED } from "../schemas";
import { reviewerOf } from "../write-trust";

export const settingsRoutes = new OpenAPIHono<AppEnv>();
const route = taggedRoutes("settings");

const SettingsBodySchema = z.object({ settings: z.record(z.string(), z.unknown()) });
const body = { required: true, content: { "application/json": { schema: SettingsPatchSchema } } };

/** GET and PUT for one settings level; the subject (user or project) comes from the request context. */
function levelRoutes(level: Exclude<SettingsLevel, "policy">, path: string, subject: (c: Context<AppEnv>) => string) {
	const params = level === "project" ? { params: ProjectParams } : {};
	settingsRoutes.openapi(
		route({
			method: "get",
			path,
			scope: "read",
			summary: `The ${level} settings level (only the keys set here)`,
			request: params,
			responses: { 200: jsonResponse("Settings", SettingsBodySchema), ...errors(401, 403, 404) },
		}),
		async (c) => c.json({ settings: await readLevel(c.env.DB, c.get("auth").tenantId, level, subject(c)) }, 200, UNCOMPRESSED),
	);
	settingsRoutes.openapi(
		route({
			method: "put",
			path,
			scope: "write",
			summary: `Patch the ${level} settings level with dotted keys; null clears a key`,
			request: { ...params, body },
			responses: { 200: jsonResponse("Settings", SettingsBodySchema), ...errors(400, 401, 403, 404) },
		}),
		async (c) => {
			// Read here, not through the validator: without a JSON Content-Type the validator lets the body
			// through unread, and an empty or non-JSON body must be a 400, not a SyntaxError (500).
			let raw: unknown;
			try {
				raw = await c.req.json();
			} catch {
				throw badRequest("body is not valid JSON", { field: "body" });
			}
			const patch = parseSettingsPatch(raw);
			// Publishing team writes unreviewed is a project admin's act, as a person, and audited (src/trust/vouch.ts).
			const publish = Object.hasOwn(patch, PUBLISH_SETTING);
			if (publish && level === "user")
				throw badRequest(
					`${PUBLISH_SETTING} is a project setting (a project admin sets it); a user's own level cannot publish team writes`,
					{
						field: PUBLISH_SETTING,
					},
				);
			if (publish) {
				if (!isAdmin(c)) throw new CairnError("forbidden", `${PUBLISH_SETTING} is changed with an admin key only`);
				const { ctx, store } = projectOf(c);
				await store.settingChange(ctx, reviewerOf(c), PUBLISH_SETTING);
				const settings = await writeLevel(c.env.DB, c.get("auth").tenantId, level, subject(c), patch);
				await store.settingChange(ctx, reviewerOf(c), PUBLISH_SETTING, patch[PUBLISH_SETTING as keyof typeof patch]);
				return c.json({ settings }, 200);
			}
			return c.json({ settings: await writeLevel(c.env.DB, c.get("auth").tenantId, level, subject(c), patch) }, 200);
		},
	);
}

levelRoutes("user", "/v1/settings", (c) => c.get("auth").userId);
levelRoutes("project", "/v1/projects/{projectId}/settings", (c) => c.get("project").id);

settingsRoutes.openapi(
	route({
		method: "get",
		path: "/v1/projects/{projectId}/settings/effective",
		scope: "read",
		summary: "Every setting's effective value for the caller in this project, and its source",
		request: { params: ProjectParams },
		responses: {
			200: jsonResponse(
				"Effective settings",
				z.object({
					settings: z.record(
						z.string(),
						z.object({
							value: z.union([z.boolean(), z.number(), z.string()]),
							source: z.enum(["default", "user", "project", "policy"]),
						}),
					),
				}),
			),
			...errors(401, 403, 404),
		},
	}),
	async (c) => {
		const { tenantId, userId } = c.get("auth");
		return c.json({ settings: await effectiveSettings(c.env.DB, tenantId, userId, c.get("project").id) }, 200);
	},
);
