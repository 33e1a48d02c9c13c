// The console's sign-in with a key it refuses: the message says what is wrong with the key, where a key
// comes from (printed by `cairn setup` and saved in ~/.config/cairn/config.json, made by an admin on the
// Keys page, a tenant's first key with the operator token) and what to do.
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createTenant } from "./helpers";

const signIn = async (key: string) => {
	const res = await exports.default.fetch(
		new Request("https://cairn.test/console/sign-in", {
			method: "POST",
			headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://cairn.test" },
			body: new URLSearchParams({ key }).toString(),
			redirect: "manual",
		}),
	);
	return { status: res.status, page: await res.text(), cookie: res.headers.get("Set-Cookie") };
};

/** The parts every refusal carries: where keys come from and what to do. */
function expectWhereAndWhat(page: string) {
	expect(page).toContain("<code>cairn setup</code> prints yours once");
	expect(page).toContain("<code>~/.config/cairn/config.json</code>");
	expect(page).toContain("<strong>Keys</strong> page");
	expect(page).toContain("<code>POST /v1/admin/tenants</code> with the deployment's operator token");
	expect(page).toContain("What to do: paste the key from one of those.");
	expect(page).toContain("run <code>cairn setup</code> in your repository");
}

describe("the console's wrong-key message", () => {
	it("a well-formed key this service does not know: not valid here, it may be another service's, and where keys come from", async () => {
		const tenant = await createTenant();
		// The right shape, a real key id, the wrong secret.
		const wrong = `${tenant.token.slice(0, -1)}${tenant.token.endsWith("A") ? "B" : "A"}`;
		const { status, page, cookie } = await signIn(wrong);
		expect(status).toBe(401);
		expect(cookie).toBeNull();
		expect(page).toContain("That API key is not valid here");
		expect(page).toContain("does not know it, or it was revoked");
		expect(page).toContain("a key from a local npm start does not sign in to a deployment");
		expectWhereAndWhat(page);
	});

	it("text that is not a key at all: what a key looks like, and the same help", async () => {
		const { status, page } = await signIn("http://127.0.0.1:8787");
		expect(status).toBe(401);
		expect(page).toContain("That API key is not valid");
		expect(page).toContain("<code>cairn_&lt;id&gt;_&lt;secret&gt;</code>");
		expectWhereAndWhat(page);
	});

	it("the sign-in form says where a key comes from before anything goes wrong", async () => {
		const page = await (await exports.default.fetch(new Request("https://cairn.test/console/sign-in", { redirect: "manual" }))).text();
		expect(page).toContain("<code>cairn setup</code> prints yours and saves it in <code>~/.config/cairn/config.json</code>");
	});
});
