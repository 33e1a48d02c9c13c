import type { Context } from "hono";
import type { MemorySource } from "../memory/topic-file";
import type { WriteTrust } from "../trust/tier";
import type { AppEnv } from "./context";

/**
 * What a REST write says about its own trust (src/trust/tier.ts): a person's write with an admin key (the
 * console signed in with one, or an admin at a terminal) is their review of the text; any other write,
 * and every write naming an agent session, is not reviewed.
 */
export function requestTrust(c: Context<AppEnv>, source: MemorySource): WriteTrust {
	const auth = c.get("auth");
	return source === "user" && auth.scopes.includes("admin") ? { tier: "person", reviewedBy: auth.userId } : {};
}
