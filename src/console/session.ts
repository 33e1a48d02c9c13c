import type { Context } from "hono";

// The console's session: the API key the user signed in with, a CSRF token and an expiry, sealed
// with AES-GCM under a key derived from CAIRN_CONSOLE_SECRET. The cookie is opaque to the browser
// (the API key never reaches page scripts or browser storage) and cannot be forged or altered.

export const SESSION_COOKIE = "cairn_console";
/** Sessions last two hours; signing in again starts a new one. */
export const SESSION_SECONDS = 2 * 60 * 60;

export interface ConsoleSession {
	/** The API key, used server-side as the Bearer token of the console's internal API calls. */
	token: string;
	/** Per-session CSRF token, echoed by every form. */
	csrf: string;
	/** Expiry, milliseconds since the epoch. */
	expires: number;
}

const encoder = new TextEncoder();
const AAD = encoder.encode("cairn-console-session-v1");

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

const keys = new Map<string, Promise<CryptoKey>>();

function sealingKey(secret: string): Promise<CryptoKey> {
	let key = keys.get(secret);
	if (!key) {
		key = crypto.subtle
			.digest("SHA-256", encoder.encode(`cairn-console:${secret}`))
			.then((raw) => crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]));
		keys.set(secret, key);
	}
	return key;
}

export const randomToken = () => toBase64Url(crypto.getRandomValues(new Uint8Array(24)));

export async function sealSession(secret: string, session: ConsoleSession): Promise<string> {
	const iv = crypto.getRandomValues(new Uint8Array(12));
	const data = encoder.encode(JSON.stringify({ t: session.token, c: session.csrf, e: session.expires }));
	const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: AAD }, await sealingKey(secret), data));
	const out = new Uint8Array(iv.length + sealed.length);
	out.set(iv);
	out.set(sealed, iv.length);
	return toBase64Url(out);
}

/** The session in a cookie value, or null when it is missing, altered, sealed under another secret or expired. */
export async function openSession(secret: string, value: string | undefined, now = Date.now()): Promise<ConsoleSession | null> {
	if (!value || value.length > 4096) return null;
	const bytes = fromBase64Url(value);
	if (!bytes || bytes.length < 12 + 16) return null;
	try {
		const plain = await crypto.subtle.decrypt(
			{ name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: AAD },
			await sealingKey(secret),
			bytes.slice(12),
		);
		const parsed = JSON.parse(new TextDecoder().decode(plain)) as { t?: unknown; c?: unknown; e?: unknown };
		if (typeof parsed.t !== "string" || typeof parsed.c !== "string" || typeof parsed.e !== "number") return null;
		if (parsed.e <= now) return null;
		return { token: parsed.t, csrf: parsed.c, expires: parsed.e };
	} catch {
		return null;
	}
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
