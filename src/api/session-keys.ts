import type { MiddlewareHandler } from "hono";
import type { AuthContext } from "../auth/keys";
import { projectStore } from "../project/client";
import type { AppEnv } from "./context";

/**
 * Keys an agent session uses (src/trust/vouch.ts): a request that names a session — `X-Cairn-Session`,
 * `X-Cairn-Agent` from `cairn` in an agent's shell, a session's transcript or end, a session-start or
 * prompt block asked for with its `sessionId` — marks its key in the project, so that the key never
 * vouches for team memory or approves a proposal there: an agent holding it could approve its own plant.
 * (A session's transcript, end or compaction: what the hooks post; a retry from the console is a person's.)
 * Recorded once per project and key in each isolate (the object keeps it for good).
 */
const noted = new Set<string>();
const NOTED_KEPT = 4096;

/** Records that an agent session used `auth`'s key in `projectId` (once per isolate). */
export async function noteSessionKeyUse(env: Env, auth: Pick<AuthContext, "keyId" | "tenantId" | "userId">, projectId: string) {
	const id = `${projectId}/${auth.keyId}`;
	if (noted.has(id)) return;
	await projectStore(env, projectId).noteSessionKey({ tenantId: auth.tenantId, userId: auth.userId, projectId }, auth.keyId);
	if (noted.size >= NOTED_KEPT) noted.clear();
	noted.add(id);
}

/** What the hooks post for a session: its transcript, its end, its compaction (a person's retry or read in the console is not). */
const SESSION_PATH = /^\/v1\/projects\/[^/]+\/sessions\/[^/]+\/(?:transcript|end|memory\/compact)$/;

/** Whether a project request names an agent session (its body is read from Hono's cache: the route parsed it). */
async function namesSession(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<boolean> {
	if (c.req.header("X-Cairn-Session") !== undefined || c.req.header("X-Cairn-Agent") !== undefined) return true;
	if (c.req.method === "POST" && SESSION_PATH.test(c.req.path)) return true;
	if (c.req.method === "POST" && c.req.path.endsWith("/inject") && (c.req.header("Content-Type") ?? "").includes("application/json")) {
		try {
			const body = (await c.req.json()) as { sessionId?: unknown } | null;
			return typeof body?.sessionId === "string" && body.sessionId !== "";
		} catch {
			return false;
		}
	}
	return false;
}

/** After a project route answered: marks the key when the request named an agent session. */
export function sessionKeyRecorder(): MiddlewareHandler<AppEnv> {
	return async function sessionKeyRecorder(c, next) {
		await next();
		const ctx = c.get("projectContext");
		if (!ctx || !c.get("auth")) return;
		if (!(await namesSession(c))) return;
		await noteSessionKeyUse(c.env, c.get("auth"), ctx.projectId);
	};
}
