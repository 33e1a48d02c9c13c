// @ts-check

import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readState, writeState } from "./config.mjs";

/** Largest request body: complete lines up to this size, so one request stays short even on a slow link. */
export const CHUNK_BYTES = 512 * 1024;
/** A single line longer than a chunk still goes whole (lines are never split), up to the service's body limit. */
const MAX_LINE_BYTES = 32 * 1024 * 1024;
/** Time a request is given at least; with less left before the deadline the rest is left for later. */
const MIN_REQUEST_MS = 600;

/** Where the byte cursor of one transcript file is kept (per project and file). @param {string} projectId @param {string} file */
export const cursorName = (projectId, file) => `upload-${createHash("sha256").update(`${projectId}\0${file}`).digest("hex").slice(0, 32)}`;

/** The next slice to send from `offset`: complete lines, at most CHUNK_BYTES unless one line is longer. @param {number} fd @param {number} offset @param {number} size */
function nextSlice(fd, offset, size) {
	let length = Math.min(CHUNK_BYTES, size - offset);
	for (;;) {
		const buffer = Buffer.alloc(length);
		readSync(fd, buffer, 0, length, offset);
		// Within a chunk: as many whole lines as fit. Past it (one line longer than a chunk): that line alone.
		const newline = length > CHUNK_BYTES ? buffer.indexOf(0x0a) : buffer.lastIndexOf(0x0a);
		if (newline >= 0) return buffer.subarray(0, newline + 1);
		if (offset + length >= size || length >= MAX_LINE_BYTES) return null; // no complete line yet
		length = Math.min(length * 2, size - offset, MAX_LINE_BYTES);
	}
}

/**
 * Uploads the complete lines a transcript gained since the last upload, in requests of at most
 * CHUNK_BYTES cut at line boundaries, saving the byte cursor after each accepted request. A partly
 * written last line waits for the next run. A file that shrank (it was rewritten) is uploaded again
 * from the start: the service drops what it already has. Stops before `deadline` (epoch ms) and says
 * whether everything available was sent. The caller holds the session's lock.
 * @param {ReturnType<import("./api.mjs").client>} api
 * @param {{ projectId: string, sessionId: string, file: string, format?: string, deadline?: number }} target
 * @returns {Promise<{ bytes: number, accepted: number, turns: number, done: boolean }>}
 */
export async function uploadNewLines(api, { projectId, sessionId, file, format = "auto", deadline = Number.POSITIVE_INFINITY }) {
	const stateName = cursorName(projectId, file);
	const state = readState(stateName) ?? { offset: 0 };
	let accepted = 0;
	let turns = 0;
	let sent = 0;
	const fd = openSync(file, "r");
	try {
		// Re-read the size each round: the agent may still be appending while a long backlog goes up.
		for (let size = statSync(file).size, offset = size < state.offset ? 0 : state.offset; offset < size; size = statSync(file).size) {
			const left = deadline - Date.now();
			if (left < MIN_REQUEST_MS) return { bytes: sent, accepted, turns, done: false };
			const slice = nextSlice(fd, offset, size);
			if (!slice) break;
			const res = /** @type {{ accepted: number, turns: number }} */ (
				await api.request("POST", `/v1/projects/${projectId}/sessions/${encodeURIComponent(sessionId)}/transcript?format=${format}`, {
					body: slice.toString("utf8"),
					contentType: "application/x-ndjson",
					timeoutMs: Number.isFinite(left) ? left - 100 : undefined,
				})
			);
			accepted += res.accepted;
			turns = res.turns;
			offset += slice.length;
			sent += slice.length;
			writeState(stateName, { offset });
		}
	} finally {
		closeSync(fd);
	}
	return { bytes: sent, accepted, turns, done: true };
}

/** The session id Codex wrote in a rollout's first line (envelope or legacy), else the file's rollout id. @param {string} file */
export function codexSessionId(file) {
	const fd = openSync(file, "r");
	try {
		const buffer = Buffer.alloc(64 * 1024);
		const n = readSync(fd, buffer, 0, buffer.length, 0);
		const first = buffer.subarray(0, n).toString("utf8").split("\n")[0] ?? "";
		const record = JSON.parse(first);
		const id = record?.payload?.id ?? record?.id;
		if (typeof id === "string" && /^[A-Za-z0-9._:-]{1,128}$/.test(id)) return { id, cwd: record?.payload?.cwd ?? null };
	} catch {
		// fall through to the file name
	} finally {
		closeSync(fd);
	}
	const match = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/.exec(file);
	return { id: match?.[1] ?? createHash("sha256").update(file).digest("hex").slice(0, 32), cwd: null };
}
