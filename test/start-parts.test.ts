// The session-start block in parts (src/inject/start-parts.ts): one layout per session answered in parts,
// each within the agent's per-hook unit, the whole within the start budget, no line twice; topics for what
// is not listed, readable as memory://root/topics/<topic>.md.
import { env, runInDurableObject } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { rankHeaders } from "../src/inject/start-index";
import { layOut, type StartItem, utf8Length } from "../src/inject/start-parts";
import type { ProjectCoordinator } from "../src/project/object";
import type { HeaderRow } from "../src/search/start-view";
import { startView, topicsNamedBy } from "../src/search/start-view";
import { groupTopics } from "../src/search/topics";
import { call, createProject, createTenant, expectError, json, type Loose, type Tenant } from "./helpers";

let tenant: Tenant;

const utf8 = (s: string) => new TextEncoder().encode(s).length;

async function projectWith(memories: { name: string; type: string; description: string; body: string }[]): Promise<string> {
	const pid = await createProject(tenant.token);
	await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (let i = 0; i < memories.length; i += 100) {
		const res = await call(`/v1/projects/${pid}/memories/batch`, { token: tenant.token, json: { memories: memories.slice(i, i + 100) } });
		expect(res.status).toBe(200);
		const { results } = await json<{ results: { status: string }[] }>(res);
		expect(results.filter((r) => r.status === "error")).toEqual([]);
	}
	return pid;
}

const part = async (pid: string, body: Record<string, unknown>): Promise<Loose> => {
	const res = await call(`/v1/projects/${pid}/inject`, { token: tenant.token, json: body });
	expect(res.status).toBe(200);
	return json(res);
};

const services = ["billing", "ledger", "gateway", "search", "mailer", "scheduler", "reports", "auth"];
/** A project of `n` memories: a fifth rules, the rest facts about a handful of services. */
function memoriesOf(n: number, korean = false) {
	return Array.from({ length: n }, (_, i) => {
		const service = services[i % services.length];
		const rule = i % 5 === 0;
		return {
			name: `${service}-${rule ? "rule" : "fact"}-${i}`,
			type: rule ? "feedback" : i % 7 === 0 ? "reference" : "project",
			description: korean
				? `${service} 서비스의 ${i}번째 메모: 포트와 담당자, 배포 시간과 한도를 정리한 설명입니다`
				: `The ${service} service note ${i}: its port, owner, deploy window and rate limit written out in full`,
			body: `Details of note ${i}.`,
		};
	});
}

/** Index lines (a memory's or a topic's), not the guidance's bullets. */
const lines = (text: string) => text.split("\n").filter((l) => /^- (?:[a-z0-9-]+|topics\/[a-z0-9-]+\.md) — /.test(l));

beforeAll(async () => {
	tenant = await createTenant();
});

describe("the start block in parts", () => {
	it("answers each part from one layout: within the per-part cap and the budget, no line twice, rules first", async () => {
		const memories = memoriesOf(300);
		const pid = await projectWith(memories);
		const ask = (index: number) =>
			part(pid, { context: { folder: "shop", branch: "main" }, sessionId: "parts-1", part: { index, of: 3 }, maxChars: 9500 });
		// In any order and at once, as Claude Code runs its hooks.
		const [third, first, second] = await Promise.all([ask(3), ask(1), ask(2)]);
		const texts = [first.text, second.text, third.text] as string[];
		for (const [i, t] of texts.entries()) {
			expect(t.length).toBeLessThanOrEqual(9500);
			expect(t).toContain(`part ${i + 1} of 3`);
		}
		expect(texts.reduce((n, t) => n + t.length, 0)).toBeLessThanOrEqual(25_000);
		expect(first.text).toContain("# Memory Guidance");
		expect(second.text).not.toContain("# Memory Guidance");
		const all = texts.flatMap(lines);
		expect(new Set(all).size).toBe(all.length);
		// Every rule is listed (60 rules fit easily), before any fact.
		const ruleNames = memories.filter((m) => m.type === "feedback").map((m) => m.name);
		const listedRules = all.filter((l) => ruleNames.some((n) => l.startsWith(`- ${n} — `)));
		expect(listedRules).toHaveLength(ruleNames.length);
		const firstFact = all.findIndex((l) => l.includes("-fact-"));
		const lastRule = all.length - 1 - [...all].reverse().findIndex((l) => l.includes("-rule-"));
		expect(lastRule).toBeLessThan(firstFact);
		// Not every fact fits: topics name the rest, and each unlisted memory is in a listed topic.
		const topicRefs = all.filter((l) => /^- topics\/[a-z0-9-]+\.md — /.test(l));
		expect(topicRefs.length).toBeGreaterThan(0);
		expect(first.parts.listed.topics).toBe(topicRefs.length);
		const reachable = new Set<string>();
		for (const ref of topicRefs) {
			const key = /topics\/([a-z0-9-]+)\.md/.exec(ref)?.[1];
			const res = await call(`/v1/projects/${pid}/resolve?url=${encodeURIComponent(`memory://root/topics/${key}.md`)}`, {
				token: tenant.token,
			});
			expect(res.status).toBe(200);
			for (const m of (await res.text()).matchAll(/^- memory:\/\/root\/([a-z0-9-]+)\.md/gm)) reachable.add(m[1] ?? "");
		}
		const listedNames = new Set(all.map((l) => /^- ([a-z0-9-]+) — /.exec(l)?.[1]).filter(Boolean));
		const unlisted = memories.filter((m) => !listedNames.has(m.name));
		expect(unlisted.length).toBeGreaterThan(0);
		expect(unlisted.filter((m) => !reachable.has(m.name))).toEqual([]);
		// Asked again in the same session, a part is the same text (one layout per session).
		expect((await ask(2)).text).toBe(second.text);
	});

	it("gives rules and preferences the room first when they and the topics do not fit together", async () => {
		const rules = Array.from({ length: 50 }, (_, i) => ({
			name: `${services[i % services.length]}-rule-${i}`,
			type: i % 10 === 0 ? "user" : "feedback",
			description: `Always run the ${services[i % services.length]} checks ${i} before a merge, and never skip the review step`,
			body: "b",
		}));
		const pid = await projectWith([...rules, ...memoriesOf(200).filter((m) => m.type !== "feedback")]);
		const texts: string[] = [];
		for (const index of [1, 2, 3])
			texts.push((await part(pid, { sessionId: "rules-first", part: { index, of: 3 }, maxChars: 9500, startBudget: 7000 })).text);
		expect(texts.reduce((n, t) => n + t.length, 0)).toBeLessThanOrEqual(7000);
		const all = texts.flatMap(lines);
		// Every rule is listed; what room is left names the topics holding the most unlisted memories.
		for (const r of rules) expect(all.some((l) => l.startsWith(`- ${r.name} — ${r.description}`))).toBe(true);
		expect(all.filter((l) => l.startsWith("- topics/")).length).toBeGreaterThan(0);
	});

	it("counts UTF-8 bytes for Codex: a Korean project's parts each fit 9,500 bytes and the budget in bytes", async () => {
		const pid = await projectWith(memoriesOf(150, true));
		const texts: string[] = [];
		for (const index of [1, 2, 3])
			texts.push(
				(
					await part(pid, {
						context: { folder: "moa" },
						sessionId: "parts-ko",
						part: { index, of: 3 },
						maxBytes: 9500,
						startBudget: 20_000,
					})
				).text,
			);
		for (const t of texts) expect(utf8(t)).toBeLessThanOrEqual(9500);
		expect(texts.reduce((n, t) => n + utf8(t), 0)).toBeLessThanOrEqual(20_000);
		expect(texts.filter(Boolean).length).toBeGreaterThan(1);
		const all = texts.flatMap(lines);
		expect(new Set(all).size).toBe(all.length);
	});

	it("keeps a small start budget (the setting) and lists everything when everything fits, with no topics", async () => {
		const pid = await projectWith(memoriesOf(20));
		const ask = (index: number) => part(pid, { sessionId: "small", part: { index, of: 3 }, maxChars: 9500 });
		const texts = [(await ask(1)).text, (await ask(2)).text, (await ask(3)).text] as string[];
		expect(texts.join("\n")).not.toContain("### Topics");
		expect(texts.flatMap(lines)).toHaveLength(20);
		expect(texts[2]).toBe("");
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.startBudget": 3000 } });
		const small = [1, 2, 3].map((index) => part(pid, { sessionId: "small-2", part: { index, of: 3 }, maxChars: 9500 }));
		const sizes = (await Promise.all(small)).map((r) => (r.text as string).length);
		expect(sizes.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(3000);
	});

	it("shares one layout among a start's parts; a later start of the session with another source is laid out anew", async () => {
		const pid = await projectWith(memoriesOf(10));
		const ask = (source: string) => part(pid, { sessionId: "again", source, part: { index: 1, of: 3 }, maxChars: 9500 });
		const first = await ask("startup");
		await call(`/v1/projects/${pid}/memories/late-rule`, {
			token: tenant.token,
			method: "PUT",
			json: { type: "feedback", description: "Written after the session started", body: "b" },
		});
		// The same start's parts answer from its layout, so no part lists what another part's layout left out.
		expect((await ask("startup")).text).toBe(first.text);
		expect((await ask("compact")).text).toContain("- late-rule — Written after the session started");
	});

	it("holds a waiting part in the object until the layout is claimed and kept; the first layout kept wins", async () => {
		const pid = await projectWith(memoriesOf(5));
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: pid };
		const stub = env.PROJECT_COORDINATOR.getByName(pid);
		const layout = {
			parts: ["a", "b"],
			servedIds: [],
			listedIds: [],
			listed: { rules: 0, facts: 0, ofRules: 0, ofFacts: 0, topics: 0 },
			warnings: [],
		};
		const unwrap = <T>(outcome: unknown) => {
			const o = outcome as { ok: boolean; value?: T };
			expect(o.ok).toBe(true);
			return o.value as T;
		};
		type State = { layout: typeof layout | null; claimed: boolean };
		// Nothing there and no claim asked for: a short wait answers "not yet".
		expect(unwrap<State>(await stub.startLayout(ctx, "s1", false, 20))).toEqual({ layout: null, claimed: false });
		// One part claims it; another waits (4 s at most) and is answered the moment the layout is kept, not at the end of its wait.
		expect(unwrap<State>(await stub.startLayout(ctx, "s1", true, 0))).toEqual({ layout: null, claimed: true });
		const waiting = stub.startLayout(ctx, "s1", true, 4_000);
		await new Promise((r) => setTimeout(r, 50));
		unwrap(await stub.keepStartLayout(ctx, "s1", layout));
		const answer = await Promise.race([waiting, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 1_500))]);
		expect(answer).not.toBe("still waiting");
		expect(unwrap<State>(answer)).toEqual({ layout, claimed: false });
		// A part waiting before anyone claimed is woken by the claim, then by the layout.
		const early = stub.startLayout(ctx, "s2", false, 4_000);
		await new Promise((r) => setTimeout(r, 20));
		expect(unwrap<State>(await stub.startLayout(ctx, "s2", true, 0)).claimed).toBe(true);
		unwrap(await stub.keepStartLayout(ctx, "s2", { ...layout, parts: ["c"] }));
		const second = await Promise.race([early, new Promise<"still waiting">((r) => setTimeout(() => r("still waiting"), 1_500))]);
		expect(unwrap<State>(second).layout?.parts).toEqual(["c"]);
		// The first layout kept wins.
		expect(unwrap<typeof layout>(await stub.keepStartLayout(ctx, "s2", { ...layout, parts: ["d"] })).parts).toEqual(["c"]);
	});

	it("refuses bad parts with a clear 400", async () => {
		const pid = await projectWith(memoriesOf(3));
		for (const bad of [{ index: 0, of: 3 }, { index: 4, of: 3 }, { index: 1, of: 9 }, { index: 1 }, { index: 1, of: 3, x: 1 }, "1/3"]) {
			const res = await call(`/v1/projects/${pid}/inject`, { token: tenant.token, json: { sessionId: "s", part: bad } });
			const body = await expectError(res, 400, "invalid_request");
			expect(JSON.stringify(body)).toContain("part");
		}
		const res = await call(`/v1/projects/${pid}/inject`, { token: tenant.token, json: { part: { index: 1, of: 2 }, maxBytes: 10 } });
		await expectError(res, 400, "invalid_request");
		const source = await call(`/v1/projects/${pid}/inject`, {
			token: tenant.token,
			json: { sessionId: "s", part: { index: 1, of: 2 }, source: "reboot" },
		});
		expect(JSON.stringify(await expectError(source, 400, "invalid_request"))).toContain("source");
		const budget = await call(`/v1/projects/${pid}/settings`, {
			token: tenant.token,
			method: "PUT",
			json: { "memories.startBudget": 100 },
		});
		await expectError(budget, 400, "invalid_request");
	});

	it("answers 404 for a topic that does not exist, 400 for a malformed one", async () => {
		const pid = await projectWith(memoriesOf(3));
		const missing = await call(`/v1/projects/${pid}/resolve?url=${encodeURIComponent("memory://root/topics/nothing-here.md")}`, {
			token: tenant.token,
		});
		await expectError(missing, 404, "not_found");
		const malformed = await call(`/v1/projects/${pid}/resolve?url=${encodeURIComponent("memory://root/topics/Bad_Key.md")}`, {
			token: tenant.token,
		});
		await expectError(malformed, 400, "invalid_request");
	});
});

describe("laying out the parts", () => {
	it("keeps every rendered part within its caps and the whole within the budget, whatever the lines hold", () => {
		const items: StartItem[] = Array.from({ length: 400 }, (_, i) => ({
			section: (["rules", "facts", "memories", "topics"] as const)[i % 7 === 0 ? 2 : i % 5 === 0 ? 3 : i < 120 ? 0 : 1],
			id: i,
			text:
				i % 7 === 0
					? `### memory://root/m-${i}.md\n\n\`\`\`\`markdown\nbody ${i}\n\`\`\`\``
					: i % 11 === 0
						? `- m-${i} — a line with a run of backticks \`\`\`\`\` inside it`
						: `- m-${i} — ${i % 3 === 0 ? "결제 서비스의 포트와 담당자" : "the port, the owner, the deploy window and the rate limit of the service"} ${i}`,
		}));
		for (const [limits, size] of [
			[{ maxChars: 9500, maxBytes: Number.POSITIVE_INFINITY }, (s: string) => s.length],
			[{ maxChars: Number.POSITIVE_INFINITY, maxBytes: 9500 }, utf8Length],
		] as const) {
			const layout = layOut(items, "# Head\n\nguidance", 3, limits, 25_000);
			for (const part of layout.parts) {
				expect(part.length).toBeLessThanOrEqual(limits.maxChars);
				expect(utf8Length(part)).toBeLessThanOrEqual(limits.maxBytes);
			}
			expect(layout.parts.reduce((n, p) => n + size(p), 0)).toBeLessThanOrEqual(25_000);
			expect(layout.placed.length + layout.left.length).toBe(items.length);
			expect(layout.left.length).toBeGreaterThan(0);
			// Each placed item is in exactly one part, whole.
			for (const item of layout.placed) expect(layout.parts.filter((p) => p.includes(item.text))).toHaveLength(1);
		}
	});
});

describe("laying out the parts, at the cap", () => {
	const unbounded = { maxChars: Number.POSITIVE_INFINITY, maxBytes: Number.POSITIVE_INFINITY };
	it("places a line that opens a section when the part then holds exactly its cap, and not one character more", () => {
		const rule: StartItem = { section: "rules", text: "- a-rule — tests use the real database", id: 1 };
		for (const [text, limitsOf, size] of [
			[
				"- the-port — the api listens on 8080",
				(n: number) => ({ maxChars: n, maxBytes: Number.POSITIVE_INFINITY }),
				(s: string) => s.length,
			],
			// A run of five backticks lengthens the section's fence.
			["- ticks — a line with ````` inside", (n: number) => ({ maxChars: n, maxBytes: Number.POSITIVE_INFINITY }), (s: string) => s.length],
			["- 포트 — 결제 API는 8080 포트를 쓴다", (n: number) => ({ maxChars: Number.POSITIVE_INFINITY, maxBytes: n }), utf8Length],
		] as const) {
			const fact: StartItem = { section: "facts", text, id: 2 };
			const whole = layOut([rule, fact], "# Head", 1, unbounded, Number.POSITIVE_INFINITY).parts[0] ?? "";
			const exact = layOut([rule, fact], "# Head", 1, limitsOf(size(whole)), Number.POSITIVE_INFINITY);
			expect(exact.placed.map((i) => i.id)).toEqual([1, 2]);
			expect(exact.parts[0]).toBe(whole);
			expect(layOut([rule, fact], "# Head", 1, limitsOf(size(whole) - 1), Number.POSITIVE_INFINITY).left.map((i) => i.id)).toEqual([2]);
			// The budget the same way (in the same unit): exactly the whole fits, one less leaves the line out.
			expect(layOut([rule, fact], "# Head", 1, limitsOf(1e9), size(whole)).placed).toHaveLength(2);
			expect(layOut([rule, fact], "# Head", 1, limitsOf(1e9), size(whole) - 1).left.map((i) => i.id)).toEqual([2]);
		}
	});
});

describe("topics", () => {
	it("puts every memory in a topic (one it was grouped in, and others its name spells out), keyed by words names share, English and Korean alike", () => {
		const rows = memoriesOf(200).map((m, id) => ({ id, ...m }));
		const ko = memoriesOf(80, true).map((m, id) => ({ id: 1000 + id, ...m, name: `ko-${m.name}` }));
		const topics = groupTopics([...rows, ...ko]);
		const ids = topics.flatMap((t) => t.members.map((m) => m.id));
		expect(new Set(ids).size).toBe(280);
		// No memory twice in one topic; a topic's key names what its members' names say.
		for (const t of topics) {
			expect(new Set(t.members.map((m) => m.id)).size).toBe(t.members.length);
			expect(t.members.length).toBeLessThanOrEqual(80);
		}
		const billing = topics.filter((t) => t.key.startsWith("billing"));
		expect(billing.length).toBeGreaterThan(0);
		for (const t of billing) for (const m of t.members) expect(m.name).toMatch(/billing/);
		// A name that spells out a topic's key is found in that topic (while it has room).
		const all = [...rows, ...ko];
		let checked = 0;
		for (const t of topics.filter((t) => !t.key.startsWith("other-") && t.members.length < 80)) {
			const key = t.key.split("-").filter((w) => !/^\d+$/.test(w));
			for (const m of all.filter((m) => key.every((w) => m.name.split("-").includes(w)))) {
				expect(t.members.map((x) => x.id)).toContain(m.id);
				checked += 1;
			}
		}
		expect(checked).toBeGreaterThan(100);
		// Deterministic: the same rows give the same topics.
		expect(groupTopics([...rows, ...ko]).map((t) => t.key)).toEqual(topics.map((t) => t.key));
	});
});

describe("what a large project's blocks choose", () => {
	const row = (id: number, name: string, description: string, at = "2026-12-01T10:00:00.000Z"): HeaderRow => ({
		id,
		name,
		type: "feedback",
		description,
		scope: "personal",
		updated_at: at,
		verified_at: at,
		times_served: 0,
	});

	it("sends the Worker only the rows a block of the parts' size could list: every one it would, whole, in standing order", async () => {
		// Rules and facts of very different lengths, some used, so that the block's order is neither the object's nor by length alone.
		const memories = Array.from({ length: 260 }, (_, i) => ({
			name: `${i % 2 ? "rule" : "fact"}-${i}`,
			type: i % 2 ? (i % 13 === 0 ? "user" : "feedback") : i % 5 === 0 ? "reference" : "project",
			description: `note ${i} ${"about the service and its limits ".repeat(1 + ((i * 7) % 11))}`.trim().slice(0, 300),
			body: `Body of ${i}.`,
		}));
		const pid = await projectWith(memories);
		await call(`/v1/projects/${pid}/memories/rule-7`, { token: tenant.token }); // read once: a use
		const ctx = { tenantId: tenant.tenantId, userId: tenant.userId, projectId: pid };
		const limit = { rules: 400, facts: 400 };
		const fill = 6_000;
		const [whole, filled] = await runInDurableObject(env.PROJECT_COORDINATOR.getByName(pid), async (i: ProjectCoordinator) => [
			await startView(i.db, ctx, ["personal", "team"], limit),
			await startView(i.db, ctx, ["personal", "team"], limit, fill),
		]);
		const now = Date.now();
		for (const kind of ["rules", "facts"] as const) {
			expect(whole[kind]).toHaveLength(130);
			// Fewer, each whole (its description read), in the object's standing order.
			expect(filled[kind].length).toBeLessThan(whole[kind].length);
			expect(filled[kind]).toEqual(whole[kind].filter((r) => filled[kind].some((f) => f.id === r.id)));
			// Every row the block's own order lists before `fill` characters of names and descriptions is among them.
			let used = 0;
			for (const row of rankHeaders(whole[kind], new Map(), now)) {
				if (used + row.name.length + row.description.length > fill) break;
				used += row.name.length + row.description.length;
				expect(filled[kind].map((r) => r.id)).toContain(row.id);
			}
		}
	});

	it("lists the shorter of rows nothing tells apart first, and counts freshness in whole days", () => {
		const now = Date.parse("2026-12-07T12:00:00.000Z");
		// Written seconds apart the same day: as fresh as each other, so the shorter line goes first.
		const long = row(1, "a-long-rule", "x".repeat(120), "2026-12-07T09:00:05.000Z");
		const short = row(2, "b-short-rule", "y".repeat(40), "2026-12-07T09:00:00.000Z");
		const mid = row(3, "c-mid-rule", "z".repeat(80), "2026-12-07T09:00:03.000Z");
		expect(rankHeaders([long, short, mid], new Map(), now).map((r) => r.id)).toEqual([2, 3, 1]);
		// A day fresher outranks a shorter line; relevance to the session's context outranks both.
		const older = row(4, "d-older", "w".repeat(10), "2026-12-05T09:00:00.000Z");
		expect(rankHeaders([older, long], new Map(), now).map((r) => r.id)).toEqual([1, 4]);
		expect(rankHeaders([older, long], new Map([[4, 2]]), now).map((r) => r.id)).toEqual([4, 1]);
		// Same length and day: the object's standing order stands.
		const twin = row(5, "e-twin", "y".repeat(40), "2026-12-07T08:00:00.000Z");
		expect(rankHeaders([twin, short], new Map(), now).map((r) => r.id)).toEqual([5, 2]);
	});

	it("names the topics a prompt names by their key, the most specific first, never a catch-all", () => {
		const topic = (key: string, n: number) => ({
			key,
			words: ["w"],
			members: Array.from({ length: n }, (_, id) => ({ id, name: `m-${id}`, type: "project", description: "d" })),
		});
		const topics = [
			topic("staging", 30),
			topic("runbook", 12),
			topic("billing-invoice", 20),
			topic("billing-1", 40),
			topic("other-facts", 40),
		];
		const keys = (words: string[]) => topicsNamedBy(topics, words).map((t) => t.key);
		expect(keys(["psql", "shell", "staging"])).toEqual(["staging"]);
		// A plural names the singular key; the smaller topic first.
		expect(keys(["staging", "runbooks"])).toEqual(["runbook", "staging"]);
		// A key of two words needs both; a numbered key is named by its word.
		expect(keys(["billing"])).toEqual(["billing-1"]);
		expect(keys(["invoice", "billing"])).toEqual(["billing-invoice", "billing-1"]);
		expect(keys(["other", "facts"])).toEqual([]);
		expect(keys([])).toEqual([]);
	});

	it("offers a prompt the topic it names even when recall finds little, and only once topics are made", async () => {
		const memories = memoriesOf(300);
		const pid = await projectWith(memories);
		const ask = (body: Record<string, unknown>) => part(pid, { sessionId: "named-topic", maxChars: 9500, ...body });
		// Before any session start made the topics, a prompt names none (it never waits for them).
		const early = await ask({ query: "the mailer keeps timing out", include: "memories", onlyNew: true, sessionId: "named-early" });
		expect(String(early.text)).not.toMatch(/topics\/mailer/);
		await Promise.all([1, 2, 3].map((index) => ask({ context: { folder: "shop", branch: "main" }, part: { index, of: 3 } })));
		const prompt = await ask({ query: "the mailer keeps timing out", include: "memories", onlyNew: true });
		const named = String(prompt.text)
			.split("\n")
			.filter((l) => /^- memory:\/\/root\/topics\/mailer[a-z0-9-]*\.md — mailer/.test(l));
		expect(named.length).toBeGreaterThan(0);
		// The topic it names holds the memories about the mailer.
		const key = /topics\/([a-z0-9-]+)\.md/.exec(named[0] ?? "")?.[1];
		const res = await call(`/v1/projects/${pid}/resolve?url=${encodeURIComponent(`memory://root/topics/${key}.md`)}`, {
			token: tenant.token,
		});
		expect(res.status).toBe(200);
		expect(await res.text()).toMatch(/memory:\/\/root\/mailer-fact-\d+\.md/);
		// A prompt naming no topic's key names none by name.
		const quiet = await ask({ query: "thanks, that works", include: "memories", onlyNew: true, sessionId: "named-quiet" });
		expect(String(quiet.text)).not.toMatch(/topics\//);
	});
});
