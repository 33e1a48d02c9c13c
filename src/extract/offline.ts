import type { MemoryType } from "../memory/topic-file";
import type { Turn } from "../sessions/turns";
import { marksChange, onlySaysChanged, valuesOf } from "../text/statement-values";
import { CHANGE_WORDS, enStopwords, KEEPING_WORDS, REMEMBER_WORDS, SCOPE_WORDS } from "../text/stopwords/en";
import { type Analysis, analyse, HANGUL, isDurable, kindOf, LABEL_ONLY, REFERS_BACK, REMEMBER_ONLY, type StatementKind } from "./cues";
import { type Candidate, type StageOneOutput, slugify, turnRef } from "./schema";

/**
 * The offline extractor: deterministic rules over what the user typed, used when no model is
 * configured. Each sentence of a user turn is weighed against cue tables for English and Korean
 * (`cues.ts`): standing rules, bans, corrections, preferences, facts about the project and its
 * people, pointers to where things live, explicit requests to remember — against the present
 * moment, today's task, questions, musings, other people's opinions and descriptions of code.
 * A sentence that only labels the one before it ("that's a <team> rule") lifts it; a plain sentence
 * right after a durable one in the same message that elaborates it (a bare instruction adding a detail,
 * "keep it under <n> …") joins it. Confirmations of an approach cite the assistant turn before them,
 * and explicit procedures ("how to X:" + steps) become procedure candidates.
 * It reads user turns only (not tool output, not sub-agents, not slash commands), skips code and
 * pasted text, and never infers facts the user did not state.
 */

const MAX_SENTENCE = 400;
const MAX_TURN_CHARS = 6_000;
/** Sentences after a durable one that may join it as its elaboration. */
const MAX_CARRY = 2;

/**
 * Words a name leaves out: the stop words, the words that only mark a change, and those that say how a
 * statement is kept or ask to keep it; a word that limits the statement's scope ("only") stays in it.
 */
const STOPWORDS = enStopwords([CHANGE_WORDS, KEEPING_WORDS, REMEMBER_WORDS], SCOPE_WORDS);

const CONFIRMATION =
	/^(?:yes|yep|yeah|exactly|perfect|great|good|right)\b[^?]*\b(?:keep (?:doing|it)|that'?s (?:exactly |just )?(?:the right|right|the way|what i want)|do it (?:this|that) way|this approach|that approach|like that)\b/i;

/** Memory type of a "remember …" statement from its wording. */
function classify(statement: string): MemoryType {
	if (
		/https?:\/\/|\bdashboard|\brunbook|\bendpoint|\bwiki\b|\bdocs? (?:at|are|is)\b|\bchannel\b|노션|위키|문서|대시보드|채널/i.test(
			statement,
		)
	)
		return "reference";
	if (/\b(?:i|my|me)\b|(?:저는|나는|제가|내가)/i.test(statement) && /\b(?:prefer|like|want|use|write)\b|선호|좋아|싫어/i.test(statement))
		return "user";
	if (/\b(?:always|never|don'?t|do not|must|should|prefer|instead of|use)\b|항상|절대|하지 ?마|금지|무조건/i.test(statement))
		return "feedback";
	return "project";
}

const FIRST_PERSON = /\b(?:i|i'm|i'd|my|me)\b|(?:저는|나는|제가|내가|저한테|나한테)/i;

function typeOf(kind: StatementKind, statement: string): MemoryType {
	switch (kind) {
		case "rule":
		case "prohibition":
			return "feedback";
		case "preference":
			return FIRST_PERSON.test(statement) ? "user" : "feedback";
		case "pointer":
			return "reference";
		case "remember":
			return classify(statement);
		default:
			return "project";
	}
}

/** Words that open a sentence without belonging to the statement. */
const LEAD =
	/^(?:(?:ok(?:ay)?|also|and|but|so|oh|ah|hey|btw|by the way|one more thing|another thing|fyi|for your information|heads[- ]up|important|note|nice|great|cool|good|thanks|right|hmm|wait|yes|yeah|sure|please|pls|아|그리고|참고로|근데|그런데|또|아 그리고|오|굿|네|넵|응|ㅇㅇ)[\s,:;!.~—–-]+)+/i;

/** Sentences of a user message that could be statements: no code, no quotes, no questions. */
export function statements(text: string): string[] {
	return segments(text).map((s) => s.sentence);
}

/** Sentences with whether each is an item of a bulleted or numbered list. */
function segments(text: string): { sentence: string; item: boolean }[] {
	const out: { sentence: string; item: boolean }[] = [];
	let inFence = false;
	for (const rawLine of text.split("\n")) {
		const line = rawLine.trim();
		if (line.startsWith("```")) {
			inFence = !inFence;
			continue;
		}
		if (inFence || !line || line.startsWith(">") || line.startsWith("$ ") || /^[{[<]/.test(line)) continue;
		const item = /^(?:[-*•]|\d{1,2}[.)])\s+/.test(line);
		// Sentence ends: . ! ? ~ (and Korean full stops) before a space, but not inside "e.g." or "etc.".
		// "Some context: the warehouse …": the intro stands on its own, and what follows on the line reads as items under it.
		let underIntro = false;
		// Korean joins clauses with a connective ending and a comma ("…운영하는 백엔드고요, 규제 변경은 …"):
		// each clause is read on its own, so a word about today in one does not sink the rule in the next.
		for (const s of line.split(
			/(?<!\b(?:e\.g|i\.e|etc|vs|approx|incl|no))(?<=[.!?~。]|[ㅎㅋㅠ]{2})\s+|;\s+|\s+[—–]\s+|(?<=[\uac00-\ud7af](?:고요|구요|는데요|는데|지만|니까|거든요|면서|고),)\s+/,
		)) {
			let sentence = s.replace(/^(?:[-*•]|\d{1,2}[.)])\s+/, "").trim();
			const intro = INTRO.exec(sentence.replace(LEAD, ""));
			if (intro) {
				out.push({ sentence: intro[0].trim(), item: false });
				sentence = sentence.replace(LEAD, "").slice(intro[0].length).trim();
				underIntro = true;
			}
			if (sentence.length < 6 || sentence.length > MAX_SENTENCE || /\?\s*$/.test(sentence)) continue;
			out.push({ sentence, item: item || underIntro });
		}
	}
	return out;
}

/** A stable 32-bit FNV-1a hash, as 6 hex digits: names statements that have no Latin words. */
function shortHash(text: string): string {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return (h >>> 0).toString(16).padStart(8, "0").slice(0, 6);
}

/**
 * The candidate's name, an ASCII slug: the statement's Latin-script content words; a statement with
 * fewer than two (Korean, mostly) is named by its kind, those words and a hash of its text, so
 * different statements never collapse into one name and the same statement always gets the same one.
 */
export function nameFor(statement: string, kind: StatementKind = "fact"): string {
	// Values change (a port, a day, a person, a host); a name keeps its memory's identity through updates.
	const values = valuesOf(statement);
	const isValue = (w: string) =>
		values.has(w) ||
		w === "https" ||
		w === "http" ||
		values.has(`who:${w}`) ||
		values.has(`every:${w.replace(/s$/, "")}`) ||
		/^(?:mon|tues|wednes|thurs|fri|satur|sun)days?$/.test(w) ||
		[...values].some((v) => v.includes(".") && v.split(/[./:-]/).includes(w));
	const words = statement
		.toLowerCase()
		.replace(/[^a-z0-9@./\s-]+/g, " ")
		.split(/\s+/)
		.map((w) => w.replace(/^[.\-/@]+|[.\-/@]+$/g, ""))
		// Values (ports, versions, counts) change; a name keeps its memory's identity through corrections.
		.filter((w) => w && !STOPWORDS.has(w) && !/^v?\d[\d.]*$/.test(w) && !isValue(w));
	if (words.length >= 2 && !HANGUL.test(statement)) return slugify(words.join(" "), 6);
	const normalised = statement.toLowerCase().replace(/\s+/g, " ").trim();
	return slugify(`${kind} ${words.slice(0, 3).join(" ")} ${shortHash(normalised)}`, 6);
}

const sentenceCase = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * The statement as stored: the opening filler dropped and, for a correction, the clauses that
 * restate the superseded value ("not <old>", "<person> isn't … anymore", "<old>이 아니라") left out, so the
 * corrected memory carries only the current value.
 */
export function cleanStatement(sentence: string, correction: boolean): string {
	let s = sentence.replace(LEAD, "").trim();
	if (correction) {
		s = s
			.replace(
				/^(?:no|nope|nah|actually|correction|wrong|oops|my bad|sorry|i was wrong(?: earlier)?|i misspoke(?: earlier)?|that'?s (?:wrong|the old one|outdated))\b[\s,.:;!—–-]*/i,
				"",
			)
			.replace(/^(?:correction on what i (?:told|said to) you[^:]*|ok,? )[:\s]*/i, "");
		// "<old>이 아니라 <new>", "그거 아니고 <new>으로": the word before 아니라/아니고 names the old value.
		s = s.replace(/\S+?(?:이|가)?\s?아니(?:라|고)\s+(?=\S)/g, "");
		// Korean: "<old>였던 거", "<old>라고 했는데" name the old value; "<reason>해서 / 셔서 이제 …" gives the reason before the new state.
		s = s
			.replace(/(?:지난번에?|저번에|아까|전에)\s[^,.]*?(?:였던|이었던|라고 했던|라고 말했던)\s*(?:거|것|건)[\s,]*/g, "")
			.replace(/\S*(?:였던|이었던|라고 했던|라고 했는데|라고 했지만|라고 말했던|였는데|이었는데)\s*(?:거|것|건|게)?[\s,]*/g, "")
			.replace(/^[^,.]*?(?:해서|셔서|어서|아서|여서|라서)\s+(?=(?:이제|지금은|현재는))/, "");
		const clauses = s.split(/(?<=[,;:])\s+|\s+(?:but|so)\s+/);
		const stale =
			/\b(?:not|isn'?t|aren'?t|wasn'?t|weren'?t|no longer|anymore|used to|old|previous(?:ly)?|earlier|before)\b|(?:이|가)? ?아니(?:라|고)|였던|이었던|했던|했는데|라고 (?:했|말)|잘못|헷갈/i;
		const kept = clauses.filter((c) => !stale.test(c));
		if (kept.length > 0 && kept.length < clauses.length) s = kept.join(" ").replace(/[,;:]\s*$/, "");
	}
	// A change names the value it replaces ("on <new day> now instead of <old day>", "<old> 말고 <new>로"): only the new one is kept.
	if (correction || marksChange(s))
		s = s
			.replace(/,?\s*\b(?:instead of|rather than)\s+(?:the\s+)?[\w.:/-]*\d[\w.:/-]*(?:\s+[a-z]+)?(?=[\s,.;!]|$)/gi, "")
			.replace(/,?\s*\b(?:instead of|rather than)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b/gi, "")
			.replace(/(^|\s)[^\s]*[^지\s] 말고\s+/g, "$1");
	return s.replace(/[.!;,~]+$/, "").trim();
}

/** A ban whose object is the statement before it: "do not <verb> that", "never <verb> it". */
const BAN_OF_IT = /^(?:please\s+|and\s+)?(?:do not|don'?t|never)\s+['"‘“]?\w+['"’”]?\s+(?:that|this|it|them)\b/i;

/** An English sentence with no subject of its own: "always in <place>, never in <place>". */
const ELLIPTIC = /^(?:always|never|only|not)\s+(?:in|on|at|for|from|with|via|through|before|after|when|if)\b/i;

/** Opening phrases of a line that introduces what follows ("Some context:", "<kind> conventions:", "참고로:"). */
const INTRO =
	/^(?:(?:some |for |a bit of |quick )?context|background|(?:[\w-]+ )?conventions?|(?:house |team |repo )?rules|guidelines|notes?|things to know|heads up|fyi|참고|배경|정리|규칙|컨벤션)\b[^:]{0,60}:\s+(?=\S)/i;

/** A Korean sentence that names its own topic or subject ("<topic>는", "우리 팀은", "<name>님이"). */
const HAS_TOPIC = /(?:^|\s)[^\s]+(?:은|는|이|가|께서)\s|우리|저희|^(?:앞으로|이제)/;

/** Owning up to a mistake ("I mixed them up", "my bad", 헷갈렸…, 잘못 알려…): marks a correction without stating anything itself. */
const ADMISSION =
	/^(?:[^.!?]{0,40}\s)?(?:헷갈렸|잘못 (?:알려|말|얘기)|i (?:misspoke|mixed (?:it|them) up|was wrong|got (?:it|that) wrong)|my bad|confused (?:it|them))[^.!?]{0,20}[.!]?$/i;

/** Matches one sentence against the cue tables; returns the candidate's type and statement, or null. */
export function matchStatement(
	sentence: string,
): { type: MemoryType; statement: string; kind: StatementKind; team: boolean; correction: boolean } | null {
	const a = analyse(sentence);
	if (!isDurable(a)) return null;
	return shaped(sentence, a);
}

function shaped(sentence: string, a: Analysis) {
	const kind = kindOf(a);
	const correction = a.kinds.has("correction");
	const statement = cleanStatement(sentence, correction);
	if (statement.length < 4) return null;
	return { type: typeOf(kind, statement), statement, kind, team: a.team, correction };
}

type Hit = NonNullable<ReturnType<typeof shaped>>;

/** Clauses of a durable sentence that belong to the passing moment or the task ("…, the <thing> for this one is X") are left out. */
function withoutPassingClauses(sentence: string): string {
	const clauses = sentence.split(/(?<=,)\s+|\s+(?=(?:and|so|but) )|(?<=(?:고|고요|는데|지만|니까|서),)\s*/);
	if (clauses.length < 2) return sentence;
	const kept = clauses.filter((c) => {
		const a = analyse(c);
		return !(
			a.score === 0 && a.traps.some((t) => t === "scoped" || t === "ephemeral" || t === "code" || t === "hypothetical" || t === "reported")
		);
	});
	return kept.length > 0 && kept.length < clauses.length ? kept.join(" ").replace(/,\s*$/, "") : sentence;
}

/**
 * Finds the durable statements of one user message, in order, and hands each to `add`; a plain
 * sentence that elaborates the statement before it goes to `elaborate`. Returns how many were found.
 */
function statementsOfTurn(text: string, add: (hit: Hit) => Candidate, elaborate: (c: Candidate, sentence: string) => void): number {
	let found = 0;
	let previous: { sentence: string; analysis: Analysis; candidate: Candidate | null } | null = null;
	let carried = 0;
	/** A durable line ending in ":" heads a list: each item is a statement of the same kind. */
	let header: Analysis | null = null;
	/** "That's the old one", "I was wrong": the next plain sentence is the corrected statement. */
	let correcting = false;
	const lift = (team: boolean) => {
		if (!previous || previous.analysis.traps.some((t) => t === "question" || t === "hypothetical" || t === "reported" || t === "scoped"))
			return;
		if (previous.candidate) {
			if (team) previous.candidate.team = true;
			return;
		}
		const kinds = previous.analysis.kinds.size > 0 ? previous.analysis.kinds : new Map<StatementKind, number>([["rule", 2]]);
		const hit = shaped(previous.sentence, { ...previous.analysis, kinds, team });
		if (hit) {
			previous.candidate = add(hit);
			found++;
		}
	};
	for (const { sentence, item } of segments(text)) {
		const bare = sentence.replace(LEAD, "");
		let analysis = analyse(sentence);
		if (!item) header = null;
		if (header && item && !isDurable(analysis) && analysis.penalty < 2) {
			analysis = {
				...analysis,
				score: analysis.score + header.score,
				kinds: new Map([...header.kinds, ...analysis.kinds]),
				team: header.team || analysis.team,
			};
		} else if (correcting && !isDurable(analysis) && analysis.penalty < 2) {
			analysis = {
				...analysis,
				score: analysis.score + 2,
				kinds: new Map([...analysis.kinds, ["correction", 2], ["fact", analysis.kinds.get("fact") ?? 1]]),
			};
		}
		correcting = false;
		if (LABEL_ONLY.test(bare)) {
			// A label ("that's a <team> rule", "이건 <scope> 규칙"): the sentence before it is the rule.
			lift(analysis.team || /team|팀|everyone|모두/i.test(sentence));
			continue;
		}
		if (REMEMBER_ONLY.test(bare)) {
			lift(false);
			continue;
		}
		if (onlySaysChanged(bare)) {
			// "The deploy day changed": no memory of its own; what follows says what holds now.
			correcting = true;
			previous = { sentence, analysis, candidate: null };
			continue;
		}
		if (
			isDurable(analysis) &&
			analysis.kinds.size === 1 &&
			analysis.kinds.has("correction") &&
			(cleanStatement(sentence, true).length < 12 || ADMISSION.test(sentence))
		) {
			// A bare "no, that's the old one": what follows says what holds.
			correcting = true;
			previous = { sentence, analysis, candidate: null };
			continue;
		}
		if (!item && /[:：]\s*$/.test(sentence) && (isDurable(analysis) || INTRO.test(`${sentence} x`))) {
			// A line that introduces a list: its items are statements of its kind; the intro itself states nothing.
			header = {
				...analysis,
				score: Math.max(analysis.score, 1.5),
				kinds: analysis.kinds.size > 0 ? analysis.kinds : new Map([["fact", 1.5]]),
			};
			if (
				cleanStatement(sentence, false)
					.replace(/[:：]$/, "")
					.split(/\s+/).length <= 4
			)
				continue;
		}
		// "do not <verb> that …": a ban on what the sentence before stated belongs with it.
		if (isDurable(analysis) && previous?.candidate && BAN_OF_IT.test(bare) && carried < MAX_CARRY) {
			elaborate(previous.candidate, sentence);
			carried++;
			continue;
		}
		// Korean drops the topic when it goes on about the same thing ("무조건 <layer> 거쳐서", always through <layer>): the
		// sentence continues the statement before it.
		if (isDurable(analysis) && previous?.candidate && HANGUL.test(sentence) && !HAS_TOPIC.test(bare) && carried < MAX_CARRY) {
			elaborate(previous.candidate, sentence);
			if (analysis.team) previous.candidate.team = true;
			carried++;
			continue;
		}
		if (isDurable(analysis)) {
			let statement = withoutPassingClauses(sentence);
			// "거기 있는 거 <verb>", "always in <place>, never in <place>": what it is about is in the sentence before.
			if (
				previous &&
				!previous.candidate &&
				(REFERS_BACK.test(sentence) || ELLIPTIC.test(bare)) &&
				!previous.analysis.traps.includes("question") &&
				previous.analysis.penalty < 2
			) {
				statement = `${previous.sentence.replace(LEAD, "")} ${statement}`;
			}
			const hit = shaped(statement, analysis);
			const candidate = hit ? add(hit) : null;
			if (candidate) found++;
			previous = { sentence, analysis, candidate };
			carried = 0;
			continue;
		}
		if (previous?.candidate && carried < MAX_CARRY && analysis.penalty === 0 && sentence.length <= 200) {
			elaborate(previous.candidate, sentence);
			carried++;
			continue;
		}
		// A small aside (a short list of examples, "<a>, <b>, <c> etc.") does not end the statement before it.
		if (previous?.candidate && analysis.penalty < 2 && analysis.score === 0) continue;
		previous = { sentence, analysis, candidate: null };
	}
	return found;
}

const PROCEDURE_TITLE = /^(?:here'?s |this is )?(how to .{3,80}?|the (?:steps|procedure|process|runbook) (?:to|for) .{3,80}?)\s*:?\s*$/i;
const STEP = /^\s*(?:\d+[.)]|[-*])\s+\S/;

/** "How to X:" followed by at least three numbered or bulleted steps: an explicit procedure. */
export function explicitProcedure(text: string): { title: string; steps: string[] } | null {
	const lines = text.split("\n");
	for (let i = 0; i < lines.length; i++) {
		const title = PROCEDURE_TITLE.exec((lines[i] ?? "").trim());
		if (!title) continue;
		const steps: string[] = [];
		for (let j = i + 1; j < lines.length && STEP.test(lines[j] ?? ""); j++) steps.push((lines[j] ?? "").trim());
		if (steps.length >= 3) return { title: (title[1] ?? "").replace(/[.:]+$/, ""), steps };
	}
	return null;
}

const firstSentence = (text: string) => (text.split(/(?<=[.!?])\s+|\n/)[0] ?? "").trim().slice(0, MAX_SENTENCE);

/** Runs the rules over one session range. Deterministic: the same turns give the same output. */
export function extractOffline(sessionId: string, turns: Turn[]): StageOneOutput {
	const byName = new Map<string, Candidate>();
	const add = (
		hit: { type: MemoryType; statement: string; kind: StatementKind; team: boolean; correction: boolean },
		evidence: string[],
	): Candidate => {
		const name = nameFor(hit.statement, hit.kind);
		const existing = byName.get(name);
		if (existing) {
			for (const e of evidence) if (!existing.evidence.includes(e)) existing.evidence.push(e);
			if (!existing.body.toLowerCase().includes(hit.statement.toLowerCase()))
				existing.body = existing.body.replace(/\n\nStated by/, ` ${sentenceCase(hit.statement)}.\n\nStated by`);
			return existing;
		}
		const candidate: Candidate = {
			name,
			type: hit.type,
			description: sentenceCase(hit.statement).slice(0, 200),
			body: `${sentenceCase(hit.statement)}.\n\nStated by the user in session ${sessionId}.`,
			evidence,
			userStated: true,
			...(hit.correction ? { correction: true } : {}),
			...(hit.team ? { team: true } : {}),
		};
		byName.set(name, candidate);
		return candidate;
	};
	/** A plain sentence that elaborates the durable one before it joins that candidate. */
	const elaborate = (c: Candidate, sentence: string) => {
		const text = sentenceCase(
			sentence
				.replace(LEAD, "")
				.replace(/[.!;,~]+$/, "")
				.trim(),
		);
		if (text.length < 4 || c.body.includes(text)) return;
		c.body = c.body.replace(/\.\n\nStated by/, `. ${text}.\n\nStated by`);
	};

	let lastAssistant: Turn | null = null;
	for (const turn of turns) {
		if (turn.role === "assistant" && !turn.sidechain) lastAssistant = turn;
		if (turn.role !== "user" || turn.kind || turn.sidechain || turn.text.length > MAX_TURN_CHARS) continue;
		const trimmed = turn.text.trim();
		const procedure = explicitProcedure(trimmed);
		if (procedure) {
			const name = slugify(procedure.title, 8);
			byName.set(name, {
				name,
				type: "reference",
				description: sentenceCase(procedure.title).slice(0, 200),
				body: procedure.steps.join("\n"),
				evidence: [turnRef(turn.seq)],
				userStated: true,
				procedure: true,
			});
			continue;
		}
		const found = statementsOfTurn(trimmed, (hit) => add(hit, [turnRef(turn.seq)]), elaborate);
		if (!found && lastAssistant && CONFIRMATION.test(trimmed)) {
			const approach = firstSentence(lastAssistant.text);
			if (approach.length >= 8)
				add(
					{
						type: "feedback",
						statement: `Confirmed approach: ${approach.replace(/[.!:]+$/, "")}`,
						kind: "rule",
						team: false,
						correction: false,
					},
					[turnRef(lastAssistant.seq), turnRef(turn.seq)],
				);
		}
	}

	const candidates = [...byName.values()];
	const users = turns.filter((t) => t.role === "user" && !t.kind && !t.sidechain);
	const tools = new Map<string, number>();
	for (const t of turns) if (t.role === "tool_call" && t.tool) tools.set(t.tool, (tools.get(t.tool) ?? 0) + 1);
	const topTools = [...tools.entries()]
		.sort((a, b) => b[1] - a[1])
		.slice(0, 5)
		.map(([name, n]) => `${name} ×${n}`);
	const firstAsk = users[0] ? firstSentence(users[0].text).slice(0, 160) : "";
	const summary = [
		`Turns ${turns[0]?.seq ?? 0}–${turns.at(-1)?.seq ?? 0}: ${users.length} user message(s), ${turns.filter((t) => t.role === "tool_call").length} tool call(s)${topTools.length ? ` (${topTools.join(", ")})` : ""}.`,
		firstAsk ? `First request: ${firstAsk}` : "",
		candidates.length ? `Durable statements found: ${candidates.length}.` : "No durable statements found.",
	]
		.filter(Boolean)
		.join(" ");
	const raw = candidates.map((c) => `- (${c.type}) ${c.description} [${c.evidence.join(", ")}]`).join("\n");
	return { raw_memory: raw, summary, candidates };
}
