// @ts-check
// Session sync: the transcript upload a hook starts, under one lock per session, handed to a detached
// background process when the backlog does not fit in the hook's deadline.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
	appendFileSync,
	closeSync,
	existsSync,
	mkdirSync,
	openSync,
	readdirSync,
	readFileSync,
	renameSync,
	statSync,
	unlinkSync,
	writeFileSync,
	writeSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ApiError } from "./api.mjs";
import { stateDir } from "./config.mjs";
import { uploadNewLines } from "./transcripts.mjs";

/** A lock older than this is taken to be left by a process that died without releasing it. */
const STALE_LOCK_MS = 10 * 60 * 1000;

/** @typedef {{ file: string, format: string }} TranscriptFile */
/** @typedef {"end" | "compact"} AfterAction */
/**
 * @typedef {{ projectId: string, sessionId: string, files: TranscriptFile[], after: AfterAction[] }} SyncJob
 */

const sessionKey = (/** @type {string} */ projectId, /** @type {string} */ sessionId) =>
	createHash("sha256").update(`${projectId}\0${sessionId}`).digest("hex").slice(0, 32);

const alive = (/** @type {number} */ pid) => {
	try {
		process.kill(pid, 0);
		return true;
	} catch (err) {
		return /** @type {NodeJS.ErrnoException} */ (err).code === "EPERM";
	}
};

/**
 * Takes the session's upload lock, or returns null when another live process holds it. The lock is a
 * file created exclusively; one left by a dead process (or older than STALE_LOCK_MS) is taken over.
 * @param {string} projectId @param {string} sessionId
 * @returns {(() => void) | null} release
 */
export function tryLock(projectId, sessionId) {
	const dir = stateDir();
	mkdirSync(dir, { recursive: true, mode: 0o700 });
	const file = join(dir, `lock-${sessionKey(projectId, sessionId)}`);
	for (let attempt = 0; attempt < 2; attempt++) {
		try {
			const fd = openSync(file, "wx", 0o600);
			writeSync(fd, JSON.stringify({ pid: process.pid, at: Date.now() }));
			closeSync(fd);
			return () => {
				try {
					const holder = JSON.parse(readFileSync(file, "utf8"));
					if (holder.pid === process.pid) unlinkSync(file);
				} catch {
					// already gone
				}
			};
		} catch (err) {
			if (/** @type {NodeJS.ErrnoException} */ (err).code !== "EEXIST") throw err;
			let stale = false;
			try {
				const holder = JSON.parse(readFileSync(file, "utf8"));
				stale = !alive(holder.pid) || Date.now() - holder.at > STALE_LOCK_MS;
			} catch {
				// Being written this instant, or torn by a process killed while writing it: held, unless it stays torn.
				try {
					stale = Date.now() - statSync(file).mtimeMs > 5_000;
				} catch {
					stale = true; // released meanwhile
				}
			}
			if (!stale) return null;
			try {
				unlinkSync(file);
			} catch {
				// someone else took it over first
			}
		}
	}
	return null;
}

/** Waits up to `ms` for the session's lock. @param {string} projectId @param {string} sessionId @param {number} ms */
async function waitLock(projectId, sessionId, ms) {
	const until = Date.now() + ms;
	for (;;) {
		const release = tryLock(projectId, sessionId);
		if (release || Date.now() > until) return release;
		await new Promise((r) => setTimeout(r, 200));
	}
}

/** One line per background run, for `cairn status` and for anyone wondering where an upload went. @param {string} line */
export function logSync(line) {
	try {
		mkdirSync(stateDir(), { recursive: true, mode: 0o700 });
		appendFileSync(join(stateDir(), "sync.log"), `${new Date().toISOString()} ${line}\n`, { mode: 0o600 });
	} catch {
		// logging never fails a sync
	}
}

/**
 * Uploads every file of the job (and then ends or compacts the session) while holding the session's
 * lock, within `deadline`. What does not fit, or what waits for another process's lock, continues in a
 * detached background process so the hook returns in time; no line is sent twice because only the
 * lock holder reads and advances the cursors.
 * @param {ReturnType<import("./api.mjs").client>} api
 * @param {SyncJob} job
 * @param {{ deadline: number }} options
 * @returns {Promise<{ bytes: number, accepted: number, complete: boolean, background: boolean }>}
 */
export async function syncSession(api, job, { deadline }) {
	// Recorded before any request: a hook killed or timed out mid-way leaves the job for the next hook to resume.
	recordPending(job);
	current = job;
	const release = tryLock(job.projectId, job.sessionId);
	if (!release) {
		// Another hook or a background run is uploading this session; it reads to the end of each file.
		// Only what it cannot know about (ending, compacting, a file it was not given) needs a follower.
		continueInBackground(job);
		return { bytes: 0, accepted: 0, complete: false, background: true };
	}
	let bytes = 0;
	let accepted = 0;
	let complete = false;
	let failure = null;
	try {
		complete = true;
		for (const { file, format } of job.files) {
			const res = await uploadNewLines(api, { projectId: job.projectId, sessionId: job.sessionId, file, format, deadline });
			bytes += res.bytes;
			accepted += res.accepted;
			if (!res.done) {
				complete = false;
				break;
			}
		}
		if (complete) await runAfter(api, job, deadline);
	} catch (err) {
		// A timed-out or refused upload or end is not lost: it continues in the background and stays in the
		// backlog until it succeeds.
		complete = false;
		failure = err;
	} finally {
		release();
	}
	current = null;
	if (complete) clearPending(job);
	else continueInBackground(job);
	if (failure) throw failure;
	return { bytes, accepted, complete, background: !complete };
}

/** The job a hook is working on, for a hand-off when its budget runs out. @type {SyncJob | null} */
let current = null;

/**
 * Called when a hook's own budget ends: the job it was working on continues in a detached process (the
 * lock it held is released by its exit; a dead holder's lock is taken over).
 */
export function handOffCurrent() {
	if (current) continueInBackground(current);
	current = null;
}

/**
 * Hands the whole job to a detached process at once and returns: SessionEnd's way, since Claude Code
 * cancels a plugin's SessionEnd hook after 1.5 s whatever its hooks.json says.
 * @param {SyncJob} job
 */
export function handOff(job) {
	recordPending(job);
	continueInBackground(job);
}

/* --- The backlog: every job a hook started, until it has fully succeeded ---
 * One file per session under the state directory. A job that fails (service down, slow, a killed hook)
 * stays there and is resumed by the next SessionStart, Stop, SubagentStop, PreCompact or SessionEnd hook
 * and by `cairn status` — never by the prompt hook, which every prompt waits for. */

/** Jobs older than this are dropped: the idle scan has extracted the session by then. */
const BACKLOG_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
/** At most this many background runs started by one hook. */
const RESUME_AT_ONCE = 4;

const pendingFile = (/** @type {string} */ projectId, /** @type {string} */ sessionId) =>
	join(stateDir(), `pending-${sessionKey(projectId, sessionId)}.json`);

/** @typedef {{ job: SyncJob, at: number, attempts: number, pid?: number, error?: string }} PendingRecord */

/** @param {string} file @returns {PendingRecord | null} */
function readPending(file) {
	try {
		return JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return null;
	}
}

/** @param {string} file @param {PendingRecord} record */
function writePending(file, record) {
	mkdirSync(stateDir(), { recursive: true, mode: 0o700 });
	const temp = `${file}.${process.pid}.tmp`;
	writeFileSync(temp, JSON.stringify(record), { mode: 0o600 });
	renameSync(temp, file);
}

/** Adds a job to the session's backlog entry (files and after-actions accumulate). @param {SyncJob} job */
export function recordPending(job) {
	const file = pendingFile(job.projectId, job.sessionId);
	const old = readPending(file);
	const files = [...(old?.job.files ?? [])];
	for (const f of job.files) if (!files.some((o) => o.file === f.file)) files.push(f);
	const after = /** @type {AfterAction[]} */ ([...new Set([...(old?.job.after ?? []), ...job.after])]);
	writePending(file, {
		...(old ?? {}),
		job: { projectId: job.projectId, sessionId: job.sessionId, files, after },
		at: old?.at ?? Date.now(),
		attempts: old?.attempts ?? 0,
	});
}

/** Removes the backlog entry once `job` covered all of it (a hook may have added to it meanwhile). @param {SyncJob} job */
function clearPending(job) {
	const file = pendingFile(job.projectId, job.sessionId);
	const record = readPending(file);
	if (!record) return;
	// A transcript deleted since it was recorded has nothing left to send.
	const covered =
		record.job.files.every((f) => !existsSync(f.file) || job.files.some((j) => j.file === f.file)) &&
		record.job.after.every((a) => job.after.includes(a));
	if (!covered) return;
	try {
		unlinkSync(file);
	} catch {
		// already gone
	}
}

/** The backlog, oldest first. @returns {PendingRecord[]} */
export function pendingJobs() {
	const dir = stateDir();
	if (!existsSync(dir)) return [];
	return readdirSync(dir)
		.filter((n) => n.startsWith("pending-") && n.endsWith(".json"))
		.map((n) => readPending(join(dir, n)))
		.filter((r) => r !== null)
		.sort((a, b) => a.at - b.at);
}

/**
 * Starts a background run for each job of the backlog that no live process is working on (a few at a
 * time); drops jobs too old to matter. Returns how many were started.
 * @param {{ except?: string }} [options] a session whose job the caller runs itself
 */
export function resumeBacklog(options = {}) {
	let started = 0;
	for (const record of pendingJobs()) {
		if (started >= RESUME_AT_ONCE) break;
		const { job } = record;
		if (job.sessionId === options.except) continue;
		const file = pendingFile(job.projectId, job.sessionId);
		if (Date.now() - record.at > BACKLOG_MAX_AGE_MS) {
			logSync(`${job.sessionId} dropped from the backlog after ${record.attempts} attempts: older than 7 days`);
			try {
				unlinkSync(file);
			} catch {
				// already gone
			}
			continue;
		}
		if (record.pid && alive(record.pid)) continue;
		job.files = job.files.filter((f) => existsSync(f.file));
		continueInBackground(job);
		started++;
	}
	return started;
}

/** @param {ReturnType<import("./api.mjs").client>} api @param {SyncJob} job @param {number} deadline */
async function runAfter(api, job, deadline) {
	const base = `/v1/projects/${job.projectId}/sessions/${encodeURIComponent(job.sessionId)}`;
	const timeoutMs = Number.isFinite(deadline) ? Math.max(200, deadline - Date.now() - 100) : undefined;
	for (const action of job.after) {
		try {
			await api.post(action === "end" ? `${base}/end` : `${base}/memory/compact`, undefined, { timeoutMs });
		} catch (err) {
			// A transcript with no complete line yet registers no session: there is nothing to end or compact.
			if (!(err instanceof ApiError && err.status === 404)) throw err;
		}
	}
}

const CLI = fileURLToPath(new URL("../cairn.mjs", import.meta.url));

/** Starts `cairn sync-job <job>` detached from the hook: it outlives the agent's deadline. @param {SyncJob} job */
function continueInBackground(job) {
	const child = spawn(process.execPath, [CLI, "sync-job", JSON.stringify(job)], {
		detached: true,
		stdio: "ignore",
		env: process.env,
	});
	child.unref();
}

/**
 * The background half of a sync (`cairn sync-job`): waits for the session's lock, uploads everything,
 * runs the after-actions, and logs one line. No deadline: it ends when the backlog is sent.
 * @param {ReturnType<import("./api.mjs").client>} api @param {SyncJob} job
 */
export async function runSyncJob(api, job) {
	// Every Stop during a long upload starts a follower; one waiting follower per set of files is enough,
	// since it reads each file to its end once it has the lock.
	const marker = join(stateDir(), `follow-${sessionKey(job.projectId, job.sessionId)}`);
	const files = job.files.map((f) => f.file);
	if (job.after.length === 0) {
		try {
			const other = JSON.parse(readFileSync(marker, "utf8"));
			if (other.pid !== process.pid && alive(other.pid) && files.every((f) => other.files.includes(f))) return;
		} catch {
			// no follower waiting
		}
	}
	mkdirSync(stateDir(), { recursive: true, mode: 0o700 });
	writeFileSync(marker, JSON.stringify({ pid: process.pid, files }), { mode: 0o600 });
	const pending = pendingFile(job.projectId, job.sessionId);
	const claim = readPending(pending);
	if (claim) writePending(pending, { ...claim, pid: process.pid });
	const release = await waitLock(job.projectId, job.sessionId, STALE_LOCK_MS);
	try {
		if (JSON.parse(readFileSync(marker, "utf8")).pid === process.pid) unlinkSync(marker);
	} catch {
		// another follower took the marker over
	}
	if (!release) {
		logSync(`${job.sessionId} gave up waiting for the upload lock`);
		return;
	}
	// The backlog entry is the whole of what this session still owes (a SessionEnd may have added `end`
	// to a Stop's upload meanwhile): do all of it.
	const owed = readPending(pending)?.job;
	if (owed) {
		for (const f of owed.files) if (!job.files.some((j) => j.file === f.file)) job.files.push(f);
		job.after = [...new Set([...job.after, ...owed.after])];
	}
	let bytes = 0;
	let accepted = 0;
	try {
		// A slow or briefly unavailable service gets a few tries before the job waits for the next hook.
		for (let attempt = 1; ; attempt++) {
			try {
				for (const { file, format } of job.files) {
					if (!existsSync(file)) continue;
					const res = await uploadNewLines(api, { projectId: job.projectId, sessionId: job.sessionId, file, format });
					bytes += res.bytes;
					accepted += res.accepted;
				}
				await runAfter(api, job, Number.POSITIVE_INFINITY);
				break;
			} catch (err) {
				const permanent = err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429;
				if (permanent || attempt >= BACKGROUND_ATTEMPTS) throw err;
				await new Promise((r) => setTimeout(r, RETRY_DELAY_MS * attempt));
			}
		}
		clearPending(job);
		logSync(
			`${job.sessionId} uploaded ${bytes} bytes, ${accepted} new turns in the background${job.after.length ? `; ${job.after.join(", ")}` : ""}`,
		);
	} catch (err) {
		const message = err instanceof Error ? err.message : String(err);
		const record = readPending(pending);
		if (record) writePending(pending, { ...record, attempts: record.attempts + 1, error: message, pid: undefined });
		logSync(`${job.sessionId} uploaded ${bytes} bytes, then failed: ${message}; the next hook or \`cairn status\` retries`);
		throw err;
	} finally {
		release();
	}
}

/** Tries of one background run, and the pause before the next (times the attempt). */
const BACKGROUND_ATTEMPTS = 3;
const RETRY_DELAY_MS = 1500;
