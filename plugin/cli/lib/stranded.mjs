// @ts-check
// Memories out of view: a repository registered under one tenant while the saved key is another's (an
// earlier `cairn setup` made a second tenant and replaced the key). The service lets a key see its own
// tenant only, so the way back is a key of the tenant that holds them: one of the logins the config keeps
// under `previous` when a key is replaced, or the key the first `cairn setup` printed.
import { ApiError, client, sameService } from "./api.mjs";
import { keyLabel } from "./config.mjs";

/**
 * How many memories a project holds, as the key sees them (counted up to 1,000; null when they cannot be
 * listed). @param {ReturnType<typeof client>} api @param {string} projectId
 */
export async function memoryCount(api, projectId) {
	try {
		const page = /** @type {any} */ (await api.get(`/v1/projects/${projectId}/memories?limit=1000`));
		return Array.isArray(page?.memories) ? page.memories.length : null;
	} catch {
		return null;
	}
}

/**
 * The saved logins replaced by another key, for the same service, that can still read a project: the
 * project of `projectId`, or the one they registered for `root`. Each with its project and how many
 * memories it holds, most memories first.
 * @param {import("./config.mjs").Config} config @param {string} url
 * @param {{ projectId?: string | null, root?: string }} target
 * @returns {Promise<{ login: import("./config.mjs").PreviousLogin, projectId: string, memories: number }[]>}
 */
export async function previousHolders(config, url, target) {
	const found = [];
	for (const login of config.previous ?? []) {
		if (!sameService(login.url, url) || login.key === config.key) continue;
		const id = target.projectId ?? (target.root ? login.projects?.[target.root] : undefined);
		if (!id) continue;
		const api = client({ url, key: login.key, timeoutMs: 5000 });
		try {
			await api.get(`/v1/projects/${id}`);
		} catch {
			continue; // that key is gone too, or its tenant does not hold the project
		}
		found.push({ login, projectId: id, memories: (await memoryCount(api, id)) ?? 0 });
	}
	return found.sort((a, b) => b.memories - a.memories);
}

/** The command that logs in with a previous login again, at the service's URL now. @param {import("./config.mjs").PreviousLogin} login @param {string} [url] */
export const loginAgain = (login, url = login.url) => `cairn login --url ${url} --key ${login.key}`;

/** A previous login, for a sentence: its key's public part, its tenant, when it was replaced. @param {import("./config.mjs").PreviousLogin} login */
export const describeLogin = (login) =>
	`the login replaced ${login.replacedAt.slice(0, 10)} (key ${keyLabel(login.key)}${login.tenant ? `, tenant ${login.tenant.name}` : ""})`;

/**
 * What to say when the saved project of a repository is not in the key's tenant: its cause, and the
 * fix — the previous login that holds it, else the key the first setup printed.
 * @param {import("./config.mjs").Config} config @param {string} url @param {string} key @param {string} projectId
 * @returns {Promise<{ detail: string, fix: string }>}
 */
export async function strandedProject(config, url, key, projectId) {
	const detail = `this repository was registered as project ${projectId}, which key ${keyLabel(key)} cannot see: the project is another tenant's (an earlier \`cairn setup\` made a second tenant and replaced the saved key), and its memories are there`;
	const [holder] = await previousHolders(config, url, { projectId });
	if (holder)
		return {
			detail,
			fix: `${describeLogin(holder.login)} holds it, with ${holder.memories} memor${holder.memories === 1 ? "y" : "ies"}: run \`${loginAgain(holder.login, url)}\` (\`cairn init\` would start an empty project instead)`,
		};
	return {
		detail,
		fix: `log in with that tenant's key: \`cairn login --url ${url} --key <key>\` — the first \`cairn setup\` printed it as \`export … CAIRN_KEY=…\` (look in your shell profile); \`cairn init\` would start an empty project instead. Without that key, the service's operator can only make new tenants (the API lists none)`,
	};
}

/**
 * Whether the key can read the project the config saved for a repository; throws the stranded project's
 * cause and fix when its tenant does not hold it.
 * @param {ReturnType<typeof client>} api @param {import("./config.mjs").Config} config @param {string} url @param {string} key @param {string} projectId
 */
export async function ownProject(api, config, url, key, projectId) {
	try {
		await api.get(`/v1/projects/${projectId}`);
	} catch (err) {
		if (!(err instanceof ApiError && (err.status === 404 || err.status === 403))) throw err;
		const { detail, fix } = await strandedProject(config, url, key, projectId);
		throw new Error(`${detail}; nothing more was changed. To get back: ${fix}`);
	}
}
