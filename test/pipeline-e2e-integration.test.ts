import { describe, expect, it } from "vitest";
import { benchTranscripts } from "./bench-transcripts";
import { call, createProject, createTenant, json, type Loose, until } from "./helpers";

const own = import.meta.glob<string>("./fixtures/transcripts/*", { query: "?raw", import: "default", eager: true });
const bench = Object.fromEntries(benchTranscripts());

describe("end to end with no model configured", () => {
	it("transcripts in, ended, consolidated: topic files, a summary and a MEMORY.md listing them", async () => {
		const tenant = await createTenant();
		const projectId = await createProject(tenant.token);
		const token = tenant.token;
		await call(`/v1/projects/${projectId}/settings`, { token, method: "PUT", json: { "memories.enabled": true } });
		const files = [...Object.entries(bench), ...Object.entries(own)];
		const now = Date.now();
		files.push([
			"team-rule",
			[
				{
					id: "1",
					role: "user",
					content: "Please add the release workflow. From now on never deploy on Fridays, that is a team rule.",
					ts: new Date(now - 60_000).toISOString(),
				},
				{ id: "2", role: "assistant", content: "Added the workflow with a Friday guard.", ts: new Date(now - 50_000).toISOString() },
				{ id: "3", role: "user", content: "Also, use ruff instead of flake8 in this repo.", ts: new Date(now - 40_000).toISOString() },
			]
				.map((l) => JSON.stringify(l))
				.join("\n"),
		]);
		for (const [i, [, text]] of files.entries()) {
			const session = `e2e-${i}`;
			const posted = await call(`/v1/projects/${projectId}/sessions/${session}/transcript`, {
				token,
				headers: { "Content-Type": "application/x-ndjson" },
				body: text,
			});
			expect(posted.status).toBe(200);
			expect((await call(`/v1/projects/${projectId}/sessions/${session}/end`, { token, method: "POST" })).status).toBe(202);
		}
		// Every session extracted by the Worker's own queue consumer.
		const sessions = await until(
			async () => (await json(await call(`/v1/projects/${projectId}/sessions`, { token }))).sessions as Loose[],
			(list) => list.length === files.length && list.every((s) => s.cursor === s.turns),
		);
		expect(sessions.every((s) => s.cursor === s.turns && s.extraction.lastError === null)).toBe(true);

		expect((await call(`/v1/projects/${projectId}/consolidate`, { token, method: "POST" })).status).toBe(202);
		const status = await until(
			async () => (await json(await call(`/v1/projects/${projectId}/status`, { token }))).pipeline,
			(p: Loose) => p.pendingOutputs === 0 && p.lastRun?.outcome === "succeeded" && !p.running,
		);
		expect(status).toMatchObject({ pendingOutputs: 0, running: false, deadLetters: 0, lastRun: { outcome: "succeeded", error: null } });

		const listed = (await json(await call(`/v1/projects/${projectId}/memories`, { token }))).memories as Loose[];
		const names = listed.map((m) => m.name);
		// A day is a value: it is in what the memory says, not in its name (which survives the day changing).
		expect(listed.some((m) => /friday/i.test(m.description) && !m.name.includes("friday"))).toBe(true);
		expect(names.some((n) => n.includes("ruff"))).toBe(true);
		expect(listed.every((m) => m.source === "consolidation")).toBe(true);

		const summary = await (await call(`/v1/projects/${projectId}/summary`, { token })).text();
		const index = await (await call(`/v1/projects/${projectId}/index`, { token })).text();
		for (const name of names) {
			expect(summary).toContain(`memory://root/${name}.md`);
			expect(index).toContain(name);
		}
		const inject = await json(await call(`/v1/projects/${projectId}/inject`, { token, json: { query: "can I deploy on friday" } }));
		expect(inject.text).toContain("Fridays");
	}, 60_000);
});
