// The running service the local benchmarks talk to (bench:load, bench:writes-local, bench:hooks): its
// URL — CAIRN_URL, else where this checkout's `npm start` serves, else the default port — and the
// operator token, CAIRN_ADMIN_TOKEN or the one `npm start` wrote into .dev.vars.
import { existsSync, readFileSync } from "node:fs";
import { devUrl } from "../../packages/cli/lib/setup.mjs";

export const serviceUrl = (process.env.CAIRN_URL ?? devUrl(process.cwd()) ?? "http://127.0.0.1:8787").replace(/\/+$/, "");

/** The operator token; throws, naming both ways to give one, when there is none. */
export function operatorToken() {
	const token =
		process.env.CAIRN_ADMIN_TOKEN ??
		(existsSync(".dev.vars") ? /^CAIRN_ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim() : undefined);
	if (!token) throw new Error("no operator token: run `npm start` once (it writes .dev.vars) or set CAIRN_ADMIN_TOKEN");
	return token;
}
