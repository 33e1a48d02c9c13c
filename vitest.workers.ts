// The Workers runtime set-up shared by the test and benchmark configurations: the real wrangler.toml,
// local bindings only, migrations handed to the setup file.
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

export async function workersPlugin(bindings: Record<string, string>) {
	const migrations = await readD1Migrations("./migrations");
	return cloudflareTest({
		// The product entry with the test harness's object (test/worker.ts): seams through a subclass.
		main: "./test/worker.ts",
		wrangler: { configPath: "./wrangler.toml" },
		remoteBindings: false,
		miniflare: { bindings: { TEST_MIGRATIONS: migrations, ...bindings } },
	});
}
