// Ordinary transcript turns the secret detector flags: every turn of the bench's real sessions
// (../shared/bench/transcripts, or CAIRN_BENCH_DATA/transcripts), scanned one by one, counted per rule.
// `npx tsx scripts/bench/secret-turns.ts` prints the share of turns with any finding and which rules fired.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { normalise, readRecords } from "../../src/ingest/parse";
import { findSecrets } from "../../src/security/secrets";

const root = resolve(process.env.CAIRN_BENCH_DATA ?? "../shared/bench", "transcripts");
let turns = 0;
let flagged = 0;
const byRule = new Map<string, number>();
for (const kind of readdirSync(root)) {
	for (const file of readdirSync(join(root, kind))) {
		const result = normalise(await readRecords(readFileSync(join(root, kind, file), "utf8")), "auto");
		for (const turn of result.turns) {
			turns++;
			const found = await findSecrets(turn.text);
			if (found.length === 0) continue;
			flagged++;
			for (const rule of new Set(found.map((f) => f.rule))) byRule.set(rule, (byRule.get(rule) ?? 0) + 1);
		}
	}
}
const pct = (n: number) => `${((100 * n) / Math.max(1, turns)).toFixed(2)} %`;
console.log(`${turns} turns, ${flagged} flagged (${pct(flagged)})`);
for (const [rule, n] of [...byRule].sort((a, b) => b[1] - a[1])) console.log(`  ${rule}: ${n} (${pct(n)})`);
