import type { Scope } from "../auth/keys";
import type { ProjectContext } from "../memory/store";

export interface AuthContext {
	tenantId: string;
	userId: string;
	keyId: string;
	scopes: Scope[];
	/** Set when the key is limited to one project. */
	projectId: string | null;
}

export interface ProjectRecord {
	id: string;
	tenant_id: string;
	name: string;
	canonical_key: string;
	git_remote: string | null;
	root_path: string | null;
	created_at: string;
}

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
