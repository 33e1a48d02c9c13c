// LongMemEval: turn-level retrieval. Each user turn of a question's haystack is one memory; the question
// is the recall query; it is answered at k when the user turns holding its answer are among the top k.
import { existsSync, readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import type { BenchInput, BenchResult, SeedMemory } from "../../bench/corpus";

interface Session {
	date: string;
	turns: { role: string; content: string }[];
}

interface Question {
	id: string;
	type: string;
	question: string;
	/** When the question is asked: "2023/05/30 (Tue) 23:40". */
	date?: string;
	answer_turns: [string, number][];
	haystack: string[];
}

export interface LongMemEval {
	file: string;
	sessions: Record<string, Session>;
	/** The questions scored: not abstention (`_abs`), with at least one user turn among `answer_turns`. */
	questions: (Question & { answerNames: string[] })[];
	/** All questions in the file, and those left out for having their answer in assistant turns only. */
	total: number;
	assistantOnly: number;
	abstention: number;
}

/** The order types are reported in. */
export const TYPES = [
	"single-session-user",
	"single-session-preference",
	"single-session-assistant",
	"multi-session",
	"knowledge-update",
	"temporal-reasoning",
];

/** A memory name for turn `index` of session `id`: `answer_530960c1` → `t-530960c1-4`. */
export const turnName = (session: string, index: number) =>
	`t-${session
		.toLowerCase()
		.replace(/^answer_/, "")
		.replace(/[^a-z0-9]+/g, "-")}-${index}`.slice(0, 64);

/** A LongMemEval date, "2023/05/20 (Sat) 02:21", as ISO 8601 (UTC); undefined when it is not one. */
export function lmeTime(date: string | undefined): string | undefined {
	const m = date ? /^(\d{4})\/(\d{2})\/(\d{2})(?:\s*\([A-Za-z]+\))?\s*(\d{2}):(\d{2})/.exec(date.trim()) : null;
	return m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]))).toISOString() : undefined;
}

/** One user turn as one memory: the turn and when the user said it (as LoCoMo's `toMemory`), written then by its session. */
export function toMemory(session: string, index: number, text: string, date: string): SeedMemory {
	const writtenAt = lmeTime(date);
	return {
		name: turnName(session, index),
		type: "user",
		description: text.replace(/\s+/g, " ").trim().slice(0, 150),
		body: `${text}\n\nSaid by the user on ${date}.`,
		...(writtenAt ? { writtenAt } : {}),
		session,
	};
}

/**
 * Loads `longmemeval/longmemeval-dev.json.gz` under `dataDir`, or null when it is not there.
 * `CAIRN_BENCH_LME_QUESTIONS` (development aid) keeps the first N scored questions only.
 */
export function loadLongMemEval(dataDir: string): LongMemEval | null {
	const file = `${dataDir}/longmemeval/longmemeval-dev.json.gz`;
	if (!existsSync(file)) return null;
	const data = JSON.parse(gunzipSync(readFileSync(file)).toString("utf8")) as { sessions: Record<string, Session>; questions: Question[] };
	const isUser = ([s, i]: [string, number]) => data.sessions[s]?.turns[i]?.role === "user";
	const abstention = data.questions.filter((q) => q.id.endsWith("_abs")).length;
	const answerable = data.questions.filter((q) => !q.id.endsWith("_abs"));
	const scored = answerable
		.filter((q) => q.answer_turns.some(isUser))
		.map((q) => ({ ...q, answerNames: q.answer_turns.filter(isUser).map(([s, i]) => turnName(s, i)) }));
	const limit = Number(process.env.CAIRN_BENCH_LME_QUESTIONS ?? Number.POSITIVE_INFINITY);
	return {
		file,
		sessions: data.sessions,
		questions: scored.slice(0, limit),
		total: data.questions.length,
		assistantOnly: answerable.length - scored.length,
		abstention,
	};
}

/** The user turns of `session`, each with its memory. */
function userTurns(lme: LongMemEval, id: string): { text: string; memory: SeedMemory }[] {
	const s = lme.sessions[id];
	if (!s) throw new Error(`LongMemEval: haystack session ${id} is missing`);
	return s.turns.flatMap((t, i) => (t.role === "user" ? [{ text: t.content, memory: toMemory(id, i, t.content, s.date) }] : []));
}

/**
 * The Worker's input: every haystack session's memories once, and per question its haystack.
 * `CAIRN_BENCH_LME_SEED=batch` fills each project through the batch endpoint instead of directly
 * (slower; a check that both give the same ranking).
 */
export function longMemEvalInput(lme: LongMemEval): NonNullable<BenchInput["longmemeval"]> {
	const sessions: Record<string, SeedMemory[]> = {};
	for (const q of lme.questions) for (const id of q.haystack) sessions[id] ??= userTurns(lme, id).map((t) => t.memory);
	return {
		seed: process.env.CAIRN_BENCH_LME_SEED === "batch" ? "batch" : "direct",
		sessions,
		questions: lme.questions.map((q) => {
			const at = lmeTime(q.date);
			return { id: q.id, query: q.question, haystack: q.haystack, ...(at ? { at } : {}) };
		}),
	};
}

/** The plain BM25 task for scripts/bench/sqlite-floor.mjs: one collection per question, its user turns as documents. */
export function longMemEvalBaseline(lme: LongMemEval, k: number) {
	return {
		k,
		conversations: lme.questions.map((q) => ({
			id: q.id,
			docs: q.haystack.flatMap((id) => userTurns(lme, id).map((t) => t.text)),
			questions: [q.question],
		})),
	};
}

/** The names of the baseline's documents per question, in the order `baselineTask` gave them. */
const baselineNames = (lme: LongMemEval, q: Question) => q.haystack.flatMap((id) => userTurns(lme, id).map((t) => t.memory.name));

interface Hit {
	any: boolean;
	all: boolean;
}

const hitsAt = (answers: string[], retrieved: string[], k: number): Hit => {
	const top = new Set(retrieved.slice(0, k));
	return { any: answers.some((a) => top.has(a)), all: answers.every((a) => top.has(a)) };
};

export interface LongMemEvalRow {
	type: string;
	questions: number;
	/** any@5, all@5, any@10, all@10 */
	cairn: [number, number, number, number];
	bm25: [number, number, number, number];
}

/** any@k and all@k for k = 5 and 10 per type and overall, Cairn (the Worker's answers) beside plain BM25. */
export function summariseLongMemEval(
	lme: LongMemEval,
	answers: NonNullable<BenchResult["longmemeval"]>["answers"],
	baseline: Record<string, number[][]> | undefined,
): LongMemEvalRow[] {
	const perQuestion = lme.questions.map((q) => {
		const names = baselineNames(lme, q);
		const base = (baseline?.[q.id]?.[0] ?? []).map((i) => names[i] ?? "");
		const mine = answers[q.id] ?? [];
		const four = (retrieved: string[]) => {
			const [five, ten] = [hitsAt(q.answerNames, retrieved, 5), hitsAt(q.answerNames, retrieved, 10)];
			return [five.any, five.all, ten.any, ten.all].map(Number) as [number, number, number, number];
		};
		return { type: q.type, cairn: four(mine), bm25: four(base) };
	});
	const groups: [string, (t: string) => boolean][] = [
		...TYPES.map((t) => [t, (x: string) => x === t] as [string, (t: string) => boolean]),
		["overall", () => true],
	];
	return groups
		.map(([type, match]) => {
			const qs = perQuestion.filter((q) => match(q.type));
			const mean = (f: (q: (typeof qs)[number]) => number[], i: number) =>
				qs.length ? qs.reduce((s, q) => s + (f(q)[i] ?? 0), 0) / qs.length : Number.NaN;
			const four = (f: (q: (typeof qs)[number]) => number[]) => [0, 1, 2, 3].map((i) => mean(f, i)) as [number, number, number, number];
			return { type, questions: qs.length, cairn: four((q) => q.cairn), bm25: four((q) => q.bm25) };
		})
		.filter((r) => r.questions > 0);
}

/** The "## Recall quality — LongMemEval" section's text after its heading. */
export function longMemEvalSection(
	lme: LongMemEval,
	run: BenchResult["longmemeval"],
	baseline: Record<string, number[][]> | undefined,
): string[] {
	const lines: string[] = [];
	if (!run) return ["Not measured in this run."];
	const f = (x: number) => (Number.isNaN(x) ? "–" : x.toFixed(3));
	const projects = run.projects;
	lines.push(
		"Turn-level retrieval on LongMemEval (oracle split): per question, each user turn of its haystack (its evidence sessions",
		"and 45 distractor sessions from other questions) is one memory — description the turn's first 150 characters, body",
		"the turn and its session date, written on that date by its session — in a project of its own; the question goes",
		"through `POST /recall` (limit 10) asked at the question's date (`at`). A",
		"question is answered at k when the user turns holding its answer are among the top k: any@k when one of them is,",
		"all@k when all are. Plain BM25 is computed in the same run over the same turns (one FTS5 column, porter stemming,",
		"every question token, default `bm25()`).",
		`${lme.questions.length} questions counted of ${lme.total}: ${lme.abstention} abstention questions (\`_abs\`: the haystack does not hold the answer) and ${lme.assistantOnly} whose answer is in assistant turns only are left out.`,
		`${projects} projects of ${Math.round(run.memories / Math.max(1, projects))} memories on average (${run.memories.toLocaleString("en")} in all), filled ${
			run.seed === "direct"
				? "directly inside each project's object as the tenancy benchmark fills its others (the rows the write path inserts)"
				: "through the batch endpoint"
		} in ${run.seedSeconds.toFixed(0)} s; the ${projects} recalls took ${run.recallSeconds.toFixed(1)} s.${
			run.seed === "direct"
				? " `CAIRN_BENCH_LME_SEED=batch` fills them through the batch endpoint instead (about 30 times slower); both give the same top 10 for every question."
				: ""
		} The figures move a little with the day of the run: the freshness prior counts a memory's age from now, and the haystacks' dates are years back (all@5 0.674 on 2026-12-01 and 0.671 on 2026-12-02, same code; one temporal-reasoning question).`,
		"",
		"| question type | questions | Cairn any@5 | all@5 | any@10 | all@10 | plain BM25 any@5 | all@5 | any@10 | all@10 |",
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
	);
	for (const r of summariseLongMemEval(lme, run.answers, baseline)) {
		const name = r.type === "overall" ? "**overall**" : r.type;
		lines.push(`| ${name} | ${r.questions} | ${r.cairn.map(f).join(" | ")} | ${r.bm25.map(f).join(" | ")} |`);
	}
	lines.push(
		"",
		"Published retrieval figures (LongMemEval paper, Tables 3 and 9) are on LongMemEval_M, about 500 sessions per question",
		"rather than about 50 here, so they are not comparable; its round-level BM25 with the turn as key scores R@5 0.472 and",
		"R@10 0.538 there.",
	);
	return lines;
}
