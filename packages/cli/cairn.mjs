#!/usr/bin/env node
// @ts-check
// `cairn`: connect coding agents to a Cairn memory service. Node ≥ 22.
import { existsSync, readdirSync, statSync, watch } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { parseArgs } from "node:util";
import { ApiError, client } from "./lib/api.mjs";
import { credentials, readConfig, writeConfig } from "./lib/config.mjs";
import { claudeSettingsPath, codexConfigPath, installClaude, installCodex, uninstallClaude, uninstallCodex } from "./lib/hooks.mjs";
import { projectFor, repository } from "./lib/project.mjs";
import { codexSessionId, uploadNewLines } from "./lib/transcripts.mjs";
import { progress, readMemoryDir, writeUnder } from "./lib/transfer.mjs";

const USAGE = `cairn — long-term memory for coding agents

  cairn login --url <url> --key <key>     save the service URL and API key (~/.config/cairn, mode 600)
  cairn init [dir]                        register this repository as a project and turn memory on
  cairn status                            pipeline state and where settings come from
  cairn view                              what an agent gets at session start
  cairn recall <query…>                   the memories that matter for a task
  cairn rebuild                           consolidate now
  cairn clear [--yes]                     delete every memory of this project (admin key)
  cairn export <dir>                      write topic files, MEMORY.md, summary and skills to <dir>
  cairn import <dir>                      read a Claude Code memory directory into this project
  cairn ingest <file|dir> [--watch]       upload Codex rollouts (default ~/.codex/sessions) as they grow
  cairn hooks install claude [--project|--user]   wire Claude Code's SessionStart, Stop, SessionEnd, PreCompact
  cairn hooks uninstall claude [--project|--user] remove exactly what install added
  cairn hooks install codex | uninstall codex      set Codex's notify program to upload each turn

CAIRN_URL and CAIRN_KEY override the saved login.`;

/** Hooks never block or break the agent: a short deadline, one line on stderr, exit 0. */
const HOOK_DEADLINE_MS = 2500;

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
	await c.get("/v1/projects"); // checks the URL and the key before saving them
	const file = writeConfig({ ...readConfig(), url: String(url).replace(/\/+$/, ""), key: String(key) });
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
		`memories: ${s["memories.enabled"].value ? "on" : "off"} (${s["memories.enabled"].source}); extraction: ${s["memories.extractionTrigger"].value}`,
	);
	out(`pending outputs: ${p.pendingOutputs}; running: ${p.running}; dirty: ${p.dirty}; dead letters: ${p.deadLetters}`);
	if (p.lastRun) out(`last consolidation: ${p.lastRun.outcome} at ${p.lastRun.at}${p.lastRun.error ? ` — ${p.lastRun.error}` : ""}`);
}

async function view(/** @type {string} */ dir) {
	const c = api();
	const project = await projectFor(c, dir);
	const body = /** @type {any} */ (await c.get(`/v1/projects/${project.id}/view`));
	out(body.text || "(nothing to inject)");
	for (const w of body.warnings ?? []) process.stderr.write(`cairn: ${w}\n`);
}

async function recall(/** @type {string} */ dir, /** @type {string} */ query) {
	if (!query.trim()) throw new Error("usage: cairn recall <query>");
	const c = api();
	const project = await projectFor(c, dir);
	const body = /** @type {any} */ (await c.post(`/v1/projects/${project.id}/recall`, { query }));
	if (body.memories.length === 0) out("no memories match");
	for (const m of body.memories) out(`${m.name} (${m.type}, ${m.scope}) — ${m.description}\n  ${m.path}`);
}

async function rebuild(/** @type {string} */ dir) {
	const c = api();
	const project = await projectFor(c, dir);
	await c.post(`/v1/projects/${project.id}/consolidate`);
	out("consolidation scheduled; `cairn status` shows the outcome");
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
	try {
		writeUnder(target, "memory_summary.md", /** @type {string} */ (await c.get(`${base}/summary`)));
		extras++;
	} catch (err) {
		if (!(err instanceof ApiError && err.status === 404)) throw err;
	}
	const skills = /** @type {any} */ (await c.get(`${base}/skills`)).skills;
	for (const s of skills)
		writeUnder(target, join("skills", s.name, "SKILL.md"), /** @type {string} */ (await c.get(`${base}/skills/${s.name}`)));
	out(
		`exported ${memories.length} memories${skills.length ? `, ${skills.length} skills` : ""}${extras ? ", the summary" : ""} and MEMORY.md to ${target}`,
	);
}

async function importFrom(/** @type {string} */ dir, /** @type {string} */ source) {
	const c = api();
	const project = await projectFor(c, dir);
	const entries = readMemoryDir(source);
	let imported = 0;
	let problems = 0;
	for (const e of entries.filter((x) => x.problem)) {
		problems++;
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
				if (r.status === "error") {
					problems++;
					const rules = r.error?.details?.rules ? ` (${r.error.details.rules.join(", ")})` : "";
					process.stderr.write(`skipped ${chunk[j]?.file}: ${r.error?.message ?? "refused"}${rules}\n`);
				} else imported++;
			});
		}
	}
	out(`imported ${imported} memories into project ${project.id}${problems ? `; ${problems} skipped (listed above)` : ""}`);
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
			const res = await uploadNewLines(c, { projectId: project.id, sessionId: id, file, format: "codex" });
			accepted += res.accepted;
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

/** Claude Code hooks: the JSON payload arrives on stdin. @param {string} event */
async function hook(event) {
	const raw = await readStdin();
	const payload = raw.trim() ? JSON.parse(raw) : {};
	const c = api(HOOK_DEADLINE_MS);
	const cwd = typeof payload.cwd === "string" && existsSync(payload.cwd) ? payload.cwd : process.cwd();
	if (event === "codex-notify") {
		// Codex passes its notification as the last argument: {"type":"agent-turn-complete","thread-id":…,"cwd":…}.
		const note = JSON.parse(process.argv.at(-1) ?? "{}");
		const threadId = String(note["thread-id"] ?? "");
		const sessions = join(process.env.CODEX_HOME || join(homedir(), ".codex"), "sessions");
		const file = threadId && existsSync(sessions) ? rollouts(sessions).find((f) => f.includes(threadId)) : undefined;
		if (!file) return;
		const project = await projectFor(c, typeof note.cwd === "string" && existsSync(note.cwd) ? note.cwd : cwd);
		await uploadNewLines(c, { projectId: project.id, sessionId: codexSessionId(file).id, file, format: "codex" });
		return;
	}
	const project = await projectFor(c, cwd);
	const sessionId = typeof payload.session_id === "string" ? payload.session_id : null;
	if (event === "session-start") {
		const body = /** @type {any} */ (await c.post(`/v1/projects/${project.id}/inject`, {}));
		if (body.text) out(JSON.stringify({ hookSpecificOutput: { hookEventName: "SessionStart", additionalContext: body.text } }));
		return;
	}
	if (!sessionId || typeof payload.transcript_path !== "string" || !existsSync(payload.transcript_path)) return;
	const sent = await uploadNewLines(c, { projectId: project.id, sessionId, file: payload.transcript_path, format: "claude" });
	if (process.env.CAIRN_VERBOSE) process.stderr.write(`cairn: uploaded ${sent.bytes} bytes, ${sent.accepted} new turns\n`);
	const base = `/v1/projects/${project.id}/sessions/${encodeURIComponent(sessionId)}`;
	if (payload.hook_event_name === "SessionEnd") await c.post(`${base}/end`);
	if (event === "pre-compact") await c.post(`${base}/memory/compact`);
}

async function hooks(/** @type {string[]} */ args, /** @type {Record<string, any>} */ values) {
	const [action, agent] = args;
	if (agent === "claude" && (action === "install" || action === "uninstall")) {
		const file = claudeSettingsPath(values.user ? "user" : "project", repository(process.cwd()).root);
		if (action === "install") {
			const added = installClaude(file);
			out(added.length ? `added ${added.join(", ")} hooks to ${file}` : `Cairn's hooks are already in ${file}`);
		} else {
			const removed = uninstallClaude(file);
			out(removed.length ? `removed Cairn's ${[...new Set(removed)].join(", ")} hooks from ${file}` : `no Cairn hooks in ${file}`);
		}
		return;
	}
	if (agent === "codex" && (action === "install" || action === "uninstall")) {
		const file = codexConfigPath();
		if (action === "uninstall") {
			out(uninstallCodex(file) ? `removed Cairn's notify from ${file}` : `no Cairn notify in ${file}`);
			return;
		}
		const result = installCodex(file);
		if (result.conflict) {
			throw new Error(
				`${file} already has ${result.conflict}; Codex runs one notify program. Chain it, or run \`cairn ingest ~/.codex/sessions --watch\` instead`,
			);
		}
		out(result.changed ? `set ${result.line} in ${file}` : `Cairn's notify is already in ${file}`);
		return;
	}
	throw new Error("usage: cairn hooks install|uninstall claude [--project|--user] | cairn hooks install|uninstall codex");
}

async function main() {
	const { values, positionals } = parseArgs({
		allowPositionals: true,
		strict: false,
		options: {
			url: { type: "string" },
			key: { type: "string" },
			yes: { type: "boolean", short: "y" },
			watch: { type: "boolean" },
			project: { type: "boolean" },
			user: { type: "boolean" },
			dir: { type: "string" },
			help: { type: "boolean", short: "h" },
		},
	});
	const [command, ...rest] = positionals;
	const dir = typeof values.dir === "string" ? values.dir : process.cwd();
	switch (command) {
		case "login":
			return login(values);
		case "init":
			return init(rest[0] ?? dir);
		case "status":
			return status(dir);
		case "view":
			return view(dir);
		case "recall":
			return recall(dir, rest.join(" "));
		case "rebuild":
			return rebuild(dir);
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
		case "hook":
			return hook(rest[0] ?? "");
		case undefined:
		case "help":
			out(USAGE);
			return;
		default:
			throw new Error(`unknown command "${String(command).slice(0, 40)}"; see \`cairn help\``);
	}
}

const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
	process.stderr.write(`cairn needs Node.js 22 or newer (this is ${process.versions.node})\n`);
	process.exit(process.argv[2] === "hook" ? 0 : 1);
}

const isHook = process.argv[2] === "hook";
if (isHook) {
	// Whatever happens, a hook returns promptly and successfully.
	setTimeout(() => {
		process.stderr.write("cairn: hook timed out; continuing without memory\n");
		process.exit(0);
	}, HOOK_DEADLINE_MS + 300).unref();
}
main().then(
	() => {
		if (isHook) process.exit(0);
	},
	(err) => {
		const message =
			err instanceof ApiError
				? `${err.message}${err.code && err.status ? ` (${err.code})` : ""}`
				: err instanceof Error
					? err.message
					: String(err);
		process.stderr.write(`cairn: ${message}\n`);
		process.exit(isHook ? 0 : 1);
	},
);
