/**
 * What a fact tells: the few kinds of project fact an agent asks for in any software project — who owns or
 * reviews what, who is on call and what to do in an incident, where to look (dashboards, logs), how to reach
 * an environment, where secrets and configuration live, when and how to deploy, how to set up and run things,
 * where code lives, which units and formats to use. Each kind is a topic of its own besides the word topics
 * (src/search/topics.ts): `memory://root/topics/facts-<kind>.md` lists every fact whose name or description
 * speaks of it (a fact can be of several kinds). A prompt names a kind by its everyday words in English or
 * Korean ("psql on staging", "스테이징 서버 주소") though it shares no word with the fact it needs, and its block
 * then names that kind's topic: one read away, for the agent (a model) to judge by the line's header.
 * The words are the general vocabulary of each kind, not any project's.
 */
import { cjkStem, hasCjk } from "../text/grams";
import { queryTerms } from "../text/terms";
import type { Topic, TopicMember } from "./topics";

export interface FactKind {
	id: string;
	/** The topic's title, in English and Korean. */
	title: string;
	/** The words the topic's line shows (what it holds), in English and Korean. */
	shown: { en: string[]; ko: string[] };
	/** The words that make a text of this kind: a fact's name and description, a prompt. */
	words: string;
}

export const FACT_KINDS: readonly FactKind[] = [
	{
		id: "people",
		title: "People and ownership (담당)",
		shown: { en: ["owner", "reviewer", "approval", "team", "lead", "contact"], ko: ["담당자", "리뷰어", "승인"] },
		words: `owner owners owns owned ownership maintainer maintainers maintains lead leads manager managers team teams reviewer reviewers
			review reviews approve approves approval approvals approver approvers codeowners contact contacts person people hire hires
			newcomer buddy expert experts 담당 담당자 리뷰 리뷰어 승인 팀 팀장 오너 신입 버디 책임자`,
	},
	{
		id: "oncall",
		title: "On-call and incidents (온콜·장애)",
		shown: { en: ["oncall", "paging", "escalation", "incident", "outage", "alert", "runbook"], ko: ["온콜", "장애", "알람", "런북"] },
		words: `oncall pager pagerduty opsgenie paged paging escalation escalate escalations incident incidents outage outages sev
			alerts alerting runbook runbooks postmortem postmortems 장애 온콜 당번 당직 알람 알림 런북 에스컬레이션 긴급 포스트모템`,
	},
	{
		id: "observe",
		title: "Where to look (모니터링)",
		shown: { en: ["dashboard", "log", "metric", "error", "crash", "trace", "monitoring"], ko: ["대시보드", "로그", "모니터링"] },
		words: `dashboard dashboards grafana datadog sentry kibana logs logging log metrics metric monitoring monitor trace traces tracing
			errors crash crashes cloudwatch newrelic prometheus 대시보드 로그 모니터링 메트릭 에러 그라파나 지표`,
	},
	{
		id: "access",
		title: "Environments and access (환경·접근)",
		shown: { en: ["staging", "prod", "host", "url", "database", "access", "login"], ko: ["스테이징", "운영", "서버", "접근"] },
		words: `staging prod production environment environments env host hosts hostname url urls domain endpoint endpoints server
			servers access login logins vpn tailscale ssh bastion kubectl kubeconfig cluster clusters database databases db psql replica
			sandbox 스테이징 운영 서버 접근 로그인 권한 주소 디비 데이터베이스 샌드박스 클러스터`,
	},
	{
		id: "secrets",
		title: "Secrets and configuration (시크릿·설정)",
		shown: { en: ["secret", "key", "token", "credential", "env var", "config"], ko: ["시크릿", "키", "토큰", "환경변수"] },
		words: `secret secrets vault token tokens key keys apikey credential credentials password passwords vars variables variable
			config configuration dotenv 1password ssm kms 시크릿 키 토큰 환경변수 비밀번호 비밀키 설정`,
	},
	{
		id: "releases",
		title: "Releases and deploy windows (배포)",
		shown: { en: ["deploy", "release", "freeze", "window", "rollout"], ko: ["배포", "릴리스"] },
		words: `deploy deploys deployed deploying deployment deployments release releases releasing ship freeze rollout rollouts hotfix hotfixes 배포 릴리스 릴리즈 정기배포 프리즈 롤아웃 핫픽스`,
	},
	{
		id: "setup",
		title: "Setup and commands (설정·명령어)",
		shown: { en: ["setup", "install", "run", "local dev", "command", "test", "build"], ko: ["로컬", "설치", "명령어", "테스트", "빌드"] },
		words: `setup install installing local localhost run running command commands makefile script scripts test tests
			testing build builds onboarding 로컬 설치 실행 명령어 테스트 빌드 온보딩`,
	},
	{
		id: "layout",
		title: "Code layout (코드 구조)",
		shown: { en: ["where code lives", "layout", "module", "package", "folder"], ko: ["구조", "모듈", "패키지"] },
		words: `module modules package packages workspace workspaces monorepo folder folders directory directories
			repo repos 구조 모듈 패키지 폴더 디렉토리 레포`,
	},
	{
		id: "conventions",
		title: "Units and formats (단위·형식)",
		shown: { en: ["unit", "format", "naming", "time zone", "money"], ko: ["단위", "형식", "네이밍"] },
		words: `units format formats formatting naming convention conventions timezone timezones currency money cent cents 단위 형식 포맷
			네이밍 타임존 통화`,
	},
];

/** A kind's topic key: `facts-` and its id (a word topic keyed the same way keeps its key: src/search/start-view.ts). */
export const kindKey = (id: string) => `facts-${id}`;
const shownWords = (kind: FactKind, korean: boolean) => [...kind.shown.en, ...(korean ? kind.shown.ko : [])];

/** The words a kind topic's line shows: English, and Korean too when `korean`; undefined for a key that is no kind. */
export function kindWords(key: string, korean: boolean): string[] | undefined {
	const kind = FACT_KINDS.find((k) => kindKey(k.id) === key);
	return kind ? shownWords(kind, korean) : undefined;
}

/** Every vocabulary word → the kinds it belongs to; Korean words apart (matched as a prefix of a word, which carries its particles). */
let latinVocabulary: Map<string, number[]> | undefined;
let koreanVocabulary: [string, number[]][] | undefined;
function vocabulary(): { latin: Map<string, number[]>; korean: [string, number[]][] } {
	if (!latinVocabulary || !koreanVocabulary) {
		const l = new Map<string, number[]>();
		const k = new Map<string, number[]>();
		FACT_KINDS.forEach((kind, i) => {
			for (const w of kind.words.split(/\s+/).filter(Boolean)) {
				const map = hasCjk(w) ? k : l;
				map.set(w, [...(map.get(w) ?? []), i]);
			}
		});
		latinVocabulary = l;
		// Longest first: a word takes the longest vocabulary word it starts with (로그인 is a login, not a log).
		koreanVocabulary = [...k].sort((a, b) => b[0].length - a[0].length);
	}
	return { latin: latinVocabulary, korean: koreanVocabulary };
}

/** "on-call" and "on call" are one word here (the hyphen would leave only "call"). */
const joined = (text: string) => text.replace(/\bon[\s-]+call\b/gi, "oncall");

/** The kinds one word names: itself, or without a plural or verb ending (a singular is listed where it names the kind); a Korean word by the longest vocabulary word it starts with. */
function kindsOfWord(word: string): number[] {
	const { latin: l, korean: k } = vocabulary();
	if (hasCjk(word)) {
		const stem = cjkStem(word);
		for (const [w, kinds] of k) if (word.startsWith(w) && w.startsWith(stem)) return kinds;
		return [];
	}
	for (const form of [word, word.replace(/(?:es|s)$/, ""), word.replace(/(?:ing|ed)$/, "")])
		if (form.length >= 2) {
			const kinds = l.get(form);
			if (kinds) return kinds;
		}
	return [];
}

/**
 * Questions that ask for a kind though their words are function words: who (a person: people and ownership),
 * where a piece of code goes (code layout). English and Korean.
 */
const QUESTIONS: { kind: string; pattern: RegExp }[] = [
	{ kind: "people", pattern: /\bwho(?:m|se)?\b|누구|누가/i },
	{ kind: "layout", pattern: /\bwhere\b[^?.!\n]{0,80}\b(?:go|goes|live|lives|belong|belongs|put)\b|어디에\s*(?:넣|두|놓|만들)/i },
];

/** How many words of a text name each kind (by index into `FACT_KINDS`); kinds it never names are absent. */
export function kindHits(text: string): Map<number, number> {
	const hits = new Map<number, number>();
	for (const word of queryTerms(joined(text))) for (const i of kindsOfWord(word)) hits.set(i, (hits.get(i) ?? 0) + 1);
	for (const q of QUESTIONS)
		if (q.pattern.test(text)) {
			const i = FACT_KINDS.findIndex((k) => k.id === q.kind);
			// Half a word: a kind the prompt names by its words goes first ("who is on call" is on-call before people).
			hits.set(i, (hits.get(i) ?? 0) + 0.5);
		}
	return hits;
}

/** The fact kinds a prompt names, the most named first (ties: the order of `FACT_KINDS`), as topic keys. */
export function kindsNamedBy(prompt: string): string[] {
	return [...kindHits(prompt)].sort((a, b) => b[1] - a[1] || a[0] - b[0]).map(([i]) => kindKey(FACT_KINDS[i]?.id ?? ""));
}

/**
 * The kind topics of a project's facts (project and reference memories; rules are listed in full): a fact is
 * in every kind its name or description names. Kinds no fact is of are left out. Titled and worded in
 * English, with the Korean words too when `korean` (the project's memories are mostly Korean).
 */
export function kindTopics(rows: (TopicMember & { type: string })[]): Topic[] {
	const members: TopicMember[][] = FACT_KINDS.map(() => []);
	let hangul = 0;
	for (const row of rows) {
		if (row.type !== "project" && row.type !== "reference") continue;
		if (hasCjk(row.description)) hangul += 1;
		for (const i of kindHits(`${row.name.replace(/-/g, " ")} ${row.description}`).keys()) members[i]?.push(row);
	}
	const korean = hangul * 3 >= rows.length;
	return FACT_KINDS.flatMap((kind, i) => {
		const list = members[i] ?? [];
		if (list.length === 0) return [];
		return [
			{
				key: kindKey(kind.id),
				title: kind.title,
				words: shownWords(kind, korean),
				members: list,
			},
		];
	});
}
