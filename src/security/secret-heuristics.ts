/**
 * Judgements the secret rules share: is a value random enough to be a credential, or is it a
 * placeholder, an identifier, a hash, encoded prose? Every function here is linear in its input and
 * is only ever called on bounded values (a rule's capture, at most a few hundred characters).
 */

/** Every memo below, so a scan can drop what it remembered (candidate values may be secrets). */
const memos: Map<string, unknown>[] = [];

/** Remembers a function's answers within a scan (bounded: cleared when full, and after every scan). */
export function memoize<T>(fn: (key: string) => T, max = 4096): (key: string) => T {
	const answers = new Map<string, T>();
	memos.push(answers);
	return (key) => {
		// One lookup on a hit (answers are never undefined unless fn returns it, which has() then settles).
		const known = answers.get(key);
		if (known !== undefined || answers.has(key)) return known as T;
		const answer = fn(key);
		if (answers.size >= max) answers.clear();
		answers.set(key, answer);
		return answer;
	};
}

/** Forgets every remembered answer: called when a scan ends, so no candidate outlives it. */
export function forgetRemembered(): void {
	for (const m of memos) m.clear();
}

const asciiCounts = new Uint32Array(128);

/** Shannon entropy in bits per character. */
export function entropy(value: string): number {
	const n = value.length;
	if (n === 0) return 0;
	let other: Map<number, number> | null = null;
	asciiCounts.fill(0);
	for (let i = 0; i < n; i++) {
		const c = value.charCodeAt(i);
		if (c < 128) asciiCounts[c] = (asciiCounts[c] ?? 0) + 1;
		else {
			other ??= new Map();
			other.set(c, (other.get(c) ?? 0) + 1);
		}
	}
	let bits = 0;
	const add = (k: number) => {
		const p = k / n;
		bits -= p * Math.log2(p);
	};
	for (let c = 0; c < 128; c++) if (asciiCounts[c]) add(asciiCounts[c] as number);
	if (other) for (const k of other.values()) add(k);
	return bits;
}

/** Whether every character of a non-empty value is the same one. */
function oneCharacter(value: string): boolean {
	for (let i = 1; i < value.length; i++) if (value.charCodeAt(i) !== value.charCodeAt(0)) return false;
	return value.length > 0;
}

/** Character classes present: lower, upper, digit, other. */
export function charClasses(value: string): number {
	let lower = 0;
	let upper = 0;
	let digit = 0;
	let other = 0;
	for (let i = 0; i < value.length; i++) {
		const c = value.charCodeAt(i);
		if (c >= 97 && c <= 122) lower = 1;
		else if (c >= 65 && c <= 90) upper = 1;
		else if (c >= 48 && c <= 57) digit = 1;
		else other = 1;
	}
	return lower + upper + digit + other;
}

/** "abcdefgh", "12345678", "zyxwvuts": alphabets and counters (a run of 8 or more). */
export function hasSequentialRun(value: string, min = 8): boolean {
	let up = 1;
	let down = 1;
	for (let i = 1; i < value.length; i++) {
		const d = value.charCodeAt(i) - value.charCodeAt(i - 1);
		up = d === 1 ? up + 1 : 1;
		down = d === -1 ? down + 1 : 1;
		if (up >= min || down >= min) return true;
	}
	return false;
}

/** A value made of one short unit repeated ("abcabcabc", "1231231231"). */
export function isPeriodic(value: string): boolean {
	if (value.length < 8) return false;
	for (let p = 1; p <= 4; p++) {
		let ok = true;
		for (let i = p; i < value.length && ok; i++) if (value[i] !== value[i - p]) ok = false;
		if (ok) return true;
	}
	return false;
}

const TEMPLATE =
	/\$\{|\$\(|\{\{|\}\}|%\(|<[A-Za-z_][A-Za-z0-9 _.:-]{0,60}>|^<|>$|\[[A-Z][A-Z0-9_ ]{1,40}\]|^\$(?:[A-Z_][A-Z0-9_]*|[a-z_][a-z0-9_]*|[a-z_]{1,40}[A-Z][A-Za-z]*)(?:$|[^A-Za-z0-9_])|^%[A-Za-z_][A-Za-z0-9_]*%$|^@[A-Za-z_]+@$|^(?:process\.env|os\.environ|env\.|ENV\[|secrets\.|vars\.|System\.getenv|getenv)/;
/** Masking and elision: "xxxx", "****", "####", "•••", "...". */
const MASK = /x{4}|X{4}|\*{3}|#{3}|•{2}|\.{3}|…|_{4}|-{4}|\?{3}/;
/** Placeholder words, as a whole value. */
const PLACEHOLDER_WHOLE =
	/^(?:pass(?:word)?|passwd|pwd|secret|secrets|token|key|api[-_]?key|apikey|access[-_]?token|auth[-_]?token|credentials?|test(?:ing)?|example|sample|changeme|change[-_]?me|change[-_]?it|dummy|fake|foo|bar|baz|foobar|qux|hunter2|none|null|nil|undefined|true|false|yes|no|on|off|empty|string|str|text|value|redacted|hidden|masked|secure|required|optional|username|user|admin|administrator|root|guest|default|demo|todo|tbd|unknown|abc|abc123|123|1234|12345|123456|12345678|123456789|password1|letmein|qwerty|your[-_ a-z0-9]*|my[-_ ]?(?:pass\w*|secret\w*|token\w*|key\w*|api\w*|app\w*|user\w*|db\w*|pwd)|<[^>]*>|\[[^\]]*\])$/i;
/** Words a placeholder is made of, when every word of a value is one. */
const PLACEHOLDER_WORD =
	/^(?:pass|password|passwd|pwd|secret|token|key|api|apikey|access|auth|test|example|sample|changeme|change|me|dummy|fake|foo|bar|baz|qux|none|null|your|my|value|string|here|xxx|abc|user|username|admin|the|a|an|goes|put|insert|replace|with|real)$/;
/** Placeholder words as a segment of a value ("PUT_YOUR_TOKEN_HERE", "AKIAIOSFODNN7EXAMPLE", "fake-token"). */
const PLACEHOLDER_SEGMENT =
	/EXAMPLE|(?:^|[-_.\s/])(?:example|examples|sample|placeholder|redacted|dummy|changeme|replace|insert|enter|todo|fixme|fake|mock)(?:$|[-_.\s/])|PLACEHOLDER|REDACTED|DUMMY|(?:HERE|Here)$|^(?:HERE|here)[-_]|_HERE_|YOUR[-_]|(?:^|[-_])your[-_A-Z]|^your[A-Z]|^[Mm][Yy][-_]?(?:[Pp]ass|PASS|[Ss]ecret|SECRET|[Tt]oken|TOKEN|[Kk]ey|KEY|[Aa]pi|API|[Uu]ser|USER|[Pp]wd|PWD)/;

/**
 * Values that are references, templates, masks or placeholder words rather than secrets.
 * Pass the part of a token after its fixed prefix when the prefix is known.
 */
export function looksLikePlaceholder(value: string): boolean {
	const v = value.trim();
	if (v.length === 0) return true;
	if (PLACEHOLDER_WHOLE.test(v)) return true;
	// "{password}" is a template; "{ZqL5kVrX1n8tA2}" is a literal someone wrapped in braces.
	const braced = /^\{([^{}]*)\}$/.exec(v);
	if (braced) return !isRandomToken(braced[1] ?? "", 8);
	if (TEMPLATE.test(v) || MASK.test(v) || PLACEHOLDER_SEGMENT.test(v)) return true;
	const core = /[^A-Za-z0-9]/.test(v) ? v.replace(/[^A-Za-z0-9]/g, "") : v;
	// One character over and over ("AAAAAAAA", "00000000") is filler, whatever the prefix.
	if (oneCharacter(core) || isPeriodic(core)) return true;
	// Runs of one character each ("AAAAAAAAAAAA-BBBBBBBBBBBB"): filler too; random bodies never are.
	if (core.length >= 8 && /^(?:([A-Za-z0-9])\1{3,})+$/.test(core)) return true;
	// Words a placeholder is made of: "foo-bar-baz", "test-test", "secret_password".
	if (v.length > 64 || core.length === v.length) return false;
	const words = v
		.toLowerCase()
		.split(/[^a-z0-9]+/)
		.filter(Boolean);
	return words.length > 1 && words.every((w) => PLACEHOLDER_WORD.test(w));
}

/** Base64 (or base64url) that decodes to printable text of words: "ZHVtbXkgdGV4dA==" is "dummy text". */
export function decodesToProse(value: string): boolean {
	const decoded = decodeBase64(value);
	if (decoded === null || decoded.length < 8) return false;
	return /^[A-Za-z ,.'!?:;()-]+$/.test(decoded) && /[a-z]{3}/.test(decoded);
}

/** Decodes base64 or base64url to a latin-1 string, or null when the value is not base64. */
export function decodeBase64(value: string): string | null {
	if (value.length < 4 || value.length > 8192 || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return null;
	let b64 = value.replace(/-/g, "+").replace(/_/g, "/").replace(/=+$/, "");
	if (b64.length % 4 === 1) return null;
	while (b64.length % 4 !== 0) b64 += "=";
	try {
		return atob(b64);
	} catch {
		return null;
	}
}

const VOWELS = /[aeiouy]/g;

/** A run of letters that reads like a word: has vowels, no long consonant clusters. */
function wordlike(piece: string): boolean {
	if (piece.length <= 3) return true;
	const lower = piece.toLowerCase();
	const vowels = lower.match(VOWELS)?.length ?? 0;
	if (vowels / lower.length < 0.2) return false;
	return !/[bcdfghjklmnpqrstvwxz]{5}/.test(lower);
}

/**
 * Identifiers, dotted names, versions and paths: "jetbrains.mps.v8_elimination",
 * "rc0.15.0_20231217_1420-SNAPSHOT", "ultraPictureBox1", "SalesResults-1.2". Random tokens split
 * into many short fragments at every change of case or class; identifiers split into words.
 */
export function looksLikeIdentifier(value: string): boolean {
	const pieces = value.match(/[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[0-9]+/g) ?? [];
	let letters = 0;
	let wordy = 0;
	let letterPieces = 0;
	let fragments = 0;
	for (const p of pieces) {
		if (/[0-9]/.test(p[0] ?? "")) {
			if (p.length > 8) return false;
			continue;
		}
		letterPieces++;
		letters += p.length;
		if (wordlike(p)) wordy += p.length;
		if (p.length <= 2) fragments++;
	}
	if (letterPieces === 0) return false;
	return letters / letterPieces >= 3.2 && wordy / letters >= 0.8 && (fragments <= 1 || fragments / letterPieces <= 0.34);
}

/** A git SHA, an MD5/SHA digest, a UUID: hex that names content, not access. */
export function isHexDigest(value: string): boolean {
	return /^(?:[0-9a-f]{32}|[0-9a-f]{40}|[0-9a-f]{56}|[0-9a-f]{64}|[0-9a-f]{96}|[0-9a-f]{128}|[0-9A-F]{32}|[0-9A-F]{40}|[0-9A-F]{64})$/.test(
		value,
	);
}

export function isUuid(value: string): boolean {
	return /^\{?[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\}?$/.test(value);
}

/** Numbers, dates, versions, IP addresses, sizes: digits with a few separators. */
function isNumeric(value: string): boolean {
	return /^[0-9][0-9.,:_ \-/+TZ]*$/.test(value) || /^v?\d+(?:\.\d+){1,3}(?:[-+][A-Za-z0-9.]+)?$/.test(value);
}

function alphabetSize(raw: string): number {
	// Separators between groups ("<32 hex>-<8 hex>-<8 hex>") add no randomness: judge the groups.
	const value = /^[A-Za-z0-9]{4,}(?:[-_.][A-Za-z0-9]{4,}){1,7}$/.test(raw) ? raw.replace(/[-_.]/g, "") : raw;
	if (/^[0-9a-f]+$/.test(value) || /^[0-9A-F]+$/.test(value)) return 16;
	if (/^[0-9a-z]+$/.test(value) || /^[0-9A-Z]+$/.test(value)) return 36;
	if (/^[0-9A-Za-z]+$/.test(value)) return 62;
	return 70;
}

/**
 * A random-looking token: long enough, not filler, not an identifier, with entropy close to what a
 * random string of its length and alphabet would have.
 */
export function isRandomToken(value: string, minLength = 16, allowShort = true): boolean {
	return randomTokenMemo(`${minLength}${allowShort ? "s" : "l"}|${value}`);
}

const randomTokenMemo = memoize((key: string) => {
	const bar = key.indexOf("|");
	return isRandomTokenUncached(key.slice(bar + 1), Number.parseInt(key.slice(0, bar - 1), 10), key[bar - 1] === "s");
});

function isRandomTokenUncached(value: string, minLength: number, allowShort: boolean): boolean {
	if (value.length < Math.min(minLength, 10) || value.length > 1024 || /\s/.test(value)) return false;
	if (looksLikePlaceholder(value) || isNumeric(value)) return false;
	// Versions and build names: "jjwt-jackson-0.11.2", "rc0.15.0-SNAPSHOT".
	if (/[-_.]v?\d{1,4}\.\d{1,4}(?:\.\d{1,6})?$|SNAPSHOT|RELEASE/.test(value)) return false;
	if (/^(?:https?:|file:|\.{0,2}\/|~\/|[A-Za-z]:\\)/.test(value) || /^[^@\s]+@[^@\s]+\.[a-z]{2,}$/i.test(value)) return false;
	const classes = charClasses(value);
	// Short values need every sign of randomness; longer ones need mixed classes.
	if (value.length < minLength && !(allowShort && classes >= 3 && value.length >= 10)) return false;
	if (classes < 2) return false;
	if (hasSequentialRun(value) || isPeriodic(value)) return false;
	if (looksLikeIdentifier(value)) return false;
	if (decodesToProse(value)) return false;
	// n random characters over k symbols have entropy near log2(min(n, k)); short samples fall below it.
	const expected = Math.log2(Math.min(value.length, alphabetSize(value)));
	return entropy(value) >= (value.length < 24 ? 0.65 : 0.75) * expected;
}

/**
 * A password: shorter and less random than a token. Unquoted values must not read as a variable
 * (letters only, or a dotted/camelCase identifier); quoted ones may be passphrases but not prose.
 */
export function isPasswordLike(value: string, quoted: boolean): boolean {
	if (value.length < 6 || value.length > 128 || looksLikePlaceholder(value)) return false;
	if (isNumeric(value) && value.length < 12) return false;
	if ((value.match(/ /g)?.length ?? 0) >= 2) return false;
	const classes = charClasses(value);
	if (hasSequentialRun(value, 6) || isPeriodic(value)) return false;
	if (!quoted) {
		// Letters only, but random and long: a generated password, not a variable name.
		if (classes === 2 && /^[A-Za-z]+$/.test(value) && value.length >= 12 && !looksLikeIdentifier(value)) {
			return entropy(value) >= 0.75 * Math.log2(Math.min(value.length, 52));
		}
		if (classes < 2 || !/[0-9]|[^A-Za-z0-9]/.test(value) || !/[A-Za-z]/.test(value)) return false;
		if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value) && !/\d/.test(value)) return false;
		return !looksLikeIdentifier(value) || classes >= 3;
	}
	if (classes >= 2) return !(looksLikeIdentifier(value) && classes === 2 && !/\d/.test(value));
	return value.length >= 12 && !looksLikeIdentifier(value);
}
