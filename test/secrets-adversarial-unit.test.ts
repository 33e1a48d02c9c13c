import { describe, expect, it } from "vitest";
import { SECRET_RULES } from "../src/security/secret-rules";
import { BUDGET_EXCEEDED, defaultBudget, findSecrets, redactSecrets, ruleNames, scanSecrets, WINDOW } from "../src/security/secrets";

// Inputs built to make backtracking detectors slow: repeated anchors, headers and prefixes. None of
// these asserts on time; they count the detector's work through its step counter instead.
const ADVERSARIAL: Record<string, string> = {
	"PEM BEGIN lines": "-----BEGIN RSA PRIVATE KEY-----\n",
	"PEM BEGIN lines with a little base64": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n",
	"curl ": "curl ",
	"curl -u": "curl -u a:b ",
	"authorization:": "authorization:",
	"Authorization: Bearer ": "Authorization: Bearer ",
	"password: ": "password: ",
	"key=": "key=",
	'key="a" value="': 'key="a" value="',
	eyJ: "eyJ",
	"a JWT header and dot": "eyJhbGciOiJIUzI1NiJ9.eyJ",
	"scheme://user:": "a://b:",
	"glpat-": "glpat-",
	"figd_ (slow in secretlint)": "figd_",
	"ghs_1_a. (quadratic in secretlint)": "ghs_1_a.",
	T3BlbkFJ: "T3BlbkFJ",
	"Q~": "Q~",
	"sshpass -p ": "sshpass -p ",
	"-us1": "0123456789abcdef0123456789abcdef-us1 ",
	"AZDO (a signature anchored in the middle of its token)": "AZDOAZDO",
	"a run of A (bearer tokens start with one)": "A",
	"sk- (a short prefix)": "sk-",
	"re_ and a group": "re_abcdefgh_",
	"hex groups (Mailgun's tail)": "-0123abcd",
	whitespace: " \n\t",
	"one letter": "a",
};

const KB = 1024;
const fill = (unit: string, size: number) => unit.repeat(Math.ceil(size / unit.length)).slice(0, size);

describe("adversarial inputs", () => {
	for (const [name, unit] of Object.entries(ADVERSARIAL)) {
		it(`${name}: finishes within its budget and its work grows linearly`, async () => {
			const small = await scanSecrets(fill(unit, 64 * KB));
			const large = await scanSecrets(fill(unit, 1024 * KB));
			// A safe answer: the whole text was examined (nothing left over as budget-exceeded)...
			expect(small.stats.exceededAt).toBeNull();
			expect(large.stats.exceededAt).toBeNull();
			expect(ruleNames(large.findings)).not.toContain(BUDGET_EXCEEDED);
			// ...for work proportional to its length: 16x the text, at most 16x the steps plus window margins.
			expect(large.stats.steps / small.stats.steps).toBeLessThan(16 * 1.25);
			expect(large.stats.steps / large.stats.chars).toBeLessThan(small.stats.steps / small.stats.chars + 64);
			expect(large.stats.steps).toBeLessThanOrEqual(large.stats.budget);
		});
	}

	it("the brief's own cases: curl and authorization stay silent; PEM headers alone are refused (the policy), every one", async () => {
		for (const unit of ["curl ", "authorization:"]) {
			expect(await findSecrets(fill(unit, 64 * KB))).toEqual([]);
		}
		const headers = fill("-----BEGIN RSA PRIVATE KEY-----\n", 64 * KB);
		const found = await findSecrets(headers);
		expect(ruleNames(found)).toEqual(["private-key-header"]);
		expect(found.length).toBe(headers.split("\n").filter((l) => l.startsWith("-----BEGIN")).length);
	});
});

describe("work budget", () => {
	const prose = fill("The deploy runs `npm run build` then `wrangler deploy`; config lives in wrangler.toml.\n", 200 * KB);

	it("reports text it had no budget to examine as a secret, from where it stopped", async () => {
		const { findings, stats } = await scanSecrets(prose, { budget: 1_000 });
		expect(stats.exceededAt).toBe(0);
		expect(findings).toEqual([{ rule: BUDGET_EXCEEDED, start: 0, end: prose.length }]);
	});

	it("keeps what it examined and flags only the rest", async () => {
		// Enough for the first window, not the second.
		const first = await scanSecrets(prose.slice(0, WINDOW));
		const { findings, stats } = await scanSecrets(prose, { budget: first.stats.steps + 10 });
		expect(stats.exceededAt).toBe(WINDOW);
		expect(findings).toEqual([{ rule: BUDGET_EXCEEDED, start: WINDOW, end: prose.length }]);
	});

	it("redacts the unexamined text and refuses it as a write", async () => {
		const { text, findings } = await redactSecrets(`safe head\n${prose}`, { budget: 1_000 });
		expect(text).toBe("[REDACTED:budget-exceeded]");
		expect(ruleNames(findings)).toEqual([BUDGET_EXCEEDED]);
	});

	it("leaves ordinary text well inside the default budget", async () => {
		const { stats } = await scanSecrets(prose);
		expect(stats.budget).toBe(defaultBudget(prose.length));
		expect(stats.steps).toBeLessThan(stats.budget / 3);
	});
});

describe("windows", () => {
	const token = ["ghp", "_", "R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq"].join("");

	it("finds a token straddling a window boundary exactly once", async () => {
		const text = `${"x ".repeat((WINDOW - 10) / 2)}${token} tail`;
		const findings = await findSecrets(text);
		expect(findings.map((f) => [f.rule, f.start])).toEqual([["github-token", WINDOW - 10]]);
	});

	it("redacts a key block longer than its window, END line included", async () => {
		const body = Array.from(
			{ length: 400 },
			(_, i) => `MIIJ${String(i).padStart(4, "0")}${"Qx9Lm2Vb8Nc4Hf6Jg1Ps5Eu0Ai3OwRtKz7Yd2Ce5Fh8Gj1Kl4Mn7Pq0Rs3Tu6Vw9X".slice(0, 56)}`,
		).join("\n");
		const block = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
		const text = `${"y ".repeat(WINDOW / 2 - 50)}${block}\nafter`;
		const { text: redacted } = await redactSecrets(text);
		expect(redacted.endsWith("[REDACTED:private-key]\nafter")).toBe(true);
		expect(redacted).not.toContain("MIIJ0399");
	});
});

/**
 * Every quantifier in a rule's expression is bounded: no `*`, `+` or `{n,}` outside character classes
 * and escapes. With bounded quantifiers and literal anchors the work per match attempt is bounded, so
 * a scan is linear in the text; the step counter above checks the same from the outside.
 */
function unboundedQuantifiers(source: string): string[] {
	const found: string[] = [];
	let inClass = false;
	for (let i = 0; i < source.length; i++) {
		const c = source[i];
		if (c === "\\") {
			i++;
			continue;
		}
		if (inClass) {
			if (c === "]") inClass = false;
			continue;
		}
		if (c === "[") inClass = true;
		else if (c === "*" || c === "+") found.push(`${c} at ${i}`);
		else if (c === "{") {
			const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
			if (m && m[2] !== undefined && m[3] === "") found.push(`${m[0]} at ${i}`);
			if (m?.[3] && Number(m[3]) > 16_384) found.push(`${m[0]} (too wide) at ${i}`);
		}
	}
	return found;
}

describe("rule expressions", () => {
	for (const rule of SECRET_RULES) {
		if (!("pattern" in rule)) continue;
		it(`${rule.id} has only bounded quantifiers`, () => {
			expect(unboundedQuantifiers(rule.pattern.source), rule.pattern.source).toEqual([]);
			expect(rule.pattern.flags).toContain("g");
			expect(rule.pattern.flags).toContain("d");
		});
	}

	it("the check itself catches unbounded quantifiers", () => {
		expect(unboundedQuantifiers("a+b")).toHaveLength(1);
		expect(unboundedQuantifiers("(?:x|y)*")).toHaveLength(1);
		expect(unboundedQuantifiers("a{2,}")).toHaveLength(1);
		expect(unboundedQuantifiers("[+*]\\+a{1,5}")).toEqual([]);
	});
});
