// `npm start` / `npm run dev`: the Worker under `wrangler dev --local` on the port and address asked for.
//   PORT=8795 npm start            npm start -- --port 8795            npm start -- --host 0.0.0.0
// Flags win over PORT / HOST; the defaults are 127.0.0.1:8787. Any other argument goes to wrangler dev as is.
// Prepares the checkout first (scripts/dev-setup.mjs), and records the URL in .wrangler/cairn-dev.json
// while it runs, so `cairn setup` in this checkout finds the service without being told its port.
import { spawn } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = "127.0.0.1";
export const URL_FILE = ".wrangler/cairn-dev.json";

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

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
	let options;
	try {
		options = startOptions(process.argv.slice(2), process.env);
	} catch (err) {
		process.stderr.write(`npm start: ${err instanceof Error ? err.message : String(err)}\n`);
		process.exit(2);
	}
	await import("./dev-setup.mjs");
	const url = localUrl(options.host, options.port);
	mkdirSync(".wrangler", { recursive: true });
	writeFileSync(URL_FILE, `${JSON.stringify({ url, pid: process.pid })}\n`);
	console.log(
		`Cairn: ${url} — console ${url}/console; connect a repository by running \`cairn setup\` in it (README, "Connect your agent")`,
	);
	const wrangler = spawn(
		"wrangler",
		["dev", "--local", "--ip", options.host.replace(/^\[(.*)\]$/, "$1"), "--port", String(options.port), ...options.rest],
		{ stdio: "inherit", shell: process.platform === "win32" },
	);
	const forget = () => rmSync(URL_FILE, { force: true });
	for (const signal of /** @type {const} */ (["SIGINT", "SIGTERM", "SIGHUP"])) process.on(signal, () => wrangler.kill(signal));
	wrangler.on("exit", (code, signal) => {
		forget();
		process.exit(code ?? (signal ? 1 : 0));
	});
}
