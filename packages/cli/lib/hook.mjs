// @ts-check
// `cairn hook <event>`: one set of handlers for Claude Code's and Codex's hooks. The payload arrives as
// JSON on stdin; what the agent should see goes to stdout in the shape that agent validates.
import { appendFileSync, existsSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { projectFor, repositoryContext } from "./project.mjs";
import { syncSession } from "./sync.mjs";
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

/**
 * How long a hook may take, from the process's start: a prompt waits on UserPromptSubmit, so it gets
 * the least. `CAIRN_HOOK_BUDGET_MS` can only shorten these.
 * @param {string} event
 */
export function hookBudgetMs(event) {
	const cap = event === "UserPromptSubmit" ? 1400 : 2800;
	const wanted = Number(process.env.CAIRN_HOOK_BUDGET_MS);
	return wanted > 0 ? Math.min(wanted, cap) : cap;
}

/**
 * What each agent lets the model see whole. Claude Code saves hook output over 10,000 characters to a
 * file and shows a ~2 KB preview; Codex spills text over 2,500 tokens, which it counts as bytes / 4.
 * The service keeps the block within `maxChars` (and `maxTokens`); `fitForAgent` is the last guard.
 */
export const INJECT_LIMITS = /** @type {const} */ ({
	claude: { maxChars: 9500 },
	codex: { maxTokens: 2500, maxChars: 9500 },
});
const HARD_LIMIT = { claude: 10_000, codex: 10_000 };
const measure = { claude: (/** @type {string} */ s) => s.length, codex: (/** @type {string} */ s) => Buffer.byteLength(s) };

/** Cuts text that would exceed the agent's limit at a line break, saying so. @param {Agent} agent @param {string} text */
export function fitForAgent(agent, text) {
	const size = measure[agent];
	if (size(text) <= HARD_LIMIT[agent]) return text;
	const note = "\n[cairn: cut to fit the agent's hook output limit]";
	let cut = text.slice(0, HARD_LIMIT[agent] - note.length);
	while (size(cut) > HARD_LIMIT[agent] - note.length) cut = cut.slice(0, -64);
	const lastBreak = cut.lastIndexOf("\n");
	return `${lastBreak > 0 ? cut.slice(0, lastBreak) : cut}${note}`;
}

/**
 * What goes to stdout. Context-carrying events print hookSpecificOutput when there is something to add.
 * Codex validates every hook's stdout against the event's schema, so it always gets a JSON object —
 * `{}` when there is nothing to add; Claude Code gets nothing then.
 * @param {Agent} agent @param {string} event @param {string | null} context
 */
export function hookOutput(agent, event, context) {
	if (context && (event === "SessionStart" || event === "UserPromptSubmit" || event === "PostToolUse"))
		return JSON.stringify({ hookSpecificOutput: { hookEventName: event, additionalContext: fitForAgent(agent, context) } });
	return agent === "codex" ? "{}" : "";
}

/** Which agent sent a payload, when the installed command does not say: Codex's carry a turn id or a rollout path. @param {Record<string, unknown>} payload */
export function detectAgent(payload) {
	const path = typeof payload.transcript_path === "string" ? payload.transcript_path : "";
	return typeof payload.turn_id === "string" || /[\\/]\.codex[\\/]|rollout-[^\\/]*\.jsonl$/.test(path) ? "codex" : "claude";
}

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
 * Runs one hook: injects memory (SessionStart, UserPromptSubmit) or uploads the transcript
 * (Stop, SubagentStop, PreCompact, SessionEnd), all before `deadline` (epoch ms).
 * @param {ReturnType<import("./api.mjs").client>} api
 * @param {{ event: HookEvent, agent: Agent, payload: Record<string, any>, deadline: number }} hook
 * @returns {Promise<string | null>} context for the model
 */
export async function runHook(api, { event, agent, payload, deadline }) {
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
	const inject = async (/** @type {Record<string, unknown>} */ body) => {
		const res = /** @type {{ text: string }} */ (
			await api.post(
				`/v1/projects/${project.id}/inject`,
				{ ...body, ...(sessionId ? { sessionId } : {}), ...INJECT_LIMITS[agent] },
				{ timeoutMs: left() },
			)
		);
		return res.text || null;
	};

	if (event === "SessionStart") {
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
		const ctx = repositoryContext(cwd);
		const query = [ctx.cwdName, ctx.branch, ...ctx.subjects].filter(Boolean).join("\n").slice(0, 2000);
		// After compaction the model has lost what it was shown: serve everything again, this session's notes first.
		const text = await inject({ query, ...(payload.source === "compact" && sessionId ? { sessionMemory: true } : {}) });
		await Promise.race([pull, new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now())).unref())]);
		return text;
	}
	if (event === "UserPromptSubmit") {
		const prompt = str(payload.prompt);
		if (!prompt) return null;
		return inject({ query: prompt.slice(0, 8000), include: "memories", ...(sessionId ? { onlyNew: true } : {}) });
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
	// No transcript: nothing was uploaded for this session, so there is nothing to end or compact either.
	if (!transcript) return null;
	const res = await syncSession(api, { projectId: project.id, sessionId, files: [{ file: transcript, format }], after }, { deadline });
	if (process.env.CAIRN_VERBOSE)
		process.stderr.write(
			`cairn: uploaded ${res.bytes} bytes, ${res.accepted} new turns${res.background ? "; the rest continues in the background" : ""}\n`,
		);
	return null;
}
