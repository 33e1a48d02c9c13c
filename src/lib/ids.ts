const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** Random lowercase alphanumeric string; 16 characters carry ~82 bits. */
export function randomId(length = 16): string {
	const bytes = crypto.getRandomValues(new Uint8Array(length));
	let out = "";
	for (const b of bytes) out += ALPHABET[b % 36];
	return out;
}

export const newId = (prefix: "ten" | "usr" | "prj") => `${prefix}_${randomId()}`;

export async function sha256Hex(data: string | ArrayBuffer | Uint8Array): Promise<string> {
	const input = typeof data === "string" ? new TextEncoder().encode(data) : data;
	const digest = await crypto.subtle.digest("SHA-256", input);
	return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export const nowIso = () => new Date().toISOString();

/** A review item's id (src/memory/reviews.ts). */
export const newReviewId = () => `rev_${randomId(16)}`;
