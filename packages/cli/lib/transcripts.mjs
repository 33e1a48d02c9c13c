// @ts-check

import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { readState, writeState } from "./config.mjs";

/** Largest slice of a transcript uploaded in one request; the service accepts more, this keeps requests short. */
const CHUNK_BYTES = 8 * 1024 * 1024;

/**
 * Uploads the complete lines a transcript gained since the last upload (a byte cursor kept per file
 * under the config dir). A partly written last line waits for the next run. A file that shrank (it
 * was rewritten) is uploaded again from the start: the service drops what it already has.
 * @param {ReturnType<import("./api.mjs").client>} api
 * @param {{ projectId: string, sessionId: string, file: string, format?: string }} target
 * @returns {Promise<{ bytes: number, accepted: number, turns: number }>}
 */
export async function uploadNewLines(api, { projectId, sessionId, file, format = "auto" }) {
	const stateName = `upload-${createHash("sha256").update(`${projectId}\0${file}`).digest("hex").slice(0, 32)}`;
	const state = readState(stateName) ?? { offset: 0 };
	const size = statSync(file).size;
	let offset = size < state.offset ? 0 : state.offset;
	let accepted = 0;
	let turns = 0;
	let sent = 0;
	const fd = openSync(file, "r");
	try {
		while (offset < size) {
			const length = Math.min(CHUNK_BYTES, size - offset);
			const buffer = Buffer.alloc(length);
			readSync(fd, buffer, 0, length, offset);
			const lastNewline = buffer.lastIndexOf(0x0a);
			if (lastNewline < 0) break; // no complete line yet
			const slice = buffer.subarray(0, lastNewline + 1);
			const res = /** @type {{ accepted: number, turns: number }} */ (
				await api.request("POST", `/v1/projects/${projectId}/sessions/${encodeURIComponent(sessionId)}/transcript?format=${format}`, {
					body: slice.toString("utf8"),
					contentType: "application/x-ndjson",
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
	return { bytes: sent, accepted, turns };
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
