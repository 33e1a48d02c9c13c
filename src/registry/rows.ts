/** A project as the registry (D1 `projects`) holds it. */
export interface ProjectRow {
	id: string;
	tenant_id: string;
	name: string;
	canonical_key: string;
	git_remote: string | null;
	root_path: string | null;
	created_at: string;
}
