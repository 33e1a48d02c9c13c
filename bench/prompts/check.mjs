#!/usr/bin/env node
// Validates the labelled prompt/memory sets of the per-prompt benchmark and prints counts.
// Usage: node bench/prompts/check.mjs <set>   (a folder here: dev, fresh, holdout, grown)
//        node bench/prompts/check.mjs file.json ...
// Exits with code 1 when an error is found; warnings do not fail.
import { readdirSync, readFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const files =
	args.length === 1 && !args[0].endsWith(".json")
		? readdirSync(join(here, args[0]))
				.filter((f) => f.endsWith(".json"))
				.sort()
				.map((f) => join(here, args[0], f))
		: args;
if (files.length === 0) {
	console.log("usage: node bench/prompts/check.mjs <set> | file.json ...");
	process.exit(1);
}

const SLUG = /^[a-z0-9][a-z0-9-]{0,63}$/;
const TYPES = new Set(["user", "feedback", "project", "reference"]);
const KINDS = new Set(["task", "question", "bug", "followup"]);
const LANGS = new Set(["en", "ko"]);
const MIN_MEMORIES = 210;
const MIN_USES_PER_NEEDED = 2;

const errors = [];
const warnings = [];
const err = (file, msg) => errors.push(`${file}: ${msg}`);
const warn = (file, msg) => warnings.push(`${file}: ${msg}`);

const totals = { memories: 0, prompts: 0, none: 0, byLang: {}, byKind: {} };
const rows = [];
const allIds = new Set();

for (const path of files) {
	const file = basename(path);
	let data;
	try {
		data = JSON.parse(readFileSync(path, "utf8"));
	} catch (e) {
		err(file, `cannot parse JSON: ${e.message}`);
		continue;
	}
	// A grown project (grown/): further memories for a base project, checked together with it.
	if (typeof data.base === "string") {
		let base;
		try {
			base = JSON.parse(readFileSync(join(here, `${data.base}.json`), "utf8"));
		} catch (e) {
			err(file, `cannot read its base ${data.base}: ${e.message}`);
			continue;
		}
		const extra = Array.isArray(data.memories) ? data.memories : [];
		data = { ...base, memories: [...base.memories, ...extra] };
	}
	for (const key of ["project", "summary", "memories", "prompts"]) {
		if (!(key in data)) err(file, `missing top-level key "${key}"`);
	}
	if (typeof data.project !== "string" || `${data.project}.json` !== file) {
		err(file, `project "${data.project}" does not match the file name`);
	}
	if (typeof data.summary !== "string" || data.summary.length < 40) err(file, "summary is missing or too short");
	const memories = Array.isArray(data.memories) ? data.memories : [];
	const prompts = Array.isArray(data.prompts) ? data.prompts : [];

	// ---- memories
	const names = new Map();
	const typeCount = {};
	const hangul = { ko: 0, en: 0 };
	for (const [i, m] of memories.entries()) {
		const where = `memory #${i} (${m?.name ?? "?"})`;
		if (typeof m.name !== "string" || !SLUG.test(m.name)) err(file, `${where}: name is not a valid slug`);
		if (names.has(m.name)) err(file, `${where}: duplicate name`);
		names.set(m.name, m);
		if (!TYPES.has(m.type)) err(file, `${where}: invalid type "${m.type}"`);
		typeCount[m.type] = (typeCount[m.type] ?? 0) + 1;
		if (typeof m.description !== "string" || m.description.trim() === "") err(file, `${where}: empty description`);
		else {
			if (m.description.length > 150) err(file, `${where}: description is ${m.description.length} chars (> 150)`);
			if (m.description.includes("\n")) err(file, `${where}: description must be one line`);
		}
		if (typeof m.body !== "string") err(file, `${where}: body missing`);
		else if (m.body.length < 40 || m.body.length > 600) err(file, `${where}: body is ${m.body.length} chars (allowed 40-600)`);
		const extra = Object.keys(m).filter((k) => !["name", "type", "description", "body"].includes(k));
		if (extra.length) err(file, `${where}: unexpected keys ${extra.join(", ")}`);
		if (/[\uac00-\ud7a3]/.test(`${m.description} ${m.body}`)) hangul.ko++;
		else hangul.en++;
	}
	if (memories.length < MIN_MEMORIES) err(file, `only ${memories.length} memories (< ${MIN_MEMORIES})`);
	const bodies = new Map();
	for (const m of memories) {
		if (bodies.has(m.body)) err(file, `memories ${bodies.get(m.body)} and ${m.name} have the same body`);
		bodies.set(m.body, m.name);
	}

	// ---- prompts
	const uses = new Map();
	const byLang = {};
	const byKind = {};
	const texts = new Set();
	let none = 0;
	let multi = 0;
	for (const [i, p] of prompts.entries()) {
		const where = `prompt #${i} (${p?.id ?? "?"})`;
		if (typeof p.id !== "string" || p.id === "") err(file, `${where}: missing id`);
		else if (allIds.has(p.id)) err(file, `${where}: duplicate id`);
		allIds.add(p.id);
		if (!LANGS.has(p.lang)) err(file, `${where}: invalid lang "${p.lang}"`);
		if (!KINDS.has(p.kind)) err(file, `${where}: invalid kind "${p.kind}"`);
		if (typeof p.text !== "string" || p.text.trim() === "") err(file, `${where}: empty text`);
		else {
			if (texts.has(p.text)) err(file, `${where}: duplicate text`);
			texts.add(p.text);
			const hasHangul = /[\uac00-\ud7a3]/.test(p.text);
			if (p.lang === "ko" && !hasHangul) err(file, `${where}: lang ko but no Hangul in text`);
			if (p.lang === "en" && hasHangul) err(file, `${where}: lang en but text contains Hangul`);
		}
		if (typeof p.why !== "string" || p.why.trim() === "") err(file, `${where}: empty why`);
		if (!Array.isArray(p.needs)) {
			err(file, `${where}: needs must be an array`);
			continue;
		}
		if (new Set(p.needs).size !== p.needs.length) err(file, `${where}: needs has duplicates`);
		if (p.needs.length > 3) warn(file, `${where}: needs ${p.needs.length} memories`);
		for (const n of p.needs) {
			if (!names.has(n)) err(file, `${where}: needs unknown memory "${n}"`);
			uses.set(n, (uses.get(n) ?? 0) + 1);
		}
		if (p.needs.length === 0) none++;
		if (p.needs.length > 1) multi++;
		byLang[p.lang] = (byLang[p.lang] ?? 0) + 1;
		byKind[p.kind] = (byKind[p.kind] ?? 0) + 1;
	}
	for (const [n, c] of uses) {
		if (c < MIN_USES_PER_NEEDED) warn(file, `memory "${n}" is needed by only ${c} prompt(s)`);
	}
	const share = prompts.length ? none / prompts.length : 0;
	if (share < 0.3 || share > 0.45) warn(file, `share of prompts with no need is ${(share * 100).toFixed(1)}% (expected ~35-40%)`);

	rows.push({
		file,
		memories: memories.length,
		types: typeCount,
		memLang: hangul,
		needed: uses.size,
		prompts: prompts.length,
		byLang,
		byKind,
		none,
		multi,
		share,
	});
	totals.memories += memories.length;
	totals.prompts += prompts.length;
	totals.none += none;
	for (const [k, v] of Object.entries(byLang)) totals.byLang[k] = (totals.byLang[k] ?? 0) + v;
	for (const [k, v] of Object.entries(byKind)) totals.byKind[k] = (totals.byKind[k] ?? 0) + v;
}

const fmt = (o) =>
	Object.entries(o)
		.map(([k, v]) => `${k}=${v}`)
		.join(" ");
for (const r of rows) {
	console.log(`${r.file}`);
	console.log(`  memories ${r.memories} (${fmt(r.types)}; with Hangul ${r.memLang.ko}, without ${r.memLang.en})`);
	console.log(`  distinct memories needed by prompts: ${r.needed}`);
	console.log(`  prompts ${r.prompts} (${fmt(r.byLang)}; ${fmt(r.byKind)})`);
	console.log(`  no need: ${r.none} (${(r.share * 100).toFixed(1)}%), more than one need: ${r.multi}`);
}
const totalShare = totals.prompts ? totals.none / totals.prompts : 0;
console.log("total");
console.log(`  memories ${totals.memories}, prompts ${totals.prompts} (${fmt(totals.byLang)}; ${fmt(totals.byKind)})`);
console.log(`  no need: ${totals.none} (${(totalShare * 100).toFixed(1)}%)`);

// Both languages in every set: at least half the prompts English and a quarter Korean.
if ((totals.byLang.en ?? 0) < totals.prompts * 0.5) errors.push(`total: only ${totals.byLang.en ?? 0} English prompts (< half)`);
if ((totals.byLang.ko ?? 0) < totals.prompts * 0.25) errors.push(`total: only ${totals.byLang.ko ?? 0} Korean prompts (< a quarter)`);

for (const w of warnings) console.log(`warning: ${w}`);
for (const e of errors) console.log(`error: ${e}`);
if (errors.length) {
	console.log(`${errors.length} error(s)`);
	process.exit(1);
}
console.log("ok");
