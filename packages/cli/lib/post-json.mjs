// @ts-check
// One JSON POST over node:http(s), for the prompt hook. Node's fetch loads and sets up undici on its
// first request, which costs a hook that makes exactly one request more than the request itself.
import { ApiError, causeOf, unreachable } from "./api.mjs";

/**
 * @param {{ url: string, key: string }} service
 * @param {string} path
 * @param {unknown} body
 * @param {number} timeoutMs
 * @returns {Promise<any>}
 */
export async function postJson({ url, key }, path, body, timeoutMs) {
	const target = new URL(`${url}${path}`);
	const { request } = target.protocol === "https:" ? await import("node:https") : await import("node:http");
	const data = Buffer.from(JSON.stringify(body));
	return new Promise((resolve, reject) => {
		const req = request(
			target,
			{
				method: "POST",
				headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json", "Content-Length": data.length },
				agent: false,
			},
			(res) => {
				/** @type {Buffer[]} */
				const chunks = [];
				res.on("data", (c) => chunks.push(c));
				res.on("error", (err) => reject(unreachable(url, causeOf(err))));
				res.on("end", () => {
					clearTimeout(timer);
					const text = Buffer.concat(chunks).toString("utf8");
					let payload = null;
					try {
						payload = text && String(res.headers["content-type"] ?? "").includes("application/json") ? JSON.parse(text) : text;
					} catch {
						payload = null;
					}
					const status = res.statusCode ?? 0;
					if (status >= 200 && status < 300) return resolve(payload);
					const error = payload && typeof payload === "object" && "error" in payload ? payload.error : null;
					reject(new ApiError(status, error?.code ?? "http_error", error?.message ?? `HTTP ${status}`, error?.details));
				});
			},
		);
		const timer = setTimeout(
			() => {
				req.destroy();
				reject(unreachable(url, `no answer within ${Math.max(1, Math.floor(timeoutMs))} ms`));
			},
			Math.max(1, Math.floor(timeoutMs)),
		);
		req.on("error", (err) => {
			clearTimeout(timer);
			reject(unreachable(url, causeOf(err)));
		});
		req.end(data);
	});
}
