#!/usr/bin/env node
// Validates the labelled prompt sets in this folder and prints counts.
// Usage: node bench/prompts/fresh/check.mjs   (exit code 1 on errors)
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const dir = path.dirname(fileURLToPath(import.meta.url));
const files = fs
	.readdirSync(dir)
	.filter((f) => f.endsWith(".json"))
	.sort();

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TYPES = new Set(["user", "feedback", "project", "reference"]);
const KINDS = new Set(["task", "question", "bug", "followup"]);
const LANGS = new Set(["en", "ko"]);
const HANGUL = /[\uac00-\ud7a3]/;

const errors = [];
const warnings = [];
const err = (f, m) => errors.push(`${f}: ${m}`);
const warn = (f, m) => warnings.push(`${f}: ${m}`);

const allIds = new Set();
const totals = { memories: 0, prompts: 0, none: 0, lang: { en: 0, ko: 0 }, kind: {} };
const rows = [];

if (files.length === 0) errors.push("no .json files found");

for (const file of files) {
	const base = file.replace(/\.json$/, "");
	let data;
	try {
		data = JSON.parse(fs.readFileSync(path.join(dir, file), "utf8"));
	} catch (e) {
		err(file, `invalid JSON: ${e.message}`);
		continue;
	}
	if (data.project !== base) err(file, `project "${data.project}" does not match file name`);
	if (typeof data.summary !== "string" || data.summary.length < 40) err(file, "summary missing or too short");
	if (!Array.isArray(data.memories)) {
		err(file, "memories is not an array");
		continue;
	}
	if (!Array.isArray(data.prompts)) {
		err(file, "prompts is not an array");
		continue;
	}

	// memories
	const names = new Map();
	const descs = new Set();
	const bodies = new Set();
	const sentenceSeen = new Map();
	const typeCount = {};
	let hangulMem = 0;
	for (const [i, m] of data.memories.entries()) {
		const where = `memory[${i}] ${m?.name ?? ""}`;
		if (typeof m.name !== "string" || !SLUG.test(m.name)) err(file, `${where}: name is not a slug`);
		if (names.has(m.name)) err(file, `${where}: duplicate name`);
		names.set(m.name, 0);
		if (!TYPES.has(m.type)) err(file, `${where}: bad type ${m.type}`);
		typeCount[m.type] = (typeCount[m.type] ?? 0) + 1;
		if (typeof m.description !== "string" || !m.description.trim()) err(file, `${where}: empty description`);
		else if (m.description.length > 150) err(file, `${where}: description ${m.description.length} > 150 chars`);
		if (typeof m.body !== "string") err(file, `${where}: body missing`);
		else if (m.body.length < 40 || m.body.length > 600) err(file, `${where}: body length ${m.body.length} not in 40..600`);
		if (descs.has(m.description)) err(file, `${where}: duplicate description`);
		descs.add(m.description);
		if (bodies.has(m.body)) err(file, `${where}: duplicate body`);
		bodies.add(m.body);
		for (const s of String(m.body).split(/(?<=[.!?。])\s+/)) {
			const k = s.trim().toLowerCase();
			if (k.length < 30) continue;
			if (sentenceSeen.has(k)) warn(file, `${where}: sentence repeated from ${sentenceSeen.get(k)}: "${k.slice(0, 60)}…"`);
			else sentenceSeen.set(k, m.name);
		}
		if (HANGUL.test(`${m.description} ${m.body}`)) hangulMem++;
	}

	// prompts
	const counts = { en: 0, ko: 0, none: 0, total: 0, kind: {} };
	const texts = new Set();
	let prev = null;
	for (const [i, p] of data.prompts.entries()) {
		const where = `prompt[${i}] ${p?.id ?? ""}`;
		if (typeof p.id !== "string" || !new RegExp(`^${base}-\\d{3}$`).test(p.id)) err(file, `${where}: id must look like ${base}-001`);
		if (allIds.has(p.id)) err(file, `${where}: duplicate id`);
		allIds.add(p.id);
		if (!LANGS.has(p.lang)) err(file, `${where}: bad lang ${p.lang}`);
		if (!KINDS.has(p.kind)) err(file, `${where}: bad kind ${p.kind}`);
		if (typeof p.text !== "string" || !p.text.trim()) err(file, `${where}: empty text`);
		if (texts.has(p.text)) err(file, `${where}: duplicate text`);
		texts.add(p.text);
		if (typeof p.why !== "string" || !p.why.trim()) err(file, `${where}: empty why`);
		if (p.lang === "ko" && !HANGUL.test(p.text)) err(file, `${where}: lang ko but no Hangul in text`);
		if (p.lang === "en" && HANGUL.test(p.text)) err(file, `${where}: lang en but Hangul in text`);
		if (p.kind === "followup" && !prev) err(file, `${where}: followup cannot be the first prompt`);
		if (!Array.isArray(p.needs)) err(file, `${where}: needs is not an array`);
		else {
			if (new Set(p.needs).size !== p.needs.length) err(file, `${where}: duplicate entry in needs`);
			if (p.needs.length > 3) warn(file, `${where}: needs ${p.needs.length} memories`);
			for (const n of p.needs) {
				if (!names.has(n)) err(file, `${where}: needs unknown memory "${n}"`);
				else names.set(n, names.get(n) + 1);
			}
			if (p.needs.length === 0) counts.none++;
		}
		if (LANGS.has(p.lang)) counts[p.lang]++;
		counts.kind[p.kind] = (counts.kind[p.kind] ?? 0) + 1;
		counts.total++;
		prev = p;
	}

	const needed = [...names].filter(([, c]) => c > 0);
	for (const [n, c] of needed) if (c < 2) err(file, `memory "${n}" is needed by only ${c} prompt`);
	const mem = data.memories.length;
	if (mem < 210) err(file, `${mem} memories, need at least 210`);
	if (needed.length < 20 || needed.length > 30) warn(file, `${needed.length} needed memories (brief: 20-30)`);
	if (mem - needed.length < 180) err(file, `${mem - needed.length} unneeded memories, need at least 180`);
	const share = counts.none / Math.max(1, counts.total);
	if (share < 0.33 || share > 0.42) warn(file, `share of prompts with no need is ${(share * 100).toFixed(1)}% (aim 35-40%)`);

	totals.memories += mem;
	totals.prompts += counts.total;
	totals.none += counts.none;
	totals.lang.en += counts.en;
	totals.lang.ko += counts.ko;
	for (const [k, v] of Object.entries(counts.kind)) totals.kind[k] = (totals.kind[k] ?? 0) + v;
	rows.push({
		project: base,
		memories: mem,
		"needed mem": needed.length,
		"mem w/ Hangul": hangulMem,
		types: Object.entries(typeCount)
			.map(([k, v]) => `${k}:${v}`)
			.join(" "),
		prompts: counts.total,
		en: counts.en,
		ko: counts.ko,
		"no need": `${counts.none} (${(share * 100).toFixed(1)}%)`,
		kinds: Object.entries(counts.kind)
			.map(([k, v]) => `${k}:${v}`)
			.join(" "),
	});
}

if (totals.lang.en < 110) errors.push(`only ${totals.lang.en} English prompts overall (need >= 110)`);
if (totals.lang.ko < 45) errors.push(`only ${totals.lang.ko} Korean prompts overall (need >= 45)`);

console.table(rows);
const share = totals.none / Math.max(1, totals.prompts);
console.log(
	`total: ${totals.memories} memories, ${totals.prompts} prompts (en ${totals.lang.en}, ko ${totals.lang.ko}), ` +
		`no-need ${totals.none} = ${(share * 100).toFixed(1)}%, kinds ${JSON.stringify(totals.kind)}`,
);
for (const w of warnings) console.log(`warning: ${w}`);
for (const e of errors) console.log(`ERROR: ${e}`);
if (errors.length) process.exit(1);
console.log("ok");
