import type { Context } from "hono";
import type { AuthContext } from "../auth/keys";
import { type ProjectStore, projectStore } from "../project/client";
import type { ProjectRow } from "../registry/rows";
import type { ProjectContext } from "../storage/context";

/** A project as the registry holds it (src/registry/registry.ts). */
export type ProjectRecord = ProjectRow;

export type AppEnv = {
	Bindings: Env;
	Variables: {
		auth: AuthContext;
		project: ProjectRecord;
		/** The project read together with the key (undefined when the path names no project). */
		prefetchedProject: ProjectRecord | null;
		projectContext: ProjectContext;
	};
};

/** The caller's project (the request is already authorised for it) and its store, the project's Durable Object. */
/** The caller's key holds the admin scope (held writes, and the review items of team memories, are theirs to decide). */
export function isAdmin(c: { get(key: "auth"): { scopes: string[] } }): boolean {
	return c.get("auth").scopes.includes("admin");
}

export function projectOf(c: Context<AppEnv>): { ctx: ProjectContext; store: ProjectStore } {
	const ctx = c.get("projectContext");
	return { ctx, store: projectStore(c.env, ctx.projectId) };
}
