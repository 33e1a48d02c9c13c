// The console reaches Cairn's data only through the public API, by handing a request to the same
// app (no network hop): the key from the session goes in as the Bearer token, so authentication,
// scopes, project limits and validation are exactly the API's own.
import type { Context } from "hono";

// biome-ignore lint/suspicious/noExplicitAny: API bodies are read loosely and rendered field by field.
export type Loose = Record<string, any>;

export interface ApiError {
	code: string;
	message: string;
	details?: Loose;
}

export interface ApiResult<T = Loose> {
	status: number;
	ok: boolean;
	/** The parsed JSON body (or {} for none). */
	data: T;
	/** The body as text when it was not JSON (markdown routes). */
	text: string;
	error: ApiError | null;
	etag: string | null;
}

export interface ApiRequest {
	json?: unknown;
	headers?: Record<string, string>;
}

export type Fetcher = (request: Request, env: Env, ctx?: ExecutionContext) => Response | Promise<Response>;

export type Api = <T = Loose>(method: string, path: string, options?: ApiRequest) => Promise<ApiResult<T>>;

export function apiFor(fetcher: Fetcher, c: Context, token: string): Api {
	const origin = new URL(c.req.url).origin;
	let ctx: ExecutionContext | undefined;
	try {
		ctx = c.executionCtx as unknown as ExecutionContext;
	} catch {
		ctx = undefined;
	}
	return async <T>(method: string, path: string, options: ApiRequest = {}) => {
		const headers = new Headers(options.headers);
		headers.set("Authorization", `Bearer ${token}`);
		let body: string | undefined;
		if (options.json !== undefined) {
			body = JSON.stringify(options.json);
			headers.set("Content-Type", "application/json");
		}
		const res = await fetcher(new Request(`${origin}${path}`, { method, headers, body }), c.env as Env, ctx);
		const text = res.status === 204 ? "" : await res.text();
		let data: Loose = {};
		if ((res.headers.get("Content-Type") ?? "").includes("application/json") && text) {
			try {
				data = JSON.parse(text) as Loose;
			} catch {
				data = {};
			}
		}
		const error = res.ok
			? null
			: ((data.error as ApiError | undefined) ?? { code: `http_${res.status}`, message: `the API answered ${res.status}` });
		return { status: res.status, ok: res.ok, data: data as T, text, error, etag: res.headers.get("ETag") };
	};
}

/** A path segment for the API: always encoded, whatever the user typed. */
export const seg = (value: string) => encodeURIComponent(value);
