// The written secret policy (docs/reliability.md, "Secret policy: refuse when in doubt") as a rule of
// its own, for measuring the detector by the policy rather than by a corpus's labels. It imports
// nothing — above all nothing from src/security — so the detector cannot grade itself: it is a
// separate, small reading of the policy's statements, with prefixes and shapes taken from the
// providers' descriptions of their formats and never a list of values.
//
// A verdict is "secret" when one of the policy's statements holds somewhere in the text, "not" when
// the text's only candidates are what the policy says are not credentials (placeholders, account
// and tenant ids, paths, prose naming a prefix), and "silent" otherwise: there the policy says
// nothing and a corpus's own label stands.

export type Verdict = { verdict: "secret"; family: string } | { verdict: "not"; why: string } | { verdict: "silent" };

/** A provider's prefix, the family it belongs to (the policy's families, then other providers' formats). */
const PREFIXES: [string, string][] = [
	// GitHub: personal, OAuth, user-to-server, server-to-server, refresh, fine-grained.
	...["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"].map((p): [string, string] => [p, "github"]),
	// GitLab: every prefix GitLab documents for its tokens.
	...[
		"glpat-",
		"glrt-",
		"glrtr-",
		"GR1348941",
		"glcbt-",
		"glimt-",
		"gldt-",
		"glft-",
		"gloas-",
		"glsoat-",
		"glptt-",
		"glagent-",
		"glffct-",
		"glwt-",
		"glcst-",
	].map((p): [string, string] => [p, "gitlab"]),
	// Slack: bot, user, workspace, refresh, session, legacy, configuration, app-level.
	...["xoxb-", "xoxp-", "xoxa-", "xoxr-", "xoxs-", "xoxo-", "xoxe-", "xoxe.", "xapp-"].map((p): [string, string] => [p, "slack"]),
	...["AKIA", "ASIA", "ABIA", "ACCA", "A3T"].map((p): [string, string] => [p, "aws"]),
	...["sk_live_", "sk_test_", "rk_live_", "rk_test_", "whsec_"].map((p): [string, string] => [p, "stripe"]),
	["sk-ant-", "anthropic"],
	["sk-proj-", "openai"],
	["sk-svcacct-", "openai"],
	["sk-admin-", "openai"],
	["npm_", "npm"],
	["pypi-", "pypi"],
	["hf_", "huggingface"],
	["api_org_", "huggingface"],
	...["dop_v1_", "doo_v1_", "dor_v1_"].map((p): [string, string] => [p, "digitalocean"]),
	...["shpat_", "shpss_", "shpca_", "shppa_"].map((p): [string, string] => [p, "shopify"]),
	["SG.", "sendgrid"],
	...["xkeysib-", "xsmtpsib-"].map((p): [string, string] => [p, "brevo"]),
	["ya29.", "google-oauth"],
	// Other providers whose documentation gives a prefix.
	["AIza", "google-api-key"],
	["glc_", "grafana"],
	["glsa_", "grafana"],
	["hvs.", "vault"],
	["hvb.", "vault"],
	["hvr.", "vault"],
	["dapi", "databricks"],
	["dckr_pat_", "docker"],
	["figd_", "figma"],
	["lin_api_", "linear"],
	["ntn_", "notion"],
	["gsk_", "groq"],
	["tskey-", "tailscale"],
	...["vcp_", "vci_", "vca_", "vcr_", "vck_"].map((p): [string, string] => [p, "vercel"]),
	["ops_", "1password"],
	...["cfk_", "cfut_", "cfat_"].map((p): [string, string] => [p, "cloudflare"]),
	["sgp_", "sourcegraph"],
	["pplx-", "perplexity"],
	["pnu_", "prefect"],
	["pul-", "pulumi"],
	["rdme_", "readme"],
	["API-", "octopus-deploy"],
	["sntrys_", "sentry"],
	["sntryu_", "sentry"],
	["PMAK-", "postman"],
	["ATATT", "atlassian"],
	["ATBB", "bitbucket"],
	["LTAI", "alibaba"],
	["AGE-SECRET-KEY-1", "age"],
	["dp.pt.", "doppler"],
	["dp.st.", "doppler"],
	["pscale_tkn_", "planetscale"],
	["pscale_pw_", "planetscale"],
	["fio-u-", "frameio"],
	["ico-", "infracost"],
	["sb_secret_", "supabase"],
	["rubygems_", "rubygems"],
	["EZAK", "easypost"],
	["EZTK", "easypost"],
	["FlyV1 ", "flyio"],
	["fm1r_", "flyio"],
	["fm2_", "flyio"],
	["sha256~", "openshift"],
	["nvapi-", "nvidia"],
	["ABSK", "aws-bedrock"],
	["bedrock-api-key-", "aws-bedrock"],
	["EAA", "facebook"],
	["sq0atp-", "square"],
	["sq0csp-", "square"],
	["EAAA", "square"],
	["dt0c01.", "dynatrace"],
	["CLOJARS_", "clojars"],
	["FLWSECK", "flutterwave"],
	["shippo_live_", "shippo"],
	["re_", "resend"],
	["secret_", "notion"],
	["key-", "mailgun"],
	["sk-", "openai"],
	["s-s4t2ud-", "42"],
	["s-s4t2af-", "42"],
	["AKCp", "artifactory"],
	["cmVmd", "artifactory"],
	["atlasv1", "terraform"],
	["sl.", "dropbox"],
];

/** Prefixes only a token starts with; short or word-like ones need more to be a credential. */
const WEAK_PREFIXES = new Set(["EAA", "EAAA", "API-", "key-", "sk-", "re_", "secret_", "sl.", "cmVmd"]);

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const PREFIX_RE = new RegExp(
	`(?<![A-Za-z0-9_./+-])(${[...PREFIXES]
		.map(([p]) => p)
		.sort((a, b) => b.length - a.length)
		.map(escapeRe)
		.join("|")})([A-Za-z0-9_\\-.~+/=]{0,600})`,
	"g",
);
const FAMILY = new Map(PREFIXES);

/** The policy's obvious placeholders: filler, "put yours here", templates, elisions. */
export function isPlaceholder(value: string): boolean {
	const v = value.trim();
	if (v.length === 0) return true;
	if (/^[xX*.#_\-•…0]{3,}$/.test(v) || /(.)\1{7,}/.test(v) || /[xX]{6,}|\*{3,}|\.{3}|…/.test(v)) return true;
	if (/^<[^>]*>$|^\$\{[^}]*\}$|^\{\{[^}]*\}\}$|^\$[A-Z_][A-Z0-9_]*$|^%[A-Z_]+%$|^\[[^\]]*\]$/.test(v)) return true;
	if (/your[-_ ]?(?:[a-z]+[-_ ]?)?(?:key|token|secret|password|pass)|[-_ ]here$|placeholder|changeme|^redacted$|<[a-z_ -]+>/i.test(v))
		return true;
	// Words in place of a value, naming what belongs there ("Slack_BOT_TOKEN", "RANDOMSTRINGHERE", "1-initial").
	const words = v.replace(/^(?:[A-Za-z]{2,8}[-_.])?(?:\d{1,2}[-_])?/, "");
	if (/^[A-Za-z_-]+$/.test(words) && /token|key|secret|password|here|random|string|example|sample|initial|value|test|replace/i.test(words))
		return true;
	return false;
}

/** "At least 8 token characters" with the look of a credential: a digit, or letters of both cases. */
function tokenBody(body: string): boolean {
	if (body.length < 8) return false;
	if (isPlaceholder(body)) return false;
	return /[0-9]/.test(body) || (/[a-z]/.test(body) && /[A-Z]/.test(body));
}

const JWT_RE = /(?<![A-Za-z0-9_-])eyJ([A-Za-z0-9_-]{5,})\s{0,8}\.\s{0,8}(eyJ[A-Za-z0-9_-]{5,}|[A-Za-z0-9_-]{10,}\s{0,8}\.)/g;
const KEY_HEADER_RE = /-----BEGIN ?(?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/;
const URL_RE = /\b([a-z][a-z0-9+.-]{1,20}):\/\/([^\s:/?#@"'<>]{0,128}):([^\s/?#@"'<>]{1,256})@[A-Za-z0-9[]/gi;

const URL_TOKEN_RE = /\b([a-z][a-z0-9+.-]{1,20}):\/\/([A-Za-z0-9_-]{20,256})@([A-Za-z0-9.-]+)/gi;

/** Formats a provider documents without a distinctive prefix, in the context the provider gives them. */
const CONTEXT_FORMATS: [RegExp, string][] = [
	// Microsoft Entra client secrets: three characters, a digit, "Q~", then 31 or more.
	[/(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])/, "azure-ad-client-secret"],
	// Discord bot tokens: a base64 user id, a dot, 6 characters, a dot, 27 or more (three base64url parts).
	[/(?<![A-Za-z0-9_-])[MNO][A-Za-z0-9_-]{20,27}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,64}(?![A-Za-z0-9_-])/, "discord"],
	// Discord user tokens behind two-factor authentication: "mfa." and 84 base64url characters.
	[/(?<![A-Za-z0-9_.-])mfa\.[A-Za-z0-9_-]{84}(?![A-Za-z0-9_-])/, "discord"],
	// GitLab tokens inside a reply address or a URL path ("incoming+grp-app-42-glimt-…-issue@…", "/-/incoming/glimt-…").
	[
		/(?<![A-Za-z0-9_])gl(?:pat|rt|rtr|cbt|imt|dt|ft|oas|soat|ptt|agent|ffct|wt|cst)-(?=[A-Za-z0-9_-]{0,300}[0-9A-Z])[A-Za-z0-9_-]{20,300}/,
		"gitlab",
	],
	// AWS access key ids in their real format: a prefix and 16 base32 characters, digits or not.
	[/(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Z0-9])/, "aws"],
	// Slack incoming webhooks and Discord webhooks: the URL is the credential.
	[/hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9]{8,}\/[A-Za-z0-9]{8,}\/[A-Za-z0-9]{8,}/, "slack"],
	[/discord(?:app)?\.com\/api\/webhooks\/\d{8,}\/[A-Za-z0-9_-]{20,}/, "discord"],
	// AWS secret access keys: 40 base64 characters under the name AWS gives them.
	[/aws.{0,20}secret.{0,20}[=:]\s{0,4}["']?[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+])/i, "aws"],
	// Azure storage account keys and shared access keys in connection strings.
	[/(?:AccountKey|SharedAccessKey)=[A-Za-z0-9+/]{20,}={0,2}/, "azure-storage"],
	// Mailchimp: 32 hex and a data-centre suffix.
	[/(?<![A-Za-z0-9])[0-9a-f]{32}-us\d{1,2}(?![A-Za-z0-9])/, "mailchimp"],
	// HTTP authorization with a bearer or basic credential: the header is the credential.
	[/authorization:\s{0,3}(?:bearer|basic|token)\s{1,3}[A-Za-z0-9._~+/=-]{12,}/i, "http-authorization"],
	// A GCP service-account key file.
	[/"type"\s{0,3}:\s{0,3}"service_account"[\s\S]{0,4000}"private_key"/, "gcp-service-account"],
];

/** Candidate values in assignments and key=value pairs: the policy's not-secrets are judged on these. */
const ASSIGNED_RE = /([A-Za-z0-9_.-]{2,64})["']?\s{0,3}(?::=|=>|=|:)\s{0,3}["'`]?([^\s"'`,;]{1,256})/g;

/** Control characters other than whitespace, or bytes lost in decoding: a binary file read as text. */
function isBinary(text: string): boolean {
	for (let i = 0; i < text.length; i++) {
		const c = text.charCodeAt(i);
		if (c < 9 || (c > 13 && c < 32) || c === 0xfffd) return true;
	}
	return false;
}

export function judge(text: string): Verdict {
	// A private-key header alone is enough.
	if (KEY_HEADER_RE.test(text)) return { verdict: "secret", family: "private-key" };
	// A JWT: two or three base64url segments beginning eyJ (the second a JSON object too, or a third segment
	// present), also when spaces or a line break split it.
	for (const m of text.matchAll(JWT_RE)) {
		if (!isPlaceholder(m[1] ?? "") && !isPlaceholder(m[2] ?? "")) return { verdict: "secret", family: "jwt" };
	}
	// URL user-info with a password.
	for (const m of text.matchAll(URL_RE)) {
		const password = m[3] ?? "";
		if (/^(?:file|data|blob|mailto|urn)$/i.test(m[1] ?? "")) continue;
		if (isPlaceholder(password) || /^\$|^%[A-Za-z_]+%$|^\{/.test(password)) continue;
		// The word standing for the value ("user:password@host", "admin:secret@") is the placeholder the
		// policy's own example uses.
		if (/^(?:password|passwd|pwd|secret|token|changeme|mypassword)$/i.test(password)) continue;
		// A default written the same on both sides ("postgres:postgres@localhost") and metasyntactic filler
		// ("abc", "1111", "foo") are what setup guides write in place of a value.
		if (password === m[2] || /^(?:abc|foo|bar|baz|test|123|1234|12345)$/i.test(password) || /^(.)\1{3,}$/.test(password)) continue;
		return { verdict: "secret", family: "url-password" };
	}
	// URL user-info that is a token by itself ("https://<token>@github.com/…"); a Sentry DSN's public key is not.
	for (const m of text.matchAll(URL_TOKEN_RE)) {
		const token = m[2] ?? "";
		if (/^(?:file|data|mailto|urn|ssh|git)$/i.test(m[1] ?? "") || /sentry|ingest\./i.test(m[3] ?? "")) continue;
		if (!isPlaceholder(token) && /[0-9]/.test(token) && /[A-Za-z]/.test(token)) return { verdict: "secret", family: "url-password" };
	}
	// A provider's prefix followed by at least 8 token characters.
	for (const m of text.matchAll(PREFIX_RE)) {
		const prefix = m[1] ?? "";
		const body = (m[2] ?? "").replace(/[.=/+~]+$/, "");
		// Cut short or masked where it was copied from ("ops_eyJz..[Redacted]", "xoxp-…-####"): an elision.
		const end = (m.index ?? 0) + m[0].length;
		const after = text.slice(end - ((m[2] ?? "").length - body.length), end + 12);
		if (/^(?:\.{2}|…|[#*]{2}|\[redact|<redact)/i.test(after)) continue;
		if (!tokenBody(body.replace(/^[-_.]/, ""))) continue;
		// An identifier: short lower-case words and numbers joined by "_" or "-", one of them a word.
		const parts = body.replace(/^[-_]/, "").split(/[-_]/);
		if (
			parts.length >= 2 &&
			parts.length <= 9 &&
			/^[a-z]/.test(parts[0] ?? "") &&
			parts.every((x) => /^[a-z0-9]{1,12}$/.test(x)) &&
			parts.some((x) => /^[a-z]{3,}$/.test(x))
		)
			continue;
		if (WEAK_PREFIXES.has(prefix) && (body.length < 20 || !/[0-9]/.test(body) || !/[A-Za-z]/.test(body))) continue;
		return { verdict: "secret", family: FAMILY.get(prefix) ?? "provider" };
	}
	for (const [re, family] of CONTEXT_FORMATS) {
		const m = re.exec(text);
		if (m && !/(.)\1{7,}|[xX]{6,}|\*{3,}|\.{3}|…/.test(m[0])) return { verdict: "secret", family };
	}
	// A Kubernetes Secret's values: base64 is an encoding, not protection.
	if (/\bkind:\s{0,4}["']?Secret\b/.test(text)) {
		const block = /\n(?:data|stringData):[^\S\n]*\n((?:[^\S\n]+[A-Za-z0-9_.-]+:[^\n]*\n?)+)/.exec(text);
		const values = [...(block?.[1] ?? "").matchAll(/:\s{0,4}["']?([^\s"']{8,})/g)].map((m) => m[1] ?? "");
		if (values.some((v) => !isPlaceholder(v) && !/^\$|^\{/.test(v))) return { verdict: "secret", family: "kubernetes-secret" };
	}
	// Binary content (a keystore file) is outside what the written statements read: the corpus label stands.
	if (isBinary(text)) return { verdict: "silent" };
	// Nothing the policy calls a credential: is everything here something it calls not one?
	const assigned = [...text.matchAll(ASSIGNED_RE)].map((m) => ({ name: m[1] ?? "", value: m[2] ?? "" }));
	const tokenLike = (t: string) => t.length >= 8 && (/[0-9]/.test(t) || (/[a-z]/.test(t) && /[A-Z]/.test(t))) && !isPlaceholder(t);
	const isId = (name: string, v: string) =>
		/^[\d-]{4,}$/.test(v) || (/id$/i.test(name) && /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i.test(v));
	const isPath = (v: string) => /^(?:\/|~\/|[A-Z]:\\|¥)/.test(v);
	// A URL without a password in its user-info is fine.
	const isPlainUrl = (v: string) => /^[a-z][a-z0-9+.-]*:\/\/[^@\s]*$/i.test(v) || /^\/\/[^@\s]*$/.test(v);
	const notSecret = (a: { name: string; value: string }) =>
		isPlaceholder(a.value) || isId(a.name, a.value) || isPath(a.value) || isPlainUrl(a.value);
	// Free-standing candidates: a digit among letters, or a capital after a small letter (an ordinary
	// capitalised word is not one).
	const looksRandom = (t: string) => !isPlaceholder(t) && ((/[0-9]/.test(t) && /[A-Za-z]/.test(t)) || /[a-z][A-Z]/.test(t));
	const others = (text.match(/[A-Za-z0-9_\-+/=.~!@$%^&*]{8,}/g) ?? []).filter(
		(t) => looksRandom(t) && !assigned.some((a) => a.value.includes(t) || t.includes(a.value) || t.includes(a.name)),
	);
	if (assigned.length > 0 && assigned.every(notSecret) && others.length === 0)
		return { verdict: "not", why: "placeholders, ids or paths only" };
	// Nothing shaped like a credential at all: no token of 8 characters with a digit or both cases, and no
	// secret-named key with a value.
	const secretNamed = assigned.some((a) => /pass|pwd|secret|token|key|auth|cred/i.test(a.name) && !notSecret(a));
	if (others.length === 0 && !assigned.some((a) => tokenLike(a.value)) && !secretNamed)
		return { verdict: "not", why: "nothing credential-shaped" };
	return { verdict: "silent" };
}
