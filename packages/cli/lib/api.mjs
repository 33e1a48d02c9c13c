// @ts-check
import { keyNote } from "./config.mjs";

/** An error from the service, carrying its stable code. */
export class ApiError extends Error {
	/** @param {number} status @param {string} code @param {string} message @param {unknown} [details] */
	constructor(status, code, message, details) {
		super(message);
		this.status = status;
		this.code = code;
		this.details = details;
	}
}

/**
 * A thin client for the HTTPS API.
 * @param {{ url: string, key: string, timeoutMs?: number }} options
 */
export function client({ url, key, timeoutMs = 30_000 }) {
	/**
	 * @param {string} method
	 * @param {string} path
	 * @param {{ json?: unknown, body?: string, contentType?: string, accept?: string, headers?: Record<string, string>, timeoutMs?: number }} [init]
	 */
	async function request(method, path, init = {}) {
		/** @type {Record<string, string>} */
		const headers = { Authorization: `Bearer ${key}`, ...init.headers };
		if (init.accept) headers.Accept = init.accept;
		let body;
		if (init.json !== undefined) {
			body = JSON.stringify(init.json);
			headers["Content-Type"] = "application/json";
		} else if (init.body !== undefined) {
			body = init.body;
			headers["Content-Type"] = init.contentType ?? "text/plain";
		}
		let res;
		try {
			res = await fetch(`${url}${path}`, {
				method,
				headers,
				body,
				signal: AbortSignal.timeout(Math.max(1, Math.floor(init.timeoutMs ?? timeoutMs))),
			});
		} catch (err) {
			const reason = err instanceof Error && err.name === "TimeoutError" ? "timed out" : "is not reachable";
			throw new ApiError(0, "unreachable", `the memory service at ${url} ${reason}`);
		}
		const type = res.headers.get("Content-Type") ?? "";
		const payload = res.status === 204 ? null : type.includes("application/json") ? await res.json() : await res.text();
		if (!res.ok) {
			const error = payload && typeof payload === "object" && "error" in payload ? payload.error : null;
			throw new ApiError(res.status, error?.code ?? "http_error", error?.message ?? `HTTP ${res.status}`, error?.details);
		}
		return payload;
	}
	return {
		request,
		/** @param {string} path */
		get: (path) => request("GET", path),
		/** @param {string} path @param {unknown} [json] @param {{ timeoutMs?: number }} [options] */
		post: (path, json, options = {}) => request("POST", path, json === undefined ? options : { json, ...options }),
		/** @param {string} path @param {unknown} json */
		put: (path, json) => request("PUT", path, { json }),
		/** @param {string} path */
		del: (path) => request("DELETE", path),
	};
}

/**
 * An error as one line that names its cause and the fix: a refused key says where it came from, a
 * secret the rule that found it.
 * @param {unknown} err
 */
export function describeError(err) {
	if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
	if (err.status === 401) return `${err.message} (${err.code}): ${keyNote()}`;
	const details = /** @type {any} */ (err.details);
	const rules = Array.isArray(details?.rules) ? details.rules.map(String) : [];
	if (err.code === "secret_detected" && rules.length)
		return `${err.message} (${err.code}: rule ${rules.join(", ")}); keep a pointer to where the secret lives instead of the secret`;
	return `${err.message}${err.code && err.status ? ` (${err.code})` : ""}`;
}

/**
 * The line to show when the service's warnings say memory is off for the project (`memories.enabled`),
 * which is why an answer is empty; null when it is on.
 * @param {unknown} warnings
 */
export function memoryOff(warnings) {
	const off = (Array.isArray(warnings) ? warnings.map(String) : []).find((w) => w.includes("memories.enabled"));
	if (!off) return null;
	const by = /set by (\w+)/.exec(off)?.[1];
	return `memory is off for this repository — run \`cairn init\` to turn it on (memories.enabled${by ? `, set by ${by}` : ""})`;
}
