// @ts-check
// `cairn hook user-prompt-submit`: every prompt waits for it, so it is built to start fast. Once the
// project is known it makes one request (node:http, not fetch) and runs git only when git's index changed
// since the cited code was last checked (`ls-files` for the paths memories cite, `hash-object` for those
// edited), and it loads only this module, its output helpers, the config reader, the transcript-tail reader
// and the cited-code head (the code check itself only when the index changed).
import { existsSync, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { describeError, memoryOff } from "./api.mjs";
import { indexStamp, savedHead } from "./code-head.mjs";
import { knownProject, readConfig } from "./config.mjs";
import { detectAgent, emit, hookBudgetMs, hookOutput, INJECT_LIMITS, parsePayload } from "./hook-output.mjs";
import { postJson } from "./post-json.mjs";
import { recentTools } from "./recent-tools.mjs";

/** Kept back from `waitMs` for the answer to travel, be parsed and printed before the deadline. */
export const RESPONSE_MARGIN_MS = 150;
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;

async function readStdin() {
	if (process.stdin.isTTY) return "";
	const chunks = [];
	for await (const chunk of process.stdin) chunks.push(chunk);
	return Buffer.concat(chunks).toString("utf8");
}

/**
 * What the prompt hook sends to `POST …/inject`: the prompt, the tools the session just used (from its
 * transcript's tail) and `waitMs`, what is left of the hook's budget for the service to answer in —
 * its model selector never runs past the hook.
 * @param {{ agent: "claude" | "codex", payload: Record<string, any>, deadline: number, now?: number }} input
 */
export function injectRequest({ agent, payload, deadline, now = Date.now() }) {
	const prompt = typeof payload.prompt === "string" ? payload.prompt : "";
	const sessionId = typeof payload.session_id === "string" && SESSION_ID.test(payload.session_id) ? payload.session_id : null;
	const transcript = typeof payload.transcript_path === "string" && payload.transcript_path ? payload.transcript_path : null;
	const tools = recentTools(transcript);
	return {
		query: prompt.slice(0, 8000),
		include: "memories",
		...(sessionId ? { sessionId, onlyNew: true } : {}),
		...INJECT_LIMITS[agent],
		...(tools.length ? { recentTools: tools } : {}),
		waitMs: Math.max(0, Math.floor(deadline - now - RESPONSE_MARGIN_MS)),
	};
}

/** The project of the hook's directory: known without git, else found the full way (git, maybe a request). @param {string} cwd @param {{ url: string, key: string }} service @param {number} timeoutMs */
async function projectId(cwd, service, timeoutMs) {
	const known = knownProject(readConfig(), cwd);
	if (known) return known;
	const [{ client }, { projectFor }] = await Promise.all([import("./api.mjs"), import("./project.mjs")]);
	return (await projectFor(client({ ...service, timeoutMs }), cwd, { timeoutMs })).id;
}

/**
 * What changed in the cited code since the service was last told, once git's index changed (one `git
 * ls-files` of the paths the session start checked, index and working tree, and a `hash-object` of cited
 * files edited), so the memories of this prompt's block are marked by the code as it is now; renames are
 * the session start's to follow. Null when nothing changed. While the index is the same no git runs: an
 * edit not staged since the session started waits for the next session start or index change.
 * @param {string} projectId
 */
async function citedCodeNow(projectId) {
	// The index as it was at the last check: the blob ids are too, and nothing more is read or run.
	const head = savedHead(projectId);
	if (!head) return null;
	const index = indexStamp(head.root);
	if (index && index === head.index) return null;
	const { recheckKnown, savedCited } = await import("./code-check.mjs");
	const saved = savedCited(projectId);
	if (!saved || Object.keys(saved.known).length === 0) return null;
	const code = recheckKnown(projectId, saved, 500, index);
	if (!code) return null;
	// Nothing to send, but the index read is remembered: the next prompt runs no git either.
	if (code.files.length === 0) {
		code.remember();
		return null;
	}
	return code;
}

/**
 * Never blocks or breaks the agent: exits 0 in time whatever happens, at most one line on stderr, and
 * Codex always gets a JSON object its schema accepts.
 * @param {string[]} args what follows `hook user-prompt-submit` on the command line
 */
export async function promptHook(args) {
	const started = performance.timeOrigin;
	const flag = args.indexOf("--agent");
	// --explain: why each candidate was served or held back, on stderr (stdout stays what the agent reads).
	const explain = args.includes("--explain");
	/** @type {"claude" | "codex" | null} */
	let agent =
		flag >= 0 && (args[flag + 1] === "claude" || args[flag + 1] === "codex") ? /** @type {"claude" | "codex"} */ (args[flag + 1]) : null;
	let printed = false;
	const finish = (/** @type {string | null} */ context, /** @type {string | null} */ problem) => {
		if (printed) return;
		printed = true;
		if (problem) process.stderr.write(`cairn: ${problem.split("\n")[0]}\n`);
		emit(hookOutput(agent ?? "claude", "UserPromptSubmit", context));
		process.exit(0);
	};
	const budget = hookBudgetMs("UserPromptSubmit");
	setTimeout(() => finish(null, "hook timed out; continuing without memory"), Math.max(0, started + budget - 40 - Date.now())).unref();
	try {
		const payload = parsePayload(await readStdin());
		agent ??= detectAgent(payload);
		// A mistyped --agent is said, with the nearest (and nothing looked up), in the format of the payload's agent.
		if (flag >= 0 && args[flag + 1] !== agent)
			(await import("./choose.mjs")).choose(args[flag + 1] ?? "", /** @type {const} */ (["claude", "codex"]), {
				what: "--agent",
				as: (k) => `--agent ${k}`,
			});
		if (typeof payload.prompt !== "string" || !payload.prompt)
			return finish(null, explain ? "the payload has no prompt: nothing to look up" : null);
		const config = readConfig();
		const url = process.env.CAIRN_URL || config.url;
		const key = process.env.CAIRN_KEY || config.key;
		if (!url || !key)
			throw new Error(
				"not logged in: no saved login or CAIRN_URL / CAIRN_KEY — run `cairn setup` (against a local `npm start`) or `cairn login --url <url> --key <key>`",
			);
		const service = { url: url.replace(/\/+$/, ""), key };
		const deadline = started + budget - 150;
		const dir =
			typeof payload.cwd === "string" && isAbsolute(payload.cwd) && existsSync(payload.cwd) && statSync(payload.cwd).isDirectory()
				? resolve(payload.cwd)
				: process.cwd();
		const id = await projectId(dir, service, Math.max(100, deadline - Date.now()));
		const code = await citedCodeNow(id);
		const body = {
			...injectRequest({ agent, payload, deadline }),
			...(code ? { code: { files: code.files, renames: false } } : {}),
			...(explain ? { trace: true } : {}),
		};
		const res = await postJson(service, `/v1/projects/${id}/inject`, body, Math.max(100, deadline - Date.now()));
		if (res && typeof res.text === "string") code?.remember();
		if (explain) {
			const { explainInject } = await import("./explain.mjs");
			for (const line of explainInject(res)) process.stderr.write(`cairn: ${line}\n`);
		}
		finish(res && typeof res.text === "string" && res.text ? res.text : null, explain ? null : memoryOff(res?.warnings));
	} catch (err) {
		finish(null, describeError(err));
	}
}
