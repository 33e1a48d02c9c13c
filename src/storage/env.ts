import type { Embedder } from "../llm/embedding";
import type { ProjectDb } from "./sql";

/**
 * What domain code running inside a project's Durable Object sees: the Worker's bindings (D1 for the
 * registry and settings, R2 for files, the queue) plus `PDB`, that project's own SQLite. A function
 * that takes a `ProjectEnv` can only run inside the object, so project data is reachable only through
 * the object that owns it.
 */
export type ProjectEnv = Env & {
	PDB: ProjectDb;
	/** The embedding model for memories written here, if one is configured (semantic recall). */
	embedder?: () => Embedder | null;
};
