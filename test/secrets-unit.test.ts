import { describe, expect, it } from "vitest";
import { findSecrets, redactSecrets, ruleNames } from "../src/security/secrets";

/**
 * A sample and the rule (an id of src/security/secret-rules.ts or secret-policy.ts) that must find it;
 * `also` lists the other rules that report it too, so the rules found are exactly these.
 */
type Family = [rule: string, text: string, also?: string[]];

// Synthetic values in real formats; none of them is a live credential.
const SECRETS: Record<string, Family> = {
	"netrc entry with a plain word": ["netrc-password", "machine git.internal.example login deploy password bluehorizon"],
	"netrc default entry": ["netrc-password", "default login anonymous password seagull"],
	"login line with a password-like value": ["netrc-password", "login deploy password Zq7!vR2m#Lx9"],
	// The policy: a provider's real format is a secret even as a documented example.
	"aws documented example": ["provider-prefix", "AKIAIOSFODNN7EXAMPLE"],
	"aws access key id": ["aws-access-key-id", "AKIAZ7VRSQ4TLXW3MQ5B"],
	"aws secret in config": [
		"aws-secret-access-key",
		"aws_secret_access_key = 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",
		["secret-assignment"],
	],
	"github pat": ["github-token", "ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq"],
	"github fine-grained": [
		"github-fine-grained-pat",
		"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",
	],
	"gitlab pat": ["gitlab-token", "glpat-Xk8vQ2mL9pW4zT7bN1cH"],
	"slack bot token": ["slack-token", "xoxb-2398475486312-2348975623012-AbCdEfGhIjKlMnOpQrStUvWx"],
	"slack webhook": ["slack-webhook", "https://hooks.slack.com/services/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"],
	"stripe live key": ["stripe-key", "sk_live_51Hx8vQ2mL9pW4zT7bN1cH5jG3"],
	"openai key": ["openai-api-key", "sk-proj-Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV9xZ1bD3fH5T3BlbkFJq2W4e6R8t0Y2u4I6o8P0a2S4d6F8g0"],
	"anthropic key": [
		"anthropic-api-key",
		`sk-ant-api03-${"Zx9Qv2Lm8Tb4Nc7Hf1Jg5Ps3Eu6Ai0Oq2Wr4Ty8Ui1Op5As9Df3Gh6Jk0Lz2Xc4Vb6Nm8Qw1Er3Ty5Ui7Op9As1Df3Gh5Jk7Lz"}AA`,
	],
	"google oauth secret": ["google-oauth-secret", "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"],
	"npm token": ["npm-token", "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"],
	jwt: [
		"jwt",
		"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	],
	"private key block": [
		"private-key",
		"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\nQyNTUxOQAAACAxSChbEXO6DKOLpzlLEay5h3k2Rt8wQ1zX\n-----END OPENSSH PRIVATE KEY-----",
	],
	"postgres url with password": ["credentials-in-url", "DATABASE_URL=postgres://app:Tr0ub4dor-3x@db.internal:5432/app"],
	"https url with credentials": ["credentials-in-url", "https://deploy:9f8e7d6c5b4a3921@artifacts.example.com/repo"],
	"password assignment": ["secret-assignment", 'db_password = "n7#Qe2!vLx9@Rt"'],
	"api key assignment": ["secret-assignment", "STRIPE_API_KEY=3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"],
	"bearer header": [
		"bearer-token",
		'curl -H "Authorization: Bearer 7f3kQ9xLm2Vb8Nc4Hf6Jg1Ps5Eu0Ai3O" https://api.example.com',
		["http-auth-header"],
	],
	"curl basic auth": ["curl-user", "curl -u deploy:Zq7!mLx2Vb9c https://ci.example.com/api"],
	"sendgrid key": ["sendgrid-api-key", "SG.APhb3zgjtx3hajdas1TjBB.H7Sgbba3afgKSDyB442aDK0kpGO3SDNobd8ZKb1"],
	"telegram bot token": ["telegram-bot-token", "123456789:AAHk3Lm9Qv2Wz8Tb1Nc5Hf3Jg6Ps0Eu2Ai7"],
	"cairn key": ["cairn-api-key", "cairn_0123456789abcdef_Ab3dE5gH7jK9mN1pQ3sT5vX7zB9dF1hJ3lN5pR7tV"],
	"azure client secret": ["azure-ad-client-secret", "client_secret=bP88Q~rcBcYjzzOhg1Hnn76Wm3jGgakZiZ.8vMgR", ["secret-assignment"]],
};

const NOT_SECRETS: Record<string, string> = {
	"login and password in prose": "per-IP rate limits on login and password reset, 100 requests / 5 min",
	"placeholder token": "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"env reference": "Authorization: Bearer $API_TOKEN",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell template is the case under test.
	"template url": "postgres://${DB_USER}:${DB_PASSWORD}@localhost/app",
	"doc url": "https://username:password@example.com",
	"public key": "-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
	"git sha": "Fixed in commit 43fc912ef59a83054ea7f6706df4d53a7dea4d80.",
	uuid: 'requestId = "0736f5ef-7e88-499a-80cc-90c85d2a5180"',
	"key length": "key_length = 32",
	"prose about secrets": "Never commit the API key; the token is rotated weekly and the password lives in Vault.",
	"integrity hash": 'checksum: "sha512-0a31fc7ee2cca8f25aacafb0fae1c5d27e8c4d3ecbf3eea76e9c4be73f6d4f3b"',
	"csrf token": 'csrf-token="Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxm"',
	"identifier after a word-like prefix": "Rows land in ops_metrics_2024 via the dapi_v2_client module (see gsk_config_v2).",
};

describe("secret detector", () => {
	for (const [kind, [rule, text, also = []]] of Object.entries(SECRETS)) {
		it(`finds a ${kind} by ${rule}`, async () => {
			expect(ruleNames(await findSecrets(`Some notes.\n${text}\nMore notes.`)), kind).toEqual([rule, ...also].sort());
		});
	}
	for (const [kind, text] of Object.entries(NOT_SECRETS)) {
		it(`leaves a ${kind} alone`, async () => {
			expect(ruleNames(await findSecrets(text)), kind).toEqual([]);
		});
	}

	it("redacts in place and keeps the surrounding text", async () => {
		const { text, findings } = await redactSecrets("push with ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq then tag");
		expect(ruleNames(findings)).toEqual(["github-token"]);
		expect(text).toBe("push with [REDACTED:github-token] then tag");
	});

	it("names rules without carrying the secret", async () => {
		const findings = await findSecrets("token ghp_R8xk2LmQ9vWz4Tb7Nc1Hf5Jg3Ps6Eu0Ai2Oq");
		expect(JSON.stringify(ruleNames(findings))).not.toContain("ghp_R8");
	});
});
