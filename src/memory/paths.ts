import type { MemoryScope } from "./topic-file";

/** R2 layout; see docs/storage.md. Only generated ids, hashes and validated names appear in keys. */
export const projectPrefix = (tenantId: string, projectId: string) => `tenants/${tenantId}/projects/${projectId}/`;

export const objectKey = (tenantId: string, projectId: string, hash: string) => `${projectPrefix(tenantId, projectId)}objects/${hash}.md`;

/** A batch's content pack: the topic files one batch wrote, end to end (see src/memory/packs.ts). */
export const packsPrefix = (tenantId: string, projectId: string) => `${projectPrefix(tenantId, projectId)}packs/`;
export const packKey = (tenantId: string, projectId: string, packId: string) => `${packsPrefix(tenantId, projectId)}${packId}`;

export const indexKey = (tenantId: string, projectId: string, userId: string) =>
	`${projectPrefix(tenantId, projectId)}index/${userId}/MEMORY.md`;

/** The memory:// URL of a topic file; team files live under `team/` so names never collide. */
export const memoryUrl = (scope: MemoryScope, name: string) =>
	scope === "team" ? `memory://root/team/${name}.md` : `memory://root/${name}.md`;

export const relativePath = (scope: MemoryScope, name: string) => (scope === "team" ? `team/${name}.md` : `${name}.md`);

/** Each user's summary covers their personal memories and the team's, so it is kept per user. */
export const summaryKey = (tenantId: string, projectId: string, userId: string) =>
	`${projectPrefix(tenantId, projectId)}summaries/${userId}/memory_summary.md`;

export const logsPrefix = (tenantId: string, projectId: string, userId: string) => `${projectPrefix(tenantId, projectId)}logs/${userId}/`;
export const logKey = (tenantId: string, projectId: string, userId: string, date: string) =>
	`${logsPrefix(tenantId, projectId, userId)}${date}.md`;

/** Session ids come from agents, so their R2 segment is a hash of the id, not the id. */
export const sessionPrefix = (tenantId: string, projectId: string, sessionHash: string) =>
	`${projectPrefix(tenantId, projectId)}sessions/${sessionHash}/`;
