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
	readFileSync,
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
	} finally {
		release();
	}
	if (!complete) continueInBackground(job);
	return { bytes, accepted, complete, background: !complete };
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
	let bytes = 0;
	let accepted = 0;
	try {
		for (const { file, format } of job.files) {
			if (!existsSync(file)) continue;
			const res = await uploadNewLines(api, { projectId: job.projectId, sessionId: job.sessionId, file, format });
			bytes += res.bytes;
			accepted += res.accepted;
		}
		await runAfter(api, job, Number.POSITIVE_INFINITY);
		logSync(
			`${job.sessionId} uploaded ${bytes} bytes, ${accepted} new turns in the background${job.after.length ? `; ${job.after.join(", ")}` : ""}`,
		);
	} catch (err) {
		logSync(`${job.sessionId} uploaded ${bytes} bytes, then failed: ${err instanceof Error ? err.message : String(err)}`);
		throw err;
	} finally {
		release();
	}
}
