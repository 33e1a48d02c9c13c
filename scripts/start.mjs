// `npm start` / `npm run dev`: the Worker under `wrangler dev --local` on the port and address asked for.
//   PORT=8795 npm start            npm start -- --port 8795            npm start -- --host 0.0.0.0
// Flags win over PORT / HOST; the defaults are 127.0.0.1:8787. Any other argument goes to wrangler dev as is.
//
// In order: the port is checked first (a busy one ends here, having changed nothing); the checkout is
// prepared (scripts/dev-setup.mjs: .dev.vars, local D1 migrations applied quietly); the URL is recorded
// in .wrangler/cairn-dev.json — unless another running `npm start` of this checkout already owns that
// file — so `cairn setup` in this checkout finds the service without being told its port; wrangler
// starts; and once the service answers /health, one line says where it is. On exit the file is removed
// only when this process wrote it. Wrangler runs with LOCAL_ENV: no telemetry, no update check, no
// Request.cf download — a local start makes no request outside the machine.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { pathToFileURL } from "node:url";

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";
export const URL_FILE = ".wrangler/cairn-dev.json";

/**
 * What keeps wrangler (and the Miniflare it runs) from calling out while it runs locally: each is a
 * request to Cloudflare or npm it would otherwise make at every start.
 * - WRANGLER_SEND_METRICS: usage telemetry to sparrow.cloudflare.com.
 * - CLOUDFLARE_CF_FETCH_ENABLED: Miniflare downloads workers.cloudflare.com/cf.json for `request.cf`
 *   (offline: a stack trace per start); without it `request.cf` is Miniflare's placeholder.
 * - WRANGLER_HIDE_BANNER: the banner asks registry.npmjs.org for a newer wrangler.
 */
export const LOCAL_ENV = Object.freeze({
	WRANGLER_SEND_METRICS: "false",
	CLOUDFLARE_CF_FETCH_ENABLED: "false",
	WRANGLER_HIDE_BANNER: "true",
});

/**
 * Port, host and wrangler's other arguments from the command line and the environment.
 * @param {string[]} argv @param {Record<string, string | undefined>} env
 * @returns {{ port: number, host: string, rest: string[] }}
 */
export function startOptions(argv, env) {
	let port = env.PORT || undefined;
	let host = env.HOST || undefined;
	/** @type {string[]} */
	const rest = [];
	for (let i = 0; i < argv.length; i++) {
		const arg = argv[i] ?? "";
		const [flag, inline] =
			arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
		if (flag === "--port" || flag === "--host" || flag === "--ip") {
			const value = inline ?? argv[++i];
			if (value === undefined || value === "" || value.startsWith("--"))
				throw new Error(`${flag} expects a value, e.g. ${flag === "--port" ? "--port 8795" : "--host 0.0.0.0"}`);
			if (flag === "--port") port = value;
			else host = value;
		} else rest.push(arg);
	}
	const number = Number(port ?? DEFAULT_PORT);
	if (!Number.isInteger(number) || number < 1 || number > 65535)
		throw new Error(
			`the port must be a whole number from 1 to 65535 (got ${JSON.stringify(String(port).slice(0, 20))}); e.g. PORT=8795 npm start`,
		);
	const address = host ?? DEFAULT_HOST;
	if (!/^[A-Za-z0-9.:[\]-]{1,253}$/.test(address))
		throw new Error(`the host must be an address or host name (got ${JSON.stringify(address.slice(0, 60))}); e.g. --host 0.0.0.0`);
	return { port: number, host: address, rest };
}

/** The URL to reach a service listening on `host`: a wildcard address is reached on the loopback. @param {string} host @param {number} port */
export function localUrl(host, port) {
	const reach =
		host === "0.0.0.0"
			? "127.0.0.1"
			: host === "::" || host === "[::]"
				? "[::1]"
				: host.includes(":") && !host.startsWith("[")
					? `[${host}]`
					: host;
	return `http://${reach}:${port}`;
}

/** The address as a socket takes it: no brackets around IPv6. @param {string} host */
const bare = (host) => host.replace(/^\[(.*)\]$/, "$1");

/**
 * Whether nothing listens on host:port (binding it for a moment tells). Other errors (an address this
 * machine does not have) are left for wrangler to report. @param {string} host @param {number} port
 * @returns {Promise<boolean>}
 */
export function portFree(host, port) {
	return new Promise((resolve) => {
		const server = createServer();
		server.once("error", (/** @type {NodeJS.ErrnoException} */ err) => resolve(err.code !== "EADDRINUSE"));
		server.listen({ host: bare(host), port, exclusive: true }, () => server.close(() => resolve(true)));
	});
}

/** The next port after `port` on which nothing listens (for the fix a busy port's message names). @param {string} host @param {number} port */
export async function nextFreePort(host, port) {
	for (let p = port + 1; p <= Math.min(65535, port + 100); p++) if (await portFree(host, p)) return p;
	return port + 1;
}

/** Whether process `pid` is alive. @param {number} pid */
const alive = (pid) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return /** @type {NodeJS.ErrnoException} */ (err).code === "EPERM";
	}
};

/**
 * The running `npm start` of this checkout that owns the URL file, or null: none recorded, or the
 * launcher that recorded it is gone (a file left by a killed one). @param {string} [file]
 * @returns {{ url: string, pid: number } | null}
 */
export function runningInstance(file = URL_FILE) {
	try {
		const { url, pid } = JSON.parse(readFileSync(file, "utf8"));
		if (typeof url !== "string" || !Number.isInteger(pid) || pid === process.pid || !alive(pid)) return null;
		return { url, pid };
	} catch {
		return null;
	}
}

/** Whether a Cairn service answers at `url` (its /health), within `ms`. @param {string} url */
export async function answers(url, ms = 1000) {
	try {
		const res = await fetch(`${url}/health`, { signal: AbortSignal.timeout(ms) });
		return res.ok && (await res.json()).status === "ok";
	} catch {
		return false;
	}
}

/**
 * What a start on a busy port says: the port, what holds it (this checkout's running instance, another
 * Cairn, or another program) and the fix with a free port.
 * @param {{ host: string, port: number, running: { url: string, pid: number } | null, cairnThere: boolean, free: number }} o
 */
export function busyPortMessage({ host, port, running, cairnThere, free }) {
	const url = localUrl(host, port);
	const ours = Boolean(running && running.url === url);
	const holder = ours
		? `Cairn from this checkout is already running there: ${url} (console ${url}/console; npm start's pid ${running.pid})`
		: cairnThere
			? `a Cairn service already answers there: ${url} (console ${url}/console)`
			: `another program is listening on it${running ? `; this checkout's Cairn runs at ${running.url}` : ""}`;
	return [
		`npm start: port ${port} is already in use — ${holder}.`,
		`${ours || cairnThere ? "Use that one, or start" : "Start"} another on a free port: npm start -- --port ${free}   (or PORT=${free} npm start)`,
		"Nothing was started or changed.",
	].join("\n");
}

/** The line printed once the service answers. @param {string} url */
export const readyLine = (url) =>
	`Cairn is running at ${url} — console at ${url}/console\nConnect a repository: run \`cairn setup\` in it (README, "Start here"). Ctrl-C stops the service.`;

/**
 * Whether the wrangler configuration gives the Worker a Workers AI binding at its top level (not only an
 * environment's): then wrangler must be allowed its remote binding, which local start otherwise turns
 * off (`--local`). The AI binding has no local simulation. @param {string} toml
 */
export function configuresAi(toml) {
	for (const line of toml.split("\n")) {
		const header = /^\s*\[\[?\s*([^\]\s]+)\s*\]\]?/.exec(line)?.[1];
		if (header === "ai") return true;
		if (header?.startsWith("env.")) return false;
	}
	return false;
}

/** The value of `--persist-to` among wrangler's arguments, if given. @param {string[]} rest */
export function persistTo(rest) {
	for (let i = 0; i < rest.length; i++) {
		const arg = rest[i] ?? "";
		if (arg === "--persist-to") return rest[i + 1];
		if (arg.startsWith("--persist-to=")) return arg.slice("--persist-to=".length);
	}
	return undefined;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	let options;
	try {
		options = startOptions(process.argv.slice(2), process.env);
	} catch (err) {
		process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
		process.exit(2);
	}
	const { host, port, rest } = options;
	const url = localUrl(host, port);
	const running = runningInstance();
	if (!(await portFree(host, port))) {
		const cairnThere = await answers(url);
		process.stderr.write(`${busyPortMessage({ host, port, running, cairnThere, free: await nextFreePort(host, port) })}\n`);
		process.exit(1);
	}

	const env = { ...process.env, ...LOCAL_ENV };
	const { prepare } = await import("./dev-setup.mjs");
	prepare({ env, persistTo: persistTo(rest) });

	// The URL file is this instance's only while no other running start of this checkout holds it.
	let owns = false;
	if (running) {
		console.log(
			`note: Cairn from this checkout is already running at ${running.url} (pid ${running.pid}); \`cairn setup\` here keeps finding that one${persistTo(rest) ? "" : ", and both use this checkout's local data (.wrangler/state; --persist-to <dir> keeps this one apart)"}`,
		);
	} else {
		mkdirSync(".wrangler", { recursive: true });
		rmSync(URL_FILE, { force: true }); // left by a launcher that is gone
		try {
			writeFileSync(URL_FILE, `${JSON.stringify({ url, pid: process.pid })}\n`, { flag: "wx" });
			owns = true;
		} catch {
			// Another start of this checkout wrote it first: that one owns it.
		}
	}
	const forget = () => {
		if (!owns) return;
		try {
			if (JSON.parse(readFileSync(URL_FILE, "utf8")).pid === process.pid) rmSync(URL_FILE, { force: true });
		} catch {
			// already gone
		}
	};

	let ai = false;
	try {
		ai = configuresAi(readFileSync("wrangler.toml", "utf8"));
	} catch {
		// no wrangler.toml here: wrangler says so
	}
	if (ai) console.log("Workers AI is bound in wrangler.toml ([ai]): wrangler reaches Cloudflare for it (`npx wrangler login` first)");
	const wrangler = spawn("wrangler", ["dev", ...(ai ? [] : ["--local"]), "--ip", bare(host), "--port", String(port), ...rest], {
		stdio: "inherit",
		env,
		shell: process.platform === "win32",
	});
	let exited = false;
	let ready = false;
	for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"])) process.on(signal, () => wrangler.kill(signal));
	wrangler.on("exit", (code, signal) => {
		exited = true;
		forget();
		if (!ready && !signal && code !== 0)
			process.stderr.write(
				`npm start: wrangler stopped (exit code ${code}) before the service answered at ${url}; its output above says why\n`,
			);
		process.exit(code ?? (signal ? 1 : 0));
	});
	// The line people look for comes once the service answers, after wrangler's own start-up output.
	while (!exited) {
		if (await answers(url, 10_000)) {
			ready = !exited;
			if (ready) console.log(`\n${readyLine(url)}\n`);
			break;
		}
		await new Promise((r) => setTimeout(r, 300));
	}
}
