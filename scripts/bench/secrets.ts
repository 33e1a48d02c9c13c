// Secret detector quality on labelled samples: Cairn's detector beside secretlint's recommended preset alone.
import { readFileSync } from "node:fs";
import { lintSource } from "@secretlint/core";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import { findSecrets } from "../../src/security/secrets";

interface Sample {
	text: string;
	label: "secret" | "non-secret";
	rule: string;
}

export interface Score {
	secrets: number;
	nonSecrets: number;
	recall: number;
	falsePositiveRate: number;
	msPerSample: number;
}

const presetOnly = async (text: string) =>
	(
		await lintSource({
			source: { content: text, filePath: "sample.txt", ext: ".txt", contentType: "text" },
			options: {
				config: { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommendedPreset }] },
				noPhysicFilePath: true,
			},
		})
	).messages.length > 0;

const cairn = async (text: string) => (await findSecrets(text)).length > 0;

async function score(samples: Sample[], detect: (text: string) => Promise<boolean>): Promise<Score> {
	let tp = 0;
	let fn = 0;
	let fp = 0;
	let tn = 0;
	const t0 = performance.now();
	for (const s of samples) {
		const hit = await detect(s.text);
		if (s.label === "secret") hit ? tp++ : fn++;
		else hit ? fp++ : tn++;
	}
	return {
		secrets: tp + fn,
		nonSecrets: fp + tn,
		recall: tp / Math.max(1, tp + fn),
		falsePositiveRate: fp / Math.max(1, fp + tn),
		msPerSample: (performance.now() - t0) / samples.length,
	};
}

/** Samples whose exact text appears with both labels (rule options differ); no detector can satisfy both. */
function withoutContradictions(samples: Sample[]): Sample[] {
	const labels = new Map<string, Set<string>>();
	for (const s of samples) labels.set(s.text, (labels.get(s.text) ?? new Set()).add(s.label));
	return samples.filter((s) => (labels.get(s.text)?.size ?? 0) === 1);
}

export async function benchSecrets(files: string[]) {
	const rows = [];
	for (const file of files) {
		const samples = readFileSync(file, "utf8")
			.split("\n")
			.filter(Boolean)
			.map((l) => JSON.parse(l) as Sample);
		const consistent = withoutContradictions(samples);
		rows.push({
			file: file.split("/").pop() ?? file,
			contradictory: samples.length - consistent.length,
			cairn: await score(samples, cairn),
			cairnConsistent: await score(consistent, cairn),
			preset: await score(samples, presetOnly),
		});
	}
	// Throughput on a 1 MB document of ordinary prose and code.
	const chunk = "The deploy runs `npm run build` then `wrangler deploy`; config lives in wrangler.toml.\nconst retries = 3; // see docs\n";
	const big = chunk.repeat(Math.ceil(1_000_000 / chunk.length));
	const t0 = performance.now();
	await findSecrets(big);
	const oneMbMs = performance.now() - t0;
	return { rows, oneMbMs };
}
