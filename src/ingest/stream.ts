import { CairnError } from "../errors";

/** One line of a streamed body: its text, or null when it was longer than the line limit (dropped unread). */
export interface StreamedLine {
	line: number;
	text: string | null;
}

export interface LineLimits {
	/** The whole body, in bytes: past it the request fails with payload_too_large. */
	maxBytes: number;
	/** One line, in bytes: a longer line is dropped as it streams, never held. */
	maxLine: number;
}

/**
 * Splits a byte stream into lines as it arrives, holding at most one line (up to `maxLine` bytes) and
 * the network chunk being read. Lines end at `\n`; each is decoded as UTF-8 on its own, so a
 * multi-byte character split between chunks is joined before decoding.
 */
export async function* streamLines(body: ReadableStream<Uint8Array> | null, limits: LineLimits): AsyncGenerator<StreamedLine> {
	if (!body) return;
	const decoder = new TextDecoder();
	const reader = body.getReader();
	let parts: Uint8Array[] = [];
	let held = 0;
	let dropping = false;
	let total = 0;
	let line = 1;
	let ended = false;
	const finishLine = (): StreamedLine => {
		const out: StreamedLine = { line, text: dropping ? null : decoder.decode(concat(parts, held)) };
		parts = [];
		held = 0;
		dropping = false;
		line++;
		return out;
	};
	try {
		for (;;) {
			const { done, value } = await reader.read();
			if (done) {
				ended = true;
				break;
			}
			total += value.byteLength;
			if (total > limits.maxBytes) throw new CairnError("payload_too_large", `request body exceeds ${limits.maxBytes} bytes`);
			let start = 0;
			for (let nl = value.indexOf(10, start); nl !== -1; nl = value.indexOf(10, start)) {
				take(value.subarray(start, nl));
				yield finishLine();
				start = nl + 1;
			}
			take(value.subarray(start));
		}
		if (held > 0 || dropping) yield finishLine();
	} finally {
		// Stopped early (a bad line, the size limit): the rest of the body is not wanted.
		if (!ended) await reader.cancel().catch(() => undefined);
		reader.releaseLock();
	}

	function take(bytes: Uint8Array) {
		if (dropping || bytes.byteLength === 0) return;
		if (held + bytes.byteLength > limits.maxLine) {
			dropping = true;
			parts = [];
			held = 0;
			return;
		}
		// Copied: the stream may reuse its chunk buffers.
		parts.push(bytes.slice());
		held += bytes.byteLength;
	}
}

function concat(parts: Uint8Array[], size: number): Uint8Array {
	if (parts.length === 1) return parts[0] as Uint8Array;
	const out = new Uint8Array(size);
	let at = 0;
	for (const p of parts) {
		out.set(p, at);
		at += p.byteLength;
	}
	return out;
}
