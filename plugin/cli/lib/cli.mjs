// @ts-check
// Every `cairn` command but the prompt hook (see ../cairn.mjs, which loads this module).
import { existsSync, readdirSync, readFileSync, statSync, watch } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { ApiError, client, describeError, isLocalUrl, memoryOff } from "./api.mjs";
import { choose } from "./choose.mjs";
import { codeReport, currentBlobs, hashObjects } from "./code-check.mjs";
import { credentials, readConfig, replaceLogin, stateDir, writeConfig } from "./config.mjs";
import { report, runChecks } from "./doctor.mjs";
import { matched, score } from "./explain.mjs";
import { fromFreeText } from "./free-text.mjs";
import { detectAgent, HOOK_EVENTS, hookBudgetMs, hookOutput, runHook } from "./hook.mjs";
import { emit, parsePart, parsePayload, START_PARTS } from "./hook-output.mjs";
import {
	CLAUDE_HOOKS,
	CODEX_HOOKS,
	claudeSettingsPath,
	codexConfigPath,
	codexHooksPath,
	hookCommand,
	installCodexNotify,
	installHooks,
	uninstallCodexNotify,
	uninstallHooks,
} from "./hooks.mjs";
import { editMemory, forgetMemory, KeptError, listMemories, NAME, showMemory, TYPES } from "./memories.mjs";
import { projectFor, repository } from "./project.mjs";
import { setup, undoSetup } from "./setup.mjs";
import { nearest } from "./suggest.mjs";
import { handOffCurrent, pendingJobs, resumeBacklog, runSyncJob, tryLock } from "./sync.mjs";
import { teamDir, teamPull, teamPush, teamStatus } from "./team.mjs";
import { codexSessionId, uploadNewLines } from "./transcripts.mjs";
import { progress, readMemoryDir, writeUnder } from "./transfer.mjs";

const USAGE = `cairn — long-term memory for coding agents

  cairn setup [--url <url>] [--key <key>] [--admin-token <t>] [--new-tenant]
                                          everything at once: against a local npm start: a tenant and key
                                          (the checkout's operator token), else the key given; login, this
                                          repository with memory on, the Claude Code plugin, Codex hooks and MCP.
                                          Again: reuses the saved login (its URL, its key while it works) and
                                          project; a new tenant only with --new-tenant
  cairn setup --undo                      remove the plugin, its marketplace, hooks, MCP entry and the config
                                          file setup added
  cairn doctor [--url <url>] [--key <key>]
                                          check service, key, project (and memories left under another
                                          tenant), hooks, Codex trust, the agents' MCP entries (CAIRN_URL,
                                          CAIRN_KEY), uploads and the hooks' round trip; each problem with its
                                          fix (exit 1 when any); list the memories whose cited code changed
  cairn login --url <url> --key <key>     save the service URL and API key (~/.config/cairn, mode 600)
  cairn init [dir]                        register this repository as a project and turn memory on
  cairn status                            pipeline state, where settings come from, the last background upload
  cairn view                              what an agent gets at session start
  cairn recall <query…> [--json]          the memories that matter for a task, each with its score (0–1)
                                          and what matched (words, concepts, cues, dates)
  cairn remember "<text>" [--team] [--json]
                                          write a memory; its name, type and description are picked from
                                          the text (any given with --name, --type, --description is kept)
  cairn remember <name> --type <t> --description <d> [--team] [--session <id>] [--cite <path>[#symbol][:lines]]… [text…]
                                          write a memory as given (text from the arguments or stdin); with
                                          the agent's session id it counts as the agent's own write
  cairn list [--type <t>] [--scope personal|team] [--json]
                                          the memories of this repository's project, one line each
  cairn show <name> [--team] [--json]     one memory's topic file (frontmatter and text)
  cairn edit <name> [--team] [--json]     open it in $EDITOR; written back only if nobody changed it since
                                          (else your text is kept in a file the message names)
  cairn forget <name> [--team] [--json]   delete a memory and its history (--team: the team's)
  cairn rebuild                           consolidate now
  cairn review [list] [--status <s>]      proposed changes to memories you wrote, team promotions and team
                                          proposals waiting (--status pending, approved or rejected), with
                                          the danger check's findings and where each came from
  cairn review show|approve|reject <id>   one item in full; apply it (a promotion moves the memory to team
                                          scope; a team proposal is served to every teammate) or turn it down
  cairn review approve --writer <user> | --session <id>
                                          approve a writer's or a session's pending team proposals at once;
                                          team proposals are approved by a person, from no agent's shell and
                                          with a key no agent uses: --key <key> or CAIRN_REVIEW_KEY
  cairn enqueue                           extract the sessions waiting for it now, then consolidate
  cairn team pull [--merge] [--dir <d>]   team memory from the service into the team folder (default:
                                          team/ of Claude Code's memory directory for this repository)
  cairn team push [--merge] [--dir <d>]   send the team files changed here; a file changed on the server
                                          meanwhile is shown as a conflict, never overwritten
  cairn team status [--dir <d>]           new / modified / deleted-locally / changed-on-server per file
  cairn clear [--yes]                     delete every memory of this project (admin key)
  cairn export <dir>                      write topic files, MEMORY.md, summary and skills to <dir>
  cairn import <dir>                      read a Claude Code memory directory into this project
  cairn ingest <file|dir> [--watch]       upload Codex rollouts (default ~/.codex/sessions) as they grow
  cairn hooks install claude [--project|--user]
                                          Claude Code hooks in .claude/settings.local.json
                                          (--project: .claude/settings.json; --user: ~/.claude/settings.json)
  cairn hooks install codex [--project]   Codex hooks in ~/.codex/hooks.json (--project: .codex/hooks.json)
  cairn hooks install codex --notify      Codex's notify program instead, for versions without hooks
  cairn hooks uninstall claude|codex …    remove exactly what install added
  cairn hook <event> [--agent claude|codex]
                                          run one hook (session-start, user-prompt-submit, post-tool-use,
                                          stop, subagent-stop, pre-compact, session-end); payload on stdin
  cairn hook session-start --part i/n     one part of the session-start block (the installed hooks run
                                          parts 1/${START_PARTS} to ${START_PARTS}/${START_PARTS}, one hook each; each arrives whole)
  cairn hook user-prompt-submit --explain  the same, and on stderr why each memory was served or held back

CAIRN_URL and CAIRN_KEY override the saved login; CAIRN_PROJECT (a project id) overrides the repository's project.
The MCP servers the plugin and setup configure read CAIRN_URL and CAIRN_KEY from the environment.`;

/** Agent session ids for explicit writes: set by Cairn's SessionStart hook (Claude Code), or by the agent. */
const SESSION_ENV = ["CAIRN_SESSION_ID", "CLAUDE_SESSION_ID", "CLAUDE_CODE_SESSION_ID", "CODEX_SESSION_ID", "CODEX_THREAD_ID"];
const SESSION_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/**
 * Variables the agents set for the commands their tools run (Claude Code: CLAUDECODE; Codex: its sandbox
 * and thread variables) and Cairn's own session hook: `cairn remember` run with one of them is the agent's
 * write, without them a person's at a terminal.
 */
const AGENT_ENV = [
	"CLAUDECODE",
	"CLAUDE_CODE_ENTRYPOINT",
	"CODEX_SANDBOX",
	"CODEX_SANDBOX_NETWORK_DISABLED",
	"CODEX_THREAD_ID",
	"CODEX_CI",
	...SESSION_ENV,
];

const out = (/** @type {string} */ s) => process.stdout.write(s.endsWith("\n") ? s : `${s}\n`);
const api = (/** @type {number} */ timeoutMs = 30_000) => {
	const { url, key } = credentials();
	return client({ url, key, timeoutMs });
};

async function readStdin() {
	if (process.stdin.isTTY) return "";
	const chunks = [];
	for await (const chunk of process.stdin) chunks.push(chunk);
	return Buffer.concat(chunks).toString("utf8");
}

async function login(/** @type {Record<string, any>} */ values) {
	const url = values.url || process.env.CAIRN_URL;
	const key = values.key || process.env.CAIRN_KEY;
	if (!url || !key) throw new Error("usage: cairn login --url <url> --key <key>");
	const c = client({ url: String(url).replace(/\/+$/, ""), key: String(key) });
	try {
		await c.get("/v1/projects"); // checks the URL and the key before saving them
	} catch (err) {
		if (err instanceof ApiError && err.status === 401)
			throw new Error(
				`${url} refused the key ${values.key ? "given with --key" : "in CAIRN_KEY"} (${err.code}); nothing was saved: check the key with whoever runs that service`,
			);
		if (err instanceof ApiError && err.code === "unreachable")
			throw new Error(
				`${err.message}; nothing was saved — ${isLocalUrl(String(url)) ? "is the service running? Start it with `npm start` in the Cairn checkout (it prints the URL it serves at), or" : "is the service up and this machine online? Else"} check the URL ${values.url ? "given with --url" : "in CAIRN_URL"}`,
			);
		throw err;
	}
	// A different key is another login: the one it replaces is kept (with its projects) under "previous".
	const file = writeConfig(replaceLogin(readConfig(), { url: String(url).replace(/\/+$/, ""), key: String(key) }));
	out(`logged in to ${url}; saved to ${file}`);
}

async function init(/** @type {string} */ dir) {
	const c = api();
	const config = readConfig();
	const repo = repository(dir);
	if (config.projects?.[repo.root]) delete config.projects[repo.root];
	writeConfig(config);
	const project = await projectFor(c, dir);
	await c.put(`/v1/projects/${project.id}/settings`, { "memories.enabled": true });
	out(`project ${project.id} (${repo.remote ?? repo.root}); memories are on`);
}

async function status(/** @type {string} */ dir) {
	// Uploads and session ends a hook could not finish are retried first, whatever the service says next.
	const backlog = pendingJobs();
	const resumed = backlog.length ? resumeBacklog() : 0;
	const c = api();
	const project = await projectFor(c, dir);
	const [pipeline, settings] = await Promise.all([
		c.get(`/v1/projects/${project.id}/status`),
		c.get(`/v1/projects/${project.id}/settings/effective`),
	]);
	const p = /** @type {any} */ (pipeline).pipeline;
	const s = /** @type {any} */ (settings).settings;
	out(`project ${project.id} (${project.remote ?? project.root})`);
	out(
		`memories: ${s["memories.enabled"].value ? "on" : "off — run `cairn init` to turn it on"} (${s["memories.enabled"].source}); extraction: ${s["memories.extractionTrigger"].value}`,
	);
	out(`pending outputs: ${p.pendingOutputs}; running: ${p.running}; dirty: ${p.dirty}; dead letters: ${p.deadLetters}`);
	if (p.lastRun) out(`last consolidation: ${p.lastRun.outcome} at ${p.lastRun.at}${p.lastRun.error ? ` — ${p.lastRun.error}` : ""}`);
	const marks = await codeReport(c, project.id, project.root).catch(() => null);
	if (marks && marks.length > 0)
		out(
			`cited code: ${marks.length} memor${marks.length === 1 ? "y cites" : "ies cite"} code that changed since written (${marks.filter((m) => m.state === "gone").length} with every cited file gone) — \`cairn doctor\` lists them`,
		);
	const log = join(stateDir(), "sync.log");
	if (existsSync(log)) out(`last background upload: ${readFileSync(log, "utf8").trimEnd().split("\n").at(-1)}`);
	if (backlog.length) {
		out(
			`unfinished uploads: ${backlog.length} session${backlog.length === 1 ? "" : "s"} (${backlog.map((r) => `${r.job.sessionId}${r.error ? `: ${r.error}` : ""}`).join("; ")}); ${resumed ? `retrying ${resumed} in the background` : "already being retried"}`,
		);
	}
}

async function view(/** @type {string} */ dir) {
	const c = api();
	const project = await projectFor(c, dir);
	const body = /** @type {any} */ (await c.get(`/v1/projects/${project.id}/view`));
	const off = memoryOff(body.warnings);
	if (off) throw new Error(`nothing to inject: ${off}`);
	out(body.text || "(nothing to inject)");
	for (const w of body.warnings ?? []) process.stderr.write(`cairn: ${w}\n`);
}

async function recall(/** @type {string} */ dir, /** @type {string} */ query, /** @type {Record<string, any>} */ values) {
	if (!query.trim()) throw new Error("usage: cairn recall <query> [--json]");
	const c = api();
	const project = await projectFor(c, dir);
	const body = /** @type {any} */ (await c.post(`/v1/projects/${project.id}/recall`, { query, trace: true }));
	if (values.json) return out(JSON.stringify(body));
	const off = memoryOff(body.warnings);
	if (off) throw new Error(`no memories recalled: ${off}`);
	for (const w of body.warnings ?? []) process.stderr.write(`cairn: ${w}\n`);
	if (body.memories.length === 0) out("no memories match: no word, concept or cue of the query is in any memory you can see");
	/** @type {Map<string, any>} */
	const trace = new Map((body.trace?.candidates ?? []).map((/** @type {any} */ t) => [`${t.scope}/${t.name}`, t]));
	for (const m of body.memories) {
		out(`${m.name} (${m.type}, ${m.scope}) — ${m.description}`);
		// The score as the service gives it (0–1), to two decimals; the trace's when the memory has none.
		const t = trace.get(`${m.scope}/${m.name}`);
		out(`  ${m.path}  score ${score(m.score ?? t?.score)}`);
		out(`  matched: ${matched(t)}`);
	}
}

async function rebuild(/** @type {string} */ dir) {
	const c = api();
	const project = await projectFor(c, dir);
	await c.post(`/v1/projects/${project.id}/consolidate`);
	out("consolidation scheduled; `cairn status` shows the outcome");
}

async function enqueue(/** @type {string} */ dir) {
	const c = api();
	const project = await projectFor(c, dir);
	const base = `/v1/projects/${project.id}`;
	try {
		const { enqueued } = /** @type {any} */ (await c.post(`${base}/extract`));
		out(
			enqueued > 0
				? `queued extraction for ${enqueued} session${enqueued === 1 ? "" : "s"} with turns not yet extracted`
				: "no session has turns waiting for extraction",
		);
		const status = /** @type {any} */ (await c.post(`${base}/consolidate`)).pipeline;
		out(
			`consolidation started (pending outputs: ${status.pendingOutputs}${status.running ? "; a run is in progress, another follows it" : ""}); \`cairn status\` shows the outcome`,
		);
	} catch (err) {
		if (err instanceof ApiError && err.code === "feature_disabled")
			throw new Error(`nothing queued: ${err.message}; \`cairn init\` turns memory on for this repository`);
		throw err;
	}
}

/** One line per review item. @param {any} item */
const reviewLine = (item) => {
	const p = item.proposal;
	const what =
		item.kind === "promote"
			? `promote ${item.memory.name} to team`
			: item.kind === "vouch"
				? `team proposal ${item.memory.name}: ${p.description ?? ""} (by ${item.writer}${item.provenance?.session ? `, session ${item.provenance.session}` : ""})`
				: item.kind === "held"
					? `held ${item.memory.scope === "team" ? "team " : ""}${item.memory.name}: ${p.description ?? ""} (by ${item.writer})`
					: p.op === "delete"
						? `delete ${item.memory.name}`
						: `${p.op} ${item.memory.name}: ${p.description}${p.from.length ? ` (folding in ${p.from.join(", ")})` : ""}`;
	const stale =
		item.status === "pending" && item.memory.currentVersion !== item.memory.baseVersion
			? item.memory.currentVersion === null
				? " [memory gone]"
				: " [memory changed since]"
			: "";
	const flagged = (item.findings ?? []).length
		? ` [danger check: ${[...new Set(item.findings.map((/** @type {any} */ f) => f.class))].join(", ")}]`
		: "";
	const tool = (item.provenance?.fromToolOutput ?? []).length ? ` [from tool output: ${item.provenance.fromToolOutput.join(", ")}]` : "";
	return `${item.id}  ${item.status.padEnd(8)}  ${what}${stale}${flagged}${tool}`;
};

/** Which of the agents' variables says this shell is an agent's (`X-Cairn-Agent`), or undefined at a person's terminal. */
const agentShell = () => AGENT_ENV.find((v) => (process.env[v] ?? "") !== "");

/**
 * `cairn review [list|show|approve|reject]`: the review queue of this repository's project. Approving a team
 * proposal is a person's act: from an agent's shell the request says so and the service refuses it, and the
 * key the hooks use is refused too — approve with a key of your own (`--key`, or CAIRN_REVIEW_KEY), or in
 * the console. `approve --writer <user id>` or `--session <id>` approves their pending team proposals at once.
 * @param {string} dir @param {string[]} args @param {Record<string, any>} values
 */
async function review(dir, args, values) {
	const [given = "list", id] = args;
	const usage =
		"usage: cairn review [list [--status pending|approved|rejected]] | cairn review show|approve|reject <id> | cairn review approve --writer <user id> | --session <id> [--key <review key>]";
	const action = choose(given, /** @type {const} */ (["list", "show", "approve", "reject"]), {
		what: "review action",
		as: (k) => `cairn review ${k}`,
	});
	const batch = action === "approve" && !id && (typeof values.writer === "string" || typeof values.session === "string");
	if (action !== "list" && !id && !batch) throw new Error(`${action} needs the item's id (\`cairn review\` lists them); ${usage}`);
	const status =
		values.status === undefined
			? "pending"
			: choose(values.status, /** @type {const} */ (["pending", "approved", "rejected"]), { what: "--status", as: (k) => `--status ${k}` });
	const { url, key } = credentials();
	const reviewKey = typeof values.key === "string" ? values.key : process.env.CAIRN_REVIEW_KEY || key;
	const c = client({ url, key: reviewKey });
	const agent = agentShell();
	/** @type {Record<string, string>} */
	const headers = agent ? { "X-Cairn-Agent": agent } : {};
	const project = await projectFor(client({ url, key }), dir);
	const base = `/v1/projects/${project.id}/reviews`;
	const refused = (/** @type {unknown} */ err) => {
		const reason = err instanceof ApiError && err.code === "forbidden" ? /** @type {any} */ (err.details)?.reason : undefined;
		if (err instanceof ApiError && (reason === "agent_session" || reason === "session_key"))
			return new Error(
				reason === "agent_session"
					? `refused: ${err.message}. Run it yourself, outside the agent's session`
					: `refused: ${err.message}${reviewKey === key ? " — this is the key in your Cairn login, which your agents' hooks use" : ""}`,
			);
		return err;
	};
	if (action === "list") {
		const res = /** @type {any} */ (await c.request("GET", `${base}?status=${encodeURIComponent(status)}&limit=200`, { headers }));
		if (res.items.length === 0) out(`no ${status} review items`);
		for (const item of res.items) out(reviewLine(item));
		if (res.awaiting > 0) {
			const shown = res.items.filter((/** @type {any} */ i) => i.kind === "vouch" && i.status === "pending").length;
			out(
				`${res.awaiting} team ${res.awaiting === 1 ? "memory awaits" : "memories await"} review${shown < res.awaiting ? ` (${res.awaiting - shown} not shown: reviewing teammates' proposals needs a key no agent session used — --key or CAIRN_REVIEW_KEY — and a terminal of your own)` : ""}`,
			);
		}
		return;
	}
	if (batch) {
		try {
			const res = /** @type {any} */ (
				await c.request("POST", `${base}/approve`, {
					json: {
						...(typeof values.writer === "string" ? { writer: values.writer } : {}),
						...(typeof values.session === "string" ? { session: values.session } : {}),
					},
					headers,
				})
			);
			for (const item of res.approved) out(`approved ${item.id}: ${item.memory.name} is served to every teammate`);
			for (const f of res.failed) out(`not approved ${f.id} (${f.name}): ${f.error.message}`);
			if (res.approved.length + res.failed.length === 0) out("no pending team proposals match");
			return;
		} catch (err) {
			throw refused(err);
		}
	}
	const path = `${base}/${encodeURIComponent(String(id))}`;
	if (action === "show") {
		const { item } = /** @type {any} */ (await c.request("GET", path, { headers }));
		out(reviewLine(item));
		out(
			`kind: ${item.kind}; memory: ${item.memory.name} (${item.memory.scope}, proposed against version ${item.memory.baseVersion ?? "-"}, now ${item.memory.currentVersion ?? "gone"})`,
		);
		if (item.proposal.type) out(`type: ${item.proposal.type}`);
		if (item.proposal.description) out(`description: ${item.proposal.description}`);
		if (item.proposal.body) out(`\n${item.proposal.body.trimEnd()}\n`);
		if (item.reason) out(`reason: ${item.reason}`);
		if (item.kind === "vouch" || item.kind === "held") {
			const findings = item.findings ?? [];
			out(
				`danger check: ${findings.length ? findings.map((/** @type {any} */ f) => `${f.class} (${f.reason})`).join("; ") : "nothing flagged"}`,
			);
			const p = item.provenance ?? {};
			out(`written by ${item.writer}${p.tier ? ` (${p.tier})` : ""}${p.session ? ` in session ${p.session}` : ""}`);
			if ((p.fromToolOutput ?? []).length) out(`from tool output: ${p.fromToolOutput.join(", ")} (${(p.turns ?? []).join(", ")})`);
		} else if (item.evidence.length) out(`sessions: ${item.evidence.join(", ")}`);
		if (item.decidedAt) out(`${item.status} at ${item.decidedAt} by ${item.decidedBy}`);
		return;
	}
	try {
		const { item, memory } = /** @type {any} */ (await c.request("POST", `${path}/${action}`, { headers }));
		if (action === "reject")
			out(
				item.kind === "vouch"
					? `rejected ${item.id}; ${memory ? `${item.memory.name} is back at the text a person vouched for` : `${item.memory.name} is removed`}`
					: `rejected ${item.id}; ${item.memory.name} is unchanged`,
			);
		else if (item.kind === "vouch") out(`approved ${item.id}: ${item.memory.name} is served to every teammate`);
		else if (item.kind === "promote")
			out(
				`approved ${item.id}: ${item.memory.name} is now a team memory${memory?.awaitingReview ? " (a proposal: a person approves it from their own terminal)" : ""}`,
			);
		else if (!memory) out(`approved ${item.id}: ${item.memory.name} deleted`);
		else out(`approved ${item.id}: ${memory.name} is at version ${memory.version}`);
	} catch (err) {
		if (err instanceof ApiError && err.code === "version_conflict")
			throw new Error(`${err.message}: ${id} was proposed against an older version; reject it or edit the memory yourself`);
		throw refused(err);
	}
}

/** `cairn team pull|push|status`; --dir names the team folder, the project comes from the repository. @param {string[]} args @param {Record<string, any>} values */
async function team(args, values) {
	const action = choose(args[0], /** @type {const} */ (["pull", "push", "status"]), {
		what: "team action",
		as: (k) => `cairn team ${k}`,
		usage: "cairn team pull|push|status [--merge] [--dir <team folder>]",
	});
	const cwd = process.cwd();
	const dir = teamDir(cwd, typeof values.dir === "string" ? values.dir : undefined);
	const c = api();
	const project = await projectFor(c, cwd);
	const report = { out, err: (/** @type {string} */ s) => process.stderr.write(`${s}\n`) };
	try {
		if (action === "status") {
			const { rows, inSync } = await teamStatus(c, { projectId: project.id, dir });
			const width = Math.max(8, ...rows.map((r) => r.state.length));
			for (const r of rows) out(`${r.state.padEnd(width)}  ${r.path}${r.note ? `  (${r.note})` : ""}`);
			out(`${dir}: ${inSync} in sync${rows.length ? `, ${rows.length} not` : ""}`);
			return;
		}
		if (action === "pull") {
			const r = await teamPull(c, { projectId: project.id, dir, merge: values.merge === true, report });
			out(
				`pulled into ${dir}: ${r.written} written${r.removed ? `, ${r.removed} removed` : ""}${r.keptDeleted ? `, ${r.keptDeleted} deleted here left deleted` : ""}${r.conflicts ? `, ${r.conflicts} in conflict` : ""}`,
			);
			if (r.conflicts) process.exitCode = 1;
			return;
		}
		const r = await teamPush(c, { projectId: project.id, dir, merge: values.merge === true, report });
		out(
			`pushed from ${dir}: ${r.pushed} sent${r.unchanged ? `, ${r.unchanged} already there` : ""}${r.conflicts ? `, ${r.conflicts} in conflict` : ""}${r.skipped ? `, ${r.skipped} skipped` : ""}`,
		);
		if (r.conflicts || r.skipped) process.exitCode = 1;
	} catch (err) {
		if (err instanceof ApiError && err.code === "feature_disabled") throw new Error(`${err.message}; nothing synced`);
		throw err;
	}
}

async function clear(/** @type {string} */ dir, /** @type {boolean} */ yes) {
	const c = api();
	const project = await projectFor(c, dir);
	if (!yes) {
		if (!process.stdin.isTTY) throw new Error("clear deletes every memory of the project; confirm with --yes");
		const rl = createInterface({ input: process.stdin, output: process.stderr });
		const answer = await rl.question(
			`Delete every memory of project ${project.id} (${project.remote ?? project.root})? Type the project id: `,
		);
		rl.close();
		if (answer.trim() !== project.id) throw new Error("not confirmed; nothing deleted");
	}
	await c.del(`/v1/projects/${project.id}/memory?confirm=${encodeURIComponent(project.id)}`);
	out(`cleared project ${project.id}`);
}

async function exportTo(/** @type {string} */ dir, /** @type {string} */ target) {
	const c = api();
	const project = await projectFor(c, dir);
	const base = `/v1/projects/${project.id}`;
	/** @type {any[]} */
	const memories = [];
	let cursor = "";
	do {
		const page = /** @type {any} */ (await c.get(`${base}/memories?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`));
		memories.push(...page.memories);
		cursor = page.nextCursor ?? "";
	} while (cursor);
	const bar = progress("export", memories.length);
	for (const m of memories) {
		const scope = m.scope === "team" ? "?scope=team" : "";
		const text = /** @type {string} */ (await c.request("GET", `${base}/memories/${m.name}${scope}`, { accept: "text/markdown" }));
		writeUnder(target, m.scope === "team" ? join("team", `${m.name}.md`) : `${m.name}.md`, text);
		bar.tick();
	}
	writeUnder(target, "MEMORY.md", /** @type {string} */ (await c.get(`${base}/index`)));
	let extras = 0;
	let noSummary = false;
	try {
		writeUnder(target, "memory_summary.md", /** @type {string} */ (await c.get(`${base}/summary`)));
		extras++;
	} catch (err) {
		if (!(err instanceof ApiError && err.status === 404)) throw err;
		noSummary = true;
	}
	const skills = /** @type {any} */ (await c.get(`${base}/skills`)).skills;
	for (const s of skills)
		writeUnder(target, join("skills", s.name, "SKILL.md"), /** @type {string} */ (await c.get(`${base}/skills/${s.name}`)));
	out(
		`exported ${memories.length} memories${skills.length ? `, ${skills.length} skills` : ""}${extras ? ", the summary" : ""} and MEMORY.md to ${target}`,
	);
	if (noSummary)
		out("no memory_summary.md yet: consolidation writes it — run `cairn rebuild` (it builds your summary at once), then export again");
}

/**
 * `--cite <path>[#symbol][:lines]`: a file (relative to the current directory) the memory is about, with
 * the git blob id it has now (the working tree's: the index's unless edited since, or the file's own when
 * git does not track it yet).
 * @param {unknown} given @param {string} dir @param {string} root
 */
function citeArgs(given, dir, root) {
	const list = Array.isArray(given) ? given.filter((v) => typeof v === "string") : typeof given === "string" ? [given] : [];
	return list.map((arg) => {
		const m = /^(.+?)(?:#([^:#]+))?(?::(\d+(?:-\d+)?))?$/.exec(arg);
		const file = resolve(dir, m?.[1] ?? arg);
		const path = relative(root, file).split(sep).join("/");
		if (!m || path.startsWith("..") || isAbsolute(path) || !existsSync(file))
			throw new Error(`--cite ${arg.slice(0, 200)}: not a file in this repository (give <path>[#symbol][:lines])`);
		const blob = currentBlobs(root, [path])?.blobs.get(path) ?? hashObjects(root, [path], 2000)?.[0] ?? null;
		return { path, ...(m[2] ? { symbol: m[2] } : {}), ...(m[3] ? { lines: m[3] } : {}), ...(blob ? { blob } : {}) };
	});
}

/**
 * The name a free-text memory gets: the one picked, or with -2, -3 … when the project already has a memory
 * of that name in the scope (a free-text write never replaces one) — unless that memory holds this very
 * text, which is then written again unchanged rather than twice.
 * @param {ReturnType<typeof api>} c @param {string} projectId @param {string} name @param {"personal" | "team"} scope @param {string} body
 */
async function freeName(c, projectId, name, scope, body) {
	for (let i = 1; i <= 20; i++) {
		const candidate = i === 1 ? name : `${name.slice(0, 60).replace(/-+$/, "")}-${i}`;
		try {
			const { memory } = /** @type {any} */ (
				await c.request("GET", `/v1/projects/${projectId}/memories/${candidate}?scope=${scope}`, { accept: "application/json" })
			);
			if (String(memory?.body ?? "").trim() === body.trim()) return candidate;
		} catch (err) {
			if (err instanceof ApiError && err.status === 404) return candidate;
			throw err;
		}
	}
	throw new Error(`memories ${name} to ${name}-20 exist already: give the memory a name with --name <name>`);
}

/**
 * `cairn remember`: `<name> --type t --description d [text…]` as given, or free text (`cairn remember "we use
 * pnpm, never npm"`) whose name, type and description are picked from it — any of them given as
 * `--name`, `--type`, `--description` is taken as given.
 * @param {string} dir @param {string[]} args @param {Record<string, any>} values
 */
async function remember(dir, args, values) {
	const usage =
		'usage: cairn remember "<text>" [--type <t>] [--description <d>] [--name <n>] [--team] [--json], or cairn remember <name> --type <user|feedback|project|reference> --description <one line> [--team] [--cite <path>[#symbol][:lines]]… [text… | stdin]';
	const type = values.type === undefined ? undefined : choose(values.type, TYPES, { what: "--type", as: (k) => `--type ${k}` });
	if (values.description !== undefined && typeof values.description !== "string") throw new Error(usage);
	// The explicit form: both --type and --description, and the name first.
	const explicit = type !== undefined && typeof values.description === "string" && values.name === undefined;
	if (explicit && !args[0]) throw new Error(usage);
	if (explicit && !NAME.test(args[0] ?? ""))
		throw new Error(
			`"${String(args[0]).slice(0, 64)}" is not a memory name: lowercase letters, digits and '-', at most 64 (or leave out --type and --description, and the name is picked from the text)`,
		);
	const words = explicit ? args.slice(1) : args;
	const body = words.length > 0 ? words.join(" ") : await readStdin();
	if (!body.trim()) throw new Error(explicit ? `the memory's text is empty; ${usage}` : usage);
	if (values.name !== undefined && (typeof values.name !== "string" || !NAME.test(values.name)))
		throw new Error(
			`--name ${JSON.stringify(String(values.name).slice(0, 64))} is not a memory name: lowercase letters, digits and '-', at most 64`,
		);
	const picked = explicit ? null : fromFreeText(body);
	const c = api();
	const project = await projectFor(c, dir);
	const citations = citeArgs(values.cite, dir, project.root);
	const scope = values.team ? "team" : "personal";
	const name = explicit
		? /** @type {string} */ (args[0])
		: (values.name ?? (await freeName(c, project.id, picked?.name ?? "note", scope, body)));
	const memory = {
		type: type ?? picked?.type,
		description: typeof values.description === "string" ? values.description : picked?.description,
	};
	// From an agent's shell an explicit agent write (`source=agent`; with the agent's session id, extraction also
	// leaves out the turns that made it); typed at a terminal, the person's own (`source=user`).
	const session = [values.session, ...SESSION_ENV.map((v) => process.env[v])].find((s) => typeof s === "string" && SESSION_ID.test(s));
	const byAgent = session !== undefined || AGENT_ENV.some((v) => (process.env[v] ?? "") !== "");
	const res = /** @type {any} */ (
		await c.request(
			"PUT",
			`/v1/projects/${project.id}/memories/${name}?source=${byAgent ? "agent" : "user"}${values.team ? "&scope=team" : ""}`,
			{
				json: { ...memory, body, ...(citations.length ? { citations } : {}) },
				headers: session ? { "X-Cairn-Session": session } : {},
			},
		)
	);
	/** What the CLI picked itself, for --json and the line it prints. */
	const chose = picked
		? [
				values.name === undefined ? "name" : "",
				type === undefined ? "type" : "",
				typeof values.description === "string" ? "" : "description",
			].filter(Boolean)
		: [];
	if (values.json) out(JSON.stringify({ ...res, ...(chose.length ? { picked: chose } : {}) }));
	else if (res?.error?.code === "held_for_review") {
		out(
			`held ${name} for review: it asks for ${(res.error.details?.classes ?? []).join(", ")}; a project admin approves it before anyone is served it`,
		);
		return;
	} else {
		out(
			`remembered ${name} (${memory.type}, ${scope}, version ${res.memory.version})${res.memory.awaitingReview ? " — a team proposal: teammates' agents get it once a person approves it (cairn review)" : ""}`,
		);
		if (chose.length)
			out(
				`  picked ${chose.join(", ")} from the text${chose.includes("description") ? `: "${memory.description}"` : ""} — \`cairn edit ${name}${values.team ? " --team" : ""}\` changes them`,
			);
	}
	if (res?.error) return;
	const settings = /** @type {any} */ (await c.get(`/v1/projects/${project.id}/settings/effective`).catch(() => null))?.settings;
	if (settings && settings["memories.enabled"]?.value !== true)
		process.stderr.write(
			`cairn: stored, but memory is off for this repository, so no agent is served it — run \`cairn init\` to turn it on (memories.enabled, set by ${settings["memories.enabled"]?.source})\n`,
		);
}

async function importFrom(/** @type {string} */ dir, /** @type {string} */ source) {
	const c = api();
	const project = await projectFor(c, dir);
	const entries = readMemoryDir(source);
	let imported = 0;
	let skipped = 0;
	for (const e of entries.filter((x) => x.problem)) {
		skipped++;
		process.stderr.write(`skipped ${e.file}: ${e.problem}\n`);
	}
	const bar = progress("import", entries.length);
	for (const scope of /** @type {const} */ (["personal", "team"])) {
		const items = entries.filter((e) => e.item && e.scope === scope);
		for (let i = 0; i < items.length; i += 50) {
			const chunk = items.slice(i, i + 50);
			const res = /** @type {any} */ (
				await c.post(`/v1/projects/${project.id}/memories/batch?source=import${scope === "team" ? "&scope=team" : ""}`, {
					memories: chunk.map((e) => e.item),
				})
			);
			res.results.forEach((/** @type {any} */ r, /** @type {number} */ j) => {
				bar.tick();
				const e = /** @type {import("./transfer.mjs").ImportEntry} */ (chunk[j]);
				if (r.status === "error") {
					skipped++;
					const rules = r.error?.details?.rules ? ` (${r.error.details.rules.join(", ")})` : "";
					process.stderr.write(`skipped ${e.file}: ${r.error?.message ?? "refused"}${rules}\n`);
					return;
				}
				imported++;
				const as = `${scope === "team" ? "team/" : ""}${e.item?.name}`;
				out(e.changes.length ? `imported ${e.file} as ${as}, changed: ${e.changes.join("; ")}` : `imported ${e.file} as ${as}`);
			});
		}
	}
	out(`imported ${imported} memories into project ${project.id}${skipped ? `; ${skipped} skipped (listed on stderr)` : ""}`);
}

/** Codex rollouts under a file or directory, oldest first. @param {string} target */
function rollouts(target) {
	if (!existsSync(target)) throw new Error(`${target} does not exist`);
	if (statSync(target).isFile()) return [resolve(target)];
	/** @type {string[]} */
	const files = [];
	const walk = (/** @type {string} */ d) => {
		for (const entry of readdirSync(d, { withFileTypes: true })) {
			const p = join(d, entry.name);
			if (entry.isDirectory()) walk(p);
			else if (entry.name.endsWith(".jsonl")) files.push(p);
		}
	};
	walk(target);
	return files.sort();
}

async function ingestRollouts(/** @type {string} */ target, /** @type {boolean} */ follow) {
	const c = api();
	const once = async () => {
		let accepted = 0;
		for (const file of rollouts(target)) {
			const { id, cwd } = codexSessionId(file);
			const project = await projectFor(c, cwd && existsSync(cwd) ? cwd : process.cwd());
			const release = tryLock(project.id, id);
			if (!release) continue; // a hook is uploading this session right now; the next round catches up
			try {
				accepted += (await uploadNewLines(c, { projectId: project.id, sessionId: id, file, format: "codex" })).accepted;
			} finally {
				release();
			}
		}
		return accepted;
	};
	out(`uploaded ${await once()} new turns`);
	if (!follow) return;
	out(`watching ${target} (Ctrl-C to stop)`);
	let busy = false;
	watch(target, { recursive: true }, async () => {
		if (busy) return;
		busy = true;
		try {
			const n = await once();
			if (n) out(`uploaded ${n} new turns`);
		} catch (err) {
			process.stderr.write(`cairn: ${err instanceof Error ? err.message : String(err)}\n`);
		} finally {
			busy = false;
		}
	});
	await new Promise(() => {});
}

/**
 * `cairn hook <event>`: never blocks or breaks the agent. Whatever happens — service down, bad key,
 * bad payload, deadline — it exits 0 in time with at most one line on stderr, and Codex still gets a
 * valid JSON object on stdout.
 * @param {string} sub @param {Record<string, any>} values
 */
async function hook(sub, values) {
	const started = performance.timeOrigin;
	const known = /** @type {Record<string, import("./hook.mjs").HookEvent>} */ (HOOK_EVENTS)[sub];
	let agent = values.agent === "codex" || values.agent === "claude" ? values.agent : null;
	// A mistyped --agent is said (with the nearest), and the hook does nothing, in the format of the agent its payload comes from.
	const badAgent = values.agent !== undefined && !agent;
	let event = /** @type {string} */ (known ?? "");
	let printed = false;
	const finish = (/** @type {string | null} */ context, /** @type {string | null} */ problem) => {
		if (printed) return;
		printed = true;
		if (problem) process.stderr.write(`cairn: ${problem.split("\n")[0]}\n`);
		emit(hookOutput(agent ?? "claude", event, context));
		process.exit(0);
	};
	const budget = hookBudgetMs(event);
	setTimeout(
		() => {
			// An upload cut short by the budget continues in a detached process rather than waiting for the next hook.
			handOffCurrent();
			finish(null, "hook timed out; continuing without memory");
		},
		Math.max(0, started + budget - 40 - Date.now()),
	).unref();
	try {
		if (sub === "codex-notify") return await codexNotify();
		const payload = parsePayload(await readStdin());
		agent ??= detectAgent(payload);
		if (badAgent)
			choose(values.agent === true ? "" : values.agent, /** @type {const} */ (["claude", "codex"]), {
				what: "--agent",
				as: (k) => `--agent ${k}`,
			});
		// `hook ingest` (installed by earlier versions) serves Stop and SessionEnd alike.
		if (!known && sub === "ingest" && (payload.hook_event_name === "Stop" || payload.hook_event_name === "SessionEnd"))
			event = payload.hook_event_name;
		if (!event) {
			const near = nearest(String(sub), Object.keys(HOOK_EVENTS));
			throw new Error(
				`unknown hook "${String(sub).slice(0, 40)}"${near ? `; did you mean \`cairn hook ${near}\`?` : ""} (one of ${Object.keys(HOOK_EVENTS).join(", ")})`,
			);
		}
		// `--part i/n`: one of the SessionStart hook entries the block is split over; other events take no part.
		const part = event === "SessionStart" && values.part !== undefined ? parsePart(values.part) : null;
		const deadline = started + budget - 150;
		const context = await runHook(api(Math.max(100, deadline - Date.now())), {
			event: /** @type {import("./hook.mjs").HookEvent} */ (event),
			agent: /** @type {"claude" | "codex"} */ (agent),
			payload,
			deadline,
			part,
		});
		finish(context, null);
	} catch (err) {
		finish(null, errorMessage(err));
	}
}

/** Codex's legacy `notify`: one JSON argument, `{"type":"agent-turn-complete","thread-id":…,"cwd":…}`. */
async function codexNotify() {
	const note = JSON.parse(process.argv.at(-1) ?? "{}");
	const threadId = String(note["thread-id"] ?? "");
	const sessions = join(process.env.CODEX_HOME || join(homedir(), ".codex"), "sessions");
	const file = threadId && existsSync(sessions) ? rollouts(sessions).find((f) => f.includes(threadId)) : undefined;
	if (!file) return;
	const c = api(2500);
	const project = await projectFor(c, typeof note.cwd === "string" && existsSync(note.cwd) ? note.cwd : process.cwd());
	const sessionId = codexSessionId(file).id;
	const release = tryLock(project.id, sessionId);
	if (!release) return; // a hook or a background upload has this session; it reads to the end
	try {
		await uploadNewLines(c, { projectId: project.id, sessionId, file, format: "codex", deadline: Date.now() + 2500 });
	} finally {
		release();
	}
}

async function hooks(/** @type {string[]} */ args, /** @type {Record<string, any>} */ values) {
	const usage = "cairn hooks install|uninstall claude [--project|--user], or cairn hooks install|uninstall codex [--project|--notify]";
	const action = choose(args[0], /** @type {const} */ (["install", "uninstall"]), {
		what: "hooks action",
		as: (k) => `cairn hooks ${k}`,
		usage,
	});
	const agent = choose(args[1], /** @type {const} */ (["claude", "codex"]), {
		what: "agent",
		as: (k) => `cairn hooks ${action} ${k}`,
		usage,
	});
	const root = repository(process.cwd()).root;
	if (agent === "codex" && values.notify) {
		const file = codexConfigPath();
		if (action === "uninstall") {
			out(uninstallCodexNotify(file) ? `removed Cairn's notify from ${file}` : `no Cairn notify in ${file}`);
			return;
		}
		const result = installCodexNotify(file);
		if (result.conflict) {
			throw new Error(
				`${file} already has ${result.conflict}; Codex runs one notify program. Chain it, use hooks (\`cairn hooks install codex\`), or run \`cairn ingest ~/.codex/sessions --watch\``,
			);
		}
		out(result.changed ? `set ${result.line} in ${file}` : `Cairn's notify is already in ${file}`);
		return;
	}
	const where = values.user ? "user" : values.project ? "project" : agent === "claude" ? "local" : "user";
	const file = agent === "claude" ? claudeSettingsPath(/** @type {any} */ (where), root) : codexHooksPath(/** @type {any} */ (where), root);
	if (action === "uninstall") {
		const removed = uninstallHooks(file);
		out(removed.length ? `removed Cairn's ${[...new Set(removed)].join(", ")} hooks from ${file}` : `no Cairn hooks in ${file}`);
		return;
	}
	const shared = where === "project";
	const { added, updated } = installHooks(file, agent === "claude" ? CLAUDE_HOOKS : CODEX_HOOKS, (sub) => hookCommand(sub, agent, shared));
	if (!added.length && !updated.length) out(`Cairn's hooks are already in ${file}`);
	else
		out(
			`${[added.length ? `added ${added.join(", ")}` : "", updated.length ? `updated ${updated.join(", ")}` : ""].filter(Boolean).join("; ")} in ${file}`,
		);
	if (shared) out("the hooks run `cairn` from PATH: everyone who uses them needs the CLI installed (npm install -g @cairn/cli)");
	if (agent === "codex") out("Codex runs a new or changed hook only once you trust it: open /hooks in Codex and trust Cairn's");
}

const errorMessage = describeError;

/** Every option of every command (`parseArgs`); a word not among them is refused with the nearest one. */
const OPTIONS = /** @type {const} */ ({
	url: { type: "string" },
	key: { type: "string" },
	yes: { type: "boolean", short: "y" },
	watch: { type: "boolean" },
	project: { type: "boolean" },
	user: { type: "boolean" },
	notify: { type: "boolean" },
	team: { type: "boolean" },
	type: { type: "string" },
	description: { type: "string" },
	session: { type: "string" },
	writer: { type: "string" },
	agent: { type: "string" },
	dir: { type: "string" },
	merge: { type: "boolean" },
	status: { type: "string" },
	"admin-token": { type: "string" },
	checkout: { type: "string" },
	name: { type: "string" },
	help: { type: "boolean", short: "h" },
	version: { type: "boolean" },
	undo: { type: "boolean" },
	explain: { type: "boolean" },
	part: { type: "string" },
	cite: { type: "string", multiple: true },
	json: { type: "boolean" },
	scope: { type: "string" },
	"new-tenant": { type: "boolean" },
});

/** The commands `main` knows, for "did you mean …?". */
const COMMANDS = [
	"setup",
	"doctor",
	"login",
	"init",
	"status",
	"view",
	"recall",
	"remember",
	"list",
	"show",
	"edit",
	"forget",
	"rebuild",
	"review",
	"enqueue",
	"team",
	"clear",
	"reset",
	"export",
	"import",
	"ingest",
	"hooks",
	"hook",
	"help",
];

async function main() {
	const { values, positionals, tokens } = parseArgs({
		allowPositionals: true,
		strict: false,
		tokens: true,
		options: OPTIONS,
	});
	const [command, ...rest] = positionals;
	if (command === "hook") return hook(rest[0] ?? "", values); // a hook never refuses its command line
	// An option no command knows (`--typ feedback`) would otherwise be read as a flag and a stray word.
	for (const t of tokens ?? []) {
		if (t.kind !== "option" || Object.hasOwn(OPTIONS, t.name)) continue;
		const near = nearest(t.name, Object.keys(OPTIONS));
		throw new Error(
			`unknown option ${t.rawName}${near ? `; did you mean --${near}?` : ""} (\`cairn help\` lists every command and its options)`,
		);
	}
	const dir = typeof values.dir === "string" ? values.dir : process.cwd();
	if (values.version) return out(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).version);
	if (values.help) return out(USAGE);
	switch (command) {
		case "login":
			return login(values);
		case "setup": {
			if (values.undo) return undoSetup(dir, out);
			const text = (/** @type {unknown} */ v) => (typeof v === "string" ? v : undefined);
			return setup(
				dir,
				{
					url: text(values.url),
					key: text(values.key),
					adminToken: text(values["admin-token"]),
					checkout: text(values.checkout),
					name: text(values.name),
					newTenant: values["new-tenant"] === true,
				},
				out,
			);
		}
		case "doctor": {
			const given = {
				url: typeof values.url === "string" ? values.url : undefined,
				key: typeof values.key === "string" ? values.key : undefined,
			};
			if (!report(await runChecks(dir, given), out)) process.exitCode = 1;
			return;
		}
		case "init":
			return init(rest[0] ?? dir);
		case "status":
			return status(dir);
		case "view":
			return view(dir);
		case "recall":
			return recall(dir, rest.join(" "), values);
		case "remember":
			return remember(dir, rest, values);
		case "list":
		case "show":
		case "edit":
		case "forget": {
			const c = api();
			const project = await projectFor(c, dir);
			if (command === "list") return listMemories(c, project.id, values, out);
			return { show: showMemory, edit: editMemory, forget: forgetMemory }[command](c, project.id, rest, values, out);
		}
		case "rebuild":
			return rebuild(dir);
		case "review":
			return review(dir, rest, values);
		case "enqueue":
			return enqueue(dir);
		case "team":
			return team(rest, values);
		case "clear":
		case "reset":
			return clear(dir, values.yes === true);
		case "export":
			if (!rest[0]) throw new Error("usage: cairn export <dir>");
			return exportTo(dir, resolve(rest[0]));
		case "import":
			if (!rest[0]) throw new Error("usage: cairn import <dir>");
			return importFrom(dir, resolve(rest[0]));
		case "ingest":
			return ingestRollouts(
				resolve(rest[0] ?? join(process.env.CODEX_HOME || join(homedir(), ".codex"), "sessions")),
				values.watch === true,
			);
		case "hooks":
			return hooks(rest, values);
		case "sync-job":
			// The background half of a hook's upload (see lib/sync.mjs); not for people.
			return runSyncJob(api(60_000), JSON.parse(rest[0] ?? "{}"));
		case undefined:
		case "help":
			out(USAGE);
			return;
		default: {
			const near = nearest(String(command), COMMANDS);
			throw new Error(
				`unknown command "${String(command).slice(0, 40)}"${near ? `; did you mean \`cairn ${near}\`?` : ""} (\`cairn help\` lists every command)`,
			);
		}
	}
}

/** Runs the command line; a hook always exits 0. */
export function run() {
	const isHook = process.argv[2] === "hook";
	main().then(
		() => {
			if (isHook) process.exit(0);
		},
		(err) => {
			const message = errorMessage(err);
			process.stderr.write(`cairn: ${message}\n`);
			// With --json the refusal is JSON on stdout too, with the file an edit left behind.
			if (!isHook && process.argv.includes("--json")) {
				const code = err instanceof ApiError || err instanceof KeptError ? err.code : undefined;
				const file = err instanceof KeptError ? err.file : undefined;
				process.stdout.write(`${JSON.stringify({ error: { code: code ?? "refused", message, ...(file ? { file } : {}) } })}\n`);
			}
			process.exit(isHook ? 0 : 1);
		},
	);
}
