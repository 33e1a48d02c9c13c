import type { AuthContext } from "../auth/keys";
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
