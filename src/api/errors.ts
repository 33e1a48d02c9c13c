import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { CairnError, ErrorCode } from "../errors";

export { badRequest, CairnError, type ErrorCode, notFound } from "../errors";

/** The only place a domain error code becomes an HTTP status. */
export const HTTP_STATUS: Record<ErrorCode, ContentfulStatusCode> = {
	invalid_request: 400,
	invalid_name: 400,
	confirmation_required: 400,
	unauthorized: 401,
	forbidden: 403,
	feature_disabled: 403,
	not_found: 404,
	method_not_allowed: 405,
	conflict: 409,
	version_conflict: 412,
	payload_too_large: 413,
	unsupported_media_type: 415,
	secret_detected: 422,
	// Accepted, not stored: the write waits in the review queue for a project admin (docs/memory-trust.md).
	held_for_review: 202,
	internal_error: 500,
};

/** The one place that turns an error into the response body `{"error":{code,message,details?}}`. */
export function errorResponse(c: Context, err: CairnError) {
	const body: { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } = {
		error: { code: err.code, message: err.message },
	};
	if (err.details) body.error.details = err.details;
	// RFC 6750: a 401 names the scheme the caller should use.
	if (err.code === "unauthorized" && !c.res.headers.has("WWW-Authenticate")) c.header("WWW-Authenticate", 'Bearer realm="cairn"');
	return c.json(body, HTTP_STATUS[err.code]);
}
