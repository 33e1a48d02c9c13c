/**
 * Errors raised by domain code, free of any transport: the API layer maps a code to an HTTP status
 * (src/api/errors.ts), MCP to a tool error, and the project's Durable Object carries them across RPC.
 * The message is written by Cairn and safe to show callers: untrusted text (memory bodies,
 * transcripts, model output) never goes into `message` or `details`.
 */
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
	| "held_for_review"
	| "feature_disabled"
	| "confirmation_required"
	| "internal_error";

export class CairnError extends Error {
	constructor(
		readonly code: ErrorCode,
		message: string,
		readonly details?: Record<string, unknown>,
	) {
		super(message);
	}
}

/** Codes that mean the input itself was unusable (as opposed to state, permission or a fault). */
export const isInputError = (err: unknown): err is CairnError =>
	err instanceof CairnError && (err.code === "invalid_request" || err.code === "invalid_name" || err.code === "payload_too_large");

export const badRequest = (message: string, details?: Record<string, unknown>) => new CairnError("invalid_request", message, details);
export const notFound = (what: string) => new CairnError("not_found", `${what} not found`);

/** The plain form a CairnError takes across an RPC boundary (class identity does not survive it). */
export interface WireError {
	code: ErrorCode;
	message: string;
	details?: Record<string, unknown>;
}

export const toWire = (err: CairnError): WireError => ({
	code: err.code,
	message: err.message,
	...(err.details ? { details: err.details } : {}),
});
export const fromWire = (wire: WireError) => new CairnError(wire.code, wire.message, wire.details);
