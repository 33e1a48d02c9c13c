import { lintSource } from "@secretlint/core";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import { looksLikePlaceholder, SECRET_RULES } from "./secret-rules";

/** One detected secret: which rule fired and where. Never carries the secret itself. */
export interface SecretFinding {
	rule: string;
	start: number;
	end: number;
}

const SECRETLINT_CONFIG = {
	rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommendedPreset }],
};

/**
 * The one secret detector used wherever text could carry a secret into Cairn: memory writes,
 * transcripts and model output. It runs secretlint's recommended preset and Cairn's own rules
 * (token formats, key blocks, credentials in URLs and headers, high-entropy assignments).
 */
export async function findSecrets(text: string): Promise<SecretFinding[]> {
	if (text.length === 0) return [];
	const findings: SecretFinding[] = [];
	for (const rule of SECRET_RULES) {
		rule.pattern.lastIndex = 0;
		for (let m = rule.pattern.exec(text); m !== null; m = rule.pattern.exec(text)) {
			if (m[0].length === 0) {
				rule.pattern.lastIndex++;
				continue;
			}
			const value = m[rule.group ?? 0] ?? m[0];
			if (rule.accept && !rule.accept(value, m)) continue;
			const start = m.index + Math.max(0, m[0].indexOf(value));
			findings.push({ rule: rule.id, start, end: start + value.length });
		}
	}
	const result = await lintSource({
		source: { content: text, filePath: "memory.md", ext: ".md", contentType: "text" },
		options: { config: SECRETLINT_CONFIG, noPhysicFilePath: true, maskSecrets: true },
	});
	for (const message of result.messages) {
		const flagged = text.slice(message.range[0], message.range[1]);
		// The preset flags documentation placeholders ("ghp_xxxx…", "xoxb-abcdef-abcdef").
		if (looksLikePlaceholder(flagged.replace(/^[a-z]{2,8}[_.-]/i, ""))) continue;
		if (message.ruleId.endsWith("-slack") && !/\d{8,}|hooks\.slack\.com|xapp-/.test(flagged)) continue;
		findings.push({
			rule: `secretlint/${message.ruleId.replace(/^@secretlint\/secretlint-rule-/, "")}`,
			start: message.range[0],
			end: message.range[1],
		});
	}
	return findings.sort((a, b) => a.start - b.start);
}

/** Names of the rules that fired, sorted and de-duplicated: safe to show to callers. */
export function ruleNames(findings: SecretFinding[]): string[] {
	return [...new Set(findings.map((f) => f.rule))].sort();
}

/** Replaces every detected secret with `[REDACTED:<rule>]`. */
export async function redactSecrets(text: string): Promise<{ text: string; findings: SecretFinding[] }> {
	const findings = await findSecrets(text);
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
