// Fact kinds (src/search/fact-kinds.ts): every fact also filed under the kinds of fact it tells, and a prompt
// that names a kind in everyday words, English or Korean, gets that kind's topic line, one read away.
import { beforeAll, describe, expect, it } from "vitest";
import { FACT_KINDS, kindKey, kindsNamedBy, kindTopics, kindWords } from "../src/search/fact-kinds";
import { call, createProject, createTenant, json, type Loose, type Tenant } from "./helpers";

describe("which kinds a text names", () => {
	it("reads a prompt's everyday words for each kind, in English and Korean", () => {
		expect(kindsNamedBy("how do i get a psql shell on staging?")).toEqual(["facts-access"]);
		expect(kindsNamedBy("who is on-call this week")).toEqual(["facts-oncall", "facts-people"]);
		expect(kindsNamedBy("is he on call this week")).toEqual(["facts-oncall"]);
		expect(kindsNamedBy("이번주 billing 당번 누구야?")).toEqual(["facts-oncall", "facts-people"]);
		expect(kindsNamedBy("where do i see crashes for the latest android release")).toEqual(["facts-observe", "facts-releases"]);
		expect(kindsNamedBy("they gave us an api key, where does it go")).toEqual(["facts-secrets", "facts-layout"]);
		// The kind most named first: three words of access before one of releases.
		expect(kindsNamedBy("deploy my branch to the staging server, and the staging db too")[0]).toBe("facts-access");
	});

	it("takes a Korean word by the longest word of the kinds it starts with, particles and all", () => {
		// 로그인 (login) is access, though it starts with 로그 (log); 로그를 is a log.
		expect(kindsNamedBy("admin 로그인은 어디 있어?")).toEqual(["facts-access"]);
		expect(kindsNamedBy("pod 로그를 보고 싶어")).toEqual(["facts-observe"]);
		expect(kindsNamedBy("스테이징에 올려줘")).toEqual(["facts-access"]);
	});

	it("names nothing for a prompt about no kind of fact", () => {
		expect(kindsNamedBy("fix the typo in the README")).toEqual([]);
		expect(kindsNamedBy("thanks, that works")).toEqual([]);
		expect(kindsNamedBy("")).toEqual([]);
		// The hyphen of on-call leaves no bare "call": an API call is no page.
		expect(kindsNamedBy("retry the call to the pricing api")).toEqual([]);
		// Everyday words of front-end work that only sound like a kind: a web page, an alert dialog, a window,
		// a page layout, "make", shipping costs, an unfreezing app.
		for (const prompt of [
			"fix the checkout page layout",
			"add an alert when the upload fails",
			"open a new window for the preview",
			"make the button blue",
			"free shipping over $50",
			"the app freezes when scrolling",
		])
			expect(kindsNamedBy(prompt)).toEqual([]);
	});

	it("reads the questions that ask for a person or for where code goes", () => {
		expect(kindsNamedBy("who do i tag on the PR")).toEqual(["facts-people"]);
		expect(kindsNamedBy("트랜스코딩 쪽 코드 누가 제일 잘 알아?")).toEqual(["facts-people"]);
		expect(kindsNamedBy("where should the code for the new reminder feature go?")).toEqual(["facts-layout"]);
		expect(kindsNamedBy("where is the staging db")).toEqual(["facts-access"]);
	});

	it("files each fact under every kind its name or description names; rules and kinds no fact is of stay out", () => {
		const rows = [
			{
				id: 1,
				name: "staging-environment",
				type: "reference",
				description: "Staging API host, how to deploy to it, and how to reach its database",
			},
			{ id: 2, name: "oncall-rotation", type: "reference", description: "On-call rotation and how to page whoever is on call" },
			{ id: 3, name: "code-owners", type: "project", description: "Who owns and reviews each area of the code" },
			{ id: 4, name: "no-friday-deploys", type: "feedback", description: "Never deploy to prod on a Friday afternoon" },
			{ id: 5, name: "pricing-rounding", type: "project", description: "Prices round half-even to the cent" },
		];
		const topics = kindTopics(rows);
		const of = (key: string) => topics.find((t) => t.key === key)?.members.map((m) => m.name) ?? null;
		expect(of("facts-access")).toEqual(["staging-environment"]);
		expect(of("facts-releases")).toEqual(["staging-environment"]);
		expect(of("facts-oncall")).toEqual(["oncall-rotation"]);
		expect(of("facts-people")).toEqual(["code-owners"]);
		// The rule is listed in full elsewhere; no fact is about layout.
		expect(topics.flatMap((t) => t.members.map((m) => m.name))).not.toContain("no-friday-deploys");
		expect(of("facts-layout")).toBeNull();
		expect(of("facts-conventions")).toEqual(["pricing-rounding"]);
		// Titled, with the words its line shows: English, and Korean too for a mostly Korean project.
		const access = topics.find((t) => t.key === "facts-access");
		expect(access?.title).toMatch(/^Environments and access/);
		expect(access?.words).toContain("staging");
		expect(access?.words).not.toContain("스테이징");
		const korean = kindTopics([{ id: 9, name: "staging-db", type: "reference", description: "스테이징 DB 주소와 접속 방법" }]);
		expect(korean.find((t) => t.key === "facts-access")?.words).toContain("스테이징");
	});

	it("keys every kind apart from word topics and shows its words in the prompt's language", () => {
		for (const kind of FACT_KINDS) {
			expect(kindKey(kind.id)).toMatch(/^facts-[a-z]+$/);
			expect(kindWords(kindKey(kind.id), false)).toEqual(kind.shown.en);
			expect(kindWords(kindKey(kind.id), true)).toEqual([...kind.shown.en, ...kind.shown.ko]);
		}
		expect(kindWords("staging", false)).toBeUndefined();
	});
});

describe("a prompt's kind topic, through the service", () => {
	let tenant: Tenant;
	beforeAll(async () => {
		tenant = await createTenant();
	});

	const ask = async (pid: string, body: Record<string, unknown>): Promise<Loose> => {
		const res = await call(`/v1/projects/${pid}/inject`, { token: tenant.token, json: body });
		expect(res.status).toBe(200);
		return json(res);
	};
	const read = async (pid: string, url: string) =>
		call(`/v1/projects/${pid}/resolve?url=${encodeURIComponent(url)}`, { token: tenant.token });

	it("names the kind a prompt asks about though no word of it reaches the fact it needs, and the topic lists that fact", async () => {
		const pid = await createProject(tenant.token);
		await call(`/v1/projects/${pid}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
		// A grown project: many memories share the prompt's words, the one it needs shares none (psql, shell).
		const memories = [
			{
				name: "staging-environment",
				type: "reference",
				description: "Staging API host, how to deploy to it, and how to reach its database",
				body: "Staging DB over Tailscale: billing-stg-db.internal:5432, user billing_ro.",
			},
			...Array.from({ length: 120 }, (_, i) => ({
				name: `invoice-note-${i}`,
				type: "project",
				description: `Invoice ${i} numbering detail: KB-DE series, shell script ${i} regenerates the PDF`,
				body: `Invoice note ${i}.`,
			})),
		];
		for (let i = 0; i < memories.length; i += 100) {
			const res = await call(`/v1/projects/${pid}/memories/batch`, { token: tenant.token, json: { memories: memories.slice(i, i + 100) } });
			expect(res.status).toBe(200);
		}
		// Topics are made once a session starts (a prompt never waits for them).
		await Promise.all(
			[1, 2, 3].map((index) =>
				ask(pid, { context: { folder: "billing", branch: "main" }, sessionId: "kinds", part: { index, of: 3 }, maxChars: 9500 }),
			),
		);
		const prompt = await ask(pid, {
			query: "how do i get a psql shell on staging? want to look at invoice KB-DE-2025-000981",
			include: "memories",
			sessionId: "kinds",
			onlyNew: true,
			maxChars: 9500,
		});
		const line = String(prompt.text)
			.split("\n")
			.find((l) => l.includes("memory://root/topics/facts-access.md"));
		expect(line).toMatch(/^- memory:\/\/root\/topics\/facts-access\.md — Environments and access \(환경·접근\): staging, prod, .* \(1\)$/);
		const topic = await read(pid, "memory://root/topics/facts-access.md");
		expect(topic.status).toBe(200);
		expect(await topic.text()).toMatch(/^- memory:\/\/root\/staging-environment\.md \(reference\) — Staging API host/m);
		// The list of topics names the kind topics beside the word topics.
		const list = await (await read(pid, "memory://root/topics")).text();
		expect(list).toMatch(/^- topics\/facts-access\.md — Environments and access/m);
		// A Korean prompt gets the line with its Korean words.
		const korean = await ask(pid, {
			query: "스테이징 DB 주소 뭐였지?",
			include: "memories",
			sessionId: "kinds-ko",
			onlyNew: true,
			maxChars: 9500,
		});
		expect(String(korean.text)).toMatch(/topics\/facts-access\.md — .*staging.*스테이징/);
		// A prompt about no kind of fact gets no kind line.
		const none = await ask(pid, {
			query: "regenerate the invoice pdf",
			include: "memories",
			sessionId: "kinds-none",
			onlyNew: true,
			maxChars: 9500,
		});
		expect(String(none.text)).not.toMatch(/topics\/facts-/);
		// A kind no fact is of is no topic.
		expect((await read(pid, "memory://root/topics/facts-layout.md")).status).toBe(404);
		// A session is not shown a topic line twice: the same question again in the session names it no more (what a
		// block showed is recorded off the response path), while another session is shown it.
		const again = async (sessionId: string) =>
			String((await ask(pid, { query: "where is the staging db?", include: "memories", sessionId, onlyNew: true, maxChars: 9500 })).text);
		expect(await again("kinds-twice")).toMatch(/topics\/facts-access\.md/);
		let second = "";
		for (let i = 0; i < 40; i++) {
			second = await again("kinds-twice");
			if (!second.includes("topics/facts-access.md")) break;
			await new Promise((r) => setTimeout(r, 50));
		}
		expect(second).not.toMatch(/topics\/facts-access\.md/);
		expect(await again("kinds-other")).toMatch(/topics\/facts-access\.md/);
	});
});
