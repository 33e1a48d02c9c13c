// Measures the secret detector on the labelled samples: recall on secrets, false positives on the rest.
import { readFileSync } from "node:fs";
import { findSecrets, ruleNames } from "../src/security/secrets";

const files = process.argv.slice(2);
const verbose = process.env.VERBOSE === "1";
const results: Record<string, { recall: number; falsePositiveRate: number; secrets: number; nonSecrets: number; ms: number }> = {};
for (const file of files) {
	const rows = readFileSync(file, "utf8")
		.split("\n")
		.filter(Boolean)
		.map((l) => JSON.parse(l) as { text: string; label: string; rule: string });
	let tp = 0,
		fn = 0,
		fp = 0,
		tn = 0;
	const t0 = performance.now();
	for (const row of rows) {
		const found = await findSecrets(row.text);
		const hit = found.length > 0;
		if (row.label === "secret") {
			if (hit) tp++;
			else {
				fn++;
				if (verbose) console.log("MISS", row.rule, JSON.stringify(row.text.slice(0, 160)));
			}
		} else if (hit) {
			fp++;
			if (verbose) console.log("FP  ", row.rule, ruleNames(found).join(","), JSON.stringify(row.text.slice(0, 160)));
		} else tn++;
	}
	const name = file.split("/").pop() ?? file;
	results[name] = {
		recall: tp / (tp + fn),
		falsePositiveRate: fp / (fp + tn),
		secrets: tp + fn,
		nonSecrets: fp + tn,
		ms: performance.now() - t0,
	};
}
console.log(JSON.stringify(results, null, 2));
