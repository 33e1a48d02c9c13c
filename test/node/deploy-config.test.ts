import { describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";

type Named = { binding?: string; name?: string; queue?: string };
interface Config {
	name?: string;
	vars: Record<string, unknown>;
	ai?: { binding: string };
	d1_databases: Named[];
	r2_buckets: Named[];
	durable_objects: { bindings: Named[] };
	queues: { producers?: Named[]; consumers?: Named[] };
	triggers: { crons?: string[] };
}

/** wrangler.toml as wrangler itself reads it: the deployed environment, and the one tests and `npm start` use. */
const read = (env?: string) => unstable_readConfig({ config: "wrangler.toml", ...(env ? { env } : {}) }) as unknown as Config;

describe("deployment configuration", () => {
	it("deploys with Workers AI for every model role", () => {
		const production = read("production");
		expect(production.vars).toMatchObject({
			CAIRN_MODEL_DEFAULT: expect.stringMatching(/^workers-ai:@cf\//),
			CAIRN_MODEL_SMOL: expect.stringMatching(/^workers-ai:@cf\//),
			CAIRN_EMBEDDING_MODEL: expect.stringMatching(/^workers-ai:@cf\/baai\/bge-m3$/),
		});
		expect(production.ai?.binding).toBe("AI");
		expect(production.name).toBe("cairn");
		// Every binding the Worker needs is declared for the environment (environments do not inherit them).
		const top = read();
		expect(production.d1_databases.map((d) => d.binding)).toEqual(top.d1_databases.map((d) => d.binding));
		expect(production.r2_buckets.map((b) => b.binding)).toEqual(top.r2_buckets.map((b) => b.binding));
		expect(production.durable_objects.bindings.map((b) => b.name)).toEqual(top.durable_objects.bindings.map((b) => b.name));
		expect(production.queues.producers?.map((q) => q.binding)).toEqual(top.queues.producers?.map((q) => q.binding));
		expect(production.queues.consumers?.map((q) => q.queue)).toEqual(top.queues.consumers?.map((q) => q.queue));
		expect(production.triggers.crons).toEqual(top.triggers.crons);
	});

	it("leaves local runs and tests offline", () => {
		expect(read().vars).toMatchObject({ CAIRN_MODEL_DEFAULT: "", CAIRN_MODEL_SMOL: "", CAIRN_EMBEDDING_MODEL: "" });
		// Workers AI has no local simulation: bound at the top level, wrangler warns of remote charges at every start.
		expect(read().ai).toBeUndefined();
	});
});
