/// <reference types="vite/client" />
declare namespace Cloudflare {
	interface Env {
		/** Migrations read by vitest.config.ts and applied in test/setup.ts. */
		TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
	}
}
