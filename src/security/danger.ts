/**
 * The danger check of memory content (docs/memory-trust.md): does a memory ask its reader to do
 * something that an attacker would plant — run code fetched from elsewhere, send credentials, the
 * environment or the source out, switch a safety check off, redirect where dependencies or code come
 * from, open access to someone, or override the agent's own instructions — including the disguised
 * forms (encoded payloads, commands assembled from parts, look-alike domains, link shorteners, letters
 * from other scripts, invisible characters).
 *
 * It weighs what a sentence asks and where it points, not the mere words: "check the API with
 * `curl http://localhost:8080/healthz`" mentions curl and "never pipe downloaded scripts into a shell"
 * mentions the very action, and both are ordinary rules. Each sentence is split into clauses; a clause
 * whose action is denied ("never", "don't", "instead of", "-지 않는다", "대신") does not count.
 *
 * The check is deliberately wide on the actions it names: a memory it flags is held for a person's
 * review (src/trust/hold.ts), not refused, so a false alarm costs one approval while a miss reaches
 * every teammate's agent.
 */
import { type HostMention, hostsIn } from "./danger-hosts";

export const DANGER_CLASSES = ["rce", "exfiltration", "safety-off", "supply-chain", "access", "override", "disguised"] as const;
export type DangerClass = (typeof DANGER_CLASSES)[number];

export interface DangerFinding {
	class: DangerClass;
	/** A fixed phrase naming what was found; never the memory's text. */
	reason: string;
}

/** Bumped whenever the check changes what it flags: stored memories are checked again (src/trust/recheck.ts). */
export const DANGER_POLICY_VERSION = 2;

// ---------------------------------------------------------------------------------------------------
// Normalising: invisible characters, letters from other scripts, encoded payloads, assembled commands.

const INVISIBLE = /[\u00ad\u180e\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/** Cyrillic and Greek letters drawn like Latin ones. */
const CONFUSABLE = new Map<string, string>(
	Object.entries({
		а: "a",
		в: "b",
		е: "e",
		ё: "e",
		к: "k",
		м: "m",
		н: "h",
		о: "o",
		р: "p",
		с: "c",
		т: "t",
		у: "y",
		х: "x",
		і: "i",
		ї: "i",
		ј: "j",
		ѕ: "s",
		ԁ: "d",
		ԛ: "q",
		ԝ: "w",
		ɡ: "g",
		ο: "o",
		α: "a",
		ν: "v",
		ρ: "p",
		τ: "t",
		ι: "i",
		κ: "k",
		ε: "e",
		υ: "u",
		χ: "x",
		А: "A",
		В: "B",
		Е: "E",
		К: "K",
		М: "M",
		Н: "H",
		О: "O",
		Р: "P",
		С: "C",
		Т: "T",
		Х: "X",
		І: "I",
		Ѕ: "S",
		Ο: "O",
		Α: "A",
		Β: "B",
		Ε: "E",
		Κ: "K",
		Μ: "M",
		Ν: "N",
		Ρ: "P",
		Τ: "T",
		Χ: "X",
	}),
);
const CONFUSABLE_CLASS = new RegExp(`[${[...CONFUSABLE.keys()].join("")}]`, "u");
const MIXED_WORD = /[\p{L}\p{N}._/:-]*[A-Za-z][\p{L}\p{N}._/:-]*/gu;

interface Normalised {
	text: string;
	disguises: string[];
}

const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/_-]{16,}={0,2}(?![A-Za-z0-9+/=])/g;
const HEX_RUN = /(?<![0-9a-fA-F])(?:[0-9a-fA-F]{2}){12,}(?![0-9a-fA-F])/g;
/** Decoded text worth reading: printable ASCII with line breaks and tabs (no other control characters). */
const isPrintable = (text: string) => [...text].every((ch) => ch === "\t" || ch === "\n" || ch === "\r" || (ch >= " " && ch <= "~"));

function decodeBase64(run: string): string | null {
	const clean = run.replace(/-/g, "+").replace(/_/g, "/");
	if (clean.length % 4 === 1) return null;
	try {
		const padded = clean + "=".repeat((4 - (clean.length % 4)) % 4);
		const text = atob(padded);
		return isPrintable(text) && /[ /.|:$-]/.test(text) && /[a-z]{3}/i.test(text) ? text : null;
	} catch {
		return null;
	}
}

function decodeHex(run: string): string | null {
	let text = "";
	for (let i = 0; i < run.length; i += 2) text += String.fromCharCode(Number.parseInt(run.slice(i, i + 2), 16));
	return isPrintable(text) && /[a-z]{3}/i.test(text) ? text : null;
}

/** Joins what a writer split to hide it: `"cu"+"rl"`, `'ba''sh'`, `c\url`, `$A$B` after `A=…; B=…`. */
function assemble(text: string): string {
	let out = text
		.replace(/(["'])\s*(?:\+|\.|\|\||,)?\s*\1/g, "")
		.replace(/\\(?=[a-z])/gi, "")
		.replace(/\\\n/g, "");
	const vars = new Map<string, string>();
	for (const m of out.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)=(["']?)([^\s"';&|]+)\2/g)) vars.set(m[1] ?? "", m[3] ?? "");
	if (vars.size >= 2) out += `\n${out.replace(/\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?/g, (all, name: string) => vars.get(name) ?? all)}`;
	return out;
}

function normalise(raw: string): Normalised {
	const disguises: string[] = [];
	let text = raw.normalize("NFKC");
	const stripped = text.replace(INVISIBLE, "");
	if (stripped !== text && /[\p{L}\p{N}][\u00ad\u200b\u200c\u2060-\u2064\ufeff][\p{L}\p{N}]|[\u202a-\u202e\u2066-\u2069]/u.test(text))
		disguises.push("invisible characters inside words");
	text = stripped;
	// A word mixing Latin letters with look-alike letters of another script (а Cyrillic "a" inside "pаypal").
	let mixed = false;
	text = text.replace(MIXED_WORD, (word) => {
		if (!CONFUSABLE_CLASS.test(word)) return word;
		mixed = true;
		return [...word].map((ch) => CONFUSABLE.get(ch) ?? ch).join("");
	});
	if (mixed) disguises.push("letters from another script inside a Latin word");
	const decoded: string[] = [];
	for (const m of text.matchAll(BASE64_RUN)) {
		const value = decodeBase64(m[0]);
		if (value) decoded.push(value);
	}
	for (const m of text.matchAll(HEX_RUN)) {
		const value = decodeHex(m[0]);
		if (value) decoded.push(value);
	}
	// A string written backwards and turned round by `rev` (`echo hsab | rev`, `rev <<< "…"`) is read the right way too.
	for (const m of text.matchAll(
		/\becho\s+(?:-n\s+)?(["']?)([^"'|)\n]{3,}?)\1\s*\|\s*rev\b|\brev\s*<<<\s*(["']?)([^"'\n]{3,}?)\3(?=[\s;)|`'"]|$)/g,
	)) {
		const value = m[2] ?? m[4];
		if (value) decoded.push([...value].reverse().join(""));
	}
	const assembled = assemble(text);
	return {
		text: [text, assembled === text ? "" : assembled, ...decoded].filter(Boolean).join("\n"),
		disguises: [...disguises, ...decoded.map(() => "encoded text")],
	};
}

// ---------------------------------------------------------------------------------------------------
// Clauses and denial.

/** Sentence and clause boundaries: a period that ends a sentence (not one inside a name or a URL), `;`, lines, and "but". */
const CLAUSE_SPLIT =
	/(?<!\b(?:e\.g|i\.e|etc|vs|cf|approx|incl)\.)(?<=[.!?。])\s+(?=\S)|[;\n]+|(?<=[가-힣]):\s+|\s+(?:but|however|whereas|although)\s+|(?<=[가-힣])(?:고|며|지만|는데|으며|하며|하고|되고|고서|면서),?\s+/u;

const EN_DENIAL =
	/\b(?:never|don'?t|do not|does not|doesn'?t|must not|mustn'?t|should not|shouldn'?t|cannot|can'?t|won'?t|avoid(?:ing)?|no longer|not|nor|refuse|forbid(?:den)?|prohibit(?:ed)?|instead of|rather than|stop|ban(?:ned)?|disallow(?:ed)?|block(?:ed)?|reject|only (?:through|via|after|from|with|in|on)|(?:only|just) (?:in|on|for) (?:wip|draft|local|your own|feature|preview|ephemeral|sandbox|test))\b|\bno\s+(?!need\b|longer\b)/gi;
/** Korean denial: the verb's negative endings and "instead of" (대신, which denies what precedes it). */
const KO_DENIAL =
	/(?:(?:WIP|wip|로컬|드래프트|draft|개인|preview|프리뷰|ephemeral)\s?\S{0,8}\s?에서|하지\s?않|지\s?않|하지\s?말|지\s?말|말\s?것|말고|금지|안\s?된|안\s?함|못\s?하|쓰지\s?않|두지\s?않|않는다|않고|않으며|않습니다|마세요|말아|대신|절대|어디로도|아닌|아니라|아님|아니다|아닙니다)/gu;

interface Clause {
	text: string;
	lower: string;
}

/** Inline code is one command: its `;` and `. ` do not end a clause. */
const maskCode = (text: string) => text.replace(/`[^`\n]*`/g, (span) => span.replace(/;/g, "\ue000").replace(/\.(?=\s)/g, "\ue001"));
const unmask = (text: string) => text.replace(/\ue000/g, ";").replace(/\ue001/g, ".");

/**
 * A heading names a topic and asks nothing: "When force pushing is allowed", "How the dataset is
 * fetched", "gh pr merge --admin 사용 범위" — a line that is only a question form ending in a passive
 * (perhaps after "Notes on"), or a Korean noun phrase (no verb) ending in a noun of scope or policy, short,
 * with no command, link or pipe.
 */
const HEADING =
	/^(?:#{1,6}\s+|[-*]\s+)?(?:[\w ]{0,24}\b(?:on|about|for|re:?)\s+)?(?:(?:when|how|where|why|what|which|whether)\b[^`|$<>,\n]{0,80}\b(?:is|are|was|were|gets?|got)\s+(?:\w+ed|allowed|done|run|set up|used|built|made|kept|given|written|taken|shown|known)|(?![^\n]*(?:것|하는|한다|된다|하고|해서|하면|는\s))[^`|$<>\n.!?]{0,60}\s(?:사용\s?)?(?:범위|기준|정책|조건|시점|원칙))[.?]?$/i;
const isHeading = (line: string) => HEADING.test(line) && !/https?:\/\/|\b[\w-]+\.(?:com|net|org|io|dev|sh|co|kr|ly|me|app)\b/i.test(line);

function clausesOf(text: string): Clause[] {
	const body = text
		.split("\n")
		.filter((line) => !isHeading(line.trim()))
		.join("\n");
	return maskCode(body)
		.split(CLAUSE_SPLIT)
		.map((c) => unmask(c?.trim() ?? ""))
		.filter((c) => c.length > 0)
		.map((c) => ({ text: c, lower: c.toLowerCase() }));
}

const hasHangul = (s: string) => /[가-힣]/u.test(s);

/**
 * Whether the action found at `at` in the clause is denied: in English a denial word before it; in
 * Korean a negative ending anywhere in the clause, or "대신" after it ("X 대신 Y": X is not done).
 */
/**
 * A condition in front of the action ("If the build can't find X, run …", "…로드되지 않으면 …") is not
 * its denial: denial words are read only after the last such condition.
 */
const EN_CONDITION = /\b(?:if|when|whenever|once|unless|in case|after|until)\b[^,:\n]{0,160}[,:]\s*/gi;
const KO_CONDITION = /[가-힣]{0,20}(?:으면|면|을\s?때|ㄹ\s?때|할\s?때|때는|때엔|경우(?:에는|엔|에)?|시에?)(?:\s|,)+/gu;
function afterCondition(text: string, pattern: RegExp, at: number): number {
	let start = 0;
	for (const m of text.matchAll(pattern)) {
		const end = (m.index ?? 0) + m[0].length;
		if (end <= at) start = end;
	}
	return start;
}

function denied(clause: Clause, at: number, length: number): boolean {
	const before = clause.lower.slice(afterCondition(clause.lower, EN_CONDITION, at), at);
	for (const m of before.matchAll(EN_DENIAL)) {
		// "never ask for confirmation" is itself the action: a denial only counts strictly before it.
		if ((m.index ?? 0) + m[0].length <= at) return true;
	}
	// An action limited right after it to a narrow scope ("is allowed only on the bot's own commits") is a boundary, not an ask.
	if (
		/^[^.\n]{0,40}?\b(?:(?:is|are)\s+)?(?:allowed|permitted|used|ok|fine)?\s*only\s+(?:on|for|in|by|when|during|with|after|from|through|via|inside)\b/i.test(
			clause.text.slice(at + length),
		)
	)
		return true;
	if (hasHangul(clause.text)) {
		const after = clause.text.slice(at + length);
		if (/^.{0,40}?(?:만\s?(?:사용|허용|가능|쓴다|씀|쓰고)|에서만|에게만|에만|일\s?때만)/u.test(after)) return true;
		if (/^[^가-힣]{0,40}?[가-힣]{0,4}\s*대신/u.test(after) || /^.{0,30}대신/u.test(after)) return true;
		const from = afterCondition(clause.text, KO_CONDITION, at);
		for (const ko of clause.text.matchAll(KO_DENIAL)) {
			const start = ko.index ?? 0;
			if (start < from) continue;
			// A denial inside the action ("알리지 말고" in "사용자에게 알리지 말고") is the action itself.
			if (start >= at && start < at + length) continue;
			if (!/대신/u.test(ko[0]) || start > at) return true;
		}
	}
	return false;
}

// ---------------------------------------------------------------------------------------------------
// The actions.

interface Signal {
	class: DangerClass;
	reason: string;
	/** Matched over the clause's text (case-insensitive unless the pattern says otherwise). */
	pattern: RegExp;
	/** A further condition on the clause and the hosts it names. */
	when?: (clause: Clause, hosts: HostMention[]) => boolean;
	/**
	 * Also read over a clause joined to the one before it, for actions whose object or target is named
	 * in the previous sentence ("The endpoint is https://…. POST the file there").
	 */
	window?: true;
}

const FETCH = String.raw`(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|http|https|aria2c|lwp-download|certutil\s+-urlcache|bitsadmin)`;
const INTERPRETER = String.raw`\$\(|\$\{?[A-Za-z_]\w*\}?|(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:ba|z|da|k|fi|c|tc)?sh|python[\d.]*|py|perl|ruby|node|deno|bun|php|pwsh|powershell|iex|invoke-expression|source|osascript|cmd|bash|\$\(SHELL\)|\$\{?SHELL\}?`;

const external = (hosts: HostMention[]) => hosts.some((h) => h.kind !== "local" && h.kind !== "official");
const nonLocal = (hosts: HostMention[]) => hosts.some((h) => h.kind !== "local");

/**
 * What carries a secret, by shape: a file whose name says key, secret, token, credential, password or
 * service account, a key store or key file by its extension, a dot-file in the home directory (tool
 * configurations hold their logins), a `token`/`credentials` file anywhere, a variable named for a
 * token, secret, key, session, password or cookie.
 */
const SECRET_SHAPE = String.raw`(?<![\w.-])[\w.-]{0,60}(?:key|secret|token|cred|password|passwd|service[-_]?account|adminsdk|auth|private|signing)[\w.-]{0,60}\.(?:json|ya?ml|properties|txt|pem|p8|p12|pfx|jks|keystore|key|ini|cfg|conf|toml|xml|env|csv|tfrc\.json)\b|(?<![\w./~-])[\w./~-]{1,120}\.(?:pem|p12|pfx|jks|keystore|ppk|gpg|kdbx|mobileprovision)\b|~\/\.[\w-]{1,60}(?:\/[\w.-]{1,60}){0,6}|(?<![\w.~/-])[\w.~/-]{0,120}\/(?:tokens?|credentials?|secrets?)(?![\w.-])|\b[A-Z0-9]{1,40}_(?:[A-Z0-9]{1,40}_){0,6}(?:TOKEN|SECRET|KEY|SESSION|PASSWORD|PASSWD|COOKIE|CREDENTIALS?|PAT)\b|\bkey\s?stores?\b|\bsigning (?:keys?|passwords?|config\w*|settings)\b|키\s?스토어|서명\s?(?:키|설정|정보)`;
const SENSITIVE = String.raw`(?:${SECRET_SHAPE}|\.env\b|printenv|\benv(?:ironment)?\s*(?:output|vars?|variables?|dump|values?)\b|\benvironment\b|credentials?|~\/\.aws|\.aws\/|~\/\.ssh|\.ssh\/|id_(?:rsa|ed25519|ecdsa|dsa)|private[ -]?keys?|\.npmrc|\.netrc|\.pypirc|\.git-credentials|kube\/?config|\.kube\/|\.docker\/config|gh auth token|\$[A-Z_]*(?:TOKEN|SECRET|KEY|PASSWORD|PASSWD|PASS|CREDENTIALS?|PAT)\b|(?:api|access|auth|secret|deploy|bot|session|bearer|npm|github|gh|aws|ci)[ _-]?(?:keys?|tokens?)|\btokens?\b|\bsecrets?\b|passwords?|passwd|\/etc\/shadow|source code|(?:the |our )?(?:whole |entire )?(?:repo(?:sitory)?|codebase|source)(?:'s)? (?:tarball|archive|zip|bundle|contents?|files?)|git (?:archive|bundle)|(?:database|db) dumps?|terraform state|tfstate|state file|pg_dump|mysqldump|customer data|cookies?|환경\s?변수|자격\s?증명|크리덴셜|토큰|시크릿|비밀\s?(?:키|번호|값)?|패스워드|개인\s?키|프라이빗\s?키|소스\s?코드|인증\s?정보|키\s?파일|\.env)`;
const SEND = String.raw`(?:send|sends|sending|sent|disclos\w*|reveal\w*|hand(?:s|ed)? over|publish\w*|upload|uploads|uploading|post|posts|posting|paste|pastes|pasting|share|shares|sharing|e-?mail|mail|forward|transmit|submit|attach|exfiltrate|copy|cp|scp|rsync|pipe|piping|piped|gist|curl\b[^\n]*(?:-d|--data\S*|-F|--form|-T|--upload-file)|\bnc\b|netcat|보내|보낸|전송|업로드|올려|올리|올린|공유|붙여\s?넣|첨부|제출|복사|전달|넘겨|넣어\s?(?:요청|보내))`;

const SIGNALS: Signal[] = [
	// ---------------------------------------------------------------- running code fetched from elsewhere
	{
		class: "rce",
		reason: "pipes a download into an interpreter",
		pattern: new RegExp(String.raw`\b${FETCH}\b[^\n|]*\|\s*(?:${INTERPRETER})(?![\w-])`, "i"),
	},
	{
		class: "rce",
		reason: "runs a download through command substitution",
		pattern: new RegExp(
			String.raw`(?:<\(\s*${FETCH}\b|\$\(\s*${FETCH}\b|\b(?:iex|invoke-expression)\b[^\n]{0,10}\(?\s*(?:iwr|irm|invoke-webrequest|invoke-restmethod|new-object\s+net\.webclient)|\.downloadstring\(|\b(?:iwr|irm)\b[^\n]*\|\s*iex)`,
			"i",
		),
	},
	{
		class: "rce",
		reason: "decodes a payload into an interpreter",
		pattern: new RegExp(
			String.raw`(?:base64\s+(?:-d|--decode|-D)|xxd\s+-r|openssl\s+(?:enc\s+)?-d|frombase64string)[^\n]*(?:\|\s*(?:${INTERPRETER})(?![\w-])|\))|-(?:e|enc|encodedcommand)\s+[A-Za-z0-9+/=]{16,}`,
			"i",
		),
	},
	{
		class: "rce",
		reason: "downloads a file and runs it",
		pattern: new RegExp(
			String.raw`\b${FETCH}\b[^\n]*(?:-\w*[oO]|--output|>\s*)\s*\S+[^\n]*(?:&&|;|then)[^\n]*(?:chmod\s+\+?[0-7x]+|\b(?:ba|z)?sh\s+\S|\.\/|\/tmp\/\S+\s|python\d?\s+\S|\bsource\b)`,
			"i",
		),
	},
	{
		class: "rce",
		reason: "asks to download and run code",
		window: true,
		pattern:
			/\b(?:download(?:ed|s|ing)?|fetch(?:ed|es|ing)?|grab|pull(?:ed)?|get)\b(?:[^.\n]|\.(?=\S)){0,200}\b(?:and|then|to|before)\s+(?:\w+\s+){0,3}(?:run|runs|running|execut\w*|launch\w*|invoke|start|install)\b|\b(?:download(?:ed|s|ing)?|fetch(?:ed|es|ing)?|grab|get)\b(?:[^.\n]|\.(?=\S)){0,200}\bmake\s+(?:it|them|the \w+)\s+executable\b|\b(?:run|execute|launch)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:downloaded|fetched|remote|hosted)\b|(?:받아|다운로드\S*|내려받\S*)(?:[^.\n]|\.(?=\S)){0,60}(?:실행|돌려|돌린|설치)/i,
		when: (c, hosts) => nonLocal(hosts) || /\$[({]?[A-Z_]*(?:HOST|URL|DOMAIN|ENDPOINT|SERVER|SRC|SOURCE)\b/.test(c.text),
	},
	{
		class: "rce",
		reason: "pipes a hosted script into a shell",
		pattern:
			/\b(?:pipe[ds]?|piping)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:to|into|through)\s+(?:a\s+|the\s+)?(?:ba|z)?sh\b|\b(?:pipe[ds]?|piping)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:to|into)\s+(?:a\s+|the\s+)?(?:shell|interpreter|python|powershell)\b|(?:bash|sh|셸|쉘|쉘로|파이썬)\S{0,2}\s?(?:로|에|으로)?\s?파이프/i,
	},
	{
		class: "rce",
		reason: "runs a script or binary from an outside host",
		pattern:
			/\b(?:run|runs|execute[sd]?|source|bootstrap|install\w*(?: \w+)? (?:with|using|via|by running)|apply|load|import|invoke)\b[^\n]{0,160}(?:https?:\/\/|\b[a-z0-9-]+\.[a-z]{2,}\/)\S*(?:\.(?:sh|bash|ps1|py|pl|rb|exe|msi|bat|cmd|bin|run|appimage|js)\b|\/(?:install|setup|bootstrap|run|get|init|fix|loader|warm|sync|patch)\w*\b|-(?:linux|darwin|windows|amd64|arm64)\S*)|(?:https?:\/\/|\b[a-z0-9-]+\.[a-z]{2,}\/)\S*(?:\.(?:sh|bash|ps1|py|exe|msi|bat|bin|appimage)\b|\/(?:install|setup|bootstrap)\w*\b|-(?:linux|darwin|windows)-\S+)[^\n]{0,120}(?:\b(?:run|runs|execute|piped?|source|and run)\b|실행)/i,
		when: (_c, hosts) => external(hosts) || hosts.some((h) => h.host.endsWith("githubusercontent.com") || h.host === "gist.github.com"),
	},
	{
		class: "rce",
		reason: "evaluates code read from a URL",
		pattern:
			/\b(?:eval|exec|execfile|include|require(?:_once)?|load|Function|iex|invoke-expression|runpy\.\w+)\s*\(?\s*(?:\(\s*)?(?:file_get_contents|fetch|urlopen|urllib\S*|requests\.get|httpx\.get|http\.get|curl_exec|open-uri|URI\.open|URI\(|Net::HTTP|got|axios\.get|await fetch|new-object\s+net\.webclient)\b|\b(?:eval|exec|include|require(?:_once)?|load|iex)\s*\(?\s*['"(]{0,2}\s*https?:\/\//i,
		when: (_c, hosts) => external(hosts),
	},
	{
		class: "rce",
		reason: "runs the latest of a package fetched on the spot",
		pattern:
			/\bnpx\s+(?:-y\s+|--yes\s+|-p\s+\S+\s+)*(?!--no-install)[@\w./-]+@(?:latest|next|\*)\b|\bnpx\s+(?:-y|--yes)\b|\bnpx\b[^\n]*\s--yes\b|\b(?:pnpm\s+dlx|yarn\s+dlx|bunx|uvx|pipx\s+run)\s+[@\w./-]+@(?:latest|\*)|\bgo\s+run\s+[a-z0-9-]+\.[a-z0-9.-]+\/\S+@\S+/i,
	},
	{
		class: "rce",
		reason: "runs a container with the host's root or privileges",
		pattern:
			/\b(?:docker|podman|nerdctl)\s+run\b[^\n]*(?:--privileged|-v\s+\/:\S*|--volume[= ]\/:\S*|--pid[= ]host|\/var\/run\/docker\.sock|--net(?:work)?[= ]host\b[^\n]*--privileged)/i,
	},
	{
		class: "rce",
		reason: "installs code from an unknown host",
		pattern:
			/\b(?:pip3?|uv\s+pip|npm|pnpm|yarn|bun|gem|cargo|go)\s+(?:install|add|i)\b[^\n]*(?:https?:\/\/|git\+|github:|\.tgz\b|\.whl\b)/i,
		when: (_c, hosts) => external(hosts) || /github:|git\+/i.test(_c.text),
	},

	{
		class: "rce",
		reason: "downloads an executable or a package from an unknown host",
		pattern: new RegExp(
			String.raw`\b${FETCH}\b[^\n]*\.(?:jar|war|vsix|exe|msi|dmg|pkg|deb|rpm|apk|appimage|bin|run|sh|bash|ps1|bat|cmd|so|dll|dylib|node|whl|gem|crx|xpi|nupkg|vsix)\b|(?:download|fetch|grab|get|install)\w*\b(?:[^.\n]|\.(?=\S)){0,80}\b[\w.-]+\.(?:jar|vsix|exe|msi|dmg|pkg|deb|rpm|apk|appimage|crx|xpi|nupkg)\b|(?:받아|다운로드|내려받)\S*(?:[^.\n]|\.(?=\S)){0,60}\.(?:jar|vsix|exe|msi|dmg|pkg|deb|rpm|apk|appimage)\b|\.(?:jar|vsix|exe|msi|dmg|pkg|deb|rpm|apk|appimage)\b\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,30}(?:받아|다운로드|설치)`,
			"i",
		),
		when: (_c, hosts) => hosts.some((h) => h.kind === "unknown" || h.kind === "lookalike" || h.kind === "shortener"),
	},

	// ---------------------------------------------------------------- sending data out
	{
		class: "exfiltration",
		window: true,
		reason: "sends credentials, the environment or source to a destination",
		pattern: new RegExp(String.raw`(?:${SEND})[^\n]{0,160}${SENSITIVE}|${SENSITIVE}[^\n]{0,160}(?:${SEND})`, "i"),
		when: (clause, hosts) =>
			!/\b(?:authorization|bearer)\b|-H\s|--header|헤더/i.test(clause.text) &&
			// "the webhook URL is the `X` CI secret": a secret named as where a value is kept, not what is sent.
			!/\b(?:is|are|lives? in|stored (?:in|as)|kept (?:in|as)|comes? from|read from)\s+(?:the|a|an|our)\s+(?:`[^`\n]+`\s+)?(?:(?:ci|repo(?:sitory)?|github|actions|org(?:anization)?|environment)\s+)?secrets?\b/i.test(
				clause.text,
			) &&
			(nonLocal(hosts) ||
				/\b(?:to|into|with|for|in)\s+(?:the\s+|their\s+|our\s+)?(?:\w+\s+)?(?:vendors?|third[- ]part(?:y|ies)|external|outside|contractors?|partners?|support|maintainers|bot|newcomer|them|everyone|anyone|public|forum|community)|\bgist\b|paste ?bin|paste\.|\b(?:issue|comment|pr|pull request|chat|slack|channel|discord|ticket|forum|thread|wiki|notion|drop)s?\b|이슈|코멘트|댓글|채널|슬랙|포럼|스레드|노션|위키|게시판|티켓|외주|@[\w-]+\.[a-z]{2,}|subdomain|외부|벤더|협력사|공개|퍼블릭/i.test(
					clause.text,
				)),
	},
	{
		class: "exfiltration",
		window: true,
		reason: "turns on tracing that prints secrets into logs others read",
		pattern: /\b[A-Z_]*(?:DEBUG|TRACE)[A-Z_]*['"]?\s*[:=]\s*['"]?(?:true|1|on|yes)\b[^\n]{0,160}|\bset\s+-x\b[^\n]{0,160}/,
		when: (clause) =>
			/\b(?:public|global\w*|every(?:one)?|all (?:jobs|pipelines|projects))\b|공개|전역|모든\s?(?:잡|파이프라인|프로젝트)/i.test(
				clause.text,
			),
	},
	{
		class: "exfiltration",
		reason: "pipes secrets or the environment into a network command",
		pattern:
			/\b(?:curl|wget|http|dig|nslookup)\b[^\n]*\$\([^)]*(?:\.env\b|credentials|id_\w+|\.npmrc|\.netrc|kube\/?config|\.aws|\.ssh|TOKEN|SECRET|PASSWORD)|\b(?:printenv|env|set|terraform\s+state\s+pull|cat\s+\S*(?:\.env|credentials|id_\w+|\.npmrc|\.netrc|config)\S*|gh\s+auth\s+token|aws\s+configure\s+export-credentials|git\s+(?:archive|bundle)\b[^|\n]*)\s*\|[^\n]*\b(?:curl|wget|nc|ncat|netcat|socat|ssh|scp|http|base64|xxd)\b|\b(?:dig|nslookup|host|ping|curl|wget)\b[^\n]*\$\{?\(?[^\n]*\$\{?[A-Z_]*(?:TOKEN|SECRET|KEY|PASS\w*|CREDENTIALS?)\b|\b(?:curl|wget|http)\b[^\n]*(?:-\w*d|--data(?:-binary|-raw|-urlencode)?|-\w*F|--form|-\w*T|--upload-file)\s*\S*@?\S*(?:\.env|credentials|id_\w+|\.npmrc|\.netrc|kube\/?config|\$\{?[A-Z_]*(?:TOKEN|SECRET|KEY|PASS\w*)\}?)/i,
	},
	{
		class: "exfiltration",
		reason: "uploads command output to an outside host",
		pattern:
			/\|\s*(?:curl|wget|http)\b[^\n]*(?:-\w*T|--upload-file|-\w*F|--form|-\w*d|--data\S*)\s*['"]?(?:\w+=)?@?-|\|\s*(?:nc|ncat|netcat|socat)\s+\S+\s+\d+/i,
		when: (_c, hosts) => nonLocal(hosts) || /\|\s*(?:nc|ncat|netcat|socat)\b/i.test(_c.text),
	},
	{
		class: "exfiltration",
		reason: "publishes secrets or configuration",
		pattern:
			/\bgh\s+gist\s+create\b[^\n]*(?:\.env|credentials|secret|config|key)|\b(?:aws\s+s3\s+cp|gsutil\s+cp|rclone\s+copy|scp|rsync)\b[^\n]*(?:~\/\.aws|~\/\.ssh|\.env\b|credentials|id_\w+|kube\/?config|\.kube)/i,
	},

	// ---------------------------------------------------------------- switching safety off
	{
		class: "safety-off",
		reason: "bypasses a check with a flag",
		pattern:
			/--no-verify\b|--no-gpg-sign\b|\bHUSKY=0\b|--dangerously-skip-permissions|--dangerously-bypass\S*|--full-auto\b|--yolo\b|\bNODE_TLS_REJECT_UNAUTHORIZED\s*=\s*['"]?0|strict-ssl\s*(?:=|\s)\s*false|GIT_SSL_NO_VERIFY|sslverify\s*(?:=|\s)\s*false|\bverify\s*=\s*false\b|PYTHONHTTPSVERIFY\s*=\s*0|--trusted-host\b|\bcurl\b[^\n]*\s(?:-k|--insecure)\b|--disable-(?:security|web-security|sandbox)\b|--no-sandbox\b|\bsetenforce\s+0|chmod\s+(?:-R\s+)?(?:0?777|a\+rwx)|--skip-(?:checks|tests|hooks|verification|ci)\b|\[skip ci\]|\[ci skip\]|\bgh\s+pr\s+merge\b[^\n]*--admin|push\s+(?:-f|--force)(?!-with-lease)\b[^\n]*\b(?:main|master|prod\w*|release\w*|trunk)\b|push\b[^\n]*\b(?:main|master)\b[^\n]*(?:-f|--force)(?!-with-lease)\b|-auto-approve\b(?:[^.\n]|\.(?=\S)){0,80}\b(?:prod\w*|every|all|always)\b|\b(?:always|every|prod\w*)\b(?:[^.\n]|\.(?=\S)){0,80}-auto-approve\b|(?:항상|모든|운영|prod)(?:[^.\n]|\.(?=\S)){0,40}-auto-approve|\bsandbox(?:_mode|ing)?\b['"]?\s*(?:=|:|to|is)?\s*['"]?(?:false|off|disabled|none|danger-full-access)|\bnetwork(?:_access)?['"]?\s*(?:=|:)\s*['"]?(?:unrestricted|true|enabled|full)|approval[ _-]?polic\w*(?:[^.\n]|\.(?=\S)){0,30}\bnever\b|allowlist[^\n]{0,60}\bpaths\s*=\s*\[\s*['"]\.\*|사실상\s?(?:끔|꺼|끈다|비활성)|\bcontinue-on-error:\s*true|\ballow_failure:\s*true|@pytest\.mark\.skip|\b(?:it|describe|test)\.skip\(/i,
	},
	{
		class: "safety-off",
		reason: "switches off a safety check",
		pattern:
			/\b(?:disabl\w*|skip\w*|bypass\w*|turn(?:ing|s|ed)?\s+off|switch(?:ing|es|ed)?\s+off|remov\w*|delet\w*|comment\w*\s+out|ignor\w*|silenc\w*|suppress\w*|deactivat\w*|circumvent\w*|relax\w*|loosen\w*|lower\w*|drop(?:ping|s|ped)?|strip(?:ping|s|ped)?|unset)\b(?:[^.\n]|\.(?=\S)){0,80}\b(?:hooks?|pre-?commit|pre-?push|husky|lint-staged|secret[- ]?scan\w*|gitleaks|trufflehog|detect-secrets|semgrep|codeql|snyk|scanners?|security (?:checks?|scans?|reviews?|gates?)|required (?:status )?checks?|status checks?|branch protection|code reviews?|reviews?|approvals?|confirmations?|signature|signing|tls|ssl|certificate (?:checks?|verification)|sandbox\w*|firewall|2fa|mfa|audit\w*|integrity|checksums?|permissions? prompts?|approval prompts?|safety (?:checks?|guards?)|(?:ci|security|vuln\w*|scan\w*) (?:steps?|jobs?|checks?|gates?)|gosec|govulncheck|bandit|brakeman|trivy|grype|pip-audit|npm audit|osv-scanner|sonar\w*|checkov|tfsec|dependabot alerts?)\b/i,
	},
	{
		class: "safety-off",
		reason: "sets a check's switch to off",
		// A variable or key naming a hook, scanner, lint, test, verification, review, sandbox or approval,
		// set to off (or a SKIP_/NO_/DISABLE_ one set to on); a --no-/--skip-/--disable- flag of one;
		// `|| true` after one.
		pattern:
			/\b(?!(?:SKIP|NO|DISABLE|IGNORE|BYPASS)_)(?:[A-Z][A-Z0-9_]{0,40})?(?:HOOKS?|HUSKY|LEFTHOOK|OVERCOMMIT|SCAN\w*|LINT\w*|TESTS?|VERIFY\w*|VERIFICATION|CHECKS?|REVIEWS?|SANDBOX\w*|APPROVALS?|AUDIT|SSL\w*|TLS\w*|SIGN\w*|PRE_?COMMIT|SECURITY|GUARD\w*|PROTECT\w*)['"]?\s*[:=]\s*['"]?(?:0|false|off|no|skip|disabled?|none|never)\b|\b(?:SKIP|NO|DISABLE|IGNORE|BYPASS)_[A-Z0-9_]{0,40}(?:HOOKS?|HUSKY|LEFTHOOK|OVERCOMMIT|SCAN\w*|LINT\w*|TESTS?|VERIFY\w*|CHECKS?|REVIEWS?|SANDBOX|APPROVALS?|AUDIT|SSL|TLS|SIGN\w*|SECURITY|CI)['"]?\s*[:=]\s*['"]?(?:1|true|on|yes|all)\b|\b[A-Z0-9_]{0,40}(?:HOOKS?|HUSKY|LEFTHOOK|OVERCOMMIT|PRE_?COMMIT|SCAN\w*|LINT\w*|TESTS?|VERIFY|CHECKS?|REVIEWS?|SANDBOX|APPROVALS?|AUDIT|SSL|TLS|SIGN\w*|SECURITY|GUARD\w*)_(?:DISABLED?|SKIP(?:PED)?|OFF|BYPASS|IGNORED?)['"]?\s*[:=]\s*['"]?(?:1|true|on|yes|all)\b|(?<![\w-])--(?:no|skip|disable|ignore|bypass)-[\w-]*(?:verif\w*|checks?|hooks?|scan\w*|lint\w*|tests?|sandbox\w*|reviews?|approvals?|ssl|tls|integrity|signatures?|sign\w*|security|gpg|cert\w*|strict\w*|protection)\b|\b(?:test|tests|lint\w*|scan\w*|audit|check\w*|verify|gitleaks|trufflehog|trivy|grype|semgrep|snyk|bandit|pytest|jest|vitest|mocha|eslint|tsc|mypy|ruff|clippy|vet|govulncheck|gosec|pip-audit|tfsec|checkov)\b[^\n|;&]*\|\|\s*(?:true|:|exit\s+0)\b|\b(?:build|stage)?result\s*:\s*['"]SUCCESS['"]|\bsoft_fail\s*:\s*true|--soft-fail\b|--exit-code[= ]0\b|\bfail[-_]on[-_]\w*\s*[:=]\s*['"]?(?:none|never|false|off)\b|\b(?:findings|vulnerabilit\w*|alerts?|errors?|warnings?|failures?|results?)\s+(?:never|don't|do not|won't|will not|no longer)\s+(?:fail|block|break|stop)s?\b/i,
	},
	{
		class: "safety-off",
		reason: "allows force pushes to a protected branch or approves everything pending",
		pattern:
			/\ballow\w*\b(?:[^.\n]|\.(?=\S)){0,30}\bforce[- ]?push\w*|\bforce[- ]?push\w*\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:allowed|enabled?)\b|\ballow_force_push\w*|강제\s?(?:push|푸시)\S{0,3}\s?(?:허용|활성)|\b(?:approve|accept|allow|whitelist)\w*\s+(?:all|every|any|everything)\b(?:\s+\w+){0,2}\s+(?:pending|signatures?|scripts?|requests?|prompts?)|(?:대기\s?중인?|pending)(?:[^.\n]|\.(?=\S)){0,30}(?:전부|모두|다|all)\s?(?:approve|승인|허용)|\bpermissive\b[\w-]*(?:[^.\n]|\.(?=\S)){0,20}|(?<![\w-])[\w-]{0,40}-permissive\b|(?:샌드박스|sandbox|보안|security)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,20}(?:완화|느슨|낮추|낮춘|풀어|relax)/i,
	},
	{
		class: "safety-off",
		reason: "marks failing checks as passing or proceeds past them",
		pattern:
			/\b(?:mark|tag|annotate|set)\w*\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:skip|skipped|xfail|passing|green|success)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:proceed|continue|merge|release|ship|deploy|without)\b|\btests?\b(?:[^.\n]|\.(?=\S)){0,40}\bfail\w*(?:[^.\n]|\.(?=\S)){0,60}\b(?:skip|ignore|proceed anyway|merge anyway|ship anyway)\b/i,
	},
	{
		class: "safety-off",
		reason: "acts without review, confirmation or the plan shown",
		pattern:
			/\bwithout\s+(?:a\s+|any\s+)?(?:review\w*|pr\b|pull request|approval|confirmation|confirming|asking|showing (?:the )?plan|user confirmation|checks?|tests?|investigat\w*|sign-?off)|\bmerged?\b(?:[^.\n]|\.(?=\S)){0,40}\bwithout\b|(?:리뷰|검토|승인|확인|테스트)\s?(?:없이|를?\s?건너뛰|를?\s?생략)/i,
	},
	{
		class: "safety-off",
		reason: "switches off a safety check",
		pattern:
			/(?:훅|hook|pre-?commit|시크릿\s?스캐\S*|스캐너|gitleaks|gosec|trivy|보안\s?스캔|보안\s?검사|검사|테스트|리뷰|검토|승인|샌드박스|sandbox|CI|브랜치\s?보호|서명|인증서\s?검증|권한\s?확인|체크)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,30}(?:끄|꺼|끈다|비활성|건너뛰|건너뛴|스킵|skip|우회|무시|생략|제거|삭제|해제|풀어)/iu,
	},

	// ---------------------------------------------------------------- redirecting where code and dependencies come from
	{
		class: "supply-chain",
		window: true,
		reason: "points a package registry or index at another host",
		pattern:
			/\b(?:registry|npmRegistryServer|index-url|extra-index-url|index_url|PIP_(?:EXTRA_)?INDEX_URL|UV_(?:EXTRA_)?INDEX_URL|uv index|tool\.uv\.index|GOPROXY|GOSUMDB|GONOSUMDB|GONOSUMCHECK|GOFLAGS|GOINSECURE|replace-with|\[source\.|gem sources|sources?\s+(?:to|=|:|['"])|mirror|repositor(?:y|ies)|maven|nexus|artifactory|proxy|base image|sources?|feeds?|index|channels?|packageSources?|spec repo|taps?)\b[^\n]{0,120}|(?:레지스트리|미러|인덱스|저장소|소스|피드|채널)[^\n]{0,120}/i,
		when: (clause, hosts) =>
			hosts.some((h) => h.kind === "unknown" || h.kind === "lookalike" || h.kind === "shortener") ||
			/GONOSUMDB\s*=\s*\*|GOSUMDB\s*=\s*off|GOFLAGS=-insecure|GOINSECURE|--no-package-lock|remove the integrity|integrity (?:fields?|hashes?)\b[^.]{0,20}(?:remov|delet|strip|drop)/i.test(
				clause.text,
			),
	},
	{
		class: "supply-chain",
		reason: "changes where the repository is pushed or pulled",
		pattern:
			/\bgit\s+remote\s+(?:add|set-url)\b|\b(?:set|point|change|switch|move|repoint)\w*\s+(?:the\s+)?(?:origin|upstream|remote)\b|\bpush\w*\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:--all|--mirror|all branches|every branch|all (?:the )?tags|everything)\b|\binsteadOf\b|\bsubmodule\b[^\n]{0,80}\burl\b|\.gitmodules\b|\bgit\s+submodule\s+(?:add|set-url)\b|(?:\b(?:origin|remote)\b|리모트|원격)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,40}(?:바꾸|변경|설정|지정|추가|교체)/i,
		when: (_c, hosts) => hosts.some((h) => h.kind === "unknown" || h.kind === "lookalike" || h.kind === "shortener"),
	},
	{
		class: "supply-chain",
		reason: "replaces a dependency with code from elsewhere",
		pattern:
			/\b(?:replace|swap|switch|point|pin|override|resolve|rewrite|use)\w*\b[^\n]{0,100}(?:github:|git\+https?:|git\+ssh:|gitlab:|bitbucket:|https?:\/\/\S+\.(?:tgz|tar\.gz|whl|zip)\b|resolved\s+urls?)|\bresolved\b(?:[^.\n]|\.(?=\S)){0,40}\burls?\b|["'][@\w/.-]+["']\s*:\s*["'](?:github:|git\+|gitlab:|bitbucket:|https?:\/\/)|\bpostinstall\b|\bpreinstall\b|\binstall script\b(?:[^.\n]|\.(?=\S)){0,60}https?:/i,
		when: (clause, hosts) => external(hosts) || /github:|git\+|gitlab:|bitbucket:/i.test(clause.text),
	},

	{
		class: "supply-chain",
		reason: "points a dependency at a fork or a moving branch",
		pattern:
			/\b(?:fork(?:ed|s)?|patched|unofficial|community[- ]patched)\b(?:[^.\n]|\.(?=\S)){0,160}(?:https?:\/\/|git@|git\+|github:)\S+|(?:https?:\/\/|git@|git\+)\S+\.git\b[^\n]{0,60}\b(?:branch|ref)\b\s*[:=]?\s*["']?(?:main|master|dev\w*|HEAD|latest|trunk)\b|(?:포크|패치된|비공식)(?:[^.\n]|\.(?=\S)){0,120}(?:https?:\/\/|git@)\S+/i,
		when: (clause, hosts) =>
			nonLocal(hosts) &&
			/\b(?:dependenc\w*|package|packages|pod|gem|crate|module|library|lib|Package\.swift|Podfile|Cartfile|Gemfile|go\.mod|Cargo\.toml|package\.json|pyproject|requirements|build\.gradle\w*|pom\.xml)\b|의존성|패키지|라이브러리/i.test(
				clause.text,
			),
		window: true,
	},
	{
		class: "supply-chain",
		reason: "removes the integrity checks of dependencies",
		pattern:
			/\bintegrity\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:remov|delet|strip|drop|clear)\w*|\b(?:remov|delet|strip|drop|clear)\w*\b(?:[^.\n]|\.(?=\S)){0,40}\bintegrity\b|sed\s+-i\s+['"]?\/integrity|integrity\S{0,3}(?:[^.\n]|\.(?=\S)){0,20}(?:지우|지운|삭제|제거)|--no-verify-integrity|GOFLAGS=-mod=mod\b(?:[^.\n]|\.(?=\S)){0,40}GONOSUMDB/i,
	},

	// ---------------------------------------------------------------- opening access
	{
		class: "access",
		reason: "adds a key or an account for someone else",
		pattern:
			/authorized_keys|\bdeploy[- ]?keys?\b|ssh-copy-id|\bsudoers\b|NOPASSWD|\b(?:useradd|adduser|usermod\s+-aG\s+(?:sudo|wheel|docker))\b|\b(?:create[sd]?|creating|add(?:s|ed|ing)?)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:user|account)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:password|sudo|root|admin)\b|\b(?:add(?:s|ed|ing)?|grant(?:s|ed|ing)?|give[sn]?|create[sd]?|register(?:s|ed|ing)?|install(?:s|ed|ing)?|invite[sd]?)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:contractor|vendor|third[- ]party|external|partner)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:keys?|access|accounts?|users?|tokens?)\b/i,
		when: (clause, hosts) =>
			nonLocal(hosts) ||
			/\b(?:contractor|vendor|third[- ]party|external|partner|bot|fixed password|sudo|root|admin|write)\b/i.test(clause.text),
	},
	{
		class: "access",
		reason: "grants admin or broad rights",
		pattern:
			/\b(?:invit(?:e|es|ed|ing)|grant(?:s|ed|ing)?|add(?:s|ed|ing)?|bind(?:s|ing)?|give(?:s|n)?|gave|assign(?:s|ed|ing)?|make(?:s)?|made|promot(?:e|es|ed|ing)|elevat(?:e|es|ed|ing)|attach(?:es|ed|ing)?|authori[sz](?:e|es|ed|ing))\b(?:[^.\n]|\.(?=\S)){0,80}\b(?:admin\w*|owner|cluster-admin|root|superuser|write-enabled|write access|delete_repo|admin:org|org(?:anization)? access|full access|all events|all scopes|AdministratorAccess|\*:\*|repo scope)\b|\b(?:invit(?:e|es|ed|ing)|grant(?:s|ed|ing)?|give(?:s|n)?|make(?:s)?|made)\b(?:[^.\n]|\.(?=\S)){0,80}(?<![\w-])public(?![\w-])|permission\s*[=:]\s*['"]?(?:admin|maintain)\b|(?:admin|관리자|어드민)\S{0,2}\s?(?:협업자|collaborator)|--clusterrole[= ]cluster-admin|clusterrolebinding\b[^\n]*cluster-admin|(?:권한|permissions?)\S{0,3}\s?(?:요청)?\S{0,3}\s?(?:전부|모두|다)\s?(?:승인|수락|허용)|\b(?:approve|accept|grant)\w*\s+(?:all|every|any)\s+(?:permission|scope|access)\s*(?:requests?)?|\bclassic PAT\b|\bpersonal access token\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:scopes?|store|share|every)\b|\bOAuth app\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:access|scopes?)\b|(?:관리자|어드민|admin|소유자|owner|쓰기|write)\S{0,3}\s?(?:권한|access)(?:[^.\n]|\.(?=\S)){0,30}(?:부여|추가|줘|주고|준다|초대)/i,
		when: (clause) =>
			!/\b(?:your own|yourself|the team's own|via the access (?:form|request)|through (?:the )?(?:access|it) (?:request|ticket))\b/i.test(
				clause.text,
			),
	},
	{
		class: "access",
		reason: "opens a tunnel into this machine or network",
		pattern:
			/\bssh\b[^\n]*\s-[A-Za-z]*[RD][A-Za-z]*\s*(?:\S+:)?\d+|\b(?:reverse|remote)\s+(?:ssh\s+)?(?:tunnel\w*|port[- ]?forward\w*|shell)\b|\bautossh\b|\bchisel\s+(?:client|server)\b|\bfrpc\b|\bbore\s+local\b|\bport[- ]?forward\w*\b[^\n]*--address[= ]['"]?0\.0\.0\.0|(?:역방향|리버스|원격)\s?(?:ssh\s?)?(?:터널|포트\s?포워딩|셸|쉘)/i,
		when: (clause, hosts) =>
			external(hosts) ||
			/\b(?:vendor|support|contractor|partner|external|third[- ]party|@reboot|cron|persist\w*|always)\b|벤더|외부|외주|협력사|상시|항상/i.test(
				clause.text,
			),
	},
	{
		class: "access",
		reason: "grants an owner, admin or editor role",
		pattern:
			/--role[= ]['"]?(?:Owner|Contributor|Editor|User Access Administrator|[\w/.-]*admin\w*)\b|\broles\/(?:owner|editor|[\w.]*admin\w*)\b|\b(?:creat\w*|grant\w*|assign\w*|giv\w*|gave|add\w*|make|made|bind\w*|attach\w*|set\s+up)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:owner|editor|contributor)\s+(?:role|service principal|access|rights|permissions?)\b|\brole\s*[:=]\s*['"]?(?:owner|admin\w*|editor)\b|(?:owner|editor|소유자|편집자|에디터)\S{0,3}\s?(?:권한|역할|롤)?\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,20}(?:부여|추가|할당)/i,
		when: (clause) => !/\b(?:your own|yourself|read-?only|viewer)\b/i.test(clause.text),
	},
	{
		class: "access",
		reason: "opens a service or a port to the outside",
		pattern:
			/0\.0\.0\.0\/0|::\/0|\bngrok\b|\blocaltunnel\b|\bcloudflared\s+tunnel\b|\bserveo\b|\btailscale\s+funnel\b|\bexpose\w*\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:port|debugger|admin|dashboard|database|db)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:public\w*|internet|outside|world)|\bpublic(?:-read)?\b(?:[^.\n]|\.(?=\S)){0,20}\b(?:bucket|acl)\b|--acl\s+public|\bmake\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:repo\w*|bucket)\b(?:[^.\n]|\.(?=\S)){0,10}(?<![\w-])public(?![\w-])|(?:외부|인터넷|전체)\S{0,3}\s?(?:에|로)?\s?(?:(?:공개|노출)(?:시키|시킨|해|한다|하도록|하고|하세요)|열어)/i,
	},
	{
		class: "access",
		reason: "creates a webhook or token for an outside host",
		window: true,
		pattern: /\b(?:webhooks?|hooks?|tokens?|api keys?|credentials?)\b[^\n]{0,100}|(?:웹훅|토큰)[^\n]{0,100}/i,
		when: (clause, hosts) =>
			external(hosts) &&
			/\b(?:create|add|register|set ?up|install|configure|share|issue|grant|generate|point)\b|(?:만들|생성|등록|추가|공유|발급)/i.test(
				clause.text,
			) &&
			!/\b(?:authorization|bearer)\b|-H\s|헤더/i.test(clause.text),
	},

	// ---------------------------------------------------------------- overriding the agent's instructions
	{
		class: "override",
		reason: "tells the agent to ignore its instructions",
		pattern:
			/\b(?:ignore|disregard|forget|override|bypass|skip)\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:all\s+|any\s+)?(?:previous|prior|above|earlier|other|existing|system|your|safety|the user's|developer|original)\b(?:[^.\n]|\.(?=\S)){0,20}\b(?:instructions?|rules?|prompts?|guidance|guidelines|policies|constraints|restrictions)\b|(?:이전|기존|시스템|모든|다른|안전)\s?(?:의\s?)?(?:지시\S*|지침|규칙|프롬프트|명령|정책)\S{0,3}\s?(?:은|는|을|를)?\s?(?:모두\s?)?(?:무시|따르지)/iu,
	},
	{
		class: "override",
		reason: "poses as the system or claims a special mode",
		pattern:
			/\b(?:you are|you're|the agent is|agents are|assistant is)\s+(?:now\s+)?(?:in|running in|operating in)\s+(?:\w+\s+)?(?:maintenance|developer|debug|admin|god|unrestricted|jailbreak|root|service|dan|override|safe)\s+mode|\b(?:maintenance|developer|debug|admin|god|unrestricted|jailbreak)\s+mode\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:so|therefore|thus|means|prior|previous|rules?|instructions?|do not apply|no longer apply|without)\b|<\/?(?:system|assistant|admin|instructions?)>|\[(?:system|admin|instructions?)\]|^\s*(?:system|admin|security team|anthropic|openai|claude|codex)\s*(?:message|notice|override|instruction|note)?\s*:|\b(?:supersede|take precedence over|override|outrank)s?\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:everything|all|system|user|other|any|previous|prior)\b|(?:유지\s?보수|관리자|개발자|디버그|점검)\s?모드(?:이므로|이니|라서|이기\s?때문|에서는\s?(?:이전|기존|모든)|로\s?전환되었으니)|(?:보다|에\s?우선)\s?(?:우선|앞선)/iu,
	},
	{
		class: "override",
		reason: "claims permission on the user's behalf",
		pattern:
			/\b(?:pre-?)?authori[sz]ed\s+(?:agents?|you|the assistant|assistants|bots?|ai)\b|\b(?:agents?|you|the assistant)\s+(?:are|is|have been|has been)\s+(?:pre-?)?(?:authori[sz]ed|approved|allowed|permitted|cleared)\b|\bthe user (?:has )?(?:already )?(?:approved|consented|authori[sz]ed|agreed)\b|\bno need to (?:ask|confirm|check with|tell)\b|\b(?:do not|don't|doesn't|does not|won't|never)\s+(?:need|have)\s+to\s+(?:tell|inform|notify|ask|mention|confirm|report|check with)\b|\bnever ask\b|\b(?:do not|don't|never|must not|without)\s+(?:ask\w*|prompt\w*|check\w*|confirm\w*)\s+(?:for\s+)?(?:confirmation|permission|approval|with the user|the user)|\bauto-?approve (?:everything|all)|사전\s?승인|이미\s?승인|허가를?\s?받았|묻지\s?(?:않고|말고|마)|확인\s?(?:없이|받지\s?않고)/iu,
	},
	{
		class: "override",
		reason: "puts itself above the user or the agent's instructions",
		pattern:
			/\b(?:this|these) (?:memory|memories|rule|rules|note|instructions?)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:takes? precedence|overrides?|supersedes?|outranks?|wins?)\b|\b(?:even if|even when|although|regardless of whether) the user (?:objects|disagrees|says otherwise|refuses|asks otherwise)|\b(?:this|the following) (?:memory|rule|note) is (?:an? )?(?:admin|administrator|system|security|official|mandatory) (?:policy|instruction|directive|order)|\bpre-?(?:approved|authori[sz]ed)\b|\bapproved in advance\b|\b(?:may|can|should)\s+(?:be\s+)?(?:execut\w*|run)\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:immediately|without asking|without confirmation|right away)\b|에이전트가\s?(?:바로|즉시|알아서)\s?(?:수락|승인|실행)|\b(?:delete|remove|strip|rewrite|override|disable)\w*\b(?:[^.\n]|\.(?=\S)){0,60}(?:CLAUDE\.md|AGENTS\.md|\.cursorrules|copilot-instructions|system prompt|\.claude\/settings|\.codex\/|hooks\.json)|(?:CLAUDE\.md|AGENTS\.md)(?:[^.\n]|\.(?=\S)){0,80}\b(?:delete|remove|strip|rewrite|override)\w*\b|(?:other|conflicting) (?:team )?(?:memories|rules)\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:delete|remove|ignore)|(?:이|본)\s?(?:메모리|지시|규칙)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,40}(?:우선한다|우선이다|우선함|우선 적용)|사용자가\s?(?:반대|거부|원하지\s?않)\S*\s?(?:하더라도|해도|더라도)|(?:관리자|시스템|보안|운영)\s?정책(?:이므로|이다|입니다|임)|(?:지시|지침|instructions?)\S{0,2}\s?보다(?:[^.\n]|\.(?=\S)){0,20}(?:우선|먼저)|(?:이|본)\s?(?:메모리|지시|규칙)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,12}최우선|(?:현재|지금은?)\s?(?:유지\s?보수|관리자|개발자|디버그|점검)\s?모드|(?:충돌하는|다른)(?:[^.\n]|\.(?=\S)){0,20}메모리\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,6}(?:삭제|무시)|(?:다른|충돌하는)\s?(?:팀\s?)?메모리\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,20}(?:삭제|무시)|^\s*\[[^\]\n]{0,30}(?:운영팀|보안팀|관리자|system|security team|ops team|admin)[^\]\n]{0,10}\]|확인\s?(?:요청|을\s?구하|받)(?:[^.\n]|\.(?=\S)){0,10}(?:하지\s?않|없이|생략)/imu,
	},
	{
		class: "override",
		reason: "claims an authority's exemption from the agent's rules",
		// A party (a team, the maintainers, an admin, the vendor or provider, the system) paired with
		// lifting, waiving or exempting, or rules said not to apply to the agent; a notice headed by such a party.
		pattern:
			/\b(?:(?:security|safety|trust (?:&|and) safety|platform|infra\w*|ops|devops|it|compliance|legal|release|admin|leadership|management)\s+team|maintainers?|administrators?|admins?|the system|vendor|provider|anthropic|openai|management|cto|ciso|org(?:anization)? owners?)\b(?:[^.\n]|\.(?=\S)){0,120}\b(?:lift(?:ed|s)?|waiv(?:ed|es|er)|exempt\w*|exception|suspend(?:ed|s)?|relax(?:ed|es)|no longer (?:apply|applies|required|in effect)|(?:has|have) (?:approved|authori[sz]ed|cleared|permitted))\b|\b(?:lift(?:ed)?|waiv(?:ed)?|exempt\w*|suspend(?:ed)?)\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:restrictions?|rules?|safeguards?|guardrails?|confirmations?|policy|policies)\b|\b(?:restrictions?|rules?|safeguards?|guardrails?|confirmations?|policy|policies)\b(?:[^.\n]|\.(?=\S)){0,20}\b(?:was|were|has been|have been|is|are)\s+(?:lifted|waived|suspended|removed)\b|\b(?:safety|security|confirmation|approval|human|user|repository|agent|assistant)\s+(?:\w+\s+)?(?:rules?|safeguards?|restrictions?|guidelines?|polic(?:y|ies)|checks?|protections?|guardrails?)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:do(?:es)? not|don't|doesn't|no longer)\s+apply|\bsafeguards?\b(?:[^.\n]|\.(?=\S)){0,40}\b(?:do(?:es)? not|don't|no longer)\s+apply|\bunrestricted\s+(?:\w+\s+){0,2}(?:account|mode|agent|access|assistant|bot|user)\b|^\s*(?:notice|announcement|message|directive)\s+from\b|(?:보안팀|관리자|운영팀|정보보호|경영진|본사|메인테이너|벤더|Anthropic|OpenAI|시스템)(?:[^.\n]|\.(?=\S)){0,60}(?:면제|예외|해제|완화)|(?:정책|규칙|지침|가이드라인|제한)\s?(?:예외|면제)\S{0,3}\s?(?:가\s?)?(?:승인|허가|적용)|(?:규칙|가이드라인|지침|정책|제한|안전장치|확인\s?절차)\S{0,3}\s?(?:[^.\n]|\.(?=\S)){0,10}(?:적용되지\s?않|적용하지\s?않|면제|해제)|^\s*\[[^\]\n]{0,30}(?:anthropic|openai|claude|codex|공지|notice|announcement|official|maintainers?|vendor|보안|공식)[^\]\n]{0,10}\]|(?:개발자|관리자|디버그|유지\s?보수|점검|무제한)\s?모드\S{0,3}\s?(?:가\s?|이\s?)?(?:활성|켜|전환|적용)|\b(?:developer|admin|maintenance|god|unrestricted|jailbreak)\s+mode\s+(?:is\s+)?(?:now\s+)?(?:enabled|active|activated|on)\b/imu,
	},
	{
		class: "override",
		reason: "tells the agent not to warn or ask the user",
		pattern:
			/(?:경고|확인|승인|허락|동의|질문)\S{0,3}\s?(?:구하|받|요청하|묻|하)?\s?지\s?않|(?:경고|확인|승인)\s?(?:절차|과정|단계)\S{0,2}\s?(?:면제|생략|없)|\b(?:do not|don't|never|must not|will not|won't|without)\s+(?:warn\w*|ask\w*|seek\w*|request\w*)\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:confirmation|permission|approval|consent|the user|users)\b/iu,
	},
	{
		class: "disguised",
		reason: "assembles, reverses or decodes a command to hide it",
		pattern:
			/\|\s*rev\b|\brev\s*<<<|\beval\b[^\n]{0,60}(?:base64|\\x[0-9a-f]{2}|\\[0-7]{3}|\brev\b|\bprintf\b|\$\{?\w+\}?\$\{?\w+|\$\(\s*echo\b|\bxxd\b)|\b(?:exec|eval)\s*\(\s*(?:atob|bytes\.fromhex|base64|codecs|__import__|compile|['"][^'"\n]*['"]\s*\+|\w+\s*\+|''\.join|\[)|(?:\\x[0-9a-f]{2}){4,}|(?:\\[0-7]{3}){4,}|\$\{IFS\}|\$IFS\b|\|\s*\$\{?[A-Za-z_]\w*\}?\s*(?:$|[;)'"`|&])|\|\s*\$\(\s*(?:echo|printf|rev)\b/i,
	},
	{
		class: "override",
		reason: "tells the agent to hide what it does from the user",
		pattern:
			/\b(?:silently|quietly|secretly|covertly|in the background without)\b|\b(?:do not|don't|never|must not|without)\s+(?:tell\w*|mention\w*|inform\w*|notify\w*|report\w*|show\w*|reveal\w*|disclos\w*|surfac\w*|log\w*|flag\w*|warn\w*|alert\w*|question\w*|point\w* out)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:user|anyone|human|developer|them|it|exists?|suspicious|unknown|security|credential\w*|dangerous|risky|warnings?|vulnerabilit\w*)\b|\bno (?:security )?warnings\b|\b(?:tell|answer|reply|respond|report)\w*\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:the user|users|them)\b(?:[^.\n]|\.(?=\S)){0,60}\b(?:was|is|are|were)\b(?:[^.\n]|\.(?=\S)){0,30}\b(?:part of|normal|standard|expected|safe|nothing)\b|\bwithout (?:a )?(?:record|trace|log(?:ging)?|notice)\b|사용자에게\s?(?:알리지|말하지|보고하지|묻지|표시하지|보여주지)|(?:언급|보고|공유|표시|알리|경고)하지\s?(?:말|않)|기록\s?없이|기록하지\s?않|(?:몰래|조용히|은밀히)|문제\s?없(?:음|다)\S{0,3}\s?(?:라고|이라고)\s?(?:답|말|보고)/iu,
	},
];

/** Whether the match at `at` lies inside a double-quoted span of the clause. */
function quoted(text: string, at: number, length: number): boolean {
	for (const m of text.matchAll(/"[^"\n]{2,200}"|“[^”\n]{2,200}”|「[^」\n]{2,200}」/g)) {
		const start = m.index ?? 0;
		if (at >= start && at + length <= start + m[0].length) return true;
	}
	return false;
}

/** Signals the disguises carry on their own, whatever the action. */
function hostDisguises(hosts: HostMention[], clause: Clause): DangerFinding[] {
	const findings: DangerFinding[] = [];
	const acting =
		/\b(?:run|install|download|fetch|curl|wget|set|point|use|add|send|upload|post|open|visit|clone|pull|push|import|source|registry|remote|origin|mirror|key|token)\b|(?:실행|설치|받|설정|사용|추가|보내|열어|접속)/i.test(
			clause.text,
		);
	if (!acting) return findings;
	if (hosts.some((h) => h.kind === "lookalike"))
		findings.push({ class: "disguised", reason: "points at a look-alike of a well-known domain" });
	if (hosts.some((h) => h.kind === "shortener")) findings.push({ class: "disguised", reason: "points at a link shortener" });
	return findings;
}

/**
 * What in `text` a planted instruction would ask, by class (empty: nothing). The text is normalised
 * first (invisible characters dropped, look-alike letters mapped, encoded runs decoded, split commands
 * joined); a disguise found on the way is itself a finding when an action is found too, or when it
 * hides letters inside a word.
 */
/** The provenance line consolidation ends a memory with: session ids only, nothing else on the line. */
const PROVENANCE_LINE = /^Sources: session [^\s,]+(?:, session [^\s,]+)*\.?[ \t]*$/gm;

export function assessDanger(raw: string, trace?: (clause: string, match: string, reason: string) => void): DangerFinding[] {
	// Cairn's own memory:// paths (a summary's links) name memories, not places or rights; its provenance
	// line ("Sources: session a, session b.") names sessions, not package sources.
	const { text, disguises } = normalise(raw.replace(/memory:\/\/\S+/g, "memory-link").replace(PROVENANCE_LINE, ""));
	const findings: DangerFinding[] = [];
	const add = (f: DangerFinding) => {
		if (!findings.some((x) => x.class === f.class && x.reason === f.reason)) findings.push(f);
	};
	const clauses = clausesOf(text);
	const check = (signal: Signal, clause: Clause, hosts: HostMention[]): boolean => {
		const m = signal.pattern.exec(clause.text);
		if (!m) return false;
		if (signal.when && !signal.when(clause, hosts)) return false;
		const at = m.index ?? 0;
		if (denied(clause, at, m[0].length)) return false;
		// A phrase quoted as an example ("strings like \"ignore previous instructions\"") is mentioned, not said.
		if (signal.class === "override" && quoted(clause.text, at, m[0].length)) return false;
		trace?.(clause.text, m[0], signal.reason);
		return true;
	};
	for (const [i, clause] of clauses.entries()) {
		const hosts = hostsIn(clause.text);
		const previous = clauses[i - 1];
		for (const signal of SIGNALS) {
			if (check(signal, clause, hosts)) add({ class: signal.class, reason: signal.reason });
			else if (signal.window && previous && !denied(clause, clause.lower.length, 0)) {
				const joined = { text: `${previous.text} ${clause.text}`, lower: `${previous.lower} ${clause.lower}` };
				if (!denied(previous, previous.lower.length, 0) && check(signal, joined, hostsIn(joined.text)))
					add({ class: signal.class, reason: signal.reason });
			}
		}
		if (!denied(clause, clause.lower.length, 0)) for (const f of hostDisguises(hosts, clause)) add(f);
	}
	if (disguises.some((d) => d !== "encoded text"))
		for (const d of new Set(disguises)) if (d !== "encoded text") add({ class: "disguised", reason: d });
	if (disguises.includes("encoded text") && findings.length > 0) add({ class: "disguised", reason: "carries an encoded payload" });
	return findings;
}

/** One line naming what was found, for the review queue and the writer: classes and reasons, never the text. */
export function dangerSummary(findings: DangerFinding[]): string {
	return findings.map((f) => `${f.class}: ${f.reason}`).join("; ");
}
