// The Workers runtime set-up shared by the test and benchmark configurations: the real wrangler.toml,
// local bindings only, migrations handed to the setup file.
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";

export async function workersPlugin(bindings: Record<string, string>) {
	const migrations = await readD1Migrations("./migrations");
	return cloudflareTest({
		wrangler: { configPath: "./wrangler.toml" },
		remoteBindings: false,
		miniflare: { bindings: { TEST_MIGRATIONS: migrations, ...bindings } },
	});
}
