// A local stand-in for the model APIs the real agents call: Anthropic Messages (`POST /v1/messages`,
// streamed as server-sent events) for Claude Code and OpenAI Responses (`POST /v1/responses`, streamed)
// for Codex. Every request body is recorded; every turn is answered with a short text, which is all
// `claude -p` and `codex exec` need to run a session end to end, hooks included.
import { createServer } from "node:http";

const sse = (res, events) => {
	res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
	for (const [event, data] of events) res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
	res.end();
};

let counter = 0;

function anthropic(body, res, text) {
	const id = `msg_mock_${++counter}`;
	const model = typeof body.model === "string" ? body.model : "claude-mock";
	const usage = { input_tokens: 10, output_tokens: 2, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
	if (!body.stream) {
		res.writeHead(200, { "Content-Type": "application/json" });
		res.end(
			JSON.stringify({
				id,
				type: "message",
				role: "assistant",
				model,
				content: [{ type: "text", text }],
				stop_reason: "end_turn",
				stop_sequence: null,
				usage,
			}),
		);
		return;
	}
	sse(res, [
		[
			"message_start",
			{
				type: "message_start",
				message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage },
			},
		],
		["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }],
		["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } }],
		["content_block_stop", { type: "content_block_stop", index: 0 }],
		["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage: { output_tokens: 2 } }],
		["message_stop", { type: "message_stop" }],
	]);
}

function responses(body, res, text) {
	const id = `resp_mock_${++counter}`;
	const itemId = `msg_mock_${counter}`;
	const model = typeof body.model === "string" ? body.model : "gpt-mock";
	const item = {
		id: itemId,
		type: "message",
		role: "assistant",
		status: "completed",
		content: [{ type: "output_text", text, annotations: [] }],
	};
	const usage = {
		input_tokens: 10,
		input_tokens_details: { cached_tokens: 0 },
		output_tokens: 2,
		output_tokens_details: { reasoning_tokens: 0 },
		total_tokens: 12,
	};
	const created_at = Math.floor(Date.now() / 1000);
	const response = (status, output) => ({
		id,
		object: "response",
		created_at,
		status,
		model,
		output,
		usage: status === "completed" ? usage : null,
	});
	sse(res, [
		["response.created", { type: "response.created", response: response("in_progress", []) }],
		[
			"response.output_item.added",
			{ type: "response.output_item.added", output_index: 0, item: { ...item, status: "in_progress", content: [] } },
		],
		[
			"response.content_part.added",
			{
				type: "response.content_part.added",
				item_id: itemId,
				output_index: 0,
				content_index: 0,
				part: { type: "output_text", text: "", annotations: [] },
			},
		],
		["response.output_text.delta", { type: "response.output_text.delta", item_id: itemId, output_index: 0, content_index: 0, delta: text }],
		["response.output_text.done", { type: "response.output_text.done", item_id: itemId, output_index: 0, content_index: 0, text }],
		["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
		["response.completed", { type: "response.completed", response: response("completed", [item]) }],
	]);
}

/**
 * Starts the stand-in on a free local port.
 * @param {{ text?: string }} [options]
 * @returns {Promise<{ url: string, requests: { path: string, body: any }[], close: () => Promise<void> }>}
 */
export async function startMockModels(options = {}) {
	const text = options.text ?? "Done.";
	/** @type {{ path: string, body: any }[]} */
	const requests = [];
	const server = createServer(async (req, res) => {
		const chunks = [];
		for await (const c of req) chunks.push(c);
		const raw = Buffer.concat(chunks).toString("utf8");
		let body = {};
		try {
			body = raw ? JSON.parse(raw) : {};
		} catch {
			body = { raw };
		}
		const path = (req.url ?? "/").replace(/\?.*/, "");
		requests.push({ path, body });
		if (req.method === "POST" && path.endsWith("/messages/count_tokens")) {
			res.writeHead(200, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ input_tokens: 100 }));
		} else if (req.method === "POST" && path.endsWith("/messages")) anthropic(body, res, text);
		else if (req.method === "POST" && path.endsWith("/responses")) responses(body, res, text);
		else if (path.endsWith("/models")) {
			res.writeHead(200, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ object: "list", data: [], models: [] }));
		} else {
			res.writeHead(404, { "Content-Type": "application/json" });
			res.end(JSON.stringify({ error: { type: "not_found_error", message: "not served by the stand-in" } }));
		}
	});
	await new Promise((r) => server.listen(0, "127.0.0.1", r));
	const address = server.address();
	const port = typeof address === "object" && address ? address.port : 0;
	return {
		url: `http://127.0.0.1:${port}`,
		requests,
		close: () =>
			new Promise((r) => {
				server.closeAllConnections?.();
				server.close(() => r());
			}),
	};
}

// `node agents/mock-models.mjs`: run it by hand and watch what the agents send.
if (process.argv[1]?.endsWith("mock-models.mjs")) {
	const mock = await startMockModels();
	console.log(mock.url);
	setInterval(() => {
		while (mock.requests.length) {
			const r = mock.requests.shift();
			console.log(r?.path, JSON.stringify(r?.body));
		}
	}, 500);
}
