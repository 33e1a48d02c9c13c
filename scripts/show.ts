import { readFileSync } from "node:fs";
import { findSecrets } from "/work/main/src/security/secrets";

const [file, rule, label] = process.argv.slice(2);
for (const l of readFileSync(file, "utf8").split("\n").filter(Boolean)) {
	const d = JSON.parse(l);
	if (d.rule !== rule || (label && d.label !== label)) continue;
	const f = await findSecrets(d.text);
	console.log("----", d.label, JSON.stringify(f.map((x) => [x.rule, d.text.slice(x.start, x.end)])));
	console.log(d.text.slice(0, 1500));
}
