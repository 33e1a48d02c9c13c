import type { Context } from "hono";
import type { Scope } from "../auth/keys";
import type { ProjectContext } from "../memory/store";
import { type ProjectStore, projectStore } from "../project/client";
import type { ProjectRow } from "../registry/registry";

export interface AuthContext {
	tenantId: string;
	userId: string;
	keyId: string;
	scopes: Scope[];
	/** Set when the key is limited to one project. */
	projectId: string | null;
}

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
export function projectOf(c: Context<AppEnv>): { ctx: ProjectContext; store: ProjectStore } {
	const ctx = c.get("projectContext");
	return { ctx, store: projectStore(c.env, ctx.projectId) };
}
