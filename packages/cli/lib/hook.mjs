// @ts-check
// `cairn hook <event>`: one set of handlers for Claude Code's and Codex's hooks. The payload arrives as
// JSON on stdin; what the agent should see goes to stdout in the shape that agent validates.
import { appendFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { memoryOff } from "./api.mjs";
import {
	checkCitedCode,
	dirtyPaths,
	indexStamp,
	recheckDirty,
	recheckKnown,
	saveCited,
	savedCited,
	savedHead,
	told,
	untold,
} from "./code-check.mjs";
import { INJECT_LIMITS } from "./hook-output.mjs";
import { projectFor, repositoryContext } from "./project.mjs";
import { injectRequest, RESPONSE_MARGIN_MS } from "./prompt-hook.mjs";
import { handOff, resumeBacklog, syncSession } from "./sync.mjs";
import { teamDir, teamPull, teamPush, touchedTeamFiles } from "./team.mjs";

/** `cairn hook <sub>` → the agents' event name. */
export const HOOK_EVENTS = /** @type {const} */ ({
	"session-start": "SessionStart",
	"user-prompt-submit": "UserPromptSubmit",
	"post-tool-use": "PostToolUse",
	stop: "Stop",
	"subagent-stop": "SubagentStop",
	"pre-compact": "PreCompact",
	"session-end": "SessionEnd",
});
/** @typedef {(typeof HOOK_EVENTS)[keyof typeof HOOK_EVENTS]} HookEvent */
/** @typedef {"claude" | "codex"} Agent */

export { detectAgent, fitForAgent, hookBudgetMs, hookOutput, INJECT_LIMITS, parsePart, START_PARTS } from "./hook-output.mjs";

const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const str = (/** @type {unknown} */ v) => (typeof v === "string" && v ? v : null);
const file = (/** @type {unknown} */ v) => {
	const p = str(v);
	return p && existsSync(p) && statSync(p).isFile() ? p : null;
};

/** Codex's rollout for a thread, newest day first, when the hook payload carries no path. @param {string} threadId */
export function findRollout(threadId) {
	const root = join(process.env.CODEX_HOME || join(homedir(), ".codex"), "sessions");
	if (!existsSync(root)) return null;
	/** @param {string} dir @returns {string | null} */
	const walk = (dir) => {
		const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => b.name.localeCompare(a.name));
		for (const e of entries) {
			const p = join(dir, e.name);
			if (e.isDirectory()) {
				const found = walk(p);
				if (found) return found;
			} else if (e.name.endsWith(".jsonl") && e.name.includes(threadId)) return p;
		}
		return null;
	};
	return walk(root);
}

/**
 * The paths the caller's memories cite (`GET …/citations`, `known`: the stamp of the list this machine
 * has); null when the service could not say in time.
 * @param {ReturnType<import("./api.mjs").client>} api @param {string} projectId @param {number} timeoutMs @param {string | undefined} known
 * @returns {Promise<{ stamp?: string, unchanged?: boolean, paths: import("./code-check.mjs").CitedPath[] } | null>}
 */
async function listCited(api, projectId, timeoutMs, known) {
	try {
		const query = known ? `?known=${encodeURIComponent(known)}` : "";
		const res = /** @type {any} */ (await api.request("GET", `/v1/projects/${projectId}/citations${query}`, { timeoutMs }));
		return Array.isArray(res?.paths) ? res : null;
	} catch {
		return null;
	}
}

/**
 * The session start's check of cited code: what the service has not been told yet, and how to remember
 * it once the service has it. With the same cited list and the same git index as last time (a list whose
 * stamp was not kept), the paths told are read again (one `git ls-files`, no history).
 * @param {{ id: string, root: string }} project @param {import("./code-check.mjs").Saved | null} mine what this machine told
 * @param {Awaited<ReturnType<typeof listCited>>} listed @param {number} timeoutMs
 */
function codeForStart(project, mine, listed, timeoutMs) {
	if (!listed) return null;
	const saved = mine?.root === project.root ? mine : null;
	const known = saved?.known ?? {};
	const cited = listed.unchanged && saved ? Object.keys(known).map((path) => ({ path })) : listed.paths;
	const index = indexStamp(project.root);
	if (listed.unchanged && saved && index && index === saved.index) return recheckKnown(project.id, saved, timeoutMs, index);
	const code = checkCitedCode(project.root, cited, { renames: true, timeoutMs, known });
	if (!code) return null;
	// A list checked only in part (blobs at write time left for later) is asked for whole next time.
	const whole = code.files.length === cited.length;
	return {
		files: untold(code.files, known, cited),
		remember: () =>
			saveCited(project.id, project.root, told(known, code.files, code.tree), {
				cited,
				stamp: whole ? listed.stamp : null,
				index: whole ? index : null,
			}),
	};
}

/** What starts a session, as the agents' SessionStart payloads say (`source`). */
const START_SOURCES = new Set(["startup", "resume", "clear", "compact"]);

/** @typedef {{ index: number, of: number }} Part `--part i/n`: which part of the session-start block a hook prints */

/**
 * What a session-start hook sends to `POST …/inject`. With `part` (`--part i/n`, one of the SessionStart
 * hook entries the block is split over): that part, and `waitMs`, what is left of the hook's budget, so
 * the service can wait for the part that lays the block out; only part 1 carries the cited-code check and
 * `sessionMemory`. Every part names the start's `source` (startup, resume, clear, compact), so that a session
 * started again soon after (resumed, then compacted) is laid out anew rather than answered from the last
 * start's layout. Without `part`, the whole block, as before the block came in parts.
 * @param {{ agent: Agent, context: Record<string, unknown>, sessionId: string | null, part: Part | null,
 *   code?: Record<string, unknown> | null, sessionMemory?: boolean, source?: unknown, deadline: number, now?: number }} input
 */
export function startRequest({ agent, context, sessionId, part, code, sessionMemory, source, deadline, now = Date.now() }) {
	const first = !part || part.index === 1;
	return {
		context,
		...(sessionId ? { sessionId } : {}),
		...(first && code ? { code } : {}),
		...(first && sessionMemory && sessionId ? { sessionMemory: true } : {}),
		...(part ? { part: { index: part.index, of: part.of } } : {}),
		...(part && typeof source === "string" && START_SOURCES.has(source) ? { source } : {}),
		...INJECT_LIMITS[agent],
		...(part ? { waitMs: Math.max(0, Math.floor(deadline - now - RESPONSE_MARGIN_MS)) } : {}),
	};
}

/** What git says the session is about (paths and subjects only). @param {string} cwd @param {string} root */
export function startContext(cwd, root) {
	const { folder, branch, commits, files } = repositoryContext(cwd, root);
	return { folder, ...(branch ? { branch } : {}), commits, files };
}

/**
 * Runs one hook: injects memory (SessionStart, UserPromptSubmit) or uploads the transcript
 * (Stop, SubagentStop, PreCompact, SessionEnd), all before `deadline` (epoch ms).
 * @param {ReturnType<import("./api.mjs").client>} api
 * @param {{ event: HookEvent, agent: Agent, payload: Record<string, any>, deadline: number, part?: Part | null }} hook
 * `part`: SessionStart only, the part of the block this hook prints (`--part i/n`); none: the whole block
 * @returns {Promise<string | null>} context for the model
 */
export async function runHook(api, { event, agent, payload, deadline, part = null }) {
	const left = () => Math.max(100, deadline - Date.now());
	const cwd = str(payload.cwd) && existsSync(payload.cwd) ? payload.cwd : process.cwd();
	const sessionId = str(payload.session_id) && SESSION_ID.test(payload.session_id) ? payload.session_id : null;
	const teamSync = process.env.CAIRN_TEAM_SYNC !== "0";
	if (event === "PostToolUse") {
		// Only a write into the team folder costs anything: everything else returns before any request.
		if (!teamSync) return null;
		const dir = teamDir(cwd);
		const paths = touchedTeamFiles(payload, cwd, dir);
		if (paths.length === 0) return null;
		const project = await projectFor(api, cwd, { timeoutMs: left() });
		/** @type {string[]} */
		const problems = [];
		const report = { out: () => {}, err: (/** @type {string} */ line) => problems.push(line) };
		await teamPush(api, { projectId: project.id, dir, paths, hook: true, report, timeoutMs: left() });
		const notes = problems.filter((l) => !l.startsWith("  "));
		return notes.length ? `Cairn team memory: ${notes.join("\n")}` : null;
	}
	const project = await projectFor(api, cwd, { timeoutMs: left() });
	/** @type {{ cited?: { stamp: string, unchanged: boolean } }} */
	let answer = {};
	/** Sends the body as it is; `tell`: say on stderr when memory is off (one hook of an event says it). */
	const ask = async (/** @type {Record<string, unknown>} */ body, tell = true) => {
		const res = /** @type {{ text: string, warnings?: string[], cited?: { stamp: string, unchanged: boolean } }} */ (
			await api.post(`/v1/projects/${project.id}/inject`, body, { timeoutMs: left() })
		);
		answer = res;
		// Memory switched off explains an empty block: one line on stderr, as for any other problem.
		const off = tell ? memoryOff(res.warnings) : null;
		if (off) process.stderr.write(`cairn: ${off}\n`);
		return res.text || null;
	};
	const inject = (/** @type {Record<string, unknown>} */ body) =>
		ask({ ...body, ...(sessionId ? { sessionId } : {}), ...INJECT_LIMITS[agent] });

	if (event === "SessionStart" && part && part.index > 1) {
		// Parts 2..n ask for their part and nothing else: part 1 resumes uploads, sets the session's variables,
		// pulls team memory and checks the cited code. The context goes along in case part 1 is late to the
		// service, which lays the block out from it; part 1 says when memory is off.
		return ask(startRequest({ agent, context: startContext(cwd, project.root), sessionId, part, source: payload.source, deadline }), false);
	}
	if (event === "SessionStart") {
		// Uploads and ends that an earlier hook could not finish (a slow service, a cancelled hook) resume now, detached.
		resumeBacklog();
		// Bash commands of this Claude Code session (`cairn remember`) then know the session and project.
		const envFile = process.env.CLAUDE_ENV_FILE;
		if (agent === "claude" && envFile && sessionId) {
			try {
				appendFileSync(envFile, `export CAIRN_SESSION_ID=${sessionId}\nexport CAIRN_PROJECT=${project.id}\n`);
			} catch {
				// the memory block matters more than the variables
			}
		}
		// Team memory comes down alongside the injection (Claude Code reads the team folder itself); a
		// failure or a slow service never holds the session up: what is not done by the deadline is skipped.
		const pull =
			agent === "claude" && teamSync
				? teamPull(api, { projectId: project.id, dir: teamDir(cwd), report: { out: () => {}, err: () => {} }, timeoutMs: left() }).catch(
						() => null,
					)
				: Promise.resolve(null);
		// The paths memories cite are asked for while git reads the context; their blob ids then ride along the injection.
		// With the cited list this machine last checked and git's index as it was then, nothing is listed before the
		// block and only the working tree is looked at (`git ls-files -m -d`, the cited paths among its answer and
		// those last read from it read again): the injection names the list, and its answer says whether it changed.
		const head = savedHead(project.id);
		const index = indexStamp(project.root);
		const quiet = head?.root === project.root && head.stamp && index && index === head.index ? head : null;
		const timeoutMs = Math.min(1500, left() / 3);
		// Quiet: which files the working tree changed is asked first, and answered while the context is read.
		const dirty = quiet ? dirtyPaths(project.root, timeoutMs) : null;
		const cited = quiet ? Promise.resolve(null) : listCited(api, project.id, left(), head?.root === project.root ? head.stamp : undefined);
		const context = startContext(cwd, project.root);
		const code = quiet
			? recheckDirty(project.id, quiet, await dirty, timeoutMs, index)
			: codeForStart(project, savedCited(project.id), await cited, timeoutMs);
		// After compaction the model has lost what it was shown: serve everything again, this session's notes first.
		const text = await ask(
			startRequest({
				agent,
				context,
				sessionId,
				part,
				code: quiet ? { files: code?.files ?? [], stamp: quiet.stamp } : code?.files.length ? { files: code.files, renames: true } : null,
				sessionMemory: payload.source === "compact",
				source: payload.source,
				deadline,
			}),
		);
		code?.remember();
		// Memories cite paths this machine did not check yet: the next session start lists and checks them.
		if (quiet && answer.cited?.unchanged === false) {
			const known = savedCited(project.id)?.known;
			if (known) saveCited(project.id, project.root, known, { index: quiet.index });
		}
		await Promise.race([pull, new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
		return text;
	}
	if (event === "UserPromptSubmit") {
		// `cairn hook user-prompt-submit` runs lib/prompt-hook.mjs without loading this module; this serves a caller that has it loaded.
		if (!str(payload.prompt)) return null;
		return inject(injectRequest({ agent, payload, deadline }));
	}

	if (!sessionId) return null;
	const format = agent === "codex" ? "codex" : "claude";
	const transcript =
		event === "SubagentStop"
			? file(payload.agent_transcript_path)
			: (file(payload.transcript_path) ?? (agent === "codex" ? findRollout(sessionId) : null));
	const after = /** @type {import("./sync.mjs").AfterAction[]} */ (
		event === "SessionEnd" ? ["end"] : event === "PreCompact" ? ["compact"] : []
	);
	resumeBacklog({ except: sessionId });
	// No transcript: nothing was uploaded for this session, so there is nothing to end or compact either.
	if (!transcript) return null;
	const job = { projectId: project.id, sessionId, files: [{ file: transcript, format }], after };
	if (event === "SessionEnd") {
		// Claude Code cancels a plugin's SessionEnd hook after 1.5 s whatever hooks.json says, and the agent is
		// exiting: the final upload and the end go to a detached process at once, kept in the backlog until done.
		handOff(job);
		if (process.env.CAIRN_VERBOSE) process.stderr.write("cairn: the final upload and the end continue in the background\n");
		return null;
	}
	const res = await syncSession(api, job, { deadline });
	if (process.env.CAIRN_VERBOSE)
		process.stderr.write(
			`cairn: uploaded ${res.bytes} bytes, ${res.accepted} new turns${res.background ? "; the rest continues in the background" : ""}\n`,
		);
	return null;
}
