// The upload's cutting rule, without a service: requests of at most 512 KB of whole lines, a line longer
// than that alone, a partly written last line left for later, and the cursor resuming where it stopped.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CHUNK_BYTES, uploadNewLines } from "../lib/transcripts.mjs";

const line = (n: number) => `${JSON.stringify({ text: "a".repeat(n) })}\n`;

describe("uploadNewLines", () => {
	const saved = process.env.XDG_CONFIG_HOME;
	let dir = "";
	beforeEach(() => {
		dir = mkdtempSync(join(tmpdir(), "cairn-upload-unit-"));
		process.env.XDG_CONFIG_HOME = dir;
	});
	afterEach(() => {
		process.env.XDG_CONFIG_HOME = saved;
	});

	const recorder = () => {
		const bodies: string[] = [];
		const api = {
			request: async (_method: string, _path: string, init: { body: string }) => {
				bodies.push(init.body);
				return { accepted: 1, turns: bodies.length };
			},
		};
		return { bodies, api: api as unknown as Parameters<typeof uploadNewLines>[0] };
	};

	it("sends whole lines in requests of at most 512 KB, a longer line alone, and waits for a partial last line", async () => {
		const file = join(dir, "t.jsonl");
		const long = line(1_200_000);
		let text = "";
		for (let i = 0; i < 300; i++) text += line(5_000 + (i % 7) * 1_000);
		text += long;
		for (let i = 0; i < 50; i++) text += line(3_000);
		writeFileSync(file, `${text}{"partial":`);
		const { bodies, api } = recorder();
		const res = await uploadNewLines(api, { projectId: "p", sessionId: "s", file, format: "claude" });
		expect(res).toMatchObject({ bytes: Buffer.byteLength(text), done: true });
		expect(bodies.join("")).toBe(text);
		for (const b of bodies) {
			expect(b.endsWith("\n")).toBe(true);
			if (b !== long) expect(Buffer.byteLength(b)).toBeLessThanOrEqual(CHUNK_BYTES);
		}
		expect(bodies).toContain(long);

		// Nothing new: nothing sent. The partial line completes: only it goes.
		expect((await uploadNewLines(api, { projectId: "p", sessionId: "s", file, format: "claude" })).bytes).toBe(0);
		writeFileSync(file, `${text}{"partial":1}\n`);
		await uploadNewLines(api, { projectId: "p", sessionId: "s", file, format: "claude" });
		expect(bodies.at(-1)).toBe('{"partial":1}\n');
	});

	it("stops before the deadline and says so; the next run resumes at the cursor", async () => {
		const file = join(dir, "t.jsonl");
		let text = "";
		for (let i = 0; i < 200; i++) text += line(10_000);
		writeFileSync(file, text);
		const { bodies, api } = recorder();
		const first = await uploadNewLines(api, { projectId: "p", sessionId: "s", file, format: "claude", deadline: Date.now() - 1 });
		expect(first).toMatchObject({ bytes: 0, done: false });
		const second = await uploadNewLines(api, { projectId: "p", sessionId: "s", file, format: "claude" });
		expect(second.done).toBe(true);
		expect(bodies.join("")).toBe(text);
	});
});

describe("hook budgets", () => {
	it("stay within the agents' deadlines: ≤ 1.5 s per prompt, ≤ 3 s otherwise; the environment can only shorten them", async () => {
		const { hookBudgetMs } = await import("../lib/hook.mjs");
		const saved = process.env.CAIRN_HOOK_BUDGET_MS;
		try {
			delete process.env.CAIRN_HOOK_BUDGET_MS;
			expect(hookBudgetMs("UserPromptSubmit")).toBeLessThanOrEqual(1_500);
			for (const event of ["SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd"])
				expect(hookBudgetMs(event)).toBeLessThanOrEqual(3_000);
			process.env.CAIRN_HOOK_BUDGET_MS = "60000";
			expect(hookBudgetMs("UserPromptSubmit")).toBeLessThanOrEqual(1_500);
			process.env.CAIRN_HOOK_BUDGET_MS = "200";
			expect(hookBudgetMs("Stop")).toBe(200);
		} finally {
			if (saved === undefined) delete process.env.CAIRN_HOOK_BUDGET_MS;
			else process.env.CAIRN_HOOK_BUDGET_MS = saved;
		}
	});
});
