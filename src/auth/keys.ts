import { randomId, sha256Hex } from "../lib/ids";

export const SCOPES = ["read", "write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

/** Keys look like `cairn_<id>_<secret>`; the id locates the row, the secret proves possession. */
const TOKEN_PATTERN = /^cairn_([a-z0-9]{16})_([A-Za-z0-9]{40})$/;
const SECRET_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export interface IssuedKey {
	id: string;
	token: string;
	digest: string;
}

export async function issueKey(): Promise<IssuedKey> {
	const id = randomId(16);
	const bytes = crypto.getRandomValues(new Uint8Array(40));
	let secret = "";
	// 62 does not divide 256; the slight bias (< 2^-2 per char of 238 bits) is irrelevant at 40 chars.
	for (const b of bytes) secret += SECRET_ALPHABET[b % 62];
	const token = `cairn_${id}_${secret}`;
	return { id, token, digest: await sha256Hex(token) };
}

export function parseToken(token: string): { id: string } | null {
	const m = TOKEN_PATTERN.exec(token);
	return m?.[1] ? { id: m[1] } : null;
}

/** Compares two hex digests without leaking where they differ. */
export function digestsEqual(a: string, b: string): boolean {
	const enc = new TextEncoder();
	const x = enc.encode(a);
	const y = enc.encode(b);
	if (x.byteLength !== y.byteLength) return false;
	return crypto.subtle.timingSafeEqual(x, y);
}

/** Constant-time comparison of a presented secret with a configured one (e.g. the admin token). */
export async function secretMatches(presented: string, expected: string): Promise<boolean> {
	if (!expected) return false;
	return digestsEqual(await sha256Hex(presented), await sha256Hex(expected));
}

/** A verified API key: who is calling, with which scopes. */
export interface AuthContext {
	tenantId: string;
	userId: string;
	keyId: string;
	scopes: Scope[];
	/** Set when the key is limited to one project. */
	projectId: string | null;
}
