import type { AuthContext } from "../auth/keys";
import { IsolateCache } from "../lib/isolate-cache";
import { forgetSettings } from "../settings/settings";
import type { ProjectRow } from "./rows";

/**
 * Verified API keys, by the SHA-256 digest of the whole token (only the exact token finds its entry),
 * and project rows by tenant and id: what `requireKey` and `loadProject` would read from D1 on every
 * request. Bounded as src/lib/isolate-cache.ts says; a revocation or deletion in this isolate clears
 * what it touched at once.
 */
export const verifiedKeys = new IsolateCache<AuthContext>();
export const projectRows = new IsolateCache<ProjectRow>();

export const projectCacheKey = (tenantId: string, projectId: string) => `${tenantId}\u0000${projectId}`;

/** A key was revoked here: this isolate stops accepting it now. */
export function forgetKey(keyId: string): void {
	verifiedKeys.drop((_, auth) => auth.keyId === keyId);
}

/** A project (and the keys limited to it) was deleted here. */
export function forgetProject(projectId: string): void {
	projectRows.drop((_, row) => row.id === projectId);
	verifiedKeys.drop((_, auth) => auth.projectId === projectId);
}

/** A tenant was deleted here: its keys, projects and settings. */
export function forgetTenant(tenantId: string): void {
	verifiedKeys.drop((_, auth) => auth.tenantId === tenantId);
	projectRows.drop((_, row) => row.tenant_id === tenantId);
	forgetSettings(tenantId);
}
