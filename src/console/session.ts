import type { Context } from "hono";
import { parseToken } from "../auth/keys";
import { nowIso } from "../lib/ids";

// The console's session lives on the server, in D1's console_sessions: the API key the user signed
// in with (sealed), a CSRF token and an expiry. The cookie holds a reference to that row and the key
// that opens its sealed API key, never the API key itself. Signing out deletes the row, so a copied
// cookie stops working everywhere at once; revoking the API key deletes its rows too.

export const SESSION_COOKIE = "cairn_console";
/** Sessions last two hours; signing in again starts a new one. */
export const SESSION_SECONDS = 2 * 60 * 60;

export interface ConsoleSession {
	/** The row's id: what sign-out deletes. */
	id: string;
	/** The API key, used server-side as the Bearer token of the console's internal API calls. */
	token: string;
	/** Per-session CSRF token, echoed by every form. */
	csrf: string;
	/** Expiry, milliseconds since the epoch. */
	expires: number;
}

const encoder = new TextEncoder();

const toBase64Url = (bytes: Uint8Array) => {
	let s = "";
	for (const b of bytes) s += String.fromCharCode(b);
	return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
};

const fromBase64Url = (text: string): Uint8Array | null => {
	if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
	try {
		const s = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
		return Uint8Array.from(s, (ch) => ch.charCodeAt(0));
	} catch {
		return null;
	}
};

/** The AES-GCM key of one session's row: the server's secret and the cookie's own key, together. */
async function rowKey(secret: string, cookieKey: string): Promise<CryptoKey> {
	const raw = await crypto.subtle.digest("SHA-256", encoder.encode(`cairn-console:${secret}:${cookieKey}`));
	return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

export const randomToken = () => toBase64Url(crypto.getRandomValues(new Uint8Array(24)));

/** A cookie value: `<row id>.<row key>`, each 32 base64url characters. */
const COOKIE_VALUE = /^([A-Za-z0-9_-]{32})\.([A-Za-z0-9_-]{32})$/;

/**
 * Starts a session for an API key already checked by the caller: one row in D1, and the cookie value
 * that refers to it. Expired rows of the tenant are dropped on the way.
 */
export async function startSession(
	db: D1Database,
	secret: string,
	tenantId: string,
	token: string,
	now = Date.now(),
): Promise<{ cookie: string; session: ConsoleSession }> {
	const id = randomToken();
	const cookieKey = randomToken();
	const session: ConsoleSession = { id, token, csrf: randomToken(), expires: now + SESSION_SECONDS * 1000 };
	const iv = crypto.getRandomValues(new Uint8Array(12));
	const sealed = new Uint8Array(
		await crypto.subtle.encrypt(
			{ name: "AES-GCM", iv, additionalData: encoder.encode(id) },
			await rowKey(secret, cookieKey),
			encoder.encode(token),
		),
	);
	const stored = new Uint8Array(iv.length + sealed.length);
	stored.set(iv);
	stored.set(sealed, iv.length);
	await db.batch([
		db.prepare("DELETE FROM console_sessions WHERE tenant_id = ? AND expires_at <= ?").bind(tenantId, now),
		db
			.prepare(
				"INSERT INTO console_sessions (id, tenant_id, key_id, sealed_key, csrf, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
			)
			.bind(id, tenantId, parseToken(token)?.id ?? "", toBase64Url(stored), session.csrf, session.expires, nowIso()),
	]);
	return { cookie: `${id}.${cookieKey}`, session };
}

/**
 * The session a cookie refers to, or null when the cookie is missing or malformed, its row is gone
 * (signed out, key revoked) or expired, or its key does not open the row (altered, or sealed under
 * another secret).
 */
export async function openSession(
	db: D1Database,
	secret: string,
	value: string | undefined,
	now = Date.now(),
): Promise<ConsoleSession | null> {
	const m = value ? COOKIE_VALUE.exec(value) : null;
	if (!m) return null;
	const [, id, cookieKey] = m as unknown as [string, string, string];
	const row = await db
		.prepare("SELECT sealed_key, csrf, expires_at FROM console_sessions WHERE id = ?")
		.bind(id)
		.first<{ sealed_key: string; csrf: string; expires_at: number }>();
	if (!row || row.expires_at <= now) return null;
	const bytes = fromBase64Url(row.sealed_key);
	if (!bytes || bytes.length < 12 + 16) return null;
	try {
		const plain = await crypto.subtle.decrypt(
			{ name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: encoder.encode(id) },
			await rowKey(secret, cookieKey),
			bytes.slice(12),
		);
		return { id, token: new TextDecoder().decode(plain), csrf: row.csrf, expires: row.expires_at };
	} catch {
		return null;
	}
}

/** Ends a session on the server: its cookie, wherever it was copied to, refers to nothing any more. */
export async function endSession(db: D1Database, id: string): Promise<void> {
	await db.prepare("DELETE FROM console_sessions WHERE id = ?").bind(id).run();
}

/** Constant-time comparison of two short strings (CSRF tokens). */
export function sameToken(a: string, b: string): boolean {
	const x = encoder.encode(a);
	const y = encoder.encode(b);
	let diff = x.length ^ y.length;
	for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
	return diff === 0;
}

/** The value of one cookie in the request (hono/cookie's helpers are not used: this is all the console needs). */
export function getCookie(c: Context, name: string): string | undefined {
	for (const part of (c.req.header("Cookie") ?? "").split(";")) {
		const eq = part.indexOf("=");
		if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
	}
	return undefined;
}

export interface CookieOptions {
	path: string;
	httpOnly?: boolean;
	secure?: boolean;
	sameSite?: "Strict" | "Lax";
	maxAge?: number;
}

export function setCookie(c: Context, name: string, value: string, options: CookieOptions) {
	const parts = [`${name}=${value}`, `Max-Age=${options.maxAge ?? 0}`, `Path=${options.path}`];
	if (options.httpOnly) parts.push("HttpOnly");
	if (options.secure) parts.push("Secure");
	if (options.sameSite) parts.push(`SameSite=${options.sameSite}`);
	c.header("Set-Cookie", parts.join("; "), { append: true });
}

export function deleteCookie(c: Context, name: string, options: { path: string }) {
	setCookie(c, name, "", { path: options.path, maxAge: 0, httpOnly: true, sameSite: "Strict" });
}
