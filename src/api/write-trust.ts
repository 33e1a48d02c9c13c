import type { Context } from "hono";
import type { MemorySource } from "../memory/topic-file";
import type { WriteTrust } from "../trust/tier";
import type { Reviewer } from "../trust/vouch";
import type { AppEnv } from "./context";

/**
 * What a REST write says about its own trust (src/trust/tier.ts): a person's write with an admin key (the
 * console signed in with one, or an admin at a terminal) is their review of the text — and, in team
 * scope, their vouch for it (src/trust/vouch.ts) — unless an agent session used that key in the project;
 * any other write, and every write naming an agent session, is not reviewed.
 */
export function requestTrust(c: Context<AppEnv>, source: MemorySource): WriteTrust {
	const auth = c.get("auth");
	return source === "user" && auth.scopes.includes("admin") && !fromAgentSession(c)
		? { tier: "person", reviewedBy: auth.userId, keyId: auth.keyId }
		: {};
}

/**
 * Whether a request comes from an agent's session or shell: it names a session (`X-Cairn-Session`), or
 * `cairn` run in an agent's shell says so (`X-Cairn-Agent`). Such a request neither vouches nor approves.
 */
export function fromAgentSession(c: Context<AppEnv>): boolean {
	return c.req.header("X-Cairn-Session") !== undefined || c.req.header("X-Cairn-Agent") !== undefined;
}

/** Who asks to decide or read the review queue (src/trust/vouch.ts). */
export function reviewerOf(c: Context<AppEnv>): Reviewer {
	const auth = c.get("auth");
	return { keyId: auth.keyId, agentSession: fromAgentSession(c), admin: auth.scopes.includes("admin") };
}
