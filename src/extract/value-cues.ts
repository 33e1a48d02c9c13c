/**
 * Cues for the numbers and values people rely on — limits, quotas, thresholds, sizes, versions, ports,
 * hosts, regions, schedules, who is on call — and for a value being changed ("raised to 1,000",
 * "moved staging to …", "5433으로 옮겼어"). A value said once in passing inside a task ("we're on Go
 * 1.22, so …") is as durable as one said on its own; the change words make it an update of the value
 * said before (src/consolidate/updates.ts), never a memory of their own.
 */

/** A cue of the tables in cues.ts (declared here too, so the two modules do not import each other). */
interface Cue {
	pattern: RegExp;
	weight: number;
	kind: "rule" | "prohibition" | "correction" | "preference" | "fact" | "pointer" | "remember";
}

/** A value: a number with its unit, a clock time, a version, a host or a bucket path, a region. */
const VALUE = String.raw`(?:v?\d[\d,.]*(?:\s?(?:%|ms|s|secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|mb|gb|kb|tb|nodes?|requests?|req|messages?|calls?|rps|rpm|qps|utc|kst|replicas?|shards?|partitions?|approvals?|lines?|retries|times|x))?\b|\d{1,2}:\d{2}|[a-z][\w-]*(?:\.[\w-]+)+|[a-z]{2}-[a-z]+-\d|(?:gs|s3):\/\/\S+)`;

export const VALUE_CUES_EN: Cue[] = [
	// "Staging DB is on port 5432", "we're on Elasticsearch 7.17", "prod lives in us-east-1".
	{
		pattern: new RegExp(
			String.raw`\b(?:is|are|'s|'re|lives?|runs?|sits?|stays?)\s+(?:now\s+|still\s+|currently\s+|all\s+)?(?:on|in|at|under)\s+(?:port\s+|version\s+|the\s+)?(?:[A-Za-z][\w.-]*\s)?${VALUE}`,
			"i",
		),
		weight: 2,
		kind: "fact",
	},
	// "it's api.staging.example.io now", "the CDN is cdn.example.net".
	{ pattern: /\b(?:is|'s|are)\s+(?:now\s+)?(?:https?:\/\/)?[a-z][\w-]*(?:\.[\w-]+){1,}[a-z]\b/i, weight: 2, kind: "fact" },
	// A value changed: "bumped the gateway limit to 1,000", "moved staging to stg-api.example.dev".
	{
		pattern: new RegExp(
			String.raw`\b(?:moved|switched|migrated|bumped|raised|lowered|cut|upgraded|downgraded|reverted|rolled|changed|increased|decreased|reduced|relaxed|tightened|dropped|went|going|back|sped up)\b[^.;!?]{0,50}?\b(?:to|at)\s+(?:the\s+)?${VALUE}`,
			"i",
		),
		weight: 2,
		kind: "correction",
	},
	{
		pattern: /\b(?:back to|going back to|went back to|switched to|is back on|are back on|is taking over|is covering)\b/i,
		weight: 1.5,
		kind: "correction",
	},
	// Limits, quotas, budgets: "600 requests per minute", "the p99 budget of 80 ms", "cap the autoscaler at 12 nodes".
	{
		pattern:
			/\b\d[\d,.]*\s*(?:requests?|req|messages?|calls?|events?|jobs?|emails?)\s*(?:per|\/|a|an)\s*(?:second|sec|minute|min|hour|day|week|month|key|user)\b|\b(?:limit|quota|cap|capped|budget|threshold|timeout|max(?:imum)?|min(?:imum)?|ttl|retention|bar|score|at most|at least|up to|no more than)\b[^.;!?]{0,40}?\b\d/i,
		weight: 2,
		kind: "fact",
	},
	// Who is on call.
	{
		pattern: /\b[A-Z][a-z]+\b[^.;!?]{0,40}\bon[- ]call\b|\bon[- ]call\b[^.;!?]{0,30}\b(?:is|are)\s+[A-Z][a-z]+\b/,
		weight: 2,
		kind: "fact",
	},
	// Schedules: "we deploy to prod on Tuesday", "we ship fortnightly", "every Monday".
	{
		pattern:
			/\b(?:deploy|release|ship|merge|run|appl(?:y|ies)|freeze|cut|build)\w*\b[^.;!?]{0,40}\b(?:on|every|only on)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:ship|release|deploy)\w*\s+(?:weekly|fortnightly|biweekly|nightly|monthly|daily)\b|\b(?:weekly|fortnightly|biweekly|monthly) (?:releases?|deploys?|builds?|cadence)\b/i,
		weight: 2,
		kind: "fact",
	},
];

export const VALUE_CUES_KO: Cue[] = [
	// A ban by its consequence: "Double 쓰면 리뷰에서 바로 반려돼요".
	{
		pattern: /(?:쓰면|하면|올리면|넣으면|쓰시면|하시면)\s[^.?!]{0,20}(?:반려|리젝|거절|빠꾸|막혀|막힙니다)/,
		weight: 2,
		kind: "prohibition",
	},
	// "backfill은 우리 자체 스케줄러 hubctl backfill로 돌려": a topic and the way it is done.
	{
		pattern:
			/(?:^|\s)[^\s.?!]+(?:은|는) [^?!]{1,80}(?:으로|로)\s(?:돌려|써|가|올려|보내|만들어|빌드해|배포해|관리해|처리해)(?:요|줘|주세요)?\s*[.!]?$/,
		weight: 1.5,
		kind: "rule",
	},
	// Where data lands: "raw 파일은 `s3://dw-raw-prod/events/`에 떨어져".
	{ pattern: /(?:에|로) 떨어(?:져|지|짐|집니다|지니까|지고)/, weight: 2, kind: "pointer" },
	// What the team uses: "우리 FCM HTTP v1 API 쓰고 있어".
	{ pattern: /(?:우리|저희) (?:[^\s.?!]+ ){1,5}(?:쓰고 ?있|쓰는 ?중|써요|씁니다)/, weight: 1.5, kind: "fact" },
	// A decision: "300줄 넘으면 쪼개기로 했어".
	{ pattern: /[가-힣]기로 (?:했|함|정했|결정|합의)/, weight: 2, kind: "rule" },
	// Where to go for something: "얘기할 일 있으면 #ml-serving 채널".
	{ pattern: /(?:있으면|하려면|필요하면|궁금하면)\s[^.?!]{0,20}(?:#[\w-]+|채널|문서|위키|노션)/, weight: 1, kind: "pointer" },
	// "포트는 5432야", "팀 기준은 line 70%야", "prod 클러스터는 `es-prod-01…`이야", "분당 600 requests라서".
	{
		pattern:
			/(?:은|는|이|가)\s+[^.?!]{0,40}?(?:\d[\d,.:]*\s*[%a-zA-Z가-힣]*|`[^`]*\d[^`]*`)\s*(?:이야|야|예요|이에요|입니다|임|이고|이라서|라서|이니까|니까|인데|이에요)(?:\s|[.!,~]|$)/,
		weight: 2,
		kind: "fact",
	},
	// A value changed: "5433으로 옮겼대", "분당 1,000 requests로 올려줬어", "30일로 줄였어".
	{
		pattern:
			/(?:\d[\d,.:]*\s*[%a-zA-Z가-힣]*|`[^`]+`|[a-z][\w.-]+)\s*(?:으로|로)\s+(?:다시 )?(?:올렸|올려줬|올라갔|내렸|늘렸|줄였|줄인|낮췄|옮겼|바꿨|바뀌|변경|이전|교체|넘겼|당겼|증설|갈아탔|돌아가|되돌|원복|통일|올리기로|늘리기로|줄이기로|옮기기로|바꾸기로|올리자|내리자|늘리자|줄이자|옮기자|바꾸자|가자)/,
		weight: 2,
		kind: "correction",
	},
	// Schedules: "화요일에만 배포", "매일 03:00에 돌아".
	{
		pattern: /[월화수목금토일]요일(?:에만|마다)|(?:매일|매주|격주|매달|평일|주말)(?:에만|마다)?\s*[^.?!]{0,20}(?:돌아|돌려|배포|실행|해)/,
		weight: 2,
		kind: "rule",
	},
	// Who is on call: "결제 on-call이 박서연님이니까", "서빙 on-call은 이태민님이 받았어".
	{ pattern: /(?:on-?call|온콜|당번)[^.?!]{0,20}[가-힣]{2,4}님/i, weight: 2, kind: "fact" },
	// Limits: "일일 쿼터는 키당 50,000건", "최대 5MB".
	{
		pattern: /(?:한도|쿼터|제한|상한|하한|최대|최소|임계|기준|타임아웃|보관 ?기간|분당|초당|시간당|일일)[^.?!]{0,20}\d/,
		weight: 1,
		kind: "fact",
	},
];
