import { lintSource } from "@secretlint/core";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import { forgetRemembered, looksLikePlaceholder } from "./secret-heuristics";
import { POLICY_RULES } from "./secret-policy";
import type { RegexRule } from "./secret-rule";
import { acceptUrlCredential, SECRET_RULES, type SecretRule } from "./secret-rules";

/** One detected secret: which rule fired and where. Never carries the secret itself. */
export interface SecretFinding {
	rule: string;
	start: number;
	end: number;
}

/** The rule reported for text the scan had no budget left to examine: treated as a secret. */
export const BUDGET_EXCEEDED = "budget-exceeded";

export interface ScanOptions {
	/**
	 * Work budget in steps (characters examined by each rule, plus a charge per candidate). Text the
	 * scan cannot reach within it is reported as one `budget-exceeded` finding, so a write holding it
	 * is refused and a transcript has it redacted. Default: `defaultBudget(text.length)`.
	 */
	budget?: number;
	/** Also run secretlint's recommended preset (default true). */
	secretlint?: boolean;
}

/** What one scan cost, in the same steps as the budget. */
export interface ScanStats {
	chars: number;
	steps: number;
	budget: number;
	windows: number;
	candidates: number;
	/** Offset from which the text was not examined, or null when all of it was. */
	exceededAt: number | null;
	/** Windows too dense with secretlint's anchors to hand to it (Cairn's rules still ran). */
	secretlintSkipped: number;
}

/**
 * Text is scanned in windows: matches must start inside the window but may run on into the next
 * AHEAD characters, and look-behinds see BEHIND characters of context. Every rule runs once per
 * window, so the work is (rules × text length) plus a bounded charge per candidate: linear.
 */
export const WINDOW = 65_536;
const BEHIND = 512;
const AHEAD = 12_288;
/** Rejected quoted values re-scanned per rule and window (see `resumeAtValue`). */
const MAX_RESUMES = 256;
/** Charge per candidate a rule's regex produced, on top of 4 steps per character of the match. */
const CANDIDATE_STEPS = 32;
/** Charge per character for secretlint's preset (about thirty expressions of its own). */
const SECRETLINT_STEPS_PER_CHAR = 32;
const RULES_BY_ID = new Map<string, SecretRule>(SECRET_RULES.map((r) => [r.id, r]));
const POLICY_RULE_IDS: ReadonlySet<string> = new Set(POLICY_RULES.map((r) => r.id));
/** Steps an ordinary text costs per character: every rule and secretlint over each window and its margins. */
const NORMAL_STEPS_PER_CHAR = Math.ceil((SECRET_RULES.length + SECRETLINT_STEPS_PER_CHAR) * ((WINDOW + AHEAD + BEHIND) / WINDOW));
/** Texts beyond this many characters are not scanned past it (their tail is reported as a secret). */
export const MAX_SCAN_CHARS = 32 * 1024 * 1024;

/** The default budget: four times what ordinary text of this length costs, up to MAX_SCAN_CHARS. */
export function defaultBudget(chars: number): number {
	return 4 * NORMAL_STEPS_PER_CHAR * Math.min(chars, MAX_SCAN_CHARS) + 1_000_000;
}

const SECRETLINT_CONFIG = {
	rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommendedPreset }],
};

/**
 * The expression each regex rule is run with. Match indices (the `d` flag) more than double the cost of
 * every candidate, and a rule whose value is the whole match does not need them (its span is the match),
 * so those run on a copy without the flag.
 */
const EXEC_PATTERNS = new Map<RegexRule, RegExp>();
function execPattern(rule: RegexRule): RegExp {
	let p = EXEC_PATTERNS.get(rule);
	if (!p) {
		p =
			rule.group === undefined && rule.pattern.hasIndices
				? new RegExp(rule.pattern.source, rule.pattern.flags.replace("d", ""))
				: rule.pattern;
		EXEC_PATTERNS.set(rule, p);
	}
	return p;
}

function valueSpan(rule: RegexRule, m: RegExpExecArray): { value: string; start: number; end: number } | null {
	if (rule.group === undefined && !m.indices) return { value: m[0], start: m.index, end: m.index + m[0].length };
	const groups = rule.group === undefined ? [0] : Array.isArray(rule.group) ? rule.group : [rule.group];
	for (const g of groups) {
		const span = m.indices?.[g];
		const value = m[g];
		if (span && value !== undefined) return { value, start: span[0], end: span[1] };
	}
	return null;
}

/** Runs one regex rule over matches starting in [from, to) of `text`, stopping early once the budget is spent. */
function runRegexRule(
	rule: RegexRule,
	text: string,
	offset: number,
	from: number,
	to: number,
	findings: SecretFinding[],
	meter: { steps: number; candidates: number; budget: number },
): void {
	const memo = new Map<string, unknown>();
	const checked = new Map<string, boolean>();
	const pattern = execPattern(rule);
	// A rejected quoted value may hold the real assignment ('export X="API_KEY=…"'): look inside it,
	// a bounded number of times per window so a text of nested quotes cannot multiply the work.
	let resumes = 0;
	const resume = (span: { start: number; value: string }) =>
		rule.resumeAtValue === true && resumes++ < MAX_RESUMES && /[=:]/.test(span.value) && /["'`]/.test(text[span.start - 1] ?? "");
	pattern.lastIndex = from;
	meter.steps += text.length - from;
	for (let m = pattern.exec(text); m !== null; m = pattern.exec(text)) {
		if (m.index >= to) break;
		if (m[0].length === 0) {
			pattern.lastIndex++;
			continue;
		}
		meter.candidates++;
		meter.steps += CANDIDATE_STEPS + 4 * m[0].length;
		const span = valueSpan(rule, m);
		if (!span) continue;
		const verdict = rule.accept ? rule.accept(span.value, m, text, memo) : true;
		if (verdict === false) {
			if (resume(span)) pattern.lastIndex = span.start;
			continue;
		}
		let start = span.start;
		if (rule.pre !== undefined) start -= m[rule.pre]?.length ?? 0;
		let end = span.end;
		if (typeof verdict === "number") end = verdict;
		else if (Array.isArray(verdict)) [start, end] = verdict;
		if (rule.check) {
			const found = text.slice(start, end);
			let ok = checked.get(found);
			if (ok === undefined) {
				ok = rule.check(found);
				if (checked.size >= 4096) checked.clear();
				checked.set(found, ok);
			}
			if (!ok) {
				if (resume(span)) pattern.lastIndex = span.start;
				continue;
			}
		}
		findings.push({ rule: rule.id, start: offset + start, end: offset + end });
		if (meter.steps > meter.budget) return;
	}
}

/**
 * The prefixes secretlint's preset anchors on. Its core is quadratic in the number of findings and
 * some of its expressions re-read up to 10,000 characters per anchor, so a window dense with these
 * (a text repeating "figd_" or "ghs_1_a.") would cost seconds: such windows are left to Cairn's own
 * rules, which cover the same formats in linear time.
 */
const SECRETLINT_ANCHORS =
	/gh[pousr]_|github_pat_|gl(?:pat|c|sa)[-_]|xox[a-z]-|xapp-|sk-|gsk_|hf_|lin_api_|ntn_|SG\.|shp[a-z]{2}_|[sr]k_(?:live|test)|ops_|hv[sbr]\.|vc[a-z]_|dapi|dckr_pat_|figd_|cf[a-z]{1,2}_|tskey-|A3T|AKIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ASIA|npm_|_authToken|:\/\/|-----BEGIN|x-oauth-basic|[Aa]ccount|ACCOUNT|[Ss]ecret|SECRET/g;
/** Anchors per window above which secretlint is not run on it. */
const SECRETLINT_MAX_ANCHORS = 128;

function secretlintAnchors(text: string, limit: number): number {
	SECRETLINT_ANCHORS.lastIndex = 0;
	let n = 0;
	while (n < limit && SECRETLINT_ANCHORS.exec(text) !== null) n++;
	return n;
}

/** secretlint's preset flags documentation placeholders and some formats Cairn judges more strictly. */
function keepSecretlintFinding(ruleId: string, flagged: string, after: string): boolean {
	if (/^[-_.]?(?:\.\.|…|\*{2}|#{2}|\[redact|<redact)/i.test(after)) return false;
	// The body after a prefix of short segments ("sk_live_", "xoxb-", "glpat-").
	const body = flagged.replace(/^(?:[A-Za-z0-9]{1,8}[_.-]){1,3}/, "");
	if (looksLikePlaceholder(body) || looksLikePlaceholder(flagged)) return false;
	if (ruleId.endsWith("-slack") && !/\d{8,}|hooks\.slack\.com|xapp-/.test(flagged)) return false;
	const url = /([A-Za-z][A-Za-z0-9+.-]{1,24}):\/\/([^\s:/?#@]{0,128}):([^\s/?#]{1,256})@/.exec(flagged);
	if (url) return acceptUrlCredential(url[3] ?? "", url as RegExpExecArray);
	return true;
}

async function runSecretlint(text: string, offset: number, from: number, to: number, findings: SecretFinding[]): Promise<void> {
	const result = await lintSource({
		source: { content: text, filePath: "memory.md", ext: ".md", contentType: "text" },
		options: { config: SECRETLINT_CONFIG, noPhysicFilePath: true, maskSecrets: false },
	});
	for (const message of result.messages) {
		const [start, end] = message.range;
		if (start < from || start >= to) continue;
		if (!keepSecretlintFinding(message.ruleId, text.slice(start, end), text.slice(end, end + 8))) continue;
		findings.push({
			rule: `secretlint/${message.ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}`,
			start: offset + start,
			end: offset + end,
		});
	}
}

/**
 * The one secret detector used wherever text could carry a secret into Cairn: memory writes,
 * transcripts and model output. Cairn's own rules (token formats, key blocks, JWTs, credentials in
 * URLs, headers and command lines, secret-named assignments) plus secretlint's recommended preset,
 * window by window within a work budget. Findings come sorted by start.
 */
export async function scanSecrets(text: string, options: ScanOptions = {}): Promise<{ findings: SecretFinding[]; stats: ScanStats }> {
	try {
		return await scan(text, options);
	} finally {
		forgetRemembered();
	}
}

async function scan(text: string, options: ScanOptions): Promise<{ findings: SecretFinding[]; stats: ScanStats }> {
	const budget = options.budget ?? defaultBudget(text.length);
	const meter = { steps: 0, candidates: 0, budget };
	const findings: SecretFinding[] = [];
	let windows = 0;
	let secretlintSkipped = 0;
	let exceededAt: number | null = null;
	for (let windowStart = 0; windowStart < text.length; windowStart += WINDOW) {
		if (meter.steps > budget || windowStart >= MAX_SCAN_CHARS) {
			exceededAt = windowStart;
			break;
		}
		windows++;
		const sliceStart = Math.max(0, windowStart - BEHIND);
		const sliceEnd = Math.min(text.length, windowStart + WINDOW + AHEAD);
		const slice = text.slice(sliceStart, sliceEnd);
		const from = windowStart - sliceStart;
		const to = Math.min(text.length, windowStart + WINDOW) - sliceStart;
		for (const rule of SECRET_RULES) {
			if ("scan" in rule) {
				rule.scan(slice, from, to, (s, e) => findings.push({ rule: rule.id, start: sliceStart + s, end: sliceStart + e }), meter);
			} else {
				runRegexRule(rule, slice, sliceStart, from, to, findings, meter);
			}
			if (meter.steps > budget) break;
		}
		if (meter.steps > budget) {
			exceededAt = windowStart;
			break;
		}
		if (options.secretlint !== false) {
			meter.steps += slice.length;
			const anchors = secretlintAnchors(slice, SECRETLINT_MAX_ANCHORS);
			// Every expression of the preset starts at one of these anchors: a window with none holds
			// nothing it could report (and its line handling costs ~10 ms per window of short lines). It is
			// still charged as if it ran, so the budget means the same whatever the text holds.
			if (anchors === 0) {
				meter.steps += SECRETLINT_STEPS_PER_CHAR * slice.length;
				continue;
			}
			if (anchors < SECRETLINT_MAX_ANCHORS) {
				meter.steps += SECRETLINT_STEPS_PER_CHAR * slice.length;
				await runSecretlint(slice, sliceStart, from, to, findings);
			} else secretlintSkipped++;
		}
	}
	// Long secrets (key blocks) extend past their window: over the rest of their body, bounded.
	for (const f of findings) {
		const rule = RULES_BY_ID.get(f.rule);
		if (rule && "extend" in rule && rule.extend) {
			const end = rule.extend(text, f.end);
			meter.steps += end - f.end;
			f.end = end;
		}
	}
	// secretlint, or the policy's catch-alls, confirming what a format rule found adds nothing: keep only
	// their findings elsewhere.
	const backstop = (f: SecretFinding) => f.rule.startsWith("secretlint/") || POLICY_RULE_IDS.has(f.rule);
	const own = findings.filter((f) => !backstop(f)).sort((a, b) => a.start - b.start);
	const overlapsOwn = (f: SecretFinding) => {
		let lo = 0;
		let hi = own.length;
		while (lo < hi) {
			const mid = (lo + hi) >> 1;
			if ((own[mid]?.start ?? 0) < f.end) lo = mid + 1;
			else hi = mid;
		}
		// Own findings starting before f ends; the nearest few are enough (they are short and sorted).
		for (let i = lo - 1; i >= 0 && i >= lo - 8; i--) if ((own[i]?.end ?? 0) > f.start) return true;
		return false;
	};
	const merged = [...own, ...findings.filter((f) => backstop(f) && !overlapsOwn(f))];
	const kept = exceededAt === null ? merged : merged.filter((f) => f.start < (exceededAt as number));
	if (exceededAt !== null) kept.push({ rule: BUDGET_EXCEEDED, start: exceededAt, end: text.length });
	kept.sort((a, b) => a.start - b.start || b.end - a.end);
	// The scan's cost, returned with its findings (never kept between scans: concurrent scans share a runtime).
	return {
		findings: kept,
		stats: { chars: text.length, steps: meter.steps, budget, windows, candidates: meter.candidates, exceededAt, secretlintSkipped },
	};
}

/** Findings for `text` (see `scanSecrets`); text beyond the work budget is one `budget-exceeded` finding. */
export async function findSecrets(text: string, options?: ScanOptions): Promise<SecretFinding[]> {
	if (text.length === 0) return [];
	return (await scanSecrets(text, options)).findings;
}

/** Names of the rules that fired, sorted and de-duplicated: safe to show to callers. */
export function ruleNames(findings: SecretFinding[]): string[] {
	return [...new Set(findings.map((f) => f.rule))].sort();
}

/** Replaces every detected secret with `[REDACTED:<rule>]`; overlapping findings become one. */
export async function redactSecrets(text: string, options?: ScanOptions): Promise<{ text: string; findings: SecretFinding[] }> {
	const findings = await findSecrets(text, options);
	if (findings.length === 0) return { text, findings };
	let out = "";
	let cursor = 0;
	for (const f of findings) {
		if (f.end <= cursor) continue;
		out += text.slice(cursor, Math.max(cursor, f.start));
		out += `[REDACTED:${f.rule}]`;
		cursor = f.end;
	}
	return { text: out + text.slice(cursor), findings };
}
