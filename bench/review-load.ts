// The review load (docs/memory-trust.md, "Team memory is vouched for"): what a person must review per
// session once team memory needs a person to vouch for it. Each real session file of the shared bench
// material (../shared/bench/transcripts: Claude Code and Codex) is replayed through the pipeline as its
// writer's session: posted whole, the agent's own memory writes it shows replayed into team memory naming
// the session (as MCP memory_write or `cairn remember --team` would), stage 1 with the offline extractor
// (which also runs the check of where the agent's writes came from), then consolidation offline. Counted
// per session: the team proposals waiting (`vouch`), the memories proposed for team scope (`promote`), and
// what was held (danger check or tool output), with team scope apart. Runs inside workerd.

import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { env, exports } from "cloudflare:workers";
import { normalise, readRecords } from "../src/ingest/parse";
import { MAX_ATTEMPTS } from "../src/pipeline/consumer";
import type { ProjectCoordinator } from "../src/project/object";
import { setSeams } from "../test/worker";
import type { ReviewLoadResult, ReviewLoadSession } from "./review-load-set";

async function call(path: string, init: RequestInit & { token?: string } = {}): Promise<Response> {
	const headers = new Headers(init.headers);
	if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
	if (init.body && !headers.has("Content-Type")) headers.set("Content-Type", "application/json");
	return exports.default.fetch(new Request(`https://bench.local${path}`, { ...init, headers }));
}

const slug = (s: string) =>
	s
		.toLowerCase()
		.replace(/[^a-z0-9-]+/g, "-")
		.replace(/^-+|-+$/g, "")
		.slice(0, 60) || "note";

/** The agent's Cairn memory writes a transcript shows, with what it wrote when the call carries it. */
async function agentWrites(text: string): Promise<{ name: string; description: string; body: string }[]> {
	const records = await readRecords(text);
	const { turns } = normalise(records, "auto");
	const writes: { name: string; description: string; body: string }[] = [];
	for (const t of turns) {
		if (t.role !== "tool_call" || !t.agentWrite) continue;
		const body = t.text.replace(/\s+/g, " ").slice(0, 2000);
		writes.push({
			name: slug(t.memoryName ?? `agent-write-${writes.length + 1}`),
			description: body.slice(0, 120) || "An agent's note",
			body,
		});
	}
	return writes;
}

/** Replays each transcript as a writer's session in a project of its own and counts what waits for a person. */
export async function benchReviewLoad(adminToken: string, transcripts: { name: string; text: string }[]): Promise<ReviewLoadResult> {
	const sessions: ReviewLoadSession[] = [];
	const writer = (
		(await (
			await call("/v1/keys", {
				method: "POST",
				token: adminToken,
				body: JSON.stringify({ scopes: ["read", "write"], user: "review-load-writer" }),
			})
		).json()) as { key: { token: string } }
	).key.token;
	for (const [i, t] of transcripts.entries()) {
		const created = await call("/v1/projects", {
			method: "POST",
			token: adminToken,
			body: JSON.stringify({ name: `review-load-${i}`, rootPath: `/bench/review-load/${i}` }),
		});
		const projectId = ((await created.json()) as { project: { id: string } }).project.id;
		const base = `/v1/projects/${projectId}`;
		await call(`${base}/settings`, { method: "PUT", token: adminToken, body: JSON.stringify({ "memories.enabled": true }) });
		const session = slug(t.name);
		const posted = await call(`${base}/sessions/${session}/transcript`, {
			method: "POST",
			token: writer,
			body: t.text,
			headers: { "Content-Type": "application/x-ndjson" },
		});
		const turns = ((await posted.json()) as { turns: number }).turns;
		const writes = await agentWrites(t.text);
		for (const w of writes) {
			await (
				await call(`${base}/memories/${w.name}?scope=team`, {
					method: "PUT",
					token: writer,
					body: JSON.stringify({ type: "project", description: w.description, body: w.body }),
					headers: { "X-Cairn-Session": session },
				})
			).arrayBuffer();
		}
		const stub = env.PROJECT_COORDINATOR.getByName(projectId);
		await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
			setSeams(instance, { extractModel: null, model: null });
			const extracted = await instance.extractRange({ projectId, sessionId: session, fromSeq: 0, toSeq: turns - 1 }, 1, MAX_ATTEMPTS);
			if (!extracted.ok) throw new Error(`stage 1 on ${t.name}: ${extracted.error.code}`);
		});
		await stub.requestRun(projectId);
		await runDurableObjectAlarm(stub);
		const counts = await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
			const { results } = await instance.db
				.prepare("SELECT kind, memory_scope AS scope, count(*) AS n FROM review_items WHERE status = 'pending' GROUP BY kind, memory_scope")
				.all<{ kind: string; scope: string; n: number }>();
			const personal = await instance.db.prepare("SELECT count(*) AS n FROM memories WHERE scope = 'personal'").first<{ n: number }>();
			const of = (kind: string, scope?: string) =>
				results.filter((r) => r.kind === kind && (!scope || r.scope === scope)).reduce((n, r) => n + r.n, 0);
			return {
				vouch: of("vouch"),
				promote: of("promote"),
				heldTeam: of("held", "team"),
				heldPersonal: of("held", "personal"),
				personal: personal?.n ?? 0,
			};
		});
		// The heavy case: a replay of the session whose agent writes each thing stage 1 learned into team memory.
		const learned = await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
			const { results } = await instance.db
				.prepare("SELECT candidates_json FROM stage1_outputs WHERE project_id = ? AND session_id = ?")
				.bind(projectId, session)
				.all<{ candidates_json: string }>();
			return results.flatMap((r) => JSON.parse(r.candidates_json) as { name: string; type: string; description: string; body: string }[]);
		});
		const replay = `${session}-team`.slice(0, 120);
		await (
			await call(`${base}/sessions/${replay}/transcript`, {
				method: "POST",
				token: writer,
				body: t.text,
				headers: { "Content-Type": "application/x-ndjson" },
			})
		).arrayBuffer();
		let written = 0;
		for (const c of learned) {
			const res = await call(`${base}/memories/${slug(`team-${c.name}`)}?scope=team`, {
				method: "PUT",
				token: writer,
				body: JSON.stringify({ type: c.type, description: c.description, body: c.body }),
				headers: { "X-Cairn-Session": replay },
			});
			if (res.status === 201 || res.status === 200) written++;
			await res.arrayBuffer();
		}
		const before = await runInDurableObject(stub, async (instance: ProjectCoordinator) => {
			await instance.extractRange({ projectId, sessionId: replay, fromSeq: 0, toSeq: turns - 1 }, 1, MAX_ATTEMPTS);
			const { results } = await instance.db
				.prepare("SELECT kind, count(*) AS n FROM review_items WHERE status = 'pending' AND memory_scope = 'team' GROUP BY kind")
				.all<{ kind: string; n: number }>();
			const of = (kind: string) => results.find((r) => r.kind === kind)?.n ?? 0;
			return { proposals: of("vouch") - counts.vouch, held: of("held") - counts.heldTeam };
		});
		sessions.push({ name: t.name, turns, agentWrites: writes.length, ...counts, allToTeam: { written, ...before } });
		console.log(`review load ${t.name}: ${JSON.stringify(sessions.at(-1))}`);
	}
	return { sessions };
}
