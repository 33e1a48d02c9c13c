// Per-family samples for measuring the detector by the written policy: for each family the policy
// lists, credentials generated (seeded, random bodies) from the providers' descriptions of their
// formats, and look-alikes the policy says are not credentials. Written here as test data; nothing
// is copied from other detectors' test suites, and nothing is imported from the detector.

import { rng } from "../../bench/secret-samples";

export interface FamilySample {
	family: string;
	text: string;
	/** What the sample was written to be; the policy judge labels it independently. */
	intended: "secret" | "non-secret";
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const B64URL = `${ALNUM}-_`;
const B64 = `${ALNUM}+/`;
const HEX = "0123456789abcdef";
const DIGITS = "0123456789";

export function familySamples(perFamily = 40, seed = 25): FamilySample[] {
	const r = rng(seed);
	const pick = (alphabet: string, n: number) => {
		let s = "";
		for (let i = 0; i < n; i++) s += alphabet[Math.floor(r() * alphabet.length)];
		// A random body without a digit or mixed case is possible for short ones: keep it token-like.
		return s;
	};
	const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
	const oneOf = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)] as T;
	const b64url = (s: string) => btoa(s).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
	const context = (value: string) =>
		oneOf([
			(v: string) => v,
			(v: string) => `export TOKEN=${v}`,
			(v: string) => `Use ${v} for the deploy.`,
			(v: string) => `config:\n  token: "${v}"\n`,
			(v: string) => `curl -H "X-Api-Key: ${v}" https://api.example.com/v1/items`,
		])(value);

	const out: FamilySample[] = [];
	const add = (family: string, make: () => string, intended: "secret" | "non-secret" = "secret") => {
		for (let i = 0; i < perFamily; i++) out.push({ family, text: make(), intended });
	};

	// Slack legacy tokens: xoxp-/xoxs-/xoxr-/xoxo- with short numeric groups and a hex tail, and the
	// current bot/user shapes (numeric team and user ids, a random tail).
	add("slack legacy", () =>
		context(
			`${oneOf(["xoxp", "xoxs", "xoxr", "xoxo", "xoxa"])}-${pick(DIGITS, int(3, 12))}-${pick(DIGITS, int(3, 12))}-${pick(HEX, int(10, 64))}`,
		),
	);
	add("slack", () => context(`${oneOf(["xoxb", "xoxp", "xoxe"])}-${pick(DIGITS, 12)}-${pick(DIGITS, 13)}-${pick(ALNUM, 24)}`));
	// Discord bot tokens: base64 of the bot's numeric id, a dot, a 6-character timestamp, a dot, an HMAC.
	add("discord bot token", () => {
		const id = `${int(1, 9)}${pick(DIGITS, int(16, 18))}`;
		return context(`${b64url(id)}.${pick(B64URL, 6)}.${pick(B64URL, int(27, 38))}`);
	});
	// The same tokens where code and configuration put them: after a dot or an auth scheme, with the
	// longer signatures of newer tokens; and user tokens behind two-factor authentication ("mfa.").
	add("discord bot token in code", () => {
		const id = `${int(1, 9)}${pick(DIGITS, int(16, 19))}`;
		const tok = `${b64url(id)}.${pick(B64URL, oneOf([6, 7]))}.${pick(B64URL, oneOf([27, 38, 44]))}`;
		return oneOf([`client.login(${tok})`, `Authorization: Bot ${tok}`, `cfg.${tok}`, `"token": "${tok}"`, `DISCORD_TOKEN=${tok}`]);
	});
	add("discord mfa token", () => context(`mfa.${pick(B64URL, 84)}`));
	// JWTs: three segments, two (unsigned), or split by a line break or spaces around a dot.
	const header = () => b64url(JSON.stringify({ alg: oneOf(["HS256", "RS256", "ES256", "none"]), typ: "JWT" }));
	const payload = () =>
		b64url(JSON.stringify({ sub: pick(DIGITS, int(4, 12)), iat: int(1_600_000_000, 1_800_000_000), name: pick(ALNUM, int(4, 10)) }));
	add("jwt", () => context(`${header()}.${payload()}.${pick(B64URL, 43)}`));
	add("jwt two segments", () => context(`${header()}.${payload()}`));
	add("jwt line-broken", () => {
		const sep = oneOf(["\n.", ".\n", " . ", ".\r\n", "\n. "]);
		return `token:\n${header()}${sep}${payload()}.${pick(B64URL, 43)}`;
	});
	// Private-key blocks whose body is not base64, is elided, or is cut off after the header.
	add("private key non-base64 or truncated", () => {
		const kind = oneOf(["", "RSA ", "EC ", "DSA ", "OPENSSH ", "ENCRYPTED "]);
		const body = oneOf([
			() => "",
			() => "\n...",
			() => `\n${pick(B64, int(4, 30))}`,
			() => `\n${pick(ALNUM, 20)} <key material removed> ${pick(ALNUM, 10)}`,
			() => `\n${pick(B64, 64)}\n${pick(B64, 20)}\n-----END ${kind}PRIVATE KEY-----`,
		])();
		return `-----BEGIN ${kind}PRIVATE KEY-----${body}`;
	});
	// Passwords in URLs: more schemes, an empty user, a "%" or percent-encoded characters in the password.
	add("url password, other schemes", () => {
		const scheme = oneOf(["amqps", "smtp", "sftp", "wss", "ldap", "clickhouse", "git+https", "redis", "postgresql", "jdbc:mysql"]);
		const user = oneOf(["", "app", "svc-deploy", "default", "mailer"]);
		const raw = `${pick(ALNUM, int(6, 14))}${oneOf(["%", "!", "#", "@", "/"])}${pick(ALNUM, int(3, 8))}`;
		const password = oneOf([raw.replace(/[#@/]/g, "%"), encodeURIComponent(raw), `%${pick(ALNUM, int(8, 16))}`]);
		return `${scheme}://${user}:${password}@${oneOf(["mq.internal:5671", "smtp.example.com:587", "db:5432", "10.1.2.3"])}/x`;
	});
	// A token as the whole user-info of a clone or API URL.
	add("url token user-info", () => {
		const token = oneOf([() => pick(ALNUM, 40), () => pick(HEX, 40), () => pick(B64URL, int(24, 60))])();
		return oneOf([
			`git clone https://${token}@github.com/acme/api.git`,
			`remote: https://${token}@git.example.com/team/app.git`,
			`curl https://${token}@api.example.net/v2/items`,
		]);
	});
	// Passwords in URLs.
	add("url password", () => {
		const scheme = oneOf(["https", "http", "postgres", "mysql", "redis", "amqp", "mongodb+srv", "ftp"]);
		const host = oneOf(["db.internal", "example.com", "10.0.3.7:5432", "cache.local", "registry.corp.net"]);
		return `${scheme}://${pick(ALNUM.slice(26, 52), int(3, 10))}:${pick(`${ALNUM}!$&*`, int(8, 24))}@${host}/${pick(ALNUM.slice(26, 52), 5)}`;
	});
	// GitLab token families: personal, runner authentication and registration, incoming mail, deploy,
	// feed, SCIM, trigger, CI job, OAuth application, agent, feature flags.
	add("gitlab", () => {
		const prefix = oneOf([
			"glpat-",
			"glrt-",
			"glrtr-",
			"glimt-",
			"gldt-",
			"glft-",
			"glsoat-",
			"glptt-",
			"glcbt-",
			"gloas-",
			"glagent-",
			"glffct-",
			"glwt-",
		]);
		const body = prefix === "glcbt-" ? `${int(1, 99)}_${pick(B64URL, 20)}` : pick(B64URL, oneOf([20, 25, 27, 40, 64]));
		return context(`${prefix}${body}`);
	});
	// GitLab tokens inside URLs and addresses: an incoming-mail token in a reply address, a token in a path.
	add("gitlab in urls and addresses", () => {
		const prefix = oneOf(["glimt-", "glpat-", "glrt-", "glrtr-", "glft-", "gldt-", "glptt-"]);
		const token = `${prefix}${pick(prefix === "glimt-" ? "abcdefghijklmnopqrstuvwxyz0123456789" : B64URL, oneOf([20, 25, 27]))}`;
		return oneOf([
			`Reply to incoming+acme-web-${int(1, 9999)}-${token}-issue@gitlab.example.com`,
			`https://gitlab.example.com/-/incoming/${token}`,
			`https://gitlab.example.com/api/v4/projects/${int(1, 999)}/trigger/pipeline?token=${token}&ref=main`,
			`https://gitlab.example.com/dashboard/projects.atom?feed_token=${token}`,
		]);
	});
	add("gitlab runner registration", () => context(`GR1348941${pick(B64URL, 20)}`));
	// The other families the policy lists, in their providers' formats.
	add("github", () => context(`${oneOf(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"])}${pick(ALNUM, 36)}`));
	add("github fine-grained", () => context(`github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`));
	add("aws access key id", () => context(`${oneOf(["AKIA", "ASIA", "ABIA", "ACCA"])}${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", 16)}`));
	add("stripe", () => context(`${oneOf(["sk_live_", "sk_test_", "rk_live_", "rk_test_"])}${pick(ALNUM, oneOf([24, 34, 99]))}`));
	add("stripe webhook secret", () => context(`whsec_${pick(ALNUM, 32)}`));
	add("openai", () => context(`sk-proj-${pick(B64URL, 74)}T3BlbkFJ${pick(B64URL, 74)}`));
	add("anthropic", () => context(`sk-ant-api03-${pick(B64URL, 93)}AA`));
	add("npm", () => context(`npm_${pick(ALNUM, 36)}`));
	add("pypi", () => context(`pypi-AgEIcHlwaS5vcmc${pick(B64URL, int(60, 160))}`));
	add("huggingface", () => context(`hf_${pick(ALNUM.slice(0, 52), 34)}`));
	add("digitalocean", () => context(`${oneOf(["dop_v1_", "doo_v1_"])}${pick(HEX, 64)}`));
	add("shopify", () => context(`${oneOf(["shpat_", "shpss_", "shpca_"])}${pick(HEX, 32)}`));
	add("sendgrid", () => context(`SG.${pick(B64URL, 22)}.${pick(B64URL, 43)}`));
	add("brevo", () => context(`xkeysib-${pick(HEX, 64)}-${pick(ALNUM, 16)}`));
	add("google oauth access token", () => context(`ya29.${pick(B64URL, int(60, 180))}`));
	// Legacy or off-format values behind a prefix: the policy refuses them too.
	add("prefix off-format", () =>
		context(`${oneOf(["ghp_", "glpat-", "xoxb-", "sk_live_", "npm_", "hf_", "SG."])}${pick(ALNUM, int(8, 14))}${int(0, 9)}`),
	);

	// Look-alikes the policy says are not credentials.
	add(
		"placeholders",
		() =>
			oneOf([
				() => `export GITHUB_TOKEN=ghp_${"x".repeat(36)}`,
				() => `token: <token>`,
				() => `SLACK_TOKEN=xoxb-your-token-here`,
				() => `api_key = "your-key-here"`,
				() => `password: ***`,
				() => `Authorization: Bearer \${TOKEN}`,
				() => `glpat-${"X".repeat(20)}`,
				() => `-----BEGIN PUBLIC KEY-----\n${pick(B64, 64)}\n-----END PUBLIC KEY-----`,
			])(),
		"non-secret",
	);
	add(
		"prose naming a prefix",
		() =>
			oneOf([
				() => `GitHub personal tokens start with \`ghp_\`; fine-grained ones with \`github_pat_\`.`,
				() => `GitLab runner tokens begin glrt- and deploy tokens gldt-.`,
				() => `Slack bot tokens look like xoxb-… and user tokens xoxp-….`,
				() => `A JWT starts with eyJ because that is base64 for {".`,
				() => `Rotate the key if a PRIVATE KEY block was ever committed.`,
			])(),
		"non-secret",
	);
	add(
		"ids, paths and urls without a password",
		() =>
			oneOf([
				() => `AWS account id ${pick(DIGITS, 12)} in eu-west-1`,
				() => `tenant id ${pick(HEX, 8)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 4)}-${pick(HEX, 12)}`,
				() => `the file lives at /home/${pick(ALNUM.slice(26, 52), 6)}/.config/app/settings.json`,
				() => `https://${pick(ALNUM.slice(26, 52), 5)}@github.com/org/repo.git`,
				() => `postgres://db.internal:5432/${pick(ALNUM.slice(26, 52), 6)}`,
				() => `commit ${pick(HEX, 40)} fixed the build`,
				() =>
					`Slack channel C${pick(DIGITS.concat("ABCDEFGHIJKLMNOPQRSTUVWXYZ"), 10)} and user U${pick("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 10)}`,
			])(),
		"non-secret",
	);
	return out;
}
