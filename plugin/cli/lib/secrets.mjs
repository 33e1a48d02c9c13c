// @ts-check
// A first look for secrets before anything leaves the machine: the common token formats, key blocks,
// JWTs, credentials in URLs and secret-named assignments with a credible value. The service scans
// everything again with its full rule set and refuses what this misses (422 secret_detected).

const PLACEHOLDER =
	/^(?:<[^>]*>|\$\{?[A-Za-z_][\w]*\}?|\{\{[^}]*\}\}|%[A-Za-z_]\w*%|x{3,}|X{3,}|\*{3,}|\.{3,}|…|your[_-]?\w*|my[_-]?\w*|changeme|change[_-]me|example\w*|placeholder|redacted|dummy|fake\w*|test\w*|secret|password|token|none|null|undefined|true|false|todo|tbd|env\w*|process\.env\.\w+|os\.environ\S*)$/i;

/** Whether a value looks random enough to be a credential rather than a word or a reference. @param {string} v */
function credible(v) {
	if (v.length < 8 || PLACEHOLDER.test(v) || /example|placeholder|redacted|xxxx/i.test(v)) return false;
	const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(v)).length;
	return classes >= 2 && new Set(v).size >= 6;
}

/** @type {{ id: string, pattern: RegExp, value?: (m: RegExpExecArray) => boolean }[]} */
const RULES = [
	{ id: "private-key", pattern: /-----BEGIN (?:[A-Z0-9]+ ){0,3}PRIVATE KEY(?: BLOCK)?-----/g },
	{ id: "aws-access-key-id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g, value: (m) => !m[0].endsWith("EXAMPLE") },
	{ id: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{50,255})\b/g },
	{ id: "gitlab-token", pattern: /\bglpat-[A-Za-z0-9_-]{20,64}\b/g },
	{ id: "openai-or-anthropic-key", pattern: /\bsk-(?:ant-[a-z0-9]{2,8}-|proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,200}\b/g },
	{ id: "slack-token", pattern: /\bxox[abposre]-[A-Za-z0-9-]{10,200}\b/g },
	{ id: "slack-webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9_/]{20,120}/g },
	{ id: "google-api-key", pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
	{ id: "npm-token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
	{ id: "stripe-key", pattern: /\b[rs]k_live_[A-Za-z0-9]{20,120}\b/g },
	{ id: "sendgrid-key", pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}\b/g },
	{ id: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{10,2000}\.eyJ[A-Za-z0-9_-]{10,4000}\.[A-Za-z0-9_-]{10,2000}/g },
	{
		id: "bearer-token",
		pattern: /\bBearer[ \t]+([A-Za-z0-9._~+/-]{20,1000}=*)/g,
		value: (m) => credible(m[1] ?? ""),
	},
	{
		id: "url-credentials",
		pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s:@/]{1,100}:([^\s@/]{3,200})@/gi,
		value: (m) => !PLACEHOLDER.test(m[1] ?? "") && !/^\$|^\*+$|^x+$/i.test(m[1] ?? ""),
	},
	{
		id: "secret-assignment",
		pattern:
			/\b[\w.-]{0,40}(?:password|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret|auth)[\w.-]{0,40}["']?[ \t]*(?::=|=|:)[ \t]*["'`]?([^\s"'`,;]{8,300})/gi,
		value: (m) => credible(m[1] ?? ""),
	},
];

/**
 * The rules that fire on a text (never the secret itself).
 * @param {string} text
 * @returns {string[]}
 */
export function findSecrets(text) {
	const found = new Set();
	for (const rule of RULES) {
		rule.pattern.lastIndex = 0;
		for (let m = rule.pattern.exec(text); m !== null; m = rule.pattern.exec(text)) {
			if (!rule.value || rule.value(m)) {
				found.add(rule.id);
				break;
			}
		}
	}
	return [...found];
}
