// @ts-check
import { keyNote, urlNote } from "./config.mjs";

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
	 * @param {{ json?: unknown, body?: string, contentType?: string, accept?: string, headers?: Record<string, string>, timeoutMs?: number, full?: boolean }} [init]
	 * `full`: the answer with its status and headers (`{ status, headers, body }`), for an ETag.
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
			const ms = Math.max(1, Math.floor(init.timeoutMs ?? timeoutMs));
			throw unreachable(url, err instanceof Error && err.name === "TimeoutError" ? `no answer within ${seconds(ms)}` : causeOf(err));
		}
		const type = res.headers.get("Content-Type") ?? "";
		const payload = res.status === 204 ? null : type.includes("application/json") ? await res.json() : await res.text();
		if (!res.ok) {
			const error = payload && typeof payload === "object" && "error" in payload ? payload.error : null;
			throw new ApiError(res.status, error?.code ?? "http_error", error?.message ?? `HTTP ${res.status}`, error?.details);
		}
		return init.full ? { status: res.status, headers: res.headers, body: payload } : payload;
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

/** @param {number} ms */
const seconds = (ms) => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 100) / 10} s`);

/** Why a connection failed, as the system said it (`ECONNREFUSED`, `ENOTFOUND`), when it did. @param {unknown} err */
export function causeOf(err) {
	/** @type {any} */
	let e = err;
	for (let i = 0; e && i < 4; i++, e = e.cause) if (typeof e.code === "string" && /^E[A-Z]+$/.test(e.code)) return e.code;
	// fetch's own refusals carry no code: "bad port" (a port browsers block), an invalid URL.
	const inner = /** @type {any} */ (err)?.cause?.message;
	return typeof inner === "string" && inner ? inner.slice(0, 80) : "no connection";
}

/**
 * The error for a service that could not be reached: its URL and why (`ECONNREFUSED`, no answer in time).
 * `describeError` adds the fix. @param {string} url @param {string} why
 */
export const unreachable = (url, why) => new ApiError(0, "unreachable", `cannot reach ${url} (${why})`, { url, why });

const LOCAL = /^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:|\/|$)/;
/** Whether a URL is a service on this machine. @param {string} url */
export const isLocalUrl = (url) => LOCAL.test(url);
/**
 * Whether a key saved for one URL may be tried at another: the same URL, or both on this machine (a local
 * service started again on another port keeps its data). @param {string} a @param {string} b
 */
export const sameService = (a, b) => a.replace(/\/+$/, "") === b.replace(/\/+$/, "") || (LOCAL.test(a) && LOCAL.test(b));

/**
 * What to do about a service that cannot be reached: a local one is started with `npm start`, a remote
 * one checked; either way, where the URL came from and how to change it.
 * @param {string} url
 */
export function unreachableFix(url) {
	return LOCAL.test(url)
		? `is the service running? Start it with \`npm start\` in the Cairn checkout (it prints the URL it serves at), or set the URL: ${urlNote()}`
		: `is the service up and this machine online? Else set the URL: ${urlNote()}`;
}

/**
 * An error as one line that names its cause and the fix: a refused key says where it came from, a
 * secret the rule that found it.
 * @param {unknown} err
 */
export function describeError(err) {
	if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
	if (err.code === "unreachable") {
		const url = /** @type {any} */ (err.details)?.url;
		return `${err.message} — ${unreachableFix(typeof url === "string" ? url : "")}`;
	}
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
