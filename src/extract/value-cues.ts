/**
 * Cues for the numbers and values people rely on — limits, quotas, thresholds, sizes, versions, ports,
 * hosts, regions, schedules, who is on call — and for a value being changed (a change verb and the new
 * value: "raised to <n>", "moved <thing> to <host>", "<n>으로 옮겼어"). A value said once in passing inside
 * a task (the version the team is on, given as the reason for a request) is as durable as one said on its
 * own; the change words make it an update of the value said before (src/consolidate/updates.ts), never a
 * memory of their own.
 */

/** A cue of the tables in cues.ts (declared here too, so the two modules do not import each other). */
interface Cue {
	pattern: RegExp;
	weight: number;
	kind: "rule" | "prohibition" | "correction" | "preference" | "fact" | "pointer" | "remember";
}

/** A value: a number with its unit, a clock time, a version, a host or a bucket path, a region. */
const VALUE = String.raw`(?:v?\d[\d,.]*(?:\s?(?:%|ms|s|secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|mb|gb|kb|tb|nodes?|requests?|req|messages?|calls?|rps|rpm|qps|utc|kst|replicas?|shards?|partitions?|approvals?|lines?|retries|times|x))?\b|\d{1,2}:\d{2}|[a-z][\w-]*(?:\.[\w-]+)+|[a-z]{2}-[a-z]+-\d|(?:gs|s3):\/\/\S+)`;

/** VALUE for patterns that must stay case-sensitive (a capitalised product name before it): units in either case. */
const VALUE_CS = VALUE.replace(/[a-z]{2,}/g, (w) => `(?:${w}|${w.toUpperCase()})`);

/**
 * A durable value set by a request: a verb that sets (set, schedule, cap, bump, lower …), then "to", "at"
 * or "for" and the value: "set it to <hh:mm> UTC", "cap <thing> at <n> nodes", "bump <limit> to <n>".
 * The value must be one people rely on — a number with its unit, a clock time, a version, a host —
 * so "set the flag to true" or "move the button to the left" are not kept.
 */
const SET_VALUE = String.raw`(?:\d[\d,]*(?:\.\d+)?\s?(?:%|ms|s|secs?|seconds?|mins?|minutes?|hours?|days?|weeks?|mb|gb|kb|tb|nodes?|requests?|req|rps|rpm|qps|replicas?|shards?|partitions?|retries|workers?|connections?)\b(?:\s?(?:per|\/|a)\s?(?:second|sec|minute|min|hour|day|key|user))?|\d{1,2}:\d{2}(?:\s?(?:utc|kst|[ap]m))?|0\.\d+|\d[\d,]{2,}|[a-z][\w-]*(?:\.[\w-]+){2,})`;

export const VALUE_CUES_EN: Cue[] = [
	{
		pattern: new RegExp(
			String.raw`\b(?:set|schedule|cap|limit|bump|raise|lower|pin|change|move|switch|increase|decrease|reduce|drop|throttle|point)\b[^.;!?]{0,40}?\b(?:to|at|for)\s+(?:the\s+)?(?:[a-z][\w-]*\s)?${SET_VALUE}`,
			"i",
		),
		weight: 2.5,
		kind: "fact",
	},
	// "We're on <Product> <version>", "our <thing> is on <Product> <version>": the product and its version the team is on.
	{
		pattern:
			/\b(?:[Ww]e|[Ww]e're|[Ww]e are|[Oo]ur [\w-]+ (?:is|are)|everything is|everyone is)\s+(?:(?:on|using|running|pinned to)\s+)?[A-Z][\w.-]*\s+v?\d+(?:\.\d+)*\b/,
		weight: 1,
		kind: "fact",
	},
	// A thing that is on, in or at a value: "<thing> is on port <n>", "<thing> is on <Product> <version>", "<env> lives in <region>".
	{
		pattern: new RegExp(
			String.raw`\b(?:is|are|'s|'re|lives?|runs?|sits?|stays?)\s+(?:now\s+|still\s+|currently\s+|all\s+)?(?:on|in|at|under)\s+(?:port\s+|version\s+|the\s+)?(?:[A-Za-z][\w.-]*\s)?${VALUE}`,
			"i",
		),
		weight: 2,
		kind: "fact",
	},
	// A host given as what something is: "it's <host> now", "the <service> is <host>".
	{ pattern: /\b(?:is|'s|are)\s+(?:now\s+)?(?:https?:\/\/)?[a-z][\w-]*(?:\.[\w-]+){1,}[a-z]\b/i, weight: 2, kind: "fact" },
	// A value changed: a change verb in the past tense, then "to" or "at" and the new value ("bumped <limit> to <n>",
	// "moved <env> to <host>").
	{
		pattern: new RegExp(
			String.raw`\b(?:[Mm]oved|[Ss]witched|[Mm]igrated|[Bb]umped|[Rr]aised|[Ll]owered|[Cc]ut|[Uu]pgraded|[Dd]owngraded|[Rr]everted|[Rr]olled|[Cc]hanged|[Ii]ncreased|[Dd]ecreased|[Rr]educed|[Rr]elaxed|[Tt]ightened|[Dd]ropped|[Ww]ent|[Gg]oing|[Bb]ack|[Ss]ped up)\b[^.;!?]{0,50}?\b(?:to|at)\s+(?:the\s+)?(?:[A-Z][\w.-]*\s)?${VALUE_CS}`,
		),
		weight: 2,
		kind: "correction",
	},
	{
		pattern: /\b(?:back to|going back to|went back to|switched to|is back on|are back on|is taking over|is covering)\b/i,
		weight: 1.5,
		kind: "correction",
	},
	// Limits, quotas, budgets: a count per unit of time or per key ("<n> requests per minute"), or a limit word (limit, quota,
	// budget, timeout, at most …) and a number within a few words ("the <metric> budget of <n> ms").
	{
		pattern:
			/\b\d[\d,.]*\s*(?:requests?|req|messages?|calls?|events?|jobs?|emails?)\s*(?:per|\/|a|an)\s*(?:second|sec|minute|min|hour|day|week|month|key|user)\b|\b(?:limit|quota|cap|capped|budget|threshold|timeout|max(?:imum)?|min(?:imum)?|ttl|retention|bar|score|at most|at least|up to|no more than)\b[^.;!?]{0,40}?\b\d/i,
		weight: 2,
		kind: "fact",
	},
	// Where something comes from or goes, by its host or bucket: "<things> should come from <host>", "must go to <bucket>".
	{
		pattern:
			/\b(?:should|must|always|now)\s+(?:come from|go to|point (?:to|at)|live (?:in|at|on)|be served from|be read from|be written to)\b[^;!?]{0,40}?(?:(?:https?|gs|s3):\/\/\S+|\b[a-z][\w-]*(?:\.[\w-]+){2,})/i,
		weight: 2,
		kind: "pointer",
	},
	// A feature flag's state: a flag (the word, or a snake_case name) that is, stays or remains enabled or disabled, on or off
	// ("<flag_name> is fully enabled now", "the flag stays disabled in <env>"), "enabled <flag_name>", "turned <flag_name> on".
	{
		pattern:
			/\b(?:flag|[a-z]+_[a-z0-9_]+)\b[^;!?]{0,30}?\b(?:is|are|stays?|remains?)\s+(?:now\s+|still\s+)?(?:fully\s+)?(?:enabled|disabled|on|off)\b|\b(?:enabled|disabled)\s+(?:the\s+)?[a-z]+_[a-z0-9_]+\b|\bturned\s+[a-z]+_[a-z0-9_]+\s+(?:on|off)\b/i,
		weight: 2,
		kind: "fact",
	},
	// Who is on call.
	{
		pattern: /\b[A-Z][a-z]+\b[^.;!?]{0,40}\bon[- ]call\b|\bon[- ]call\b[^.;!?]{0,30}\b(?:is|are)\s+[A-Z][a-z]+\b/,
		weight: 2,
		kind: "fact",
	},
	// Schedules: a verb of shipping or running on or every <weekday> ("we deploy to <env> on <weekday>"), or with weekly,
	// fortnightly, nightly … ("we ship <cadence>").
	{
		pattern:
			/\b(?:deploy|release|ship|merge|run|appl(?:y|ies)|freeze|cut|build)\w*\b[^.;!?]{0,40}\b(?:on|every|only on)\s+(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:ship|release|deploy)\w*\s+(?:weekly|fortnightly|biweekly|nightly|monthly|daily)\b|\b(?:weekly|fortnightly|biweekly|monthly) (?:releases?|deploys?|builds?|cadence)\b/i,
		weight: 2,
		kind: "fact",
	},
];

export const VALUE_CUES_KO: Cue[] = [
	// A value set by a request: a number with its unit, a clock time, a region or a quoted value, 으로/로, and a
	// verb that sets it ("<setting> <n>으로 낮춰줘", "<n>으로 낮춰야겠더라", "<region>로 옮겨서", "<hh:mm>으로 해줘").
	{
		pattern:
			/(?:\d[\d,.:]*\s*(?:%|ms|초|분|시간|일|주|개|회|번|건|MB|GB|KB|TB|mb|gb|노드|대|배|명|req|rps|rpm)?|`[^`]*\d[^`]*`|[a-z]{2}-[a-z]+-\d)\s*(?:으로|로)\s+(?:다시 )?(?:낮춰|올려|늘려|줄여|내려|바꿔|옮겨|맞춰|당겨|미뤄|변경해|설정해|고정해|잡아)(?:\s?줘|\s?주세요|\s?줄래|\s?놔|\s?둬|야겠|야 ?(?:해|돼|함|됨)|서)|(?:\d{1,2}:\d{2}|\d[\d,.]*\s*(?:%|ms|초|분|시간|MB|GB|KB|TB|rps|rpm))\s*(?:으로|로)\s+(?:다시 )?해\s?(?:줘|주세요|놔|둬)/,
		weight: 3,
		kind: "fact",
	},
	// One thing in place of another: "<X> 말고 <Y> 쓰니까", "<X> 말고 <Y> 써요" (not X, Y is used).
	{ pattern: /[^\s.?!]+ 말고 [^?!]{0,60}?(?:쓰니까|쓰기로|써요|씁니다|쓰자|써야|쓰는 ?걸로|로 가)/, weight: 2.5, kind: "correction" },
	// A ban by its consequence: "<X> 쓰면 … 반려돼요" (used, it is rejected).
	{
		pattern: /(?:쓰면|하면|올리면|넣으면|쓰시면|하시면)\s[^.?!]{0,20}(?:반려|리젝|거절|빠꾸|막혀|막힙니다)/,
		weight: 2,
		kind: "prohibition",
	},
	// "<topic>은 … <tool>로 돌려" (a topic, then 으로/로 and a verb of doing): a topic and the way it is done.
	{
		pattern:
			/(?:^|\s)[^\s.?!]+(?:은|는) [^?!]{1,80}(?:으로|로)\s(?:돌려|써|가|올려|보내|만들어|빌드해|배포해|관리해|처리해)(?:요|줘|주세요)?\s*[.!]?$/,
		weight: 1.5,
		kind: "rule",
	},
	// Where data lands: "<data>은 <path>에 떨어져".
	{ pattern: /(?:에|로) 떨어(?:져|지|짐|집니다|지니까|지고)/, weight: 2, kind: "pointer" },
	// What the team uses: "우리 <thing> 쓰고 있어", "저희 <thing> 써요".
	{ pattern: /(?:우리|저희) (?:[^\s.?!]+ ){1,5}(?:쓰고 ?있|쓰는 ?중|써요|씁니다)/, weight: 1.5, kind: "fact" },
	// A decision: a verb with 기로 and 했어, 정했어, 결정 or 합의 ("<condition>면 <verb>기로 했어").
	{ pattern: /[가-힣]기로 (?:했|함|정했|결정|합의)/, weight: 2, kind: "rule" },
	// Where to go for something: "…있으면", "…하려면" and a #channel, 채널, 문서, 위키 or 노션.
	{ pattern: /(?:있으면|하려면|필요하면|궁금하면)\s[^.?!]{0,20}(?:#[\w-]+|채널|문서|위키|노션)/, weight: 1, kind: "pointer" },
	// A value given with the copula: "<thing>는 <n>야", "<thing>은 <n>%야", "<thing>는 `<host>`이야", "<per unit> <n> requests라서".
	{
		pattern:
			/(?:은|는|이|가)\s+[^.?!]{0,40}?(?:\d[\d,.:]*\s*[%a-zA-Z가-힣]*|`[^`]*\d[^`]*`)\s*(?:이야|야|예요|이에요|입니다|임|이고|이라서|라서|이니까|니까|인데|이에요)(?:\s|[.!,~]|$)/,
		weight: 2,
		kind: "fact",
	},
	// A value changed: a value, 으로/로 and a verb of changing in the past or a decision ("<n>으로 옮겼대", "<n> requests로
	// 올려줬어", "<n>일로 줄였어", "<n>로 올리기로").
	{
		pattern:
			/(?:\d[\d,.:]*\s*[%a-zA-Z가-힣]*|`[^`]+`|[a-z][\w.-]+)\s*(?:으로|로)\s+(?:다시 )?(?:올렸|올려줬|올라갔|내렸|늘렸|줄였|줄인|낮췄|옮겼|바꿨|바뀌|변경|이전|교체|넘겼|당겼|증설|갈아탔|돌아가|되돌|원복|통일|올리기로|늘리기로|줄이기로|옮기기로|바꾸기로|올리자|내리자|늘리자|줄이자|옮기자|바꾸자|가자)/,
		weight: 2,
		kind: "correction",
	},
	// Schedules: "<요일>에만 배포", "매일 <hh:mm>에 돌아".
	{
		pattern: /[월화수목금토일]요일(?:에만|마다)|(?:매일|매주|격주|매달|평일|주말)(?:에만|마다)?\s*[^.?!]{0,20}(?:돌아|돌려|배포|실행|해)/,
		weight: 2,
		kind: "rule",
	},
	// A feature flag's state: flag or 플래그, then turned on or off or left so (켰어, 껐어, 켜 놨어, 꺼져 있어).
	{ pattern: /(?:flag|플래그|피처 ?플래그)[^?!]{0,30}(?:켰|껐|켜 ?놨|꺼 ?놨|켜 ?뒀|꺼 ?뒀|켜져 ?있|꺼져 ?있)/i, weight: 2, kind: "fact" },
	// Who is on call: on-call, 온콜 or 당번, then a name with 님 ("<area> on-call은 <name>님이 받았어").
	{ pattern: /(?:on-?call|온콜|당번)[^.?!]{0,20}[가-힣]{2,4}님/i, weight: 2, kind: "fact" },
	// Limits: a limit word (한도, 쿼터, 최대, 타임아웃, 분당 …) and a number within a few words ("최대 <n>MB").
	{
		pattern: /(?:한도|쿼터|제한|상한|하한|최대|최소|임계|기준|타임아웃|보관 ?기간|분당|초당|시간당|일일)[^.?!]{0,20}\d/,
		weight: 1,
		kind: "fact",
	},
];
