import { noteSessionKeyUse } from "../api/session-keys";
import type { AuthContext } from "../auth/keys";
import { CairnError } from "../errors";
import { canonicalKeyFromPath, GitRemoteSchema, projectIdentity, RootPathSchema } from "../registry/identity";
import { findTenantProject } from "../registry/projects";
import type { ProjectContext } from "../storage/context";

export interface McpRequestContext {
	env: Env;
	auth: AuthContext;
	/** From `X-Cairn-Project` (checked when used); null when absent. */
	projectId: string | null;
	/** From `X-Cairn-Session`: explicit writes mark this session so extraction skips them. */
	sessionId: string | null;
	waitUntil: (p: Promise<unknown>) => void;
}

/** Names the project when no X-Cairn-Project header does; resolved exactly as POST /v1/projects resolves them. */
export const projectArgs = {
	gitRemote: GitRemoteSchema.optional().describe(
		"The repository's git remote (`git remote get-url origin`), to find the project when the X-Cairn-Project header is not set",
	),
	rootPath: RootPathSchema.optional().describe(
		"The repository's absolute root path (`git rev-parse --show-toplevel`), to find the project when the X-Cairn-Project header is not set and the repository has no remote or only a local one",
	),
};
export type ProjectArgs = { gitRemote?: string; rootPath?: string };

export type KeyScope = "read" | "write";

/**
 * Tools and resources follow REST's rules: reading needs the read scope, changing needs write. A tool's
 * scope comes from its `readOnlyHint` annotation (see `defineTool`); test/authorization-integration.test.ts
 * derives its expectations from the same annotation.
 */
export const requireScope = (ctx: McpRequestContext, scope: KeyScope) => {
	if (!ctx.auth.scopes.includes(scope)) throw new CairnError("forbidden", `this API key lacks the ${scope} scope`);
};

/**
 * The project of a call: the header's, or the registered project of a git remote or root path (the
 * same identity rules as registration), in the key's tenant.
 */
export async function projectFor(ctx: McpRequestContext, args: ProjectArgs): Promise<ProjectContext> {
	let projectId: string | null = null;
	if (ctx.projectId) {
		projectId = await findTenantProject(ctx.env.DB, ctx.auth.tenantId, { projectId: ctx.projectId });
		if (!projectId) throw new CairnError("not_found", "project not found (X-Cairn-Project)");
	} else if (args.gitRemote || args.rootPath) {
		const identity = projectIdentity(args);
		const find = (canonicalKey: string) => findTenantProject(ctx.env.DB, ctx.auth.tenantId, { canonicalKey });
		let found = await find(identity.canonicalKey);
		// Sent both, the remote names the project; a repository registered by its root path (no remote
		// then, or one the CLI does not key on, such as a local path) is still found by that path.
		const byPath = identity.from === "gitRemote" && args.rootPath ? canonicalKeyFromPath(args.rootPath) : null;
		if (!found && byPath) found = await find(byPath);
		if (!found) {
			const what = identity.from === "gitRemote" ? "git remote" : "root path";
			throw new CairnError("not_found", `no project is registered for this ${what}; run \`cairn init\` in the repository`);
		}
		projectId = found;
	}
	if (!projectId) {
		throw new CairnError("invalid_request", "name the project: set the X-Cairn-Project header or pass gitRemote (or rootPath)");
	}
	if (ctx.auth.projectId && ctx.auth.projectId !== projectId) {
		throw new CairnError("forbidden", "this API key is limited to another project");
	}
	// A key an agent session uses never vouches or approves in this project (src/trust/vouch.ts).
	if (ctx.sessionId) await noteSessionKeyUse(ctx.env, ctx.auth, projectId);
	return { tenantId: ctx.auth.tenantId, userId: ctx.auth.userId, projectId };
}
