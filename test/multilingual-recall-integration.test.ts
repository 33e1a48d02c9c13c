import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import type { ProjectCoordinator } from "../src/project/object";
import { migrateProjectSchema } from "../src/storage/schema";
import { call, createProject, createTenant, json, type Loose, projectDb, putMemory, recallAs, type Tenant } from "./helpers";

let tenant: Tenant;
let projectId: string;

const MEMORIES: [string, string, string, string][] = [
	[
		"deploy-friday-ko",
		"feedback",
		"금요일에는 프로덕션 배포를 하지 않는다",
		"금요일 오후에는 프로덕션에 배포하지 않습니다. 긴급 수정은 팀장 승인을 받습니다.",
	],
	[
		"integration-db-ko",
		"feedback",
		"통합 테스트는 실제 데이터베이스를 사용한다",
		"통합 테스트에서는 목 대신 실제 데이터베이스를 써야 한다.",
	],
	["commit-language-ko", "user", "커밋 메시지는 한국어로 쓴다", "커밋 메시지는 한국어로 작성하고 제목은 50자 이내로 한다."],
	["deploy-friday-ja", "feedback", "金曜日は本番にデプロイしない", "金曜日の午後は本番環境へのデプロイを禁止する。"],
	["integration-db-ja", "feedback", "結合テストは本物のデータベースを使う", "結合テストではモックではなく本物のデータベースを使うこと。"],
	["on-call-ja", "project", "当番の交代は毎週月曜日", "当番は毎週月曜日の午前10時に交代し、引き継ぎメモを残す。"],
	["deploy-friday-zh", "feedback", "周五不向生产环境部署", "周五下午禁止向生产环境部署。紧急修复需要负责人批准。"],
	["integration-db-zh", "feedback", "集成测试使用真实数据库", "集成测试必须使用真实的数据库，而不是模拟对象。"],
	["deploy-freeze", "project", "No production deploys on Fridays", "Deploy freeze: Friday 12:00 UTC until Monday."],
];

async function write(name: string, type: string, description: string, body: string) {
	expect((await putMemory(tenant.token, projectId, name, body, { type, description })).status).toBeLessThan(300);
}

const recall = (query: string, extra: Loose = {}) => recallAs(tenant.token, projectId, { query, ...extra });

const names = (body: Loose) => body.memories.map((m: Loose) => m.name);

beforeAll(async () => {
	tenant = await createTenant();
	projectId = await createProject(tenant.token);
	await call(`/v1/projects/${projectId}/settings`, { token: tenant.token, method: "PUT", json: { "memories.enabled": true } });
	for (const m of MEMORIES) await write(...m);
});

describe("recall in Korean, Japanese and Chinese", () => {
	it("finds a Korean memory by other particles and endings of its words", async () => {
		for (const query of ["배포는 언제 해요?", "배포를 금요일에 해도 되나", "배포할 때 규칙"]) {
			const body = await recall(query);
			expect(names(body)[0], query).toBe("deploy-friday-ko");
			expect(body.retrieval).toBe("lexical");
		}
		expect(names(await recall("통합테스트 돌릴 때 데이터베이스는?"))[0]).toBe("integration-db-ko");
		expect(names(await recall("커밋메시지는 어떤 언어로?"))[0]).toBe("commit-language-ko");
	});

	it("finds a Japanese memory by other inflections, written without spaces", async () => {
		expect(names(await recall("金曜にデプロイしてもいいですか"))[0]).toBe("deploy-friday-ja");
		expect(names(await recall("結合テストで使うデータベースは？"))[0]).toBe("integration-db-ja");
		expect(names(await recall("当番が交代するのは何曜日？"))[0]).toBe("on-call-ja");
	});

	it("finds a Chinese memory from a question written without spaces", async () => {
		expect(names(await recall("星期五可以部署到生产环境吗"))[0]).toBe("deploy-friday-zh");
		expect(names(await recall("跑集成测试时用什么数据库"))[0]).toBe("integration-db-zh");
	});

	it("keeps Latin queries on the word index, and mixed queries use both", async () => {
		expect(names(await recall("production deploys on friday"))[0]).toBe("deploy-freeze");
		const mixed = await recall("Friday 배포는", { trace: true });
		expect(names(mixed)).toEqual(expect.arrayContaining(["deploy-freeze", "deploy-friday-ko"]));
	});

	it("counts CJK words in the trace and the inject relevance floor", async () => {
		const body = await recall("배포는 금요일에", { trace: true });
		const top = body.trace.candidates.find((c: Loose) => c.name === "deploy-friday-ko");
		expect(top.matchedTerms).toEqual(["배포는", "금요일에"]);
		const inject = await call(`/v1/projects/${projectId}/inject`, {
			token: tenant.token,
			json: { query: "통합테스트 데이터베이스는 뭘 써?", include: "memories" },
		});
		expect(inject.status).toBe(200);
		const parts = (await json(inject)).parts;
		expect(parts.memories.map((m: Loose) => m.name)).toContain("integration-db-ko");
	});

	it("keeps the gram index in step on update, delete and clear", async () => {
		const db = projectDb(projectId);
		const gramRow = async (name: string) =>
			db
				.prepare("SELECT g.body FROM memories_grams g JOIN memories m ON m.id = g.rowid WHERE m.name = ?")
				.bind(name)
				.first<{ body: string }>();
		await write("temp-ko", "project", "임시 메모", "배포 파이프라인은 깃허브 액션으로 돈다.");
		expect((await gramRow("temp-ko"))?.body).toContain("배포");
		await write("temp-ko", "project", "임시 메모", "릴리스는 수동으로 한다.");
		expect((await gramRow("temp-ko"))?.body).not.toContain("배포");
		expect(names(await recall("릴리스를 어떻게 해?"))).toContain("temp-ko");
		// A memory rewritten in English has no gram row at all.
		await write("temp-ko", "project", "Temporary note", "Releases are manual.");
		expect(await gramRow("temp-ko")).toBeNull();
		await write("temp-ko", "project", "임시 메모", "릴리스는 수동으로 한다.");
		const id = (await db.prepare("SELECT id FROM memories WHERE name = 'temp-ko'").first<{ id: number }>())?.id;
		expect((await call(`/v1/projects/${projectId}/memories/temp-ko`, { token: tenant.token, method: "DELETE" })).status).toBeLessThan(300);
		expect(await db.prepare("SELECT count(*) AS n FROM memories_grams WHERE rowid = ?").bind(id).first("n")).toBe(0);
		expect(names(await recall("릴리스를 어떻게 해?"))).not.toContain("temp-ko");
	});
});

describe("schema version 5 builds the gram index for memories already stored", () => {
	it("indexes the CJK text of a version-4 object on upgrade", async () => {
		const stub = env.PROJECT_COORDINATOR.getByName("grams-upgrade");
		await runInDurableObject(stub, async (_instance: ProjectCoordinator, state) => {
			const sql = state.storage.sql;
			sql.exec("DROP TABLE IF EXISTS _cairn_schema");
			for (const row of sql.exec<{ name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").toArray()) {
				if (!row.name.startsWith("_cf_") && !/^memories_(fts|grams)_/.test(row.name) && !row.name.startsWith("sqlite_"))
					sql.exec(`DROP TABLE IF EXISTS "${row.name}"`);
			}
			migrateProjectSchema(state.storage, 4);
			sql.exec(
				"INSERT INTO memories_fts (rowid, name, description, body) VALUES (1, 'deploy-ko', '배포 규칙', '금요일에는 배포를 하지 않는다')",
			);
			sql.exec("INSERT INTO memories_fts (rowid, name, description, body) VALUES (2, 'english', 'English only', 'No CJK here')");
			expect(migrateProjectSchema(state.storage)).toBe(4);
			const rows = sql.exec<{ rowid: number; body: string }>("SELECT rowid, body FROM memories_grams ORDER BY rowid").toArray();
			expect(rows.map((r) => r.rowid)).toEqual([1]);
			expect(rows[0]?.body.split(" ")).toEqual(expect.arrayContaining(["금요", "배포"]));
			expect(sql.exec("SELECT rowid FROM memories_grams WHERE memories_grams MATCH '\"배포\"'").toArray()).toHaveLength(1);
		});
	});
});
