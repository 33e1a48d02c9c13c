/**
 * Cairn's secret rules: token formats as providers issue them, private-key blocks, JWTs,
 * credentials in URLs, headers and command lines, and secret-named assignments in code, env files,
 * YAML and JSON. Each rule finds candidates with a regular expression and `accept` rejects
 * placeholders, examples and look-alikes (hashes, UUIDs, identifiers), which is where naive
 * regexes produce their false positives.
 *
 * Every pattern is linear-time by construction: all quantifiers are bounded (no `*`, `+` or `{n,}`,
 * enforced by a unit test), no quantified group holds an unbounded or overlapping alternation, and
 * patterns start with a literal or a rare character so the engine skips ordinary text quickly.
 * Multi-line rules (key blocks, split JWTs) look only inside a bounded window after their anchor.
 */

import {
	charClasses,
	decodeBase64,
	decodesToProse,
	entropy,
	isHexDigest,
	isPasswordLike,
	isRandomToken,
	isUuid,
	looksLikeIdentifier,
	looksLikePlaceholder,
	memoize,
} from "./secret-heuristics";
import { POLICY_RULES } from "./secret-policy";
import type { RegexRule } from "./secret-rule";

export { entropy, looksLikePlaceholder } from "./secret-heuristics";

/** Receives a finding's start and end (offsets in the scanned window). */
export type Emit = (start: number, end: number) => void;

/**
 * A rule written as code rather than one expression (JWTs, curl commands): it must be linear,
 * consume each character a bounded number of times, and add the characters it examines to `meter`.
 */
export interface ScannerRule {
	id: string;
	scan: (text: string, from: number, to: number, emit: Emit, meter: { steps: number }) => void;
}

export type SecretRule = RegexRule | ScannerRule;

/** Text right after a token that marks it as truncated or masked ("ghp_abc…", "ops_eyJ..[Redacted]"). */
function truncatedAfter(text: string, end: number): boolean {
	return /^[-_.]?(?:\.\.|…|\*{2}|#{2}|\[redact|<redact)/i.test(text.slice(end, end + 9));
}

interface TokenOptions {
	/** Strips the fixed prefix so the placeholder check sees only the random body. */
	prefix: RegExp;
	/** Minimum entropy of the body, for formats whose body alphabet allows words. */
	minBits?: number;
	/** Extra format check on the whole value. */
	check?: (value: string) => boolean;
	group?: number;
}

/** A Firebase client configuration is public by design; its apiKey sits beside these fields. */
function inFirebaseConfig(text: string, start: number, end: number): boolean {
	return /firebaseapp\.com|messagingSenderId|mobilesdk_app_id|"current_key"/.test(text.slice(Math.max(0, start - 400), end + 400));
}

/** DER bytes, written as escapes in strings: these patterns match binary content on purpose. */
const der = (source: string, flags?: string) => new RegExp(source, flags);

/** Token-boundary suffixes, checked after the match rather than inside the expression (see `token`). */
const E = "(?![A-Za-z0-9])";
const E_ = "(?![A-Za-z0-9_-])";

/**
 * A token with a fixed prefix: the format is strong evidence, so only placeholders are rejected.
 * The trailing boundary is checked after the match instead of by a look-ahead: a greedy body then
 * always matches its whole run, and the scan resumes after it, so a text repeating a prefix
 * ("glpat-glpat-…") is read once instead of once per repetition.
 */
function token(id: string, pattern: RegExp, options: TokenOptions): RegexRule {
	let source = pattern.source;
	let tail: RegExp | null = null;
	if (source.endsWith(E_)) {
		source = source.slice(0, -E_.length);
		tail = /[A-Za-z0-9_-]/;
	} else if (source.endsWith(E)) {
		source = source.slice(0, -E.length);
		tail = /[A-Za-z0-9]/;
	}
	return {
		id,
		pattern: new RegExp(source, pattern.flags),
		group: options.group,
		check: (value) => {
			const body = value.replace(options.prefix, "");
			if (looksLikePlaceholder(body) || looksLikePlaceholder(value)) return false;
			if (options.minBits !== undefined && entropy(body) < options.minBits) return false;
			return options.check ? options.check(value) : true;
		},
		accept: (_value, m, text) => {
			const end = (m.indices?.[options.group ?? 0]?.[1] ?? m.index + m[0].length) as number;
			if (tail?.test(text[end] ?? "")) return false;
			return !truncatedAfter(text, end);
		},
	};
}

// ---------------------------------------------------------------------------------------------
// Private keys

const KEY_SEP = String.raw`(?:[\s"'+,]|\\{1,3}[rn])`;
const KEY_BODY_CHAR = String.raw`(?:[A-Za-z0-9+/=]|[\s"'+,]|\\{1,3}[rn])`;
const KEY_BEGIN = "-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----";

/** Strips line breaks, escapes, quotes and concatenation from a key body. */
function keyBody(body: string): string {
	return body.replace(/\\{1,3}[rn]|[\s"'+,]/g, "");
}

/** Extends a key block past the matching window: the rest of its body and its END line. */
function extendKeyBlock(text: string, end: number): number {
	const limit = Math.min(text.length, end + 65_536);
	let i = end;
	const bodyChar = /[A-Za-z0-9+/=\s"'+,\\]/;
	while (i < limit && bodyChar.test(text[i] ?? "")) i++;
	if (text.startsWith("-----END", i)) {
		const close = text.indexOf("-----", i + 8);
		if (close >= 0 && close - i < 80) return close + 5;
	}
	// Do not swallow trailing whitespace.
	while (i > end && /[\s"'+,\\]/.test(text[i - 1] ?? "")) i--;
	return i;
}

const acceptKeyBody = memoize(acceptKeyBodyUncached, 256);

function acceptKeyBodyUncached(body: string): boolean {
	const b64 = keyBody(body);
	if (b64.length < 40) return false;
	if (looksLikePlaceholder(b64.slice(0, 64)) || decodesToProse(b64)) return false;
	return entropy(b64.slice(0, 512)) >= 4.2;
}

// ---------------------------------------------------------------------------------------------
// JWTs

/** Signature length in base64url characters for the algorithms whose signatures have a fixed size. */
const RSA_SIZES = [342, 512, 683, 171];
const JWT_SIG_LENGTH = new Map<string, number[]>([
	["HS256", [43]],
	["HS384", [64]],
	["HS512", [86]],
	["ES256", [86]],
	["ES384", [128]],
	["ES512", [176]],
	["EdDSA", [86]],
	["RS256", RSA_SIZES],
	["RS384", RSA_SIZES],
	["RS512", RSA_SIZES],
	["PS256", RSA_SIZES],
	["PS384", RSA_SIZES],
	["PS512", RSA_SIZES],
]);

const isB64u = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 45 || c === 95;

/**
 * Length of a line break inside a wrapped token at `i` (newline or escaped newline, then up to
 * eight characters of indentation, quotes or "+"), or 0 when there is none.
 */
function splitAt(text: string, i: number): number {
	let j = i;
	if (text[j] === "\r") j++;
	if (text[j] === "\n") j++;
	else if (text[j] === "\\" && text[j + 1] === "n") j += 2;
	else if (text[j] === "\\" && text[j + 1] === "\\" && text[j + 2] === "n") j += 3;
	else return 0;
	const stop = j + 8;
	while (j < stop && /[ \t"'+]/.test(text[j] ?? "")) j++;
	return j - i;
}

/**
 * Reads a base64url segment from `i`, across line breaks that are followed by more of it, for at
 * most `max` characters. Returns where it ends and how many base64url characters it holds.
 */
function readSegment(text: string, i: number, max: number): { end: number; count: number; split: boolean } {
	let j = i;
	let count = 0;
	let split = false;
	const limit = Math.min(text.length, i + max);
	while (j < limit) {
		if (isB64u(text.charCodeAt(j))) {
			count++;
			j++;
			continue;
		}
		const n = splitAt(text, j);
		if (n > 0 && isB64u(text.charCodeAt(j + n))) {
			j += n;
			split = true;
			continue;
		}
		break;
	}
	return { end: j, count, split };
}

const segmentText = (text: string, start: number, seg: { end: number; split: boolean }) => {
	const raw = text.slice(start, seg.end);
	return seg.split ? raw.replace(/\r?\n|\\{1,2}n|[ \t"'+]/g, "") : raw;
};

/** The `alg` of a JWT header, null when the header is not a JOSE header (answers remembered). */
const jwtHeaderAlg = memoize((b64: string): string | null => {
	const decoded = decodeBase64(b64);
	if (!decoded?.endsWith("}")) return null;
	try {
		const parsed = JSON.parse(decoded) as Record<string, unknown>;
		if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return null;
		if (!("alg" in parsed || "typ" in parsed || "kid" in parsed || "enc" in parsed)) return null;
		return typeof parsed.alg === "string" ? parsed.alg : "";
	} catch {
		return null;
	}
}, 512);

/** Position of "." at `i`, allowing a line break before it; -1 when there is none. */
function dotAt(text: string, i: number): number {
	if (text[i] === ".") return i;
	const split = splitAt(text, i);
	return split > 0 && text[i + split] === "." ? i + split : -1;
}

/** JWTs: "eyJ" header, "." , "eyJ" claims, "." , signature, possibly wrapped over lines. */
function scanJwt(text: string, from: number, to: number, emit: Emit, meter: { steps: number }): void {
	let i = from;
	while (i < to) {
		const at = text.indexOf("eyJ", i);
		if (at < 0 || at >= to) {
			meter.steps += to - i;
			return;
		}
		meter.steps += at - i;
		const header = readSegment(text, at, 2000);
		meter.steps += header.end - at;
		// Every later "eyJ" inside this run would end where this one does: skip the run.
		i = Math.max(header.end, at + 3);
		if (at > 0) {
			const c = text.charCodeAt(at - 1);
			if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)) continue;
		}
		const dot1 = dotAt(text, header.end);
		if (dot1 < 0 || header.count < 10) continue;
		const p0 = dot1 + 1 + splitAt(text, dot1 + 1);
		if (!text.startsWith("eyJ", p0)) continue;
		const payload = readSegment(text, p0, 12_000);
		meter.steps += payload.end - p0;
		i = Math.max(i, payload.end);
		const dot2 = dotAt(text, payload.end);
		if (dot2 < 0 || payload.count < 4) continue;
		const alg = jwtHeaderAlg(segmentText(text, at, header));
		if (alg === null) continue;
		if (looksLikePlaceholder(segmentText(text, p0, payload).slice(0, 48))) continue;
		// The signature: as long as its algorithm says, across line breaks; otherwise up to the first break.
		const want = JWT_SIG_LENGTH.get(alg);
		const max = want ? Math.max(...want) : 1400;
		let j = dot2 + 1;
		let taken = 0;
		const limit = Math.min(text.length, j + 2 * max + 64);
		while (j < limit && taken < max) {
			if (isB64u(text.charCodeAt(j))) {
				taken++;
				j++;
				continue;
			}
			const n = want?.some((w) => w > taken) ? splitAt(text, j) : 0;
			if (n > 0 && isB64u(text.charCodeAt(j + n))) {
				j += n;
				continue;
			}
			break;
		}
		meter.steps += j - dot2;
		i = Math.max(i, j);
		if (alg !== "none" && taken < 16) continue;
		emit(at, j);
	}
}

// ---------------------------------------------------------------------------------------------
// curl -u user:password

const CURL_USER =
	/(?:^|\s)(?:-u|--user)(?:=|[ \t]{1,5})("[^"\n]{1,256}"(?::"[^"\n]{0,256}")?|'[^'\n]{1,256}'|[^\s"'$]{1,256}(?::(?:"[^"\n]{0,256}"|'[^'\n]{0,256}'|[^\s"']{0,256}))?)/dg;

/** Each curl command once: from "curl" to the end of its (backslash-continued) line, at most 4 KB. */
function scanCurl(text: string, from: number, to: number, emit: Emit, meter: { steps: number }): void {
	const curl = /\bcurl\b/g;
	curl.lastIndex = from;
	for (let m = curl.exec(text); m !== null && m.index < to; m = curl.exec(text)) {
		const limit = Math.min(text.length, m.index + 4096);
		let end = m.index + 4;
		while (end < limit) {
			const nl = text.indexOf("\n", end);
			if (nl < 0 || nl >= limit) {
				end = limit;
				break;
			}
			const before = text.slice(Math.max(end, nl - 3), nl).replace(/\r$/, "");
			end = nl + 1;
			if (!/\\\s{0,1}$/.test(before)) {
				end = nl;
				break;
			}
		}
		meter.steps += end - m.index;
		const command = text.slice(m.index, end);
		CURL_USER.lastIndex = 0;
		for (let f = CURL_USER.exec(command); f !== null; f = CURL_USER.exec(command)) {
			const value = f[1] ?? "";
			const span = f.indices?.[1];
			if (span && credentialPair(value)) emit(m.index + span[0], m.index + span[1]);
		}
		curl.lastIndex = Math.max(end, m.index + 4);
	}
}

// ---------------------------------------------------------------------------------------------
// Names: which assignments hold secrets

/** Last words that make a name secret. */
const SECRET_WORDS = new Set([
	"password",
	"passwd",
	"passphrase",
	"pwd",
	"pass",
	"secret",
	"token",
	"apikey",
	"key",
	"credential",
	"credentials",
	"auth",
	"authorization",
	"authtoken",
	"accesstoken",
	"refreshtoken",
	"secretkey",
	"accesskey",
	"privatekey",
	"clientsecret",
	"connectionstring",
	"connstr",
	"sas",
	"sastoken",
	"bearer",
	"pat",
]);
/** Compound endings written as one word: PGPASSWORD, dbpassword, apitoken, clientsecret. */
const SECRET_SUFFIX =
	/(?:password|passwd|passphrase|secret|token|apikey|accesskey|secretkey|privatekey|signingkey|masterkey|authkey|accountkey|credentials?)$/;
/** Words before "key" that make it a credential ("api key", "account key", "subscription key"). */
const KEY_QUALIFIERS =
	/^(?:api|access|secret|private|signing|sign|encryption|encrypt|master|account|shared|subscription|client|app|application|auth|admin|service|license|write|read|deploy|webhook|hmac|jwt|session|cookie|storage|consumer|ingest|ingestion|management|mgmt|server|bot|personal|project|org|user|partner|merchant|live|prod|test|dev|secure|security|cipher|aes|crypto|decryption|root)$/;
/** Last words that describe a secret without being one. */
const NOT_SECRET_LAST = new Set([
	"identifier",
	"email",
	"reset",
	"route",
	"page",
	"form",
	"view",
	"screen",
	"link",
	"prompt",
	"question",
	"rule",
	"rules",
	"strength",
	"requirements",
	"validator",
	"attempts",
	"retries",
	"id",
	"ids",
	"name",
	"names",
	"file",
	"filename",
	"files",
	"path",
	"paths",
	"dir",
	"url",
	"uri",
	"urls",
	"endpoint",
	"host",
	"hostname",
	"port",
	"length",
	"len",
	"size",
	"bits",
	"type",
	"types",
	"kind",
	"count",
	"version",
	"format",
	"hash",
	"hashed",
	"checksum",
	"digest",
	"sha",
	"md5",
	"header",
	"headers",
	"field",
	"param",
	"prefix",
	"suffix",
	"enabled",
	"disabled",
	"required",
	"expires",
	"expiry",
	"expiration",
	"expire",
	"ttl",
	"timeout",
	"index",
	"idx",
	"pattern",
	"regex",
	"policy",
	"label",
	"env",
	"var",
	"variable",
	"ref",
	"arn",
	"location",
	"region",
	"alias",
	"mode",
	"strategy",
	"provider",
	"store",
	"list",
	"map",
	"min",
	"max",
	"pair",
	"pairs",
	"storage",
	"source",
	"method",
	"scheme",
	"scope",
	"scopes",
	"usage",
	"mask",
	"hint",
	"placeholder",
	"description",
	"desc",
	"title",
	"text",
	"message",
	"msg",
	"error",
	"errors",
	"status",
	"state",
	"valid",
	"validation",
	"field",
	"input",
	"button",
	"selector",
	"handler",
	"callback",
	"class",
	"style",
	"icon",
	"tokens",
	"keys",
	"secrets",
	"passwords",
	"tokenizer",
	"fingerprint",
	"algorithm",
	"alg",
	"cache",
	"lock",
	"rotation",
	"manager",
	"vault",
	"service",
	"server",
	"client",
	"config",
	"settings",
	"options",
	"schema",
	"spec",
	"template",
	"file",
	"env",
	"helper",
	"util",
	"utils",
]);
/** Words anywhere in a name that make it public or descriptive. */
const NOT_SECRET_ANY =
	/^(?:public|publishable|pub|csrf|xsrf|anti|antiforgery|forgery|authenticity|verification|page|next|prev|previous|continuation|cancellation|cancel|sync|resume|pagination|cursor|idempotency|cache|partition|sort|primary|foreign|hot|keyboard|lexer|parser|token_type|max|min|num|total|input|output|completion|prompt)$/;

function splitWords(name: string): string[] {
	return name
		.replace(/([a-z0-9])([A-Z])/g, "$1 $2")
		.replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean);
}

type NameKind = "password" | "token" | "key" | null;

/** Classifies an assignment's name by its last words: a password, a token/secret, a bare "key", or not secret. */
export const classifyName = memoize(classifyNameUncached);

function classifyNameUncached(name: string): NameKind {
	const words = splitWords(name);
	if (words.length === 0 || words.length > 12) return null;
	if (words.some((w) => NOT_SECRET_ANY.test(w))) return null;
	const last = words.at(-1) ?? "";
	if (NOT_SECRET_LAST.has(last)) return null;
	const joined = words.join("");
	if (/(?:password|passwd|passphrase|pwd)$/.test(last) || last === "pass") return "password";
	if (last === "key") {
		const before = words.at(-2);
		if (before && (KEY_QUALIFIERS.test(before) || before === "secret")) return "token";
		return "key";
	}
	if (SECRET_WORDS.has(last) || SECRET_SUFFIX.test(last)) return "token";
	if (SECRET_SUFFIX.test(joined) && joined.length <= 40) return "token";
	// A secret word earlier in the name: SECRET_KEY_BASE, API_KEY_TEST, github_token_value, db_password_prod.
	const snake = words.join("_");
	if (/(?:^|_)(?:password|passwd|pwd)(?:_|$)/.test(snake)) return "password";
	if (/(?:^|_)(?:api_?key|secret(?:_?key)?|access_?key|private_?key|token|credentials?)(?:_|$)/.test(snake)) return "key";
	return null;
}

/** Providers' names used as keys ("sourcegraph: <token>"); the value must then look like a token. */
const PROVIDER_NAMES =
	/^(?:github|gitlab|bitbucket|slack|discord|stripe|twilio|sendgrid|mailgun|mailchimp|datadog|sentry|heroku|cloudflare|openai|anthropic|sourcegraph|netlify|vercel|npm|pypi|dockerhub|docker|digitalocean|linear|notion|databricks|atlassian|jira|confluence|postman|grafana|newrelic|doppler|vault|okta|auth0|algolia|mapbox|shopify|square|paypal|braintree|plaid|firebase|supabase|pinecone|cohere|mistral|groq|huggingface|replicate|airtable|asana|dropbox|zendesk|intercom|segment|mixpanel|amplitude|pagerduty|opsgenie|circleci|travis|buildkite|snyk|sonar|sonarqube|codecov|coveralls|jfrog|artifactory|nexus|contentful|sanity|contentstack|twitch|telegram|meraki|pulumi|terraform|fastly|akamai)$/;

// ---------------------------------------------------------------------------------------------
// Generic assignments

/**
 * Scans back from a keyword to the start of the name it belongs to (identifier characters only,
 * at most 64), so "DB_PASSWORD", "spring.datasource.password" and "--client-secret" are whole.
 */
function nameBefore(text: string, keywordIndex: number): number {
	let i = keywordIndex;
	const stop = Math.max(0, keywordIndex - 64);
	while (i > stop) {
		const c = text.charCodeAt(i - 1);
		const ok =
			(c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 45 || c === 36 || c === 64;
		if (!ok) break;
		i--;
	}
	return i;
}

const QUOTED_VALUE = String.raw`\\?"((?:[^"\\\n]|\\[^"\n]){1,256})\\?"|'([^'\n]{1,256})'|\x60([^\x60\n]{1,256})\x60`;
const BARE_VALUE = String.raw`([^\s"'\x60,;&<>(){}\[\]\\|]{1,256})`;
const VALUE = `(?:${QUOTED_VALUE}|${BARE_VALUE})`;

/** Whether a value is a secret for a name of this kind (answers remembered). */
const judgeValue = memoize((key: string) => {
	const [kind, quoted] = [key[0] === "p" ? "password" : key[0] === "k" ? "key" : "token", key[1] === "q"] as const;
	return judgeValueUncached(kind, key.slice(2), quoted);
});

function acceptValueFor(kind: Exclude<NameKind, null>, value: string, quoted: boolean): boolean {
	return judgeValue(`${kind[0]}${quoted ? "q" : "b"}${value}`);
}

function judgeValueUncached(kind: Exclude<NameKind, null>, value: string, quoted: boolean): boolean {
	if (kind === "password") return isPasswordLike(value, quoted);
	// Base64 of "user:password", as Docker's config.json and .npmrc's _auth hold it.
	const decoded = value.length >= 8 && value.length <= 512 ? decodeBase64(value) : null;
	if (decoded && /^[\x21-\x7e]{1,128}:[\x20-\x7e]{4,256}$/.test(decoded)) {
		const password = decoded.slice(decoded.indexOf(":") + 1);
		if (!looksLikePlaceholder(password) && !/^(?:pass(?:word)?|secret)$/i.test(password)) return true;
	}
	if (kind === "key") {
		// A bare "key" names cache keys, map keys, translation keys: demand a long random value.
		if (isUuid(value) || isHexDigest(value)) return false;
		return isRandomToken(value, 20, false);
	}
	if (isUuid(value)) return true;
	return isRandomToken(value, 16);
}

/**
 * A secret-named assignment. Groups: 1 the rest of the name, 2 the operator (with the name's
 * closing quote), 3-5 a quoted value (double, single, backtick), 6 a bare value.
 */
function acceptAssignment(value: string, m: RegExpExecArray, text: string): boolean {
	if (value.length < 6) return false;
	const nameStart = nameBefore(text, m.index);
	const operator = (m.indices?.[2]?.[0] ?? m.index) as number;
	let rawName = text.slice(nameStart, operator);
	// A one-word name in prose takes the word before it: "publishable key:", "API key:", "access token:".
	const j = nameStart - 1;
	if (text[j] === " " || text[j] === "\t") {
		let k = j;
		while (k > 0 && j - k < 20 && /[A-Za-z]/.test(text[k - 1] ?? "")) k--;
		if (j - k >= 2) rawName = `${text.slice(k, j)} ${rawName}`;
	}
	const quoted = m[3] !== undefined || m[4] !== undefined || m[5] !== undefined;
	const op = m[2] ?? "";
	if (!judgeAssignment(`${quoted ? "q" : "b"}${op}\u0000${rawName}\u0000${value}`)) return false;
	// The rest depends on the text around: checked only for candidates that pass.
	const valueEnd = (m.indices?.[quoted ? (m[3] !== undefined ? 3 : m[4] !== undefined ? 4 : 5) : 6]?.[1] ?? 0) as number;
	// A bare value followed by "(", "." or "[" is code (a call, a member, an index), not a literal.
	if (!quoted && /^[(.[]\w/.test(text.slice(valueEnd, valueEnd + 2))) return false;
	if (value.startsWith("AIza") && inFirebaseConfig(text, m.index, valueEnd)) return false;
	// Sealed Secrets' encryptedData holds ciphertext ("Ag…"), which is safe to commit.
	return !(
		value.startsWith("Ag") &&
		value.length >= 40 &&
		/encryptedData:|SealedSecret/.test(text.slice(Math.max(0, m.index - 600), m.index))
	);
}

/** The part of an assignment's verdict that depends on its name, operator and value alone (remembered). */
const judgeAssignment = memoize((key: string): boolean => {
	const quoted = key[0] === "q";
	const sep = key.indexOf("\u0000");
	const op = key.slice(1, sep);
	const sep2 = key.indexOf("\u0000", sep + 1);
	const rawName = key.slice(sep + 1, sep2);
	const value = key.slice(sep2 + 1);
	const name = rawName.replace(/["'\\\]]/g, "").trim();
	const kind = classifyName(name.replace(/^[-$@]+/, ""));
	if (!kind) return false;
	// "name:value" with nothing quoted and no space is a coordinate, a host:port, an image tag: not YAML.
	if (!quoted && /^:$/.test(op) && !/["']/.test(rawName)) return false;
	// Publishable keys are public by design.
	if (/^(?:pk_(?:live|test)_|pk\.eyJ)/.test(value)) return false;
	// AWS names its secret precisely; a value of another shape under that name is something else (encrypted, a reference).
	if (/aws|amazon/i.test(name) && /secret/i.test(name)) return /^[A-Za-z0-9/+]{40}$/.test(value) && isRandomToken(value, 40);
	return acceptValueFor(kind, value, quoted);
}, 8192);

/** "sourcegraph: <token>": a provider's name alone as the key, with a token-shaped value. */
function acceptProviderKey(value: string, m: RegExpExecArray, text: string): boolean {
	let i = m.index;
	while (i > 0 && /["' \t]/.test(text[i - 1] ?? "") && m.index - i < 4) i--;
	const nameStart = nameBefore(text, i);
	const name = text.slice(nameStart, i);
	if (!/^[A-Za-z]{3,16}$/.test(name) || !PROVIDER_NAMES.test(name.toLowerCase())) return false;
	return !isHexDigest(value) && isRandomToken(value, 20);
}

// ---------------------------------------------------------------------------------------------
// URLs, headers, command lines

export function acceptUrlCredential(_value: string, m: RegExpExecArray): boolean {
	const scheme = (m[1] ?? "").toLowerCase();
	const user = m[2] ?? "";
	const password = m[3] ?? "";
	if (!password || /^(?:file|data|blob|about|javascript|mailto|urn)$/.test(scheme)) return false;
	// Templates: "${DB_PASS}", "$(cat pw)", "$PASSWORD", "%PASSWORD%", "{{ pass }}", "<password>".
	if (
		/^\$(?:\{|\(|[A-Z_][A-Z0-9_]*$|[a-z_][a-z0-9_]*$|\d$)|^[{<[]|^%[A-Za-z_][A-Za-z0-9_]*%$/.test(password) ||
		/\$\{|\{\{|<[A-Za-z_]|%[A-Z_]+%/.test(user + password)
	)
		return false;
	if (password.length < 4 || password === user || /^(.)\1+$/.test(password)) return false;
	// A short literal ("pass") still opens the door as written; only words that stand for a
	// value to fill in ("password", "secret", "your-password", "${DB_PASS}") are placeholders.
	if (password !== "pass" && looksLikePlaceholder(password)) return false;
	if (/^(?:password|passwd|secret|pwd|changeme|p@ssw0rd|pa\$\$word|passw0rd|mypassword|your-?password|token)$/i.test(password))
		return false;
	return !/^[A-Z_]*(?:PASS|PASSWORD|SECRET|TOKEN|KEY|PWD)[A-Z_]*$/.test(password);
}

const credentialPair = memoize((value: string) => acceptCredentialPair(value), 1024);

function acceptCredentialPair(value: string): boolean {
	const pair = value.replace(/^["']|["']$/g, "");
	if (/\$|\{\{|<|\[|`/.test(pair) && !/^[^$]+\$\d/.test(pair)) return false;
	const colon = pair.search(/["']?:["']?/);
	if (colon < 0) return false;
	const user = pair.slice(0, colon).replace(/["'{}]/g, "");
	const password = pair
		.slice(colon)
		.replace(/^["']?:["']?/, "")
		.replace(/["'{}]/g, "");
	// "-u sk_live_…:" passes an API key as the user name.
	const secret = password || user;
	if (secret.length < 4 || looksLikePlaceholder(secret) || /^(.)\1*$/.test(secret)) return false;
	if (password && password === user) return false;
	return !/^(?:pass(?:word)?|secret|token|test|changeme|passwd|pwd)$/i.test(secret);
}

function acceptHeaderValue(value: string): boolean {
	const t = value.replace(/^(?:bearer|basic|token|api-token|digest|apikey|sso-key|key|jwt|signature)\s{1,3}/i, "").trim();
	if (t.length < 8 || looksLikePlaceholder(t)) return false;
	if (/^[{(]|^\$|^\w+\(/.test(t)) return false;
	if (/^basic\s/i.test(value)) {
		const decoded = decodeBase64(t);
		if (decoded && /^[\x20-\x7e]+$/.test(decoded)) {
			const [user = "", ...rest] = decoded.split(":");
			const pass = rest.join(":");
			if (!decoded.includes(":")) return false;
			if (looksLikePlaceholder(pass || user) || (pass && pass === user)) return false;
			return true;
		}
	}
	if (isUuid(t)) return true;
	if (charClasses(t) < 2 && !/^[a-f0-9]{16,}$/.test(t)) return false;
	if (looksLikeIdentifier(t)) return false;
	return entropy(t) >= 2.8;
}

/**
 * A scanner for a flag that means a password only on one command's line ("mysql … -pSECRET",
 * "docker login … -p SECRET"): each command once, from its name to the end of its line (at most
 * 512 characters), then on past that line, so every character is read a bounded number of times.
 */
function commandScanner(command: RegExp, flag: RegExp, check: (value: string) => boolean): ScannerRule["scan"] {
	const checked = memoize(check, 1024);
	return (text, from, to, emit, meter) => {
		command.lastIndex = from;
		for (let m = command.exec(text); m !== null && m.index < to; m = command.exec(text)) {
			const limit = Math.min(text.length, m.index + 512);
			const nl = text.indexOf("\n", m.index);
			const end = nl < 0 || nl > limit ? limit : nl;
			meter.steps += end - m.index;
			const line = text.slice(m.index, end);
			flag.lastIndex = 0;
			for (let f = flag.exec(line); f !== null; f = flag.exec(line)) {
				const span = f.indices?.[1];
				if (span && checked(f[1] ?? "")) emit(m.index + span[0], m.index + span[1]);
			}
			command.lastIndex = Math.max(end, m.index + 1);
		}
	};
}

// ---------------------------------------------------------------------------------------------
// The rules

/** The token prefixes GitLab documents (without the `-`). */
const GITLAB_PREFIX = /^gl(?:pat|dt|rt|rtr|ptt|cbt|imt|agent|oas|soat|ffct|ft|wt|cst)$/;
const B = "(?<![A-Za-z./])"; // a prefix must not continue a word, a file name or a path
/** For prefixes that also occur inside base64 ("EAAA" in an ssh-rsa key): not inside a base64 run. */
const BB = "(?<![A-Za-z0-9+/=._-])";
/** For short prefixes ("sk-", "re_"): not inside any identifier, word, path or flag. */
const B0 = "(?<![A-Za-z0-9_./-])";
const re = (source: string, flags = "") => new RegExp(source, `gd${flags}`);

export const SECRET_RULES: SecretRule[] = [
	// Private keys: a BEGIN line and some base64 within a bounded window, END optional.
	{
		id: "private-key",
		pattern: re(
			`${KEY_BEGIN}((?:${KEY_SEP}{1,16}[A-Za-z][A-Za-z0-9-]{1,30}:[^\\n\\\\]{0,200}){0,6})(${KEY_BODY_CHAR}{0,4096})(?:-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----)?`,
		),
		accept: (_v, m) => acceptKeyBody(m[2] ?? ""),
		extend: (text, end) => (text.startsWith("-----", end - 5) ? end : extendKeyBlock(text, end)),
	},
	{
		id: "putty-private-key",
		pattern: re(
			String.raw`PuTTY-User-Key-File-\d: [^\n]{1,80}(?:\r?\n[^\n]{0,200}){1,12}?\r?\nPrivate-Lines: \d{1,3}\r?\n([A-Za-z0-9+/=\r\n]{40,4096})`,
		),
		accept: (_v, m) => acceptKeyBody(m[1] ?? ""),
	},
	{
		id: "pkcs12-keystore",
		// A DER PKCS#12 keystore holding a shrouded private key (OID 1.2.840.113549.1.12.10.1.2),
		// raw or after lossy UTF-8 decoding, with the MAC a well-formed file ends with.
		pattern: der("\\x2a[\\x86\\ufffd]\\x48[\\x86\\ufffd][\\xf7\\ufffd]\\x0d\\x01\\x0c\\x0a\\x01\\x02", "dg"),
		accept: (_v, m, text) => pkcs12Wellformed(text, m.index),
	},
	{
		id: "gcp-service-account",
		pattern: /"type"\s{0,4}:\s{0,4}"service_account"/dg,
		// A service-account file whose key is elided ("...", "DUMMY") is documentation, not a credential.
		accept: (_v, m, text, memo) => {
			// Where the window's "private_key" values are, found once per window.
			let keys = memo.get("keys") as { at: number; elided: boolean }[] | undefined;
			if (!keys) {
				keys = [];
				const re = /"private_key"\s{0,4}:\s{0,4}"([^"]{0,200})/g;
				for (let k = re.exec(text); k !== null; k = re.exec(text)) {
					const body = keyBody((k[1] ?? "").replace(/-----(?:BEGIN|END)[ A-Z]{0,40}-----/g, ""));
					keys.push({ at: k.index, elided: body.length < 40 || looksLikePlaceholder(body.slice(0, 40)) });
				}
				memo.set("keys", keys);
			}
			// The nearest "private_key" within 4 KB (keys are in text order: binary search).
			let lo = 0;
			let hi = keys.length;
			while (lo < hi) {
				const mid = (lo + hi) >> 1;
				if ((keys[mid]?.at ?? 0) < m.index) lo = mid + 1;
				else hi = mid;
			}
			const near = [keys[lo - 1], keys[lo]].filter((k) => k !== undefined && Math.abs(k.at - m.index) <= 4096);
			// Without a key beside it, the type line alone is a description of the file, not the credential.
			return near.length > 0 && !near.some((k) => k?.elided);
		},
	},

	// AWS
	token("aws-access-key-id", re(`\\b((?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\\b`), {
		prefix: /^(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])/,
		minBits: 2.5,
		group: 1,
	}),
	{
		id: "aws-secret-access-key",
		// A 40-character secret near a name that says so (YAML, INI, env, JSON, code).
		pattern: re(
			String.raw`(?:aws|amazon)[A-Za-z0-9_.\-]{0,20}secret[A-Za-z0-9_.\-]{0,20}["']?\s{0,4}(?::=|=>|=|:|,)\s{0,4}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
			"i",
		),
		group: 1,
		accept: (v) => !looksLikePlaceholder(v) && isRandomToken(v, 40),
	},
	token("aws-bedrock-api-key", re(`${BB}ABSK[A-Za-z0-9+/]{109,269}={0,2}`), { prefix: /^ABSK/, minBits: 3.5 }),

	// Source hosts and package registries
	token("github-token", re(`${B}gh[pousr]_[A-Za-z0-9]{36,251}${E}`), { prefix: /^gh._/ }),
	token("github-fine-grained-pat", re(`${B}github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}${E}`), { prefix: /^github_pat_/ }),
	// GitLab's token prefixes (`glpat-`, `glrt-`, `glrtr-`, `glimt-`, `glcbt-`, …, and any it adds): `gl`, a
	// few letters and `-`. A path or URL may precede it (`/-/incoming/glimt-…`); a prefix GitLab has not
	// documented yet needs a random body of at least 20 characters.
	{
		id: "gitlab-token",
		pattern: re(`(?<![A-Za-z0-9_])(gl[a-z]{2,7})-[A-Za-z0-9_.-]{20,300}${E_}`),
		accept: (v, m, text) => {
			const body = v.slice((m[1]?.length ?? 0) + 1);
			if (looksLikePlaceholder(body) || looksLikePlaceholder(v) || truncatedAfter(text, m.index + v.length)) return false;
			return GITLAB_PREFIX.test(m[1] ?? "") ? true : isRandomToken(body.replace(/\.\d{2}\.[a-z0-9]{1,12}$/, ""), 20);
		},
	},
	token("gitlab-runner-registration", re(`${B}GR1348941[A-Za-z0-9_-]{20}${E_}`), { prefix: /^GR1348941/ }),
	token("npm-token", re(`${B}npm_[A-Za-z0-9]{36}${E}`), { prefix: /^npm_/ }),
	token("pypi-token", re(`${B}pypi-AgE[A-Za-z0-9_-]{50,1000}`), { prefix: /^pypi-AgE[A-Za-z0-9]{0,20}/, minBits: 3.5 }),
	token("docker-hub-token", re(`${B}dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,64}${E_}`), { prefix: /^dckr_\w{3}_/ }),
	token("rubygems-token", re(`${B}rubygems_[a-f0-9]{48}${E}`), { prefix: /^rubygems_/ }),
	token("nuget-key", re(`${BB}oy2[a-z0-9]{43}${E}`), { prefix: /^oy2/, minBits: 3.5 }),
	token("artifactory-token", re(`${BB}(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})${E}`), { prefix: /^(?:AKCp|cmVmd)/, minBits: 4 }),

	// Chat and messaging
	token("slack-token", re(`(?<![A-Za-z0-9])xox[abcdeoprs](?:\\.xox[bp])?-[A-Za-z0-9%-]{10,250}${E}`), {
		prefix: /^xox[\w.]{1,9}-/,
		// Team and user ids (8-14 digits) then a random part; config tokens and "d" cookies are long instead.
		check: (v) =>
			/-\d{8,14}-[A-Za-z0-9]{6,}/.test(v) ||
			/^xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{60,}$/i.test(v) ||
			(/^xoxd-[A-Za-z0-9%]{60,}$/.test(v) && entropy(v) > 4),
	}),
	token("slack-app-token", re(`${B}xapp-\\d-[A-Za-z0-9]{6,16}-\\d{6,16}-[A-Za-z0-9]{20,100}${E}`), { prefix: /^xapp-\d-/ }),
	{
		id: "slack-webhook",
		pattern: re(
			`hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9]{6,16}/[A-Za-z0-9]{6,16}/(?:\\d{6,24}/)?([A-Za-z0-9]{16,48})${E}`,
		),
		accept: (v, m) => !looksLikePlaceholder(v) && !/X{4}/.test(m[0]) && entropy(v) >= 3,
	},
	{
		id: "discord-bot-token",
		// Three base64url parts: the bot's numeric user id in base64, a timestamp and a signature. A first part
		// that decodes to a user id tells it anywhere, after a dot too (`config.<token>`), with newer, longer
		// signatures. By shape alone — the documented lengths, 24–28, 6 and 27–38 characters — it is refused
		// as well when the first part decodes to nothing (the policy refuses when in doubt), unless it
		// continues a dotted name or its parts look like words rather than random characters.
		pattern: re(`(?<![A-Za-z0-9_-])([A-Za-z0-9_-]{22,28})\\.([A-Za-z0-9_-]{6,7})\\.([A-Za-z0-9_-]{27,64})${E_}`),
		accept: (_v, m, text) => {
			const [, id = "", stamp = "", signature = ""] = m;
			if (looksLikePlaceholder(signature)) return false;
			if (/^[MNO]/.test(id) && id.length >= 23 && /^\d{17,20}$/.test(decodeBase64(id) ?? "")) return true;
			const afterDot = m.index > 0 && text[m.index - 1] === ".";
			return (
				!afterDot &&
				id.length >= 24 &&
				stamp.length === 6 &&
				signature.length <= 38 &&
				/[A-Z]/.test(id) &&
				/[a-z]/.test(id) &&
				/\d/.test(`${id}${stamp}${signature}`) &&
				entropy(signature) >= 3.5
			);
		},
	},
	// Discord user tokens of accounts with two-factor authentication: `mfa.` and 84 base64url characters.
	token("discord-mfa-token", re(`(?<![A-Za-z0-9_.-])mfa\\.[A-Za-z0-9_-]{84}${E_}`), { prefix: /^mfa\./, minBits: 4 }),
	{
		id: "discord-webhook",
		pattern: re(`(?:discord|discordapp)\\.com/api(?:/v\\d{1,2})?/webhooks/\\d{17,20}/([A-Za-z0-9_-]{60,80})${E_}`),
		group: 1,
		accept: (v) => !looksLikePlaceholder(v) && entropy(v) >= 4,
	},
	{
		id: "telegram-bot-token",
		// "<bot id>:<35 characters>"; issued secrets begin "AA", other shapes need "telegram"/"bot" nearby.
		pattern: re(`:[A-Za-z0-9_-]{34,36}${E_}(?<=(?<![0-9A-Za-z])(\\d{8,10}):[A-Za-z0-9_-]{34,36})`),
		pre: 1,
		accept: (_v, m, text) =>
			m[0].startsWith(":AA") || /telegram|\bbot|tg_|tele_/i.test(text.slice(Math.max(0, m.index - (m[1]?.length ?? 0) - 80), m.index)),
		check: (v) => !looksLikePlaceholder(v.slice(v.indexOf(":") + 1)) && entropy(v.slice(v.indexOf(":") + 1)) >= 3.5,
	},
	token("twilio-api-key", re(`${B}SK[0-9a-fA-F]{32}${E}`), { prefix: /^SK/, minBits: 3 }),
	{
		id: "twilio-auth-token",
		// An account SID followed closely by a 32-hex auth token ("ACxxx…:token", "sid … token").
		pattern: re(`${B}AC[0-9a-f]{32}${E}[^\\n]{0,40}?(?<![0-9a-fA-F])([0-9a-f]{32})${E}`),
		group: 1,
		accept: (v) => entropy(v) >= 3.2 && !looksLikePlaceholder(v),
	},
	token("sendgrid-api-key", re(`(?<![A-Za-z0-9])SG\\.[A-Za-z0-9_-]{16,32}\\.[A-Za-z0-9_-]{16,64}${E_}`), { prefix: /^SG\./, minBits: 3.5 }),
	{
		id: "mailchimp-api-key",
		pattern: re(`-us\\d{1,2}(?![0-9])(?<=(?<![0-9a-zA-Z])([0-9a-f]{32})-us\\d{1,2})`),
		pre: 1,
		check: (v) => entropy(v.slice(0, 32)) >= 3.2 && !looksLikePlaceholder(v.slice(0, 32)),
	},
	token("mailgun-api-key", re(`${B}key-[0-9a-f]{32}${E}`), { prefix: /^key-/, minBits: 3.2 }),

	// AI providers
	{
		// Anchored on "T3BlbkFJ" (base64 of "OpenAI"); the "sk-" prefix is found by scanning back by hand.
		id: "openai-api-key",
		pattern: re(`T3BlbkFJ[A-Za-z0-9_-]{16,200}`),
		accept: (_v, m, text) => {
			const end = m.index + m[0].length;
			if (/[A-Za-z0-9_-]/.test(text[end] ?? "")) return false;
			let i = m.index;
			const stop = Math.max(0, m.index - 220);
			while (i > stop && /[A-Za-z0-9_-]/.test(text[i - 1] ?? "")) i--;
			const head = text.slice(i, m.index);
			if (!/^sk-(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{16,200}$/.test(head)) return false;
			return [i, end];
		},
		check: (v) => !looksLikePlaceholder(v.replace(/^sk-(?:(?:proj|svcacct|admin)-)?/, "")),
	},
	token("openrouter-api-key", re(`${B}sk-or-v1-[a-f0-9]{64}${E}`), { prefix: /^sk-or-v1-/, minBits: 3.2 }),
	token("anthropic-api-key", re(`${B}sk-ant-[a-z]{3,5}\\d{2}-[A-Za-z0-9_-]{80,130}${E_}`), {
		prefix: /^sk-ant-[a-z]+\d+-/,
		check: (v) => v.endsWith("AA"),
	}),
	token("groq-api-key", re(`${B}gsk_[A-Za-z0-9]{52}${E}`), { prefix: /^gsk_/ }),
	token("perplexity-api-key", re(`${B}pplx-[A-Za-z0-9]{48}${E}`), { prefix: /^pplx-/ }),
	token("xai-api-key", re(`${B}xai-[A-Za-z0-9]{80}${E}`), { prefix: /^xai-/ }),
	token("huggingface-token", re(`${B}(?:hf_|api_org_)[A-Za-z]{34}${E}`), {
		prefix: /^(?:hf_|api_org_)/,
		check: (v) => !looksLikeIdentifier(v.replace(/^(?:hf_|api_org_)/, "")),
	}),
	token("replicate-api-token", re(`${B}r8_[A-Za-z0-9]{37}${E}`), { prefix: /^r8_/, minBits: 3.5 }),
	token("langsmith-api-key", re(`${B}lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}${E}`), { prefix: /^lsv2_\w\w_/ }),

	// OpenAI-compatible providers (DeepSeek, DashScope, Moonshot, SiliconFlow, LiteLLM and other
	// gateways) issue "sk-" and one random run; OpenAI's own keys are matched above by their marker.
	token("sk-api-key", re(`${B0}sk-[A-Za-z0-9]{32,64}${E_}`), {
		prefix: /^sk-/,
		check: (v) => isRandomToken(v.slice(3), 32),
	}),
	token("langfuse-secret-key", re(`${B0}sk-lf-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${E}`), {
		prefix: /^sk-lf-/,
		minBits: 3,
	}),
	token("elevenlabs-api-key", re(`${B0}sk_[a-f0-9]{48}${E}`), { prefix: /^sk_/, minBits: 3.2 }),
	token("pinecone-api-key", re(`${B0}pcsk_[A-Za-z0-9]{4,10}_[A-Za-z0-9]{40,100}${E}`), { prefix: /^pcsk_\w+?_/, minBits: 3.5 }),
	token("tavily-api-key", re(`${B0}tvly-(?:dev-|prod-)?[A-Za-z0-9]{32}${E_}`), { prefix: /^tvly-(?:dev-|prod-)?/, minBits: 3.5 }),

	// Google
	{
		// Google's prefix followed by 8 or more token characters, in the current length (AIzaSy + 33) or not.
		...token("google-api-key", re(`${B}AIza[A-Za-z0-9_-]{8,100}${E_}`), {
			prefix: /^AIza/,
			check: (v) => /[0-9]/.test(v.slice(4)) || (/[a-z]/.test(v.slice(4)) && /[A-Z]/.test(v.slice(4))),
		}),
		// A Firebase client configuration is public by design (Firebase's documentation says so); its
		// apiKey sits beside authDomain/messagingSenderId or in google-services.json's client block.
		accept: (_v, m, text) => {
			const end = m.index + m[0].length;
			if (/[A-Za-z0-9_-]/.test(text[end] ?? "") || truncatedAfter(text, end)) return false;
			return !inFirebaseConfig(text, m.index, end);
		},
	},
	token("google-oauth-secret", re(`${B}GOCSPX-[A-Za-z0-9_-]{28}${E_}`), { prefix: /^GOCSPX-/ }),
	token("google-oauth-token", re(`${B}ya29\\.[A-Za-z0-9_-]{30,2048}`), { prefix: /^ya29\./, minBits: 3.5 }),
	token("google-refresh-token", re(`(?<![A-Za-z0-9])1//0[A-Za-z0-9_-]{40,512}${E_}`), { prefix: /^1\/\/0/, minBits: 3.5 }),

	// Payments and commerce
	token("stripe-key", re(`${B}(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}${E}`), { prefix: /^\w\w_(?:live|test|prod)_/ }),
	token("stripe-webhook-secret", re(`${B}whsec_[A-Za-z0-9+/=]{24,80}`), { prefix: /^whsec_/ }),
	token("shopify-token", re(`${B}shp(?:at|ca|pa|ss)_[A-Za-z0-9]{32,64}${E}`), { prefix: /^shp\w\w_/ }),
	token("square-token", re(`${BB}(?:sq0atp|sq0csp|EAAA)[A-Za-z0-9_-]{22,60}${E_}`), { prefix: /^(?:sq0\w{3}|EAAA)/, minBits: 3.5 }),
	token("facebook-page-token", re(`${BB}EAA[A-Za-z0-9]{100,1000}`), { prefix: /^EAA/, minBits: 3.8 }),
	{
		id: "facebook-app-token",
		pattern: re(`(?<![0-9])\\d{15,16}(?:\\||%7C)([A-Za-z0-9_-]{27})${E_}`),
		accept: (_v, m) => entropy(m[1] ?? "") > 3.5,
	},

	// Cloud, infrastructure and developer platforms
	token("azure-storage-account-key", re(`AccountKey=([A-Za-z0-9+/]{86}==)`, "i"), { prefix: /^/, group: 1 }),
	token("azure-shared-access-key", re(`SharedAccessKey=([A-Za-z0-9+/]{42,44}={0,2})`, "i"), { prefix: /^/, group: 1 }),
	{
		id: "azure-sas-signature",
		// A SAS token's signature: sig=<base64 HMAC-SHA256>, URL-encoded or not.
		pattern: re(`[?&;]sig=([A-Za-z0-9%+/]{40,120}(?:=|%3[Dd]){0,2})`),
		group: 1,
		accept: (v) => {
			const decoded = v
				.replace(/%2[Bb]/g, "+")
				.replace(/%2[Ff]/g, "/")
				.replace(/%3[Dd]/g, "=");
			return /^[A-Za-z0-9+/]{42,44}={0,2}$/.test(decoded) && !looksLikePlaceholder(decoded) && entropy(decoded) >= 4;
		},
	},
	{
		id: "azure-ad-client-secret",
		// "abc8Q~" + 31-34 characters. Anchored on "Q~"; both boundaries checked by hand so a run
		// of "Q~Q~Q~…" is read once.
		pattern: re(`Q~[A-Za-z0-9_~.-]{31,34}`),
		accept: (_v, m, text) => {
			const end = m.index + m[0].length;
			const inClass = (c: string | undefined) => c !== undefined && /[A-Za-z0-9_~.-]/.test(c);
			if (inClass(text[end]) || !/\d/.test(text[m.index - 1] ?? "")) return false;
			const start = m.index - 4;
			if (start < 0 || !/^[A-Za-z0-9_~.-]{3}$/.test(text.slice(start, m.index - 1)) || inClass(text[start - 1])) return false;
			return [start, end];
		},
		check: (v) => !looksLikePlaceholder(v.slice(6)) && entropy(v) > 4,
	},
	token("digitalocean-token", re(`${B}do[opr]_v1_[a-f0-9]{64}${E}`), { prefix: /^do\w_v1_/ }),
	token("heroku-api-key", re(`${B}HRKU-AA[A-Za-z0-9_-]{58}${E_}`), { prefix: /^HRKU-AA/ }),
	token("cloudflare-api-token", re(`${B}cf(?:at|ut|k)_[A-Za-z0-9]{40}[0-9a-f]{8}${E}`), { prefix: /^cf\w{1,2}_/ }),
	token("cloudflare-origin-ca-key", re(`${B}v1\\.0-[a-f0-9]{24}-[a-f0-9]{146}${E}`), { prefix: /^v1\.0-/ }),
	token("vault-token", re(`${B}hv[sbr]\\.[A-Za-z0-9_-]{24,400}${E_}`), { prefix: /^hv.\./, minBits: 3.5 }),
	{
		id: "vault-legacy-token",
		pattern: re(`(?:token|vault)[A-Za-z0-9_-]{0,20}["']?\\s{0,4}[:=]\\s{0,4}["']?(s\\.[A-Za-z0-9]{24})${E}`, "i"),
		group: 1,
		accept: (v) => /[0-9]/.test(v) && /[A-Z]/.test(v) && /[a-z]/.test(v),
	},
	{
		// "<14 chars>.atlasv1.<60-70 chars>", anchored on ".atlasv1." with the head checked by hand.
		id: "terraform-cloud-token",
		pattern: re(`\\.atlasv1\\.[A-Za-z0-9_=-]{60,70}`),
		accept: (_v, m, text) => {
			const end = m.index + m[0].length;
			const start = m.index - 14;
			if (/[A-Za-z0-9]/.test(text[end] ?? "") || start < 0 || /[A-Za-z0-9]/.test(text[start - 1] ?? "")) return false;
			return /^[A-Za-z0-9]{14}$/.test(text.slice(start, m.index)) ? [start, end] : false;
		},
		check: (v) => !looksLikePlaceholder(v.slice(23)),
	},
	token("doppler-token", re(`${B}dp\\.(?:pt|st|ct|sa|scim|audit)\\.(?:[a-z0-9_-]{1,40}\\.)?[A-Za-z0-9]{40,44}${E}`), {
		prefix: /^dp\.\w+\.(?:[a-z0-9_-]+\.)?/,
	}),
	token("pulumi-token", re(`${B}pul-[a-z0-9]{40}${E}`), { prefix: /^pul-/, minBits: 3 }),
	token("supabase-token", re(`${B}sbp_(?:v0_)?[a-z0-9]{40}${E}`), { prefix: /^sbp_(?:v0_)?/, minBits: 3 }),
	token("flyio-token", re(`${B}(?:fo1_[A-Za-z0-9_-]{43}|fm[12][ar]?_[A-Za-z0-9+/]{100,2000}={0,3})`), {
		prefix: /^f\w{1,3}_/,
		minBits: 3.5,
	}),
	token("vercel-token", re(`${B}vc[pikar]_[A-Za-z0-9]{24,60}${E}`), { prefix: /^vc\w_/ }),
	token("netlify-token", re(`${B}nfp_[A-Za-z0-9]{36,40}${E}`), { prefix: /^nfp_/ }),
	token("render-api-key", re(`${B}rnd_[A-Za-z0-9]{32}${E}`), { prefix: /^rnd_/, minBits: 3.5 }),
	token("planetscale-token", re(`${B}pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_.-]{32,64}`), { prefix: /^pscale_\w+?_/ }),
	token("neon-api-key", re(`${B}napi_[a-z0-9]{64}${E}`), { prefix: /^napi_/, minBits: 3.5 }),
	token("databricks-token", re(`${B}dapi[a-fA-F0-9]{32}(?:-\\d)?${E}`), { prefix: /^dapi/ }),
	token("tailscale-key", re(`${B}tskey-[a-z]{2,20}-[A-Za-z0-9_-]{20,200}${E_}`), { prefix: /^tskey-[a-z]+-/ }),
	token("age-secret-key", re(`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`), { prefix: /^AGE-SECRET-KEY-1/ }),
	token("1password-service-token", re(`${B}ops_eyJ[A-Za-z0-9+/=_-]{100,4000}`), { prefix: /^ops_eyJ/, minBits: 4 }),
	token("1password-secret-key", re(`${B}A3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}${E}`), {
		prefix: /^A3-/,
		minBits: 3,
	}),
	token("intra42-secret", re(`${B}s-s4t2(?:ud|af)-[a-f0-9]{64}${E}`), { prefix: /^s-s4t2\w\w-/ }),
	token("octopus-api-key", re(`${B}API-[A-Z0-9]{26}${E}`), { prefix: /^API-/, minBits: 3.5, check: (v) => /\d/.test(v) }),
	token("clickhouse-secret-key", re(`${BB}4b1d[A-Za-z0-9]{38}${E}`), { prefix: /^4b1d/, minBits: 4 }),
	token("okta-token", re(`(?<![A-Za-z])okta[A-Za-z0-9_.-]{0,20}["']?\\s{0,4}[:=]\\s{0,4}["']?(00[A-Za-z0-9_-]{40})${E_}`, "i"), {
		prefix: /^00/,
		minBits: 4,
		group: 1,
	}),
	token("openshift-token", re(`${B}sha256~[A-Za-z0-9_-]{43}${E_}`), { prefix: /^sha256~/, minBits: 3.5 }),

	// Observability, productivity and other SaaS
	token("datadog-token", re(`${B}dd(?:pat|app|api)_[A-Za-z0-9]{32,64}${E}`), { prefix: /^dd\w{3}_/ }),
	token("sentry-token", re(`${B}sntry[su]_[A-Za-z0-9+/=_]{40,600}`), { prefix: /^sntry\w_/, minBits: 3.5 }),
	token("newrelic-key", re(`${B}NR(?:AK|II|JS|AA)-[A-Za-z0-9-]{19,32}${E}`), { prefix: /^NR\w\w-/ }),
	token("grafana-cloud-token", re(`${B}glc_[A-Za-z0-9+/]{32,400}={0,3}`), { prefix: /^glc_/ }),
	token("grafana-service-account-token", re(`${B}glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}${E}`), { prefix: /^glsa_/ }),
	token("grafana-api-key", re(`${B}eyJrIjoi[A-Za-z0-9]{70,400}={0,3}`), { prefix: /^eyJrIjoi/, minBits: 4 }),
	token("linear-api-key", re(`${B}lin_(?:api|oauth)_[A-Za-z0-9]{40,64}${E}`), { prefix: /^lin_\w+?_/ }),
	token("notion-token", re(`${B}(?:ntn_\\d{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})${E}`), {
		prefix: /^(?:ntn_\d{11}|secret_)/,
		check: (v) => !v.startsWith("secret_") || isRandomToken(v.slice(7), 40),
	}),
	token("atlassian-api-token", re(`${B}ATATT3[A-Za-z0-9_=-]{150,250}`), { prefix: /^ATATT3/, minBits: 4 }),
	token("postman-api-key", re(`${B}PMAK-[A-Za-z0-9]{24}-?[A-Za-z0-9]{34,40}${E}`), { prefix: /^PMAK-/ }),
	token("figma-token", re(`${B}fig[dou]_[A-Za-z0-9_-]{40,200}${E_}`), { prefix: /^fig\w_/ }),
	token("sourcegraph-token", re(`${B}sgp_(?:[a-fA-F0-9]{16}_|local_)?[a-fA-F0-9]{40}${E}`), { prefix: /^sgp_(?:\w+?_)?/, minBits: 3 }),
	token("prefect-api-key", re(`${B}pnu_[A-Za-z0-9]{36}${E}`), { prefix: /^pnu_/ }),
	token("readme-api-key", re(`${B}rdme_[a-z0-9]{70}${E}`), { prefix: /^rdme_/ }),
	token("airtable-pat", re(`${B}pat[A-Za-z0-9]{14}\\.[a-f0-9]{64}${E}`), { prefix: /^pat/ }),
	token("mapbox-secret-token", re(`${B}sk\\.eyJ[A-Za-z0-9_-]{20,400}\\.[A-Za-z0-9_-]{20,100}`), { prefix: /^sk\.eyJ/ }),
	token("dropbox-token", re(`${B}sl\\.[A-Za-z0-9_-]{130,1400}`), { prefix: /^sl\./, minBits: 4 }),
	token("buildkite-token", re(`${B}bkua_[a-z0-9]{40}${E}`), { prefix: /^bkua_/, minBits: 3.2 }),
	token("circleci-token", re(`${B}CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}${E}`), { prefix: /^CCIPAT_/ }),
	token("contentful-token", re(`${B}CFPAT-[A-Za-z0-9_-]{43}${E_}`), { prefix: /^CFPAT-/ }),
	token("typeform-token", re(`${B}tfp_[A-Za-z0-9_-]{44,59}${E_}`), { prefix: /^tfp_/, minBits: 3.5 }),
	token("easypost-key", re(`${B}EZ[AT]K[A-Za-z0-9]{54}${E}`), { prefix: /^EZ\wK/, minBits: 4 }),
	token("shippo-token", re(`${B}shippo_(?:live|test)_[a-f0-9]{40}${E}`), { prefix: /^shippo_\w+?_/ }),
	token("adafruit-key", re(`${B}aio_[A-Za-z0-9]{28}${E}`), { prefix: /^aio_/, minBits: 3.5 }),
	token("frameio-token", re(`${B}fio-u-[A-Za-z0-9_=-]{64}${E_}`), { prefix: /^fio-u-/ }),
	token("infracost-token", re(`${B}ico-[A-Za-z0-9]{32}${E}`), { prefix: /^ico-/, minBits: 3.5 }),
	token("supabase-secret-key", re(`${B0}sb_secret_[A-Za-z0-9_-]{20,80}${E_}`), { prefix: /^sb_secret_/, minBits: 3.5 }),
	token("bitbucket-app-password", re(`${BB}ATBB[A-Za-z0-9]{28,40}${E}`), { prefix: /^ATBB/, minBits: 3.5 }),
	{
		// Azure DevOps personal access tokens: 84 characters with the signature "AZDO" at offset 76.
		// Anchored on the signature; the 76 characters before it are checked by hand.
		id: "azure-devops-pat",
		// The look-ahead keeps the regex from handing out a candidate for every "AZDO" inside a longer
		// run of letters (a text repeating "AZDOAZDO" cost one callback per 8 characters).
		pattern: re(`AZDO[A-Za-z0-9]{4}(?![A-Za-z0-9])`),
		accept: (_v, m, text) => {
			const end = m.index + m[0].length;
			const start = m.index - 76;
			if (start < 0 || /[A-Za-z0-9]/.test(text[start - 1] ?? "")) return false;
			return /^[A-Za-z0-9]{76}$/.test(text.slice(start, m.index)) ? [start, end] : false;
		},
		check: (v) => isRandomToken(v.slice(0, 76), 40),
	},
	token("alibaba-access-key-id", re(`${BB}LTAI[A-Za-z0-9]{12,20}${E}`), {
		prefix: /^LTAI/,
		check: (v) => isRandomToken(v.slice(4), 12),
	}),
	token("resend-api-key", re(`${B0}re_[A-Za-z0-9]{6,12}_[A-Za-z0-9]{20,32}${E}`), {
		prefix: /^re_/,
		check: (v) => isRandomToken(v.slice(3).replace("_", ""), 24),
	}),
	token("brevo-api-key", re(`${B0}x(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}${E}`), { prefix: /^x\w{5,6}-/ }),
	{
		// Mailgun's private API keys: 32 hex, "-", 8 hex, "-", 8 hex (anchored on the tail).
		id: "mailgun-private-key",
		pattern: re(`-[a-f0-9]{8}-[a-f0-9]{8}(?![A-Za-z0-9-])(?<=(?<![A-Za-z0-9-])([a-f0-9]{32})-[a-f0-9]{8}-[a-f0-9]{8})`),
		pre: 1,
		check: (v) => entropy(v.slice(0, 32)) >= 3.2 && !looksLikePlaceholder(v.slice(0, 32)),
	},
	{
		// X (Twitter) app-only bearer tokens: a run of "A", then a URL-encoded (%2B, %3D) or raw base64
		// body, about 110 characters in all. A longer base64 run (a blob that starts with zero bytes)
		// runs past the end and is left alone.
		id: "twitter-bearer-token",
		pattern: re(`(?<![A-Za-z0-9%+/=])A{20,24}[A-Za-z0-9%+/=]{70,110}`),
		accept: (_v, m, text) => !/[A-Za-z0-9%+/=]/.test(text[m.index + m[0].length] ?? ""),
		check: (v) => {
			const body = v.replace(/^A{1,40}/, "").replace(/%2[BbFf]|%3[Dd]|[+/=]/g, "");
			return isRandomToken(body.slice(0, 120), 40);
		},
	},
	token("cairn-api-key", re(`${B}cairn_[a-z0-9]{8,32}_[A-Za-z0-9]{32,128}${E}`), { prefix: /^cairn_[a-z0-9]+_/ }),

	{
		id: "secp256k1-private-key",
		// An Ethereum-style private key: 0x and 64 hex digits, the shape of a transaction hash too, so
		// only with wallet or key words around it.
		pattern: re(`(?<![A-Za-z0-9])0x[0-9a-fA-F]{64}(?![0-9A-Za-z])`),
		accept: (_v, m, text) =>
			/private|priv(?:ate)?[-_ ]?key|secret|mnemonic|seed phrase|wallet/i.test(text.slice(Math.max(0, m.index - 200), m.index + 266)),
		check: (v) => !looksLikePlaceholder(v.slice(2)) && entropy(v.slice(2)) > 3.2,
	},

	// JWTs, whole or wrapped over lines.
	{ id: "jwt", scan: scanJwt },

	// Credentials in URLs: scheme://user:password@host (databases, brokers, git remotes, Sentry DSNs).
	{
		id: "credentials-in-url",
		pattern: re(
			`:\\/\\/(?<=(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{1,24}):\\/\\/)([^\\s:/?#@"'\x60<>]{0,128}):([^\\s/"'\x60<>]{1,256})@(?=[A-Za-z0-9\\[_-])`,
		),
		pre: 1,
		group: 3,
		accept: (v, m) => acceptUrlCredential(v, m),
	},
	{
		// A token as the whole user-info: `https://<token>@github.com/org/repo.git`. A Sentry DSN's key is
		// public by design and stays.
		id: "token-in-url",
		pattern: re(`:\\/\\/(?<=(?<![A-Za-z0-9+.-])([A-Za-z][A-Za-z0-9+.-]{1,24}):\\/\\/)([A-Za-z0-9_-]{20,256})@([A-Za-z0-9.-]{1,253})`),
		pre: 1,
		group: 2,
		accept: (v, m) =>
			!/^(?:file|data|mailto|urn|ssh|git)$/i.test(m[1] ?? "") &&
			!/(?:^|\.)sentry(?:\.|$)|ingest\./i.test(m[3] ?? "") &&
			!looksLikePlaceholder(v) &&
			isRandomToken(v, 20),
	},
	{
		id: "oracle-jdbc-password",
		pattern: re(`jdbc:oracle:[a-z]{1,10}:([A-Za-z0-9_$#]{1,30})/([^@\\s"'/]{1,128})@`),
		group: 2,
		accept: (v) => !looksLikePlaceholder(v) && v.length >= 4,
	},

	// HTTP authentication.
	{
		id: "http-auth-header",
		pattern: re(
			`(?:proxy-)?authorization\\\\?["']?\\s{0,3}[:=]\\s{0,3}\\\\?["']?((?:(?:bearer|basic|token|api-token|digest|apikey|sso-key|jwt)\\s{1,3})?[A-Za-z0-9+/=._~:@!$-]{6,2048})`,
			"i",
		),
		group: 1,
		check: (v) => acceptHeaderValue(v),
	},
	{
		id: "bearer-token",
		pattern: re(`(?<![A-Za-z])[Bb]earer\\s{1,3}([A-Za-z0-9._~+/-]{16,2048}={0,2})`),
		group: 1,
		check: (v) => acceptHeaderValue(v),
	},
	{ id: "curl-user", scan: scanCurl },
	{
		id: "cli-secret-flag",
		// --password value, --token value, --client-secret=value (the "=" form is an assignment too).
		pattern: re(
			`(?<![A-Za-z0-9-])--(?:[a-z]{1,20}-){0,3}(password|passwd|pass|token|secret|api-key|apikey|key|auth-token|access-token|client-secret|secret-key|access-key)(?:[ \\t]{1,3}|=)(?:"([^"\\n]{1,256})"|'([^'\\n]{1,256})'|([^\\s"'\x60|;&<>]{1,256}))`,
		),
		group: [2, 3, 4],
		accept: (v, m) => {
			if (/^-/.test(v)) return false;
			const quoted = m[2] !== undefined || m[3] !== undefined;
			const kind = /pass/.test(m[1] ?? "") ? "password" : m[1] === "key" ? "key" : "token";
			return acceptValueFor(kind, v, quoted);
		},
	},
	{
		// mysql -u root -pS3cret: the password is glued to -p (a space would make it a prompt).
		id: "mysql-password-flag",
		scan: commandScanner(
			/\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump)\b/g,
			/\s-p([^\s"'\x60|;&<>]{4,128})/dg,
			(v) => isPasswordLike(v, false) || isRandomToken(v, 8),
		),
	},
	{
		id: "sshpass-password",
		pattern: re(`\\bsshpass\\s{1,3}-p\\s{0,3}(?:"([^"\\n]{1,128})"|'([^'\\n]{1,128})'|([^\\s"']{1,128}))`),
		group: [1, 2, 3],
		check: (v) => !/^\$/.test(v) && (isPasswordLike(v, false) || isRandomToken(v, 12)),
	},
	{
		// A .netrc entry: `machine api.example.com login alice password s3cret` (or `default login … password …`).
		// Without `machine`/`default` before it the words also read as prose ("rate limits on login and password
		// reset"), so then only a value that looks like a password counts.
		id: "netrc-password",
		pattern: re(
			`(\\b(?:machine[ \\t]{1,8}[^\\s]{1,253}|default)[ \\t]{1,8})?\\blogin[ \\t]{1,8}[^\\s]{1,128}[ \\t]{1,8}password[ \\t]{1,8}([^\\s]{4,256})`,
		),
		group: 2,
		accept: (v, m) =>
			!looksLikePlaceholder(v) && !/^\$/.test(v) && (m[1] !== undefined || isPasswordLike(v, false) || isRandomToken(v, 12)),
	},

	{
		id: "password-in-prose",
		// "the password is Tr0ub4dor&3", "token was 9f8e…": a secret word, "is"/"was", the value.
		pattern: re(
			`\\b(password|passphrase|passwd|pwd|token|api key|secret key|secret)[ \\t]{1,3}(?:is|was)[ \\t]{1,3}(?:now[ \\t]{1,3})?["'\x60]?([^\\s"'\x60]{6,128})`,
			"i",
		),
		group: 2,
		accept: (v, m) => {
			const value = v.replace(/[.,;:!?)]$/, "");
			return /pass|pwd/i.test(m[1] ?? "") ? isPasswordLike(value, false) : isRandomToken(value, 16);
		},
	},
	{
		id: "http-basic-auth-tuple",
		// requests.get(url, auth=("deploy", "s3cr3t!")), HTTPBasicAuth("deploy", "s3cr3t!")
		pattern: re(
			`(?:\\bauth[ \\t]{0,2}=[ \\t]{0,2}\\(|BasicAuth\\()[ \\t]{0,2}["']([^"'\\n]{1,64})["'][ \\t]{0,2},[ \\t]{0,2}["']([^"'\\n]{4,128})["']`,
		),
		group: 2,
		check: (v) => isPasswordLike(v, true) || isRandomToken(v, 12),
	},
	{
		// docker login -u deploy -p <password>; helm registry login … --password is a flag rule.
		id: "registry-login-password",
		scan: commandScanner(
			/\b(?:docker|podman|buildah|nerdctl|oras)[ \t]{1,3}login\b/g,
			/\s-p[ \t]{1,3}["']?([^\s"'\x60|;&<>]{4,128})/dg,
			(v) => !/^\$/.test(v) && (isPasswordLike(v, false) || isRandomToken(v, 12)),
		),
	},
	token("base64-private-key", re(`${BB}LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,8000}={0,2}`), {
		prefix: /^/,
		check: (v) => /PRIVATE KEY/.test(decodeBase64(v.slice(0, 120).replace(/=+$/, "").slice(0, 116)) ?? ""),
	}),
	token("firebase-legacy-server-key", re(`${BB}AAAA[A-Za-z0-9_-]{7}:APA91b[A-Za-z0-9_-]{134}${E_}`), {
		prefix: /^AAAA[\w-]{7}:APA91b/,
		minBits: 4,
	}),
	token("asana-token", re(`(?<![0-9A-Za-z/])[12]/\\d{10,16}:[a-f0-9]{32}${E}`), { prefix: /^[12]\/\d+:/, minBits: 3 }),
	token(
		"plaid-access-token",
		re(`${B}access-(?:production|development|sandbox)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}${E}`),
		{
			prefix: /^access-\w+-/,
		},
	),
	token("braintree-access-token", re(`${B}access_token\\$(?:production|sandbox)\\$[a-z0-9]{16}\\$[a-f0-9]{32}${E}`), {
		prefix: /^access_token\$\w+\$/,
	}),

	// Secret-named assignments: NAME=value, name: value, "name": "value", name := value.
	{
		id: "secret-assignment",
		pattern: re(
			// (?=(…))\1 reads the rest of the name once, without backtracking into it.
			`(?:key|secret|token|pass|pwd|auth|cred|private|bearer|sas|pat)(?=([A-Za-z0-9_.-]{0,40}))\\1(\\\\?["']?\\]?[ \\t]{0,3}(?::=|=>|=|:)[ \\t]{0,8})${VALUE}`,
			"i",
		),
		group: [3, 4, 5, 6],
		accept: acceptAssignment,
		resumeAtValue: true,
	},
	{
		id: "provider-token-assignment",
		// "sourcegraph: <token>", "github_token" aside: a provider's name used as the key.
		pattern: re(`[:=](?<=[A-Za-z]["']?[ \\t]{0,3}[:=])[ \\t]{0,8}["']?([A-Za-z0-9_\\-+/=.~]{20,128})`),
		group: 1,
		accept: acceptProviderKey,
	},
	{
		id: "name-value-pair",
		// Kubernetes env lists, ECS task definitions: "- name: API_SECRET / value: …", {"name": …, "value": …}.
		pattern: re(
			`\\bname["']?[ \\t]{0,3}[:=][ \\t]{0,3}["']?([A-Za-z_][A-Za-z0-9_.-]{0,60})["']?[ \\t]{0,3},?[ \\t]{0,3}\\r?\\n?[ \\t-]{0,40}["']?value["']?[ \\t]{0,3}[:=][ \\t]{0,3}(?:"([^"\\n]{4,256})"|'([^'\\n]{4,256})'|([^\\s"'\x60,;}]{4,256}))`,
		),
		group: [2, 3, 4],
		accept: (v, m) => {
			const kind = classifyName(m[1] ?? "");
			return kind !== null && acceptValueFor(kind, v, m[4] === undefined);
		},
	},
	{
		id: "xml-secret-element",
		pattern: re(`<([A-Za-z_][A-Za-z0-9_.:-]{0,40})>([^<>\\s]{6,256})</\\1>`),
		group: 2,
		accept: (v, m) => {
			const kind = classifyName(m[1] ?? "");
			return kind !== null && acceptValueFor(kind, v, true);
		},
	},
	{
		id: "xml-secret-attribute",
		// <add key="DbPassword" value="…"/>, <entry name="apiToken" value="…">
		pattern: re(`(?:key|name)=["']([A-Za-z_][A-Za-z0-9_.:-]{0,60})["'][ \\t]{1,8}value=["']([^"'\\n]{4,256})["']`),
		group: 2,
		accept: (v, m) => {
			const kind = classifyName(m[1] ?? "");
			return kind !== null && acceptValueFor(kind, v, true);
		},
	},
	// What the policy adds on top of the formats: refuse when in doubt (secret-policy.ts).
	...POLICY_RULES,
];

// ---------------------------------------------------------------------------------------------
// PKCS#12

/**
 * A PKCS#12 file ends with its MAC: a SHA digest algorithm OID, the digest, a salt and an iteration
 * count. A keystore without one, or with an absurd count, is not a usable key file.
 */
const PKCS12_MAC = der(
	"(?:\\x06\\x05\\x2b\\x0e\\x03\\x02\\x1a|\\x06\\x09\\x60[\\x86\\ufffd]\\x48\\x01\\x65\\x03\\x04\\x02[\\x01-\\x03])\\x05\\x00\\x04[\\x14\\x20\\x30\\x40\\ufffd]",
);
const PKCS12_ITERATIONS = der("\\x02([\\x01-\\x04])([\\s\\S]{1,4})$");

function pkcs12Wellformed(text: string, oidAt: number): boolean {
	const tail = text.slice(oidAt, oidAt + 16_384);
	// SHA-1 (1.3.14.3.2.26) or SHA-2 (2.16.840.1.101.3.4.2.x) digest OID followed by NULL params.
	const mac = PKCS12_MAC.exec(tail);
	if (!mac) return false;
	// The iteration count: INTEGER of 1-3 bytes after the salt, at the very end of the file.
	const iter = PKCS12_ITERATIONS.exec(tail.slice(mac.index).replace(/[\r\n]{0,2}$/, ""));
	if (!iter) return true;
	// Real files use 2048 (OpenSSL, GCP) or 10000 (Java); secretlint refuses more than 100,000.
	const len = iter[1]?.charCodeAt(0) ?? 0;
	return len <= 2 || (len === 3 && (iter[2]?.charCodeAt(0) ?? 0xff) <= 0x01);
}
