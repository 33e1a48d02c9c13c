/** Who is acting, on which project: always derived from the API key, never from the request. */
export interface ProjectContext {
	tenantId: string;
	userId: string;
	projectId: string;
}
