import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorCode =
	| "invalid_request"
	| "invalid_name"
	| "unauthorized"
	| "forbidden"
	| "not_found"
	| "method_not_allowed"
	| "version_conflict"
	| "conflict"
	| "payload_too_large"
	| "unsupported_media_type"
	| "secret_detected"
	| "feature_disabled"
	| "confirmation_required"
	| "internal_error";

/**
 * An error whose message is written by Cairn and safe to show callers. Untrusted text
 * (memory bodies, transcripts, model output) never goes into `message` or `details`.
 */
export class ApiError extends Error {
	constructor(
		readonly status: ContentfulStatusCode,
		readonly code: ErrorCode,
		message: string,
		readonly details?: Record<string, unknown>,
	) {
		super(message);
	}
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new ApiError(400, "invalid_request", message, details);
export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);

/** The one place that turns an error into the response body `{"error":{code,message,details?}}`. */
export function errorResponse(c: Context, err: ApiError) {
	const body: { error: { code: ErrorCode; message: string; details?: Record<string, unknown> } } = {
		error: { code: err.code, message: err.message },
	};
	if (err.details) body.error.details = err.details;
	return c.json(body, err.status);
}
