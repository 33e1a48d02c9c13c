/**
 * Synthetic credentials in the formats providers issue, with random bodies, and the look-alikes a
 * detector must leave alone: the held-out set for the secret detector's tests and benchmark
 * (test/secrets-families-unit.test.ts, scripts/bench/secrets.ts). Test data: it lives outside src/ so
 * the Worker cannot import it.
 */

/** A labelled sample. */
export interface SyntheticSample {
	text: string;
	label: "secret" | "non-secret";
	/** The rule that must find a secret (an id of src/security/secret-rules.ts or secret-policy.ts); `not:<family>` for a look-alike. */
	rule: string;
	family: string;
}

/** A small deterministic PRNG (mulberry32) so synthetic sets are stable between runs. */
export function rng(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LOWER_ALNUM = "abcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const HEX = "0123456789abcdef";
const B64 = `${ALNUM}+/`;
const B64U = `${ALNUM}-_`;
const DIGITS = "0123456789";
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function b64encode(s: string): string {
	return btoa(s);
}
const b64url = (s: string) => b64encode(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * Credentials in the formats providers issue, with random bodies, placed in the contexts they turn
 * up in (env files, YAML, JSON, code, shell, prose, HTTP); and the look-alikes that must not fire.
 * Deterministic for a seed.
 */
export function syntheticSamples(seed = 20_260_701, perFamily = 6): SyntheticSample[] {
	const r = rng(seed);
	const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
	const int = (lo: number, hi: number) => lo + Math.floor(r() * (hi - lo + 1));
	const s = (alphabet: string, n: number) => {
		let out = "";
		for (let i = 0; i < n; i++) out += alphabet[Math.floor(r() * alphabet.length)];
		return out;
	};
	const digits = (n: number) => String(int(1, 9)) + s(DIGITS, n - 1);
	const password = () =>
		pick([
			() => `${s(LETTERS, 4)}${s(DIGITS, 2)}${pick(["!", "#", "%", "@", "$", "^"])}${s(ALNUM, int(5, 10))}`,
			() => `${pick(["Winter", "Blue", "Rocket", "Maple", "Tiger", "Ocean"])}${s(DIGITS, 3)}${pick(["!", "?", "#", "*"])}${s(LETTERS, 3)}`,
			() => s(ALNUM, int(16, 24)),
			() => `${s(LOWER_ALNUM, 8)}-${s(LOWER_ALNUM, 8)}`,
		])();
	const host = () =>
		pick(["db.internal", "10.0.3.12", "prod-db-1.cluster-abc123.eu-west-1.rds.amazonaws.com", "pg.acme.io", "cache.svc.local"]);
	const user = () => pick(["app", "deploy", "svc_backend", "analytics", "billing", "ci-runner"]);
	const pem = (kind: string, lines: number, end = true, headers = "") => {
		const body = Array.from({ length: lines }, () => s(B64, 64)).join("\n");
		return `-----BEGIN ${kind}-----\n${headers}${body}\n${s(B64, int(8, 60))}${end ? `\n-----END ${kind}-----` : ""}`;
	};
	const jwt = (alg: string, sigLength: number) => {
		const header = b64url(JSON.stringify({ alg, typ: "JWT" }));
		const payload = b64url(
			JSON.stringify({
				sub: s(DIGITS, 10),
				name: pick(["ana", "li", "sam"]),
				iat: int(1.6e9, 1.8e9),
				exp: int(1.8e9, 1.9e9),
				scope: "read write",
			}),
		);
		return `${header}.${payload}.${s(B64U, sigLength)}`;
	};
	const wrap = (v: string, width: number, indent = "") => v.match(new RegExp(`.{1,${width}}`, "g"))?.join(`\n${indent}`) ?? v;

	// Each family: a generator of the secret value, tagged with the rule of src/security/secret-rules.ts (or
	// secret-policy.ts) that must find it, and the contexts it is written in.
	type Gen = () => string;
	type Tagged = { rule: string; value: string };
	const by = (rule: string, value: string): Tagged => ({ rule, value });
	const families: Record<string, () => Tagged> = {
		// The policy: a value in a provider's real format is a secret even when it is a documented example,
		// and a private-key header is enough on its own (docs/reliability.md, "Secret policy").
		"aws-documented-example": () => by("provider-prefix", pick(["AKIAIOSFODNN7EXAMPLE", "AKIAI44QH8DHBEXAMPLE"])),
		"private-key-header": () =>
			by(
				"private-key-header",
				pick([
					"-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----",
					"-----BEGIN OPENSSH PRIVATE KEY-----",
					`-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEI${s(B64, 6)}`,
					"-----BEGIN RSA PRIVATE KEY-----\n(elided)\n-----END RSA PRIVATE KEY-----",
				]),
			),
		"jwt-unsigned-or-split": () =>
			pick([
				by("jwt-segments", `eyJhbGciOiJub25lIn0.eyJzdWIiOiI${s(B64U, 24)}`),
				by("jwt-segments", `eyJhbGciOiJIUzI1NiJ9 . eyJzdWIiOiI${s(B64U, 20)} . ${s(B64U, 43)}`),
				// The JWT scanner reads a token broken before a dot: a signed one is its.
				by("jwt", `eyJhbGciOiJIUzI1NiJ9\n.eyJzdWIiOiI${s(B64U, 20)}.${s(B64U, 43)}`),
			]),
		"slack-legacy": () =>
			by("provider-prefix", `${pick(["xoxp", "xoxs", "xoxr", "xoxo"])}-${digits(int(3, 5))}-${digits(int(3, 5))}-${s(HEX, int(16, 33))}`),
		"prefix-off-format": () => {
			const prefix = pick(["ghp_", "glpat-", "npm_", "sk_live_", "hf_"]);
			const body = `${s(ALNUM, int(8, 15))}1`;
			// Stripe's rule takes a body of 10 characters or more: such a value is in its format, not off it.
			return by(prefix === "sk_live_" && body.length >= 10 ? "stripe-key" : "provider-prefix", `${prefix}${body}`);
		},
		"slack-bot": () => by("slack-token", `xoxb-${digits(int(10, 13))}-${digits(int(10, 13))}-${s(ALNUM, 24)}`),
		"slack-user": () => by("slack-token", `xoxp-${digits(12)}-${digits(12)}-${digits(13)}-${s(HEX, 32)}`),
		"slack-workspace": () => by("slack-token", `${pick(["xoxa", "xoxr", "xoxs"])}-${digits(12)}-${digits(13)}-${s(ALNUM, 32)}`),
		"slack-config": () => by("slack-token", pick([`xoxe.xoxp-1-${s(ALNUM, 163)}`, `xoxe-1-${s(ALNUM, 146)}`])),
		"slack-app": () => by("slack-app-token", `xapp-1-A${s(UPPER_ALNUM, 10)}-${digits(13)}-${s(HEX, 64)}`),
		"slack-webhook": () =>
			by(
				"slack-webhook",
				pick([
					`https://hooks.slack.com/services/T${s(UPPER_ALNUM, 10)}/B${s(UPPER_ALNUM, 10)}/${s(ALNUM, 24)}`,
					`https://hooks.slack.com/workflows/T${s(UPPER_ALNUM, 9)}/A${s(UPPER_ALNUM, 10)}/${digits(18)}/${s(ALNUM, 24)}`,
				]),
			),
		"discord-bot": () => by("discord-bot-token", `${b64url(digits(int(18, 19)))}.${s(B64U, 6)}.${s(B64U, pick([27, 38]))}`),
		// By shape alone: the documented lengths, a first part that need not decode to a user id.
		"discord-bot-shape": () => by("discord-bot-token", `${s(B64U, int(24, 28))}.${s(B64U, 6)}.${s(B64U, int(27, 38))}`),
		"discord-webhook": () =>
			by(
				"discord-webhook",
				`https://${pick(["discord.com", "discordapp.com", "ptb.discord.com"])}/api/webhooks/${digits(18)}/${s(B64U, 68)}`,
			),
		"private-key-rsa": () => by("private-key", pem("RSA PRIVATE KEY", int(10, 25))),
		"private-key-pkcs8": () => by("private-key", pem("PRIVATE KEY", int(10, 25))),
		"private-key-openssh": () =>
			by(
				"private-key",
				`-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA${s(B64, 46)}\n${s(B64, 70)}\n${s(B64, 70)}\n-----END OPENSSH PRIVATE KEY-----`,
			),
		"private-key-ec": () => by("private-key", pem("EC PRIVATE KEY", 3)),
		"private-key-dsa": () => by("private-key", pem("DSA PRIVATE KEY", 10)),
		"private-key-encrypted": () => by("private-key", pem("ENCRYPTED PRIVATE KEY", 12)),
		"private-key-legacy-encrypted": () =>
			by("private-key", pem("RSA PRIVATE KEY", 12, true, `Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,${s(HEX, 32).toUpperCase()}\n\n`)),
		"private-key-pgp": () => by("private-key", pem("PGP PRIVATE KEY BLOCK", 14, true, "Version: GnuPG v2\nComment: backup\n\n")),
		"private-key-no-end": () =>
			by("private-key", pem(pick(["RSA PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY", "EC PRIVATE KEY"]), int(1, 3), false)),
		"private-key-json-escaped": () => by("private-key", JSON.stringify({ private_key: pem("PRIVATE KEY", 8) })),
		"jwt-hs256": () => by("jwt", jwt("HS256", 43)),
		"jwt-rs256": () => by("jwt", jwt("RS256", 342)),
		"jwt-wrapped": () => by("jwt", wrap(jwt("HS256", 43), 60)),
		"jwt-wrapped-indented": () => by("jwt", wrap(jwt("RS256", 342), 76, "    ")),
		"pypi-token": () => by("pypi-token", `pypi-AgEIcHlwaS5vcmc${s(B64U, int(150, 190))}`),
		postgres: () => by("credentials-in-url", `postgres://${user()}:${password()}@${host()}:5432/${pick(["app", "main", "orders"])}`),
		"mongodb-srv": () =>
			by(
				"credentials-in-url",
				`mongodb+srv://${user()}:${password()}@cluster0.${s(LOWER_ALNUM, 5)}.mongodb.net/app?retryWrites=true&w=majority`,
			),
		redis: () =>
			by("credentials-in-url", pick([`redis://:${password()}@${host()}:6379/0`, `rediss://default:${password()}@${host()}:6380`])),
		amqp: () => by("credentials-in-url", `amqp${pick(["", "s"])}://${user()}:${password()}@${host()}:5672/${pick(["%2F", "vhost"])}`),
		mysql: () => by("credentials-in-url", `mysql://${user()}:${password()}@${host()}:3306/app`),
		// Connection strings have no format of their own: the password is found by its name.
		"jdbc-password": () =>
			by(
				"secret-assignment",
				pick([
					`jdbc:postgresql://${host()}:5432/app?user=${user()}&password=${password()}&ssl=true`,
					`jdbc:sqlserver://${host()}:1433;databaseName=app;user=sa;password=${password()};encrypt=true`,
				]),
			),
		"odbc-pwd": () =>
			by(
				"secret-assignment",
				`Driver={ODBC Driver 18 for SQL Server};Server=tcp:${host()},1433;Database=app;Uid=${user()};Pwd=${password()};Encrypt=yes;`,
			),
		"adonet-password": () =>
			by("secret-assignment", `Server=${host()};Database=app;User Id=${user()};Password=${password()};TrustServerCertificate=True`),
		"url-credentials": () =>
			by(
				"credentials-in-url",
				pick([
					`https://${user()}:${s(ALNUM, 32)}@${pick(["artifacts.acme.io", "registry.corp.net", "nexus.internal"])}/repository/npm/`,
					`https://x-access-token:ghs_${s(ALNUM, 36)}@github.com/acme/api.git`,
					`https://oauth2:glpat-${s(B64U, 20)}@gitlab.com/acme/web.git`,
				]),
			),
		"aws-access-key-id": () => by("aws-access-key-id", `${pick(["AKIA", "ASIA"])}${s(BASE32, 16)}`),
		"aws-secret": () => by("aws-secret-access-key", `aws_secret_access_key = ${s(B64, 40)}`),
		"gcp-service-account": () =>
			by(
				"gcp-service-account",
				JSON.stringify(
					{
						type: "service_account",
						project_id: `acme-${s(LOWER_ALNUM, 6)}`,
						private_key_id: s(HEX, 40),
						private_key: pem("PRIVATE KEY", 6),
						client_email: "svc@acme.iam.gserviceaccount.com",
					},
					null,
					2,
				),
			),
		"azure-storage": () =>
			by(
				"azure-storage-account-key",
				`DefaultEndpointsProtocol=https;AccountName=acme${s(LOWER_ALNUM, 6)};AccountKey=${s(B64, 86)}==;EndpointSuffix=core.windows.net`,
			),
		"azure-sas": () =>
			by(
				"azure-sas-signature",
				`https://acme.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=sco&sp=rl&se=2026-01-01T00:00:00Z&spr=https&sig=${encodeURIComponent(`${s(B64, 43)}=`)}`,
			),
		"azure-service-bus": () =>
			by(
				"azure-shared-access-key",
				`Endpoint=sb://acme.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=${s(B64, 43)}=`,
			),
		"azure-client-secret": () => by("azure-ad-client-secret", `${s(ALNUM, 3)}${int(7, 8)}Q~${s(`${ALNUM}_~.-`, 34)}`),
		github: () => by("github-token", `${pick(["ghp", "gho", "ghu", "ghs", "ghr"])}_${s(ALNUM, 36)}`),
		"github-fine-grained": () => by("github-fine-grained-pat", `github_pat_${s(ALNUM, 22)}_${s(ALNUM, 59)}`),
		gitlab: () =>
			pick([
				by("gitlab-token", `glpat-${s(B64U, 20)}`),
				by("gitlab-token", `gldt-${s(B64U, 20)}`),
				by("gitlab-token", `glrt-${s(B64U, 20)}`),
				by("gitlab-runner-registration", `GR1348941${s(B64U, 20)}`),
				by("gitlab-token", `glpat-${s(B64U, 27)}.01.${s(LOWER_ALNUM, 7)}`),
			]),
		npm: () => by("npm-token", `npm_${s(ALNUM, 36)}`),
		stripe: () =>
			pick([
				by("stripe-key", `sk_live_51${s(ALNUM, 97)}`),
				by("stripe-key", `rk_live_${s(ALNUM, 24)}`),
				by("stripe-webhook-secret", `whsec_${s(ALNUM, 32)}`),
				by("stripe-key", `sk_test_${s(ALNUM, 24)}`),
			]),
		openai: () =>
			by(
				"openai-api-key",
				pick([
					`sk-proj-${s(B64U, 74)}T3BlbkFJ${s(B64U, 74)}`,
					`sk-svcacct-${s(B64U, 58)}T3BlbkFJ${s(B64U, 58)}`,
					`sk-${s(ALNUM, 20)}T3BlbkFJ${s(ALNUM, 20)}`,
				]),
			),
		anthropic: () => by("anthropic-api-key", `sk-ant-${pick(["api03", "admin01"])}-${s(B64U, 93)}AA`),
		"google-api-key": () => by("google-api-key", `AIzaSy${s(B64U, 33)}`),
		"twilio-api-key": () => by("twilio-api-key", `SK${s(HEX, 32)}`),
		"twilio-auth-token": () => by("twilio-auth-token", `TWILIO_ACCOUNT_SID=AC${s(HEX, 32)}\nTWILIO_AUTH_TOKEN=${s(HEX, 32)}`),
		sendgrid: () => by("sendgrid-api-key", `SG.${s(B64U, 22)}.${s(B64U, 43)}`),
		mailchimp: () => by("mailchimp-api-key", `${s(HEX, 32)}-us${int(1, 21)}`),
		telegram: () => by("telegram-bot-token", `${digits(int(9, 10))}:AA${s(B64U, 33)}`),
		huggingface: () => by("huggingface-token", `hf_${s(LETTERS, 34)}`),
		shopify: () => by("shopify-token", `${pick(["shpat", "shpss", "shpca", "shppa"])}_${s(HEX, 32)}`),
		digitalocean: () => by("digitalocean-token", `${pick(["dop", "doo", "dor"])}_v1_${s(HEX, 64)}`),
		heroku: () =>
			pick([
				by("heroku-api-key", `HRKU-AA${s(B64U, 58)}`),
				// A legacy key is a UUID: found by its name.
				by("secret-assignment", `HEROKU_API_KEY=${s(HEX, 8)}-${s(HEX, 4)}-4${s(HEX, 3)}-a${s(HEX, 3)}-${s(HEX, 12)}`),
			]),
		// Datadog's API and application keys are plain hex (only its newer ones have a prefix): found by their names.
		datadog: () =>
			by("secret-assignment", pick([`DD_API_KEY=${s(HEX, 32)}`, `DD_APP_KEY=${s(HEX, 40)}`, `-H "DD-API-KEY: ${s(HEX, 32)}"`])),
		sentry: () =>
			pick([
				by("credentials-in-url", `https://${s(HEX, 32)}:${s(HEX, 32)}@o${digits(6)}.ingest.sentry.io/${digits(7)}`),
				by("sentry-token", `sntryu_${s(HEX, 64)}`),
				by(
					"sentry-token",
					`sntrys_${b64encode(JSON.stringify({ iat: int(1.6e9, 1.8e9), url: "https://sentry.io", region_url: "https://us.sentry.io", org: "acme" }))}_${s(B64, 43)}`,
				),
			]),
		vault: () => by("vault-token", pick([`hvs.CAESI${s(B64U, 90)}`, `hvb.AAAAAQ${s(B64U, 140)}`])),
		doppler: () => by("doppler-token", pick([`dp.pt.${s(ALNUM, 43)}`, `dp.st.${pick(["dev", "prd"])}.${s(ALNUM, 40)}`])),
		linear: () => by("linear-api-key", `lin_api_${s(ALNUM, 40)}`),
		notion: () => by("notion-token", pick([`secret_${s(ALNUM, 43)}`, `ntn_${digits(11)}${s(ALNUM, 35)}`])),
		databricks: () => by("databricks-token", `dapi${s(HEX, 32)}${pick(["", "-2"])}`),
		atlassian: () => by("atlassian-api-token", `ATATT3xFfGF0${s(B64U, 170)}=${s(HEX, 8).toUpperCase()}`),
		"docker-hub": () => by("docker-hub-token", `dckr_pat_${s(B64U, 27)}`),
		postman: () => by("postman-api-key", `PMAK-${s(HEX, 24)}-${s(HEX, 34)}`),
		grafana: () =>
			pick([
				by(
					"grafana-cloud-token",
					`glc_${b64encode(JSON.stringify({ o: digits(6), n: `stack-${digits(6)}-hm-read`, k: s(ALNUM, 24), m: { r: "us" } }))}`,
				),
				by("grafana-service-account-token", `glsa_${s(ALNUM, 32)}_${s(HEX, 8)}`),
			]),
		"new-relic": () => by("newrelic-key", `NRAK-${s(UPPER_ALNUM, 27)}`),
		// Cloudflare's API tokens and global keys without the newer prefixes have no format: found by their names.
		cloudflare: () =>
			by(
				"secret-assignment",
				pick([`CLOUDFLARE_API_TOKEN=${s(B64U, 40)}`, `CF_API_KEY=${s(HEX, 37)}`, `cloudflare_api_token: "${s(B64U, 40)}"`]),
			),
		"basic-auth-header": () => by("http-auth-header", `Authorization: Basic ${b64encode(`${user()}:${password()}`)}`),
		"bearer-token": () => by("bearer-token", `Authorization: Bearer ${s(B64U, int(32, 64))}`),
		"generic-env": () =>
			by(
				"secret-assignment",
				`${pick(["API_KEY", "SECRET_KEY", "AUTH_TOKEN", "CLIENT_SECRET", "SIGNING_SECRET", "WEBHOOK_SECRET"])}=${s(ALNUM, int(24, 48))}`,
			),
		"generic-yaml": () =>
			by("secret-assignment", `${pick(["api_key", "client_secret", "access_token", "secret"])}: ${s(ALNUM, int(24, 48))}`),
		"generic-json": () =>
			by("secret-assignment", `{"${pick(["apiKey", "clientSecret", "accessToken", "refresh_token"])}": "${s(B64U, int(24, 64))}"}`),
		"generic-code": () =>
			by("secret-assignment", `const ${pick(["apiToken", "stripeSecret", "authKey", "privateKey"])} = "${s(ALNUM, int(24, 48))}";`),
		"password-assignment": () =>
			by("secret-assignment", `${pick(["DB_PASSWORD", "password", "PGPASSWORD", "redis_password", "smtp_pass"])}=${password()}`),
		"cli-password-flag": () =>
			pick([
				by("cli-secret-flag", `--password=${password()}`),
				by("cli-secret-flag", `--password '${password()}'`),
				by("mysql-password-flag", `mysql -u root -p${password()} app`),
				by("sshpass-password", `sshpass -p '${password()}' ssh deploy@host`),
			]),
		"cli-token-flag": () => by("cli-secret-flag", `${pick(["vercel deploy", "gh auth login", "deploy.sh"])} --token ${s(ALNUM, 40)}`),
		npmrc: () => by("npm-token", `//registry.npmjs.org/:_authToken=${s(ALNUM, 36).replace(/^/, "npm_").slice(0, 40)}`),
		"curl-user": () => by("curl-user", `curl -u ${user()}:${password()} https://api.acme.io/v1/items`),
	};
	const contexts: ((v: string) => string)[] = [
		(v) => v,
		(v) => `Here is what I found in the config: ${v} — rotate it.`,
		(v) => `export TOKEN_VALUE="${v}"`,
		(v) => `{\n  "value": "${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"\n}`,
		(v) => `\`\`\`\n${v}\n\`\`\``,
		(v) => `notes:\n  - ${v}\n`,
	];
	const out: SyntheticSample[] = [];
	for (const [family, gen] of Object.entries(families)) {
		for (let i = 0; i < perFamily; i++) {
			const { rule, value } = gen();
			out.push({ family, rule, label: "secret", text: contexts[i % contexts.length]?.(value) ?? value });
		}
	}

	// Look-alikes.
	const uuid = () => `${s(HEX, 8)}-${s(HEX, 4)}-4${s(HEX, 3)}-${pick(["8", "9", "a", "b"])}${s(HEX, 3)}-${s(HEX, 12)}`;
	const prose = ["the quick brown fox jumps over the lazy dog", "release notes for the next version", "hello world from the build server"];
	const negatives: Record<string, Gen> = {
		uuid: () => pick([`requestId = "${uuid()}"`, `Trace ${uuid()} failed`, `"id": "${uuid()}"`, `session ${uuid()} resumed`]),
		"git-sha": () =>
			pick([`commit ${s(HEX, 40)}`, `SRCREV = "${s(HEX, 40)}"`, `Fixed in ${s(HEX, 7)} and ${s(HEX, 40)}.`, `"sha": "${s(HEX, 40)}"`]),
		"content-hash": () =>
			pick([`sha256:${s(HEX, 64)}`, `checksum: ${s(HEX, 64)}`, `"digest": "sha256:${s(HEX, 64)}"`, `md5 ${s(HEX, 32)}  file.tar.gz`]),
		"base64-prose": () => `data: ${b64encode(pick(prose))}`,
		"css-colour": () => `color: #${s(HEX, 6)}; background: #${s(HEX, 3)}; border-color: 0x${s(HEX, 8).toUpperCase()}`,
		"integrity-hash": () => `"integrity": "sha512-${s(B64, 86)}=="`,
		identifier: () =>
			pick([
				"const getUserAuthenticationTokenFromSessionStorage = () => null;",
				"tokenRefreshIntervalMilliseconds = 300000",
				"secretManagerClientConfiguration: SecretManagerClientConfig",
				"passwordResetEmailTemplateIdentifier = 'password-reset-v2'",
			]),
		placeholder: () =>
			pick([
				"OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
				"export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX",
				"api_key: <YOUR_API_KEY>",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell template is the case under test.
				"token = ${API_TOKEN}",
				"STRIPE_SECRET_KEY=sk_live_...",
				"password: your-password-here",
				"SLACK_BOT_TOKEN=xoxb-your-bot-token",
				"Authorization: Bearer <token>",
				"postgres://user:password@localhost:5432/db",
			]),
		"public-key": () =>
			pick([
				`ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI${s(B64, 43)} dev@laptop`,
				`-----BEGIN PUBLIC KEY-----\n${s(B64, 64)}\n${s(B64, 64)}\n-----END PUBLIC KEY-----`,
				`-----BEGIN CERTIFICATE-----\n${s(B64, 64)}\n${s(B64, 64)}\n-----END CERTIFICATE-----`,
			]),
		"code-reference": () =>
			pick([
				"const token = await getToken(ctx);",
				"password: z.string().min(8),",
				"apiKey: process.env.OPENAI_API_KEY,",
				'secret = os.environ["APP_SECRET"]',
				// biome-ignore lint/suspicious/noTemplateCurlyInString: code with a template literal is the case under test.
				"headers: { Authorization: `Bearer ${token}` },",
				// biome-ignore lint/suspicious/noTemplateCurlyInString: code with a template literal is the case under test.
				"const key = `${prefix}:${id}`;",
				"token: string;",
			]),
		"public-token": () =>
			pick([`pk_live_${s(ALNUM, 24)}`, `pk.eyJ1IjoiYWNtZSIsImEiOiJjbG${s(B64U, 20)}.${s(B64U, 22)}`, `"nonce": "${s(ALNUM, 8)}"`]),
		"version-and-paths": () =>
			pick([
				"Upgraded wrangler from 4.12.0 to 4.164.0 (see CHANGELOG.md)",
				"/Users/dev/projects/acme/node_modules/.pnpm/hono@4.13.19/node_modules/hono/dist/index.js",
				"https://registry.npmjs.org/@secretlint/core/-/core-13.1.0.tgz",
				"image: ghcr.io/acme/api@sha256:0d3f1e9b8c7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
			]),
		"asset-hash": () => `<script src="/assets/index-${s(ALNUM, 8)}.js"></script><link href="/assets/app.${s(HEX, 20)}.css">`,
		"data-uri": () => `background: url(data:image/png;base64,iVBORw0KGgo${s(B64, 120)}=)`,
		"csrf-and-state": () =>
			pick([
				`csrf_token = "${s(B64U, 43)}"`,
				`<input type="hidden" name="authenticity_token" value="${s(B64, 86)}==">`,
				`state=${s(B64U, 32)}&code_challenge=${s(B64U, 43)}`,
			]),
		"pagination-token": () => pick([`"nextPageToken": "${s(B64U, 40)}"`, `next_page_token: ${s(B64U, 32)}`, "max_tokens: 4096"]),
	};
	for (const [family, gen] of Object.entries(negatives)) {
		for (let i = 0; i < perFamily; i++) out.push({ family: `not:${family}`, rule: `not:${family}`, label: "non-secret", text: gen() });
	}
	return out;
}
