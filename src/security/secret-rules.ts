/**
 * Rules for secrets that secretlint's recommended preset does not catch: well-known token
 * formats, private-key blocks, credentials in URLs and HTTP headers, and high-entropy values
 * assigned to key/token/secret/password names. Each rule finds candidates with a regular
 * expression; `accept` rejects placeholders, examples and low-entropy filler, which is where
 * naive regexes produce most of their false positives.
 */

export interface SecretRule {
	id: string;
	pattern: RegExp;
	/** Index of the capture group holding the secret value (0 = whole match). */
	group?: number;
	/** Extra check on the captured value; the candidate is dropped when it returns false. */
	accept?: (value: string, match: RegExpExecArray) => boolean;
}

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
	const counts = new Map<string, number>();
	for (const ch of value) counts.set(ch, (counts.get(ch) ?? 0) + 1);
	let bits = 0;
	for (const n of counts.values()) {
		const p = n / value.length;
		bits -= p * Math.log2(p);
	}
	return bits;
}

const PLACEHOLDER_WORDS =
	/^(?:x+|y+|z+|\*+|\.+|-+|_+|0+|1+|#+|pass(?:word)?|passwd|secret|token|test|example|sample|changeme|change[-_]?me|dummy|fake|foo|bar|baz|foobar|none|null|nil|undefined|true|false|redacted|hidden|username|user|admin|root|guest|default|your[-_a-z]*|my[-_a-z]*|api[-_]?key|access[-_]?token|<[^>]*>|\[[^\]]*\]|\{[^}]*\})$/i;

/** Values that are references, templates or obvious filler rather than secrets. */
export function looksLikePlaceholder(value: string): boolean {
	if (PLACEHOLDER_WORDS.test(value)) return true;
	if (/\$\{|\$\(|\{\{|%\(|<[A-Za-z_ -]+>|\.\.\.|\[[A-Z_ ]+\]/.test(value)) return true;
	if (/^\$[A-Za-z_]/.test(value) || /^%[A-Za-z_]+%$/.test(value) || /^process\.env\./.test(value)) return true;
	if (/(?:x{6,}|X{6,}|\*{4,}|(?:EXAMPLE){2,}|_HERE|HERE_|PLACEHOLDER|REDACTED|DUMMY)/.test(value)) return true;
	// A long run of one character is filler ("aaaaaaaa", "11111111").
	return /(.)\1{7,}/.test(value);
}

/** Generic values also reject counters and alphabets, which vendor test tokens legitimately use. */
function looksLikeFiller(value: string): boolean {
	return looksLikePlaceholder(value) || isSequential(value) || /EXAMPLE|\.\./.test(value) || isEncodedProse(value);
}

/** Base64 that decodes to ordinary words ("ZHVtbXkgdGV4dA==" → "dummy text") is encoded text, not a key. */
function isEncodedProse(value: string): boolean {
	if (value.length < 16 || value.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return false;
	let decoded: string;
	try {
		decoded = atob(value);
	} catch {
		return false;
	}
	return /^[A-Za-z ,.'-]+$/.test(decoded) && decoded.includes(" ");
}

/** "abcdefghijklmnop", "0123456789": alphabets and counters, not keys. */
function isSequential(value: string): boolean {
	let run = 1;
	let longest = 1;
	for (let i = 1; i < value.length; i++) {
		run = value.charCodeAt(i) === value.charCodeAt(i - 1) + 1 ? run + 1 : 1;
		longest = Math.max(longest, run);
	}
	return longest >= 6;
}

/** A random-looking token: long enough, several character classes, high entropy. */
export function isHighEntropy(value: string, minLength = 16, minBits = 3.3): boolean {
	if (value.length < minLength || looksLikeFiller(value)) return false;
	const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length;
	if (classes < 2) return false;
	if (!/[0-9]/.test(value) && classes < 3) return false;
	return entropy(value) >= minBits;
}

const notPlaceholder = (value: string) => !looksLikePlaceholder(value);
const randomish = (min: number, bits: number) => (value: string) => isHighEntropy(value, min, bits);
/** Token formats with a fixed prefix: the body after the prefix must not be filler. */
const bodyAfter =
	(prefix: RegExp, min = 3.0) =>
	(value: string) => {
		const body = value.replace(prefix, "");
		return !looksLikePlaceholder(body) && entropy(body) >= min;
	};

/** Names whose last word marks a secret: API_KEY, clientSecret, accessToken, db_password. */
const SECRET_NAME =
	/^(?:key|api[-_.]?key|apikey|secret(?:[-_.]?key)?|clientsecret|client[-_.]secret|access[-_.]?key|private[-_.]?key|secret[-_.]?access[-_.]?key|token|auth[-_.]?token|access[-_.]?token|refresh[-_.]?token|bearer|password|passwd|passphrase|pwd|credentials?|auth|signing[-_.]?key|encryption[-_.]?key|master[-_.]?key|webhook[-_.]?secret|conn(?:ection)?[-_.]?string|sas[-_.]?token)$/i;
/** Names that look secret but hold public or descriptive values. */
const NOT_SECRET_NAME =
	/(?:[Pp]ublic|PUBLIC|csrf|xsrf|_id$|id$|Id$|name$|Name$|_file$|file$|path$|url$|Url$|uri$|length$|size$|type$|count$|version$|format$|hash$|header$|field$|param$|prefix$|enabled$|expir\w*$|ttl$)/;

function assignmentAccept(value: string, match: RegExpExecArray): boolean {
	const name = match[1] ?? "";
	if (NOT_SECRET_NAME.test(name)) return false;
	// Only the name's last word counts: "keyStr" and "key_length" are not secrets.
	const words = name.split(/[-_.\s]+|(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
	const lastOne = words.at(-1) ?? "";
	const lastTwo = words.slice(-2).join("_");
	const lastThree = words.slice(-3).join("_");
	if (![lastOne, lastTwo, lastThree].some((w) => SECRET_NAME.test(w))) return false;
	if (/pass|pwd/i.test(lastOne)) return isPasswordLike(value);
	// A bare "key" names many non-secret things; ask more of its value.
	if (/^key$/i.test(lastOne) && !SECRET_NAME.test(lastTwo)) return isHighEntropy(value, 20, 3.6);
	return isHighEntropy(value, 16, 3.2);
}

/** Passwords are shorter and less random than tokens; still reject filler and templates. */
function isPasswordLike(value: string): boolean {
	if (value.length < 6 || looksLikeFiller(value)) return false;
	const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length;
	return classes >= 3 || (classes >= 2 && value.length >= 12);
}

/** `user:password` as given to `curl -u`: the password (or a lone user part) must be real. */
function credentialPairAccept(value: string): boolean {
	const pair = value.replace(/["']/g, "");
	if (/\$|\{\{|<|\[/.test(pair) && !/^[^$]+\$\d/.test(pair)) return false;
	const colon = pair.indexOf(":");
	if (colon < 0) return false;
	const user = pair.slice(0, colon);
	const password = pair.slice(colon + 1) || user;
	if (!password || password.length < 4) return false;
	if (looksLikePlaceholder(password) || /^(.)\1*$/.test(password)) return false;
	return !/^(?:pass(?:word)?|secret|token|test|changeme)$/i.test(password);
}

function headerValueAccept(value: string): boolean {
	const token = value.replace(/^(?:bearer|basic|token|api-token|digest|apikey)\s+/i, "").trim();
	if (token.length < 8 || looksLikePlaceholder(token)) return false;
	if (/^[{(]|^\$|^\w+\(/.test(token)) return false;
	return entropy(token) >= 2.8;
}

/** Host part of a URL with credentials, for rejecting documentation hosts. */
function urlCredentialAccept(_value: string, match: RegExpExecArray): boolean {
	const user = match[2] ?? "";
	const password = match[3] ?? "";
	if (!password) return false;
	if (/^[$%{<[]/.test(password) || /\$\{|\{\{|<|%[A-Z_]+%/.test(user + password)) return false;
	// Documentation URLs: "user:password@", "YOUR_USER:YOUR_PASSWORD@", "mongodb:mongodb@", "user:abc@".
	if (password.length < 4 || password === user || /^(.)\1+$/.test(password)) return false;
	if (/^(?:x+|\*+|password|passwd|secret|pwd|changeme|my-?password|p@ssw0rd)$/i.test(password)) return false;
	if (/^[A-Z_]*(?:PASS|PASSWORD|SECRET|TOKEN|KEY)[A-Z_]*$/.test(password) || /^(?:your|replace|enter|insert)[-_]/i.test(password))
		return false;
	return true;
}

export const SECRET_RULES: SecretRule[] = [
	{
		id: "private-key",
		// A key block needs a real body: at least a line of base64 between BEGIN and END.
		pattern:
			/-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\n|\r?\n|\s)+((?:[A-Za-z0-9+/=:,\- ]+(?:\\n|\r?\n))*?[A-Za-z0-9+/=]{40,}[\s\S]*?)-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----/g,
		group: 1,
		accept: (body) => !looksLikePlaceholder(body.replace(/\\n|\s/g, "").slice(0, 64)) && entropy(body) > 4,
	},
	{ id: "private-key-truncated", pattern: /-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?:\\n|\r?\n)[A-Za-z0-9+/]{60,}/g },
	{
		id: "gcp-service-account",
		pattern: /"type"\s*:\s*"service_account"/g,
		// A service-account file whose key is elided ("...") is documentation, not a credential.
		accept: (_v, m) =>
			!/"private_key"\s*:\s*"(?:-----BEGIN[^"]{0,40}?-----(?:\\n)?)?(?:\.\.\.|DUMMY|x+|<[^"]*>)?(?:\\n)?(?:-----END[^"]*)?"/.test(m.input),
	},
	{
		id: "pkcs12-keystore",
		// A DER PKCS#12 keystore holding a private key: the pkcs8ShroudedKeyBag OID
		// 1.2.840.113549.1.12.10.1.2, raw or after lossy UTF-8 decoding of the binary file.
		// biome-ignore lint/suspicious/noControlCharactersInRegex: matching DER bytes is the point.
		pattern: /\x2a[\x86\ufffd]\x48[\x86\ufffd][\xf7\ufffd]\x0d\x01\x0c\x0a\x01\x02/g,
	},
	{
		id: "aws-access-key-id",
		pattern: /\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b/g,
		group: 1,
		accept: (v) => !/EXAMPLE$|X{6,}/.test(v) && entropy(v) > 3,
	},
	{
		id: "aws-secret-access-key",
		pattern: /aws.{0,20}?secret.{0,20}?['"\s:=]+([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
		group: 1,
		accept: (v) => !/EXAMPLE|SECRETS?KEY/i.test(v) && isHighEntropy(v, 40, 4),
	},
	{ id: "aws-bedrock-api-key", pattern: /\bABSK[A-Za-z0-9+/]{109,269}={0,2}/g, accept: bodyAfter(/^ABSK/, 3.5) },
	{ id: "github-token", pattern: /\bgh[pousr]_[A-Za-z0-9_]{36,255}\b/g, accept: bodyAfter(/^gh._/, 3.5) },
	{ id: "github-fine-grained-pat", pattern: /\bgithub_pat_[A-Za-z0-9_]{82}\b/g, accept: bodyAfter(/^github_pat_/, 3.5) },
	{ id: "gitlab-token", pattern: /\bgl(?:pat|ptt|rt|dt|ft|oas|cbt|imt|soat|agent)-[A-Za-z0-9_.-]{20,}/g, accept: bodyAfter(/^gl\w+-/) },
	{ id: "gitlab-runner-registration", pattern: /\bGR1348941[A-Za-z0-9_-]{20}\b/g, accept: bodyAfter(/^GR1348941/) },
	{
		id: "slack-token",
		pattern: /\bxox(?:[abposr]|e\.xox[bp]|e)-(?:\d+-)*[A-Za-z0-9-]{10,}/g,
		accept: (v) => /\d{8,}/.test(v) && bodyAfter(/^xox[\w.]*-/, 3)(v),
	},
	{ id: "slack-app-token", pattern: /\bxapp-\d-[A-Z0-9]+-\d+-[a-z0-9]{20,}/gi },
	{
		id: "slack-webhook",
		pattern: /hooks\.slack\.com\/(?:services|workflows|triggers)\/[A-Za-z0-9+/_-]{20,}/g,
		accept: (v) => !/X{4,}/.test(v),
	},
	{
		id: "stripe-key",
		pattern: /\b(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,247}\b/g,
		accept: bodyAfter(/^\w+?_(?:live|test|prod)_/, 2.5),
	},
	{ id: "openai-api-key", pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{16,}T3BlbkFJ[A-Za-z0-9_-]{16,}/g },
	{
		id: "anthropic-api-key",
		pattern: /\bsk-ant-(?:api|admin|sid|oat)\d{2}-[A-Za-z0-9_-]{80,110}AA(?![A-Za-z0-9_-])/g,
	},
	{ id: "google-oauth-secret", pattern: /\bGOCSPX-[A-Za-z0-9_-]{28}\b/g },
	{ id: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g, accept: bodyAfter(/^npm_/, 3.5) },
	{ id: "pypi-token", pattern: /\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}/g },
	{ id: "huggingface-token", pattern: /\b(?:hf_|api_org_)[A-Za-z]{34}\b/g, accept: bodyAfter(/^(?:hf_|api_org_)/, 3.5) },
	{ id: "sendgrid-api-key", pattern: /\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}\b/g },
	{ id: "telegram-bot-token", pattern: /\b\d{8,10}:AA[A-Za-z0-9_-]{33}\b/g },
	{ id: "discord-webhook", pattern: /discord(?:app)?\.com\/api\/webhooks\/\d{17,20}\/[A-Za-z0-9_-]{60,}/g },
	{ id: "discord-bot-token", pattern: /\b[MN][A-Za-z\d]{23,25}\.[\w-]{6}\.[\w-]{27,38}\b/g },
	{ id: "mailchimp-api-key", pattern: /\b[0-9a-f]{32}-us\d{1,2}\b/g, accept: (v) => entropy(v) > 3.4 },
	{ id: "mailgun-api-key", pattern: /\bkey-[0-9a-f]{32}\b/g, accept: bodyAfter(/^key-/, 3.2) },
	{ id: "twilio-api-key", pattern: /\bSK[0-9a-f]{32}\b/g, accept: bodyAfter(/^SK/, 3.2) },
	{ id: "square-token", pattern: /\b(?:sq0atp|sq0csp|EAAA)[A-Za-z0-9_-]{22,60}\b/g, accept: bodyAfter(/^(?:sq0\w{3}|EAAA)/, 3.5) },
	{ id: "shopify-token", pattern: /\bshp(?:at|ca|pa|ss)_[A-Za-z0-9]{32}\b/g, accept: bodyAfter(/^shp\w\w_/, 3.2) },
	{ id: "facebook-page-token", pattern: /\bEAA[A-Za-z0-9]{100,}/g, accept: bodyAfter(/^EAA/, 3.8) },
	{
		id: "facebook-app-token",
		pattern: /\b\d{15,16}(?:\||%7C)[A-Za-z0-9_-]{27}\b/g,
		accept: (v) => entropy(v.split(/\||%7C/)[1] ?? "") > 3.5,
	},
	{ id: "1password-service-token", pattern: /\bops_eyJ[A-Za-z0-9+/=]{250,}/g, accept: (v) => !/DUMMY|x{10,}/i.test(v) },
	{
		id: "1password-secret-key",
		pattern: /\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b/g,
		accept: (v) => !/X{5}/.test(v),
	},
	{ id: "vault-token", pattern: /\bhv[sb]\.[A-Za-z0-9_-]{24,}/g, accept: bodyAfter(/^hv.\./, 3.5) },
	{
		id: "vault-legacy-token",
		pattern: /\b(?:token|vault)\w*["']?\s*[:=]\s*["']?(s\.[A-Za-z0-9]{24})\b/gi,
		group: 1,
		accept: (v) => /[0-9]/.test(v) && /[A-Z]/.test(v) && /[a-z]/.test(v),
	},
	{ id: "terraform-token", pattern: /\b[a-z0-9]{14}\.atlasv1\.[a-z0-9_=-]{60,70}\b/g, accept: (v) => !/x{10,}/.test(v) },
	{ id: "doppler-token", pattern: /\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9]{40,44}\b/g },
	{ id: "digitalocean-token", pattern: /\bdo[opr]_v1_[a-f0-9]{64}\b/g },
	{ id: "postman-api-key", pattern: /\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b/g },
	{ id: "age-secret-key", pattern: /\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b/g },
	{ id: "atlassian-api-token", pattern: /\bATATT3[A-Za-z0-9_=-]{180,}/g },
	{ id: "linear-api-key", pattern: /\blin_api_[A-Za-z0-9]{40}\b/g },
	{ id: "groq-api-key", pattern: /\bgsk_[A-Za-z0-9]{52}\b/g, accept: bodyAfter(/^gsk_/, 3.5) },
	{ id: "perplexity-api-key", pattern: /\bpplx-[A-Za-z0-9]{48}\b/g, accept: bodyAfter(/^pplx-/, 3.5) },
	{ id: "xai-api-key", pattern: /\bxai-[A-Za-z0-9]{80}\b/g, accept: bodyAfter(/^xai-/, 3.5) },
	{ id: "databricks-token", pattern: /\bdapi[a-fA-F0-9]{32}(?:-\d)?\b/g, accept: bodyAfter(/^dapi/, 3) },
	{ id: "docker-pat", pattern: /\bdckr_pat_[A-Za-z0-9_-]{27,}\b/g },
	{ id: "figma-token", pattern: /\bfig[dou]_[A-Za-z0-9_-]{40,}\b/g },
	{ id: "vercel-token", pattern: /\bvc[pika]_[A-Za-z0-9]{40,}\b/g },
	{ id: "cloudflare-api-token", pattern: /\bcf(?:at|ut|k)_[A-Za-z0-9]{40,}\b/g },
	{ id: "tailscale-key", pattern: /(?<![A-Za-z0-9])tskey-[a-z]+-[A-Za-z0-9]{8,}-[A-Za-z0-9]{16,}\b/g },
	{
		id: "grafana-token",
		pattern: /\b(?:glc_[A-Za-z0-9+/]{32,400}={0,2}|glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8})/g,
		accept: bodyAfter(/^gl\w\w?_/, 3.2),
	},
	{ id: "notion-token", pattern: /\bntn_\d{11}[A-Za-z0-9]{35}\b/g, accept: bodyAfter(/^ntn_\d{11}/, 3.5) },
	{ id: "sourcegraph-token", pattern: /\bsgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}\b/g, accept: bodyAfter(/^sgp_(?:\w+_)?/, 3.5) },
	{ id: "intra42-secret", pattern: /\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b/g },
	{ id: "octopus-api-key", pattern: /\bAPI-[A-Z0-9]{26}\b/g, accept: (v) => /\d/.test(v) && entropy(v) > 3.5 },
	{ id: "pulumi-token", pattern: /\bpul-[a-f0-9]{40}\b/g },
	{ id: "supabase-token", pattern: /\bsbp_[a-f0-9]{40}\b/g },
	{ id: "flyio-token", pattern: /\b(?:fo1_[\w-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,}={0,3})/g, accept: bodyAfter(/^f\w+_/, 3.5) },
	{ id: "sentry-token", pattern: /\bsntr[ysu]_[A-Za-z0-9+/=_]{40,}/g },
	{ id: "cairn-api-key", pattern: /\bcairn_[a-z0-9]{8,32}_[A-Za-z0-9]{32,}\b/g },
	{
		id: "azure-ad-client-secret",
		pattern: /(?<![A-Za-z0-9_~.-])([A-Za-z0-9_~.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/g,
		group: 1,
		accept: (v) => !looksLikePlaceholder(v.slice(6)) && entropy(v) > 4,
	},
	{
		id: "jwt",
		pattern: /\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{20,}/g,
	},
	{
		id: "credentials-in-url",
		pattern: /\b([a-z][a-z0-9+.-]{1,20}):\/\/([^\s:/?#@"'`<>]{1,128}):([^\s/?#@"'`<>]{1,128})@[A-Za-z0-9.-]+/gi,
		accept: urlCredentialAccept,
	},
	{
		id: "curl-basic-auth",
		pattern: /\bcurl\b(?:[^\n]|\\\r?\n)*?\s(?:-u|--user)\s+((?:"[^"\n]*"|'[^'\n]*'|[^\s"']+)(?::(?:"[^"\n]*"|'[^'\n]*'|[^\s"']*))?)/g,
		group: 1,
		accept: credentialPairAccept,
	},
	{
		id: "http-auth-header",
		pattern:
			/\b(?:proxy-)?authorization\s*:\s*((?:(?:bearer|basic|token|api-token|digest)\s+)?[A-Za-z0-9+/=._~:@!-]{8,})(?=\s*["'\\\n\r]|\s*$|\s+-)/gim,
		group: 1,
		accept: headerValueAccept,
	},
	{
		id: "curl-secret-header",
		pattern:
			/(?:-H|--header)\s+["']\s*(?:x-[\w-]*)?(?:api[-_]?key|api[-_]?token|token|auth[-_]?token|access[-_]?token|secret|private[-_]?token|x-auth)[\w-]*\s*:\s*([^"'\s]{8,})["']/gi,
		group: 1,
		accept: headerValueAccept,
	},
	{
		id: "secret-assignment",
		// name = value, name: value, "name": "value", name := value — in code, config, env files.
		pattern: /([A-Za-z_][A-Za-z0-9_.-]{0,60})["']?[ \t]*(?::=|=>|=|:)[ \t]*["'`]?([A-Za-z0-9+/=_~.!@#$%^&*,;?-]{6,256})["'`]?/g,
		group: 2,
		accept: assignmentAccept,
	},
	{ id: "generic-prefixed-secret", pattern: /\b(?:secret|private)[-_](?:key|token)[-_][A-Za-z0-9]{24,}\b/gi, accept: notPlaceholder },
	{ id: "high-entropy-password-flag", pattern: /(?:--password|--passwd|-p)[= ]["']?([^\s"']{8,})/g, group: 1, accept: randomish(10, 3.2) },
];
