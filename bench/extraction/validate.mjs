#!/usr/bin/env node
// Validates bench/extraction/*.jsonl and prints per-language counts.
// Usage: node bench/extraction/validate.mjs [file ...]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const files = process.argv.slice(2).length ? process.argv.slice(2) : ["en.jsonl", "ko.jsonl"].map((f) => join(here, f));

const DURABLE = ["rule", "prohibition", "correction", "preference", "fact", "pointer", "remember"];
const TRAPS = ["ephemeral", "one-off", "question", "code-fact", "greeting", "hypothetical", "reported", "task-scoped"];
const LABEL_FIELDS = new Set(["kind", "durable", "key", "team", "corrects", "old"]);

let errors = 0;
const err = (where, msg) => {
	errors++;
	console.error(`ERROR ${where}: ${msg}`);
};

for (const file of files) {
	const lines = readFileSync(file, "utf8")
		.split("\n")
		.filter((l) => l.trim() !== "");
	const sessions = [];
	const ids = new Set();
	lines.forEach((line, n) => {
		try {
			sessions.push(JSON.parse(line));
		} catch (e) {
			err(`${file}:${n + 1}`, `does not parse: ${e.message}`);
		}
	});
	const stats = {
		sessions: sessions.length,
		userTurns: 0,
		assistantTurns: 0,
		durable: {},
		traps: {},
		corrections: 0,
		correctionsLinked: 0,
		team: 0,
		unlabelledUserTurns: 0,
	};
	const position = new Map(); // session id -> index in file
	sessions.forEach((s, i) => {
		position.set(s.id, i);
	});

	sessions.forEach((s, si) => {
		const w = `${s.id ?? `#${si}`}`;
		for (const f of ["id", "lang", "project", "agent", "turns"]) if (s[f] === undefined) err(w, `missing ${f}`);
		if (ids.has(s.id)) err(w, "duplicate id");
		ids.add(s.id);
		if (!["claude", "codex"].includes(s.agent)) err(w, `bad agent ${s.agent}`);
		if (!Array.isArray(s.turns)) return;
		if (s.turns.length < 8 || s.turns.length > 20) err(w, `has ${s.turns.length} turns (want 8-20)`);
		s.turns.forEach((t, ti) => {
			const tw = `${w} turn ${ti}`;
			const expected = ti % 2 === 0 ? "user" : "assistant";
			if (t.role !== expected) err(tw, `role ${t.role}, expected ${expected}`);
			if (typeof t.text !== "string" || !t.text.trim()) err(tw, "empty text");
			if (t.role === "assistant") {
				stats.assistantTurns++;
				if (t.labels !== undefined) err(tw, "assistant turn has labels");
				return;
			}
			stats.userTurns++;
			if (!Array.isArray(t.labels)) {
				err(tw, "user turn without labels array");
				return;
			}
			if (t.labels.length === 0) stats.unlabelledUserTurns++;
			const text = (t.text || "").toLowerCase();
			t.labels.forEach((l, li) => {
				const lw = `${tw} label ${li}`;
				for (const k of Object.keys(l)) if (!LABEL_FIELDS.has(k)) err(lw, `unknown field ${k}`);
				if (!l.kind || typeof l.durable !== "boolean" || !Array.isArray(l.key)) {
					err(lw, "needs kind, durable, key");
					return;
				}
				if (![...DURABLE, ...TRAPS].includes(l.kind)) err(lw, `unknown kind ${l.kind}`);
				if (DURABLE.includes(l.kind) !== l.durable) err(lw, `durable=${l.durable} inconsistent with kind ${l.kind}`);
				if (l.key.length < 1 || l.key.length > 3) err(lw, `key must have 1-3 entries`);
				for (const k of l.key) if (typeof k !== "string" || !text.includes(k.toLowerCase())) err(lw, `key "${k}" not in text`);
				if (l.team !== undefined && l.team !== true) err(lw, "team must be true when present");
				if (l.team) stats.team++;
				const bucket = l.durable ? stats.durable : stats.traps;
				bucket[l.kind] = (bucket[l.kind] || 0) + 1;
				if (l.kind === "correction") stats.corrections++;
				if (l.corrects !== undefined) {
					if (l.kind !== "correction") err(lw, "corrects on a non-correction label");
					stats.correctionsLinked++;
					const { session, turn } = l.corrects;
					const target = sessions.find((x) => x.id === session);
					if (!target) {
						err(lw, `corrects unknown session ${session}`);
						return;
					}
					if (target.project !== s.project) err(lw, `corrects a session of another project`);
					if (position.get(session) > si || (session === s.id && turn >= ti)) err(lw, "corrects a later turn");
					const tt = target.turns?.[turn];
					if (!tt || tt.role !== "user" || !Array.isArray(tt.labels) || !tt.labels.some((x) => x.durable)) {
						err(lw, `corrects ${session}/${turn}, which is not a user turn with a durable label`);
					} else if (Array.isArray(l.old)) {
						for (const o of l.old) if (!tt.text.toLowerCase().includes(o.toLowerCase())) err(lw, `old "${o}" not in corrected turn`);
					}
				}
				if (l.old !== undefined) {
					if (!Array.isArray(l.old) || l.old.length === 0) err(lw, "old must be a non-empty array");
					else
						for (const o of l.old)
							for (const k of l.key) if (k.toLowerCase().includes(o.toLowerCase())) err(lw, `key "${k}" contains old "${o}"`);
				}
			});
		});
	});
	const sum = (o) => Object.values(o).reduce((a, b) => a + b, 0);
	const lang = sessions[0]?.lang ?? file;
	console.log(`\n== ${lang} (${file})`);
	console.log(
		`sessions: ${stats.sessions}   user turns: ${stats.userTurns} (${stats.unlabelledUserTurns} with no labels)   assistant turns: ${stats.assistantTurns}`,
	);
	console.log(`durable statements: ${sum(stats.durable)}  ${JSON.stringify(stats.durable)}`);
	console.log(`traps: ${sum(stats.traps)}  ${JSON.stringify(stats.traps)}`);
	console.log(`corrections: ${stats.corrections} (${stats.correctionsLinked} with "corrects")   team rules: ${stats.team}`);
}
console.log(errors ? `\n${errors} error(s)` : "\nOK");
process.exit(errors ? 1 : 0);
