/**
 * What makes a sentence a durable statement, or a passing one, by its wording: cue tables for
 * English and Korean. Each cue adds weight toward a kind of statement; each trap cue subtracts.
 * The tables describe how people phrase standing rules, bans, corrections, preferences, facts about
 * the project and its people, and pointers to where things live — and, against them, the present
 * moment, the task at hand, questions, musings, other people's opinions and descriptions of code.
 */

import { VALUE_CUES_EN, VALUE_CUES_KO } from "./value-cues";

export type StatementKind = "rule" | "prohibition" | "correction" | "preference" | "fact" | "pointer" | "remember";

export interface Cue {
	pattern: RegExp;
	weight: number;
	kind: StatementKind;
	/** The statement is called a team or shared rule. */
	team?: true;
}

export interface Trap {
	pattern: RegExp;
	weight: number;
	/** `scoped`: limited to the task at hand ("for this PR"), which no other cue outweighs. */
	why: "question" | "ephemeral" | "task" | "scoped" | "hypothetical" | "reported" | "greeting" | "code";
}

// ----------------------------------------------------------------------------------------------
// English

const EN_TASK_VERBS =
	"fix|rename|add|implement|refactor|update|remove|delete|create|build|look|check|investigate|debug|run|try|test|review|bump|move|merge|open|write|change|make|generate|convert|port|split|extract|clean|replace|set up|setup|install|upgrade|downgrade|revert|undo|show|tell|explain|help|find|search|grep|list|print|log|document|commit|push|deploy|wire|hook|send|draft|patch|handle|rewrite|reformat";

const EN_CUES: Cue[] = [
	...VALUE_CUES_EN,
	// Standing rules and their time words.
	{
		pattern:
			/\b(?:from now on|going forward|moving forward|from here on(?: out)?|henceforth|as a (?:general )?rule|by default|as a policy|in the future|in future|every time|each time|whenever)\b/i,
		weight: 2,
		kind: "rule",
	},
	{ pattern: /\b(?:always)\b(?! been)/i, weight: 2, kind: "rule" },
	{ pattern: /\bnever\b(?! mind)(?! been)(?! (?:heard|seen|knew|noticed|thought|used it before))/i, weight: 2, kind: "prohibition" },
	{
		pattern:
			/\b(?:team|project|repo|house|company|org|shared|our|standing|ground|golden|hard) (?:rule|convention|policy|standard|guideline|practice|norm|agreement)s?\b/i,
		weight: 2,
		kind: "rule",
	},
	{
		pattern:
			/\b(?:conventions?|polic(?:y|ies)|rules? of thumb|guidelines?|requirements?|we agreed|we decided|the team decided|agreed on|we'?ve standardi[sz]ed on|standardi[sz]ed on|is a no[- ]go|are a no[- ]go)\b/i,
		weight: 1.5,
		kind: "rule",
	},
	// Norms stated as plain facts about a kind of thing: a plural noun of the work (PRs, migrations, deploys …) and
	// "need", "must", "go", "are always", "are kept" …: "<kind of thing> need <n> <things>", "<kind of thing> go out from <branch>".
	{
		pattern:
			/^(?:all |every |our |the |any )?(?:[\w-]+ )?(?:prs?|pull requests?|mrs?|commits?|branches|tests?|migrations?|deploys?|deployments?|releases?|reviews?|builds?|models?|tables?|endpoints?|services?|changes?|hotfixes?|tickets?|docs?|apis?|env vars?|configs?|jobs?|dags?|queries|schemas?|feature flags?|flags?|amounts?|timestamps?|dates?|ids|logs?|metrics?|alerts?)\b[^.?!]{0,40}?\b(?:need|needs|must|should|have to|has to|go|goes|get|gets|happen|happens|require|requires|are always|is always|are never|is never|are only|is only|are stored|is stored|are kept|is kept)\b/i,
		weight: 1.5,
		kind: "rule",
	},
	{
		pattern:
			/\b(?:the )?(?:person|people|one|contact|go-to(?: person)?|someone|owner) to (?:talk to|ask|ping|contact|reach out to|go to)\b/i,
		weight: 2,
		kind: "fact",
	},
	{
		pattern: /^(?:and |but )?(?:always|never|only)\s+(?:in|on|at|for|from|with|via|through|before|after|when|if)\b/i,
		weight: 0.5,
		kind: "rule",
	},
	{
		pattern:
			/\b(?:team[- ]wide|for (?:everyone|everybody|all of us)(?: on the team)?|the whole team|whole team|across the team|team rule)\b/i,
		weight: 1,
		kind: "rule",
		team: true,
	},
	{ pattern: /^(?:team rule|rule|policy|convention|reminder|pro tip|psa|important|note)\s*[:\-—–]/i, weight: 2, kind: "rule" },
	// Bans.
	{
		pattern:
			/^(?:please\s+|pls\s+|and\s+|also\s+|but\s+)?(?:don'?t|do not|dont|never|stop|avoid|quit|no more|refrain from)\s+(?:ever\s+|even\s+|just\s+)?['"‘“]?(?!worry|bother|mind|know|think|see|care|need|have|wait|rush|panic|get|go|forget)\w+/i,
		weight: 2,
		kind: "prohibition",
	},
	{ pattern: /\b(?:don'?t|do not) ever\b/i, weight: 2, kind: "prohibition" },
	{
		pattern:
			/\b(?:must not|mustn'?t|should never|shouldn'?t ever|(?:is|are)(?: not|n'?t) allowed|not allowed|forbidden|prohibited|banned|off[- ]limits|under no circumstances|no exceptions)\b/i,
		weight: 2,
		kind: "prohibition",
	},
	// Requirements (weak alone: "you need to <verb> …" is a task).
	{
		pattern: /\b(?:must|required to|is required|are required|mandatory|make sure (?:to|you|that|we)|be sure to|ensure that)\b/i,
		weight: 1,
		kind: "rule",
	},
	{
		pattern:
			/\bwe (?:still |always |only |usually |generally |all |now |mostly )?(?:use|don'?t use|do not use|prefer|avoid|require|follow|deploy|host|keep|name|squash|rebase|tag|pin|vendor|lint|format|ship|release|target|support|store|put|stick|do all|do everything|go through|only|write all|run all|review|pair)\b/i,
		weight: 1.5,
		kind: "rule",
	},
	{
		pattern: /\bin (?:this|our|the) (?:repo|repository|project|codebase|monorepo|team|org|company|service|app|shop)\b/i,
		weight: 1,
		kind: "rule",
	},
	{
		pattern:
			/\b(?:this|the|our) (?:repo|repository|project|codebase|team|app|service) (?:uses|runs on|is on|is|deploys|ships|targets|supports)\b/i,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern: /\b(?:non[- ]negotiable|mandatory|a must|a hard requirement|what you can'?t see|not in the code|the code won'?t tell you)\b/i,
		weight: 1.5,
		kind: "rule",
	},
	{ pattern: /\bthat'?s how we (?:do|handle|manage|run)\b/i, weight: 1.5, kind: "rule" },
	{
		pattern:
			/\bevery (?:[\w.-]+ ){0,5}(?:needs|requires|must|should|has to|gets|goes)\b|\b(?:all|any) [\w-]+ (?:must|need to|needs to|should|have to)\b/i,
		weight: 2,
		kind: "rule",
	},
	{
		pattern: /\bwe (?:don'?t|do not|never) (?:allow|accept|merge|ship|deploy|use|do|run|store|commit|support)\b/i,
		weight: 2,
		kind: "prohibition",
	},
	{
		pattern: /\b(?:security|compliance|legal|privacy|company|org|engineering) (?:policy|requirement|rule|guideline)s?\b/i,
		weight: 1.5,
		kind: "rule",
	},
	{ pattern: /\b(?:pls|please|plz),? (?:not|no|never)\b/i, weight: 2, kind: "preference" },
	{ pattern: /\b(?:for context|some context|background:|context:)/i, weight: 1, kind: "fact" },
	// Explicit requests to remember (a task reminder, "remember to X", is handled with the traps).
	{ pattern: /\bkeep (?:that|this|it) in mind\b|\b(?:remember|don'?t forget) (?:that|this)\s*[.!]?$/i, weight: 2, kind: "remember" },
	{
		pattern:
			/\b(?:remember|keep in mind|bear in mind|note that|take note|don'?t forget|never forget|for future reference|for (?:the|your) (?:record|reference)|worth remembering|good to know|fyi|for your information|heads[- ]up)\b/i,
		weight: 2,
		kind: "remember",
	},
	// Preferences.
	{
		pattern:
			/\bi (?:really |strongly |much |generally |usually )?(?:prefer|hate|dislike|can'?t stand|'d rather|would rather|like it when|like when|like to|don'?t like|do not like|don'?t want|do not want|want you to (?:always|never|keep|use|write|answer|reply|respond|explain|be|stop|avoid))\b/i,
		weight: 2,
		kind: "preference",
	},
	{
		pattern: /\b(?:my preference|i'?m a fan of|i'?m not a fan of|please (?:always|never)|prefer(?:ably)?)\b/i,
		weight: 1.5,
		kind: "preference",
	},
	{
		pattern:
			/\b(?:keep|make) (?:your |the |all |my |our )?(?:answers?|replies|reply|responses?|explanations?|messages?|summar(?:y|ies)|comments?|output|prs?|pull requests?|commits?|diffs?|changes|functions?|code)\b[\w ,]{0,24}?\b(?:short|brief|concise|terse|small|minimal|focused|simple|readable|under \d+)\b/i,
		weight: 2,
		kind: "preference",
	},
	{
		pattern:
			/\b(?:answer|reply|respond|write|talk|explain|comment) (?:to me )?(?:in|using) (?:korean|english|japanese|chinese|german|french|spanish|plain english|bullet points|bullets)\b/i,
		weight: 1.5,
		kind: "preference",
	},
	{
		pattern: /\buse (?:tabs|spaces|single quotes|double quotes|semicolons|trailing commas|\d+[- ]space)/i,
		weight: 1.5,
		kind: "preference",
	},
	// Replacements: "use X instead of Y".
	{ pattern: /\buse\s+[\w.@/-]+(?:\s+[\w.@/-]+)?\s*,?\s*(?:instead of|rather than|over|not)\s+[\w.@/-]+/i, weight: 2, kind: "rule" },
	{ pattern: /\binstead of\s+[\w.@/-]+(?:\s+[\w.@/-]+)?\s*,?\s*(?:use|go with|we use)\s+[\w.@/-]+/i, weight: 2, kind: "rule" },
	// Corrections of what was said or assumed.
	{
		pattern:
			/^(?:no|nope|nah|wrong|incorrect|not quite|that'?s (?:not right|wrong|incorrect|outdated|old|the old one)|actually|correction|wait|hmm,? (?:no|actually)|oops|my bad|sorry)\b[,.:;!—–-]*\s*\S/i,
		weight: 1,
		kind: "correction",
	},
	{
		pattern:
			/^(?:update|edit|correction|scratch that|turns out|that changed|this changed|change of plans?|fyi,? that changed)\b[\s,.:;!—–-]*\S|\bscratch (?:that|what i (?:told|said)|my)\b|\b(?:something|what) i (?:told|said to|gave) you\b|\b(?:is|are|was|were) actually\b|\b(?:i )?had (?:that|it|this) wrong\b|\bgot (?:that|it|this) wrong\b|\bthat changed\b/i,
		weight: 1.5,
		kind: "correction",
	},
	{
		pattern:
			/\b(?:correction|i was wrong|i misspoke|i mixed (?:it|them) up|i told you wrong|let me correct|to correct|that was wrong|outdated|no longer|not anymore|anymore|isn'?t (?:true|right) anymore)\b/i,
		weight: 1.5,
		kind: "correction",
	},
	{
		pattern:
			/\b[A-Z][a-z]+ (?:does|handles|owns|reviews|runs|approves|is on) [\w -]{1,30} now\b|\bnow (?:it'?s )?[A-Z][a-z]+ (?:who )?(?:does|handles|owns|reviews|runs)\b|\b(?:is now|are now|now owns?|moved (?:it |them )?to|has moved|have moved|switched to|changed to|took over|takes over|handed (?:it |them )?(?:off|over) to|replaced by|as of (?:this|the|today|now|v?\d))\b/i,
		weight: 1.5,
		kind: "correction",
	},
	// Standing facts about people and ownership.
	{
		pattern:
			/\b(?:owns|owner of|the owner|owners of|is responsible for|are responsible for|in charge of|maintains|maintainer of|takes care of|point of contact|poc for|on[- ]call for|is our|are our|'s our|leads the|manages the|runs the|handles (?:all|the|our|any))\b/i,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:ask|ping|talk to|reach out to|contact|loop in|go to|check with)\s+@?[A-Z][\w-]+\b[^.?!]{0,40}\b(?:for|about|with|if|whenever|when|on)\b/,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern:
			/\b[A-Z][a-z]+ (?:does|handles|owns|runs|reviews|approves|signs off on|is in charge of) (?:all|every|the|our|any)\b|\bis the only (?:one|person) (?:with|who)\b|\bonly [A-Z][a-z]+ (?:has|can)\b|\b(?:has|have) (?:admin |write |the only )?access to\b|\bit'?s [A-Z][a-z]+ (?:for|who)\b/,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:release manager|tech lead|team lead|product owner|code owner|reviewer for|reviews (?:all|the|every|frontend|backend))\b/i,
		weight: 1.5,
		kind: "fact",
	},
	// Standing facts about where and how the project runs.
	{
		pattern:
			/\b(?:is|are|gets|get|was|were) (?:deployed|hosted|served|running|run|stored|kept|published|built|released|mirrored|backed up|provisioned|managed) (?:on|in|at|to|from|via|through|with|by|under|as)\b/i,
		weight: 1.5,
		kind: "fact",
	},
	{ pattern: /\b(?:runs|listens|lives|sits|is|are|'s) on port \d+|\bport \d{2,5}\b/i, weight: 1.5, kind: "fact" },
	{
		pattern:
			/\b(?:runs?|is running|are running|lives|is hosted|are hosted|is|are|sits) (?:on|in) (?:[A-Z][\w.]*[\w]|aws|gcp|azure|k8s|kubernetes|heroku|vercel|fly\.io|render|railway|neon|supabase|planetscale|ecs|eks|gke|aks|lambda|cloud run|cloudflare)\b/,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:prod(?:uction)?|staging|dev|cluster|server|servers|db|database|host|instance|nodes?|runners?|ci|fleet)\b(?: [\w-]+)? (?:is|are|runs?) (?:still |already |now )?(?:on|using|at) [\w.-]+ v?\d/i,
		weight: 1.5,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:staging|prod(?:uction)?|dev|preview|qa|sandbox|docs|api|admin|the dashboard|the console)\b(?: [\w-]+)? (?:is|are|lives at|is at|is now|now lives at|moved to)\s+(?:https?:\/\/)?[\w-]+(?:\.[\w-]+)+/i,
		weight: 2,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:url|urls|host|hostname|domain|address|endpoint|dsn|bucket|region|account id|project id|base url)(?: for [\w-]+)? (?:is|are|=|:)\s*(?:at\s+)?[\w-]+\.[\w.-]+/i,
		weight: 2,
		kind: "fact",
	},
	{
		pattern:
			/\b(?:we|our [\w-]+|the app|the sdk|the api|it) (?:support|supports|target|targets)\b|\bsupported (?:versions?|platforms?|browsers?)\b|\bminimum (?:supported )?(?:version|ios|android|node|python|go|java|ruby)\b/i,
		weight: 1.5,
		kind: "fact",
	},
	// Pointers: where things live.
	{
		pattern:
			/\b(?:lives?|are kept|is kept|is stored|are stored|can be found|is documented|are documented|is tracked|are tracked|is written up|are written up|is described|are described|is pinned|are pinned|is|are)\s+(?:all\s+)?(?:in|at|on|under)\s+(?:the\s+)?(?:notion|confluence|the wiki|wiki|figma|google (?:drive|docs?|sheets?)|gdrive|drive|sharepoint|jira|linear|slack|#[\w-]+|[\w.-]+\/[\w./-]*|https?:\/\/|s3:\/\/|gs:\/\/|1password|vault)/i,
		weight: 2.5,
		kind: "pointer",
	},
	{
		pattern:
			/\b(?:notion|confluence|wiki|figma|google (?:drive|docs?|sheets?)|gdrive|sharepoint|jira|linear|slack channel|runbooks?|playbooks?|dashboards?|grafana|datadog|sentry|kibana|1password|design doc|adr|rfc)\b[^.?!]{0,60}\b(?:under|in|at|is|are|has|have|lives?|page|folder|space|board)\b/i,
		weight: 1.5,
		kind: "pointer",
	},
	{
		pattern:
			/\b(?:see|check|refer to|look (?:it |them )?up in|find (?:it|them|everything) in)\s+(?:the\s+)?(?:[\w.-]+\/[\w./-]*|https?:\/\/\S+|#[\w-]+)/i,
		weight: 1.5,
		kind: "pointer",
	},
	{
		pattern:
			/\b(?:runbooks?|playbooks?|docs?|guides?|documentation|specs?|schemas?|fixtures|credentials|secrets|configs?) (?:live|lives|are|is) (?:all )?(?:in|under|at)\b/i,
		weight: 2,
		kind: "pointer",
	},
];

const EN_TRAPS: Trap[] = [
	{ pattern: /\?\s*$/, weight: 4, why: "question" },
	{
		pattern:
			/^(?:why|where|what|how|which|who|whose|is there|are there|does|did|do (?:we|you|i)|can (?:we|you|i)|could (?:we|you)|would|will|isn'?t|aren'?t|doesn'?t|any idea)\b(?![^:]{0,30}:)/i,
		weight: 2,
		why: "question",
	},
	{
		pattern:
			/\b(?:today|tonight|this (?:morning|afternoon|evening|week|sprint)|right now|at the moment|atm|rn|for now|for the moment|temporarily|just now|as we speak|at this point|this time|yesterday|this weekend|till (?:monday|tomorrow)|until (?:monday|tomorrow|further notice))\b/i,
		weight: 3,
		why: "ephemeral",
	},
	{
		pattern:
			/\b(?:is|are|'s|'re|seems?|looks?) (?:down|red|broken|flaky|failing|slow|super slow|stuck|offline|unreachable|busy|acting up)\b/i,
		weight: 2,
		why: "ephemeral",
	},
	{ pattern: /\bi'?m (?:on|in|at|about|heading|off|out|busy|tired|back)\b/i, weight: 2, why: "ephemeral" },
	{
		pattern: /\b(?:always|never) (?:fails|breaks|crashes|times out|flakes|works)\b|\bon my (?:machine|laptop|box|mac)\b/i,
		weight: 3,
		why: "ephemeral",
	},
	// Habits of the speaker, not rules: "I always forget …", "I usually mix up …".
	{
		pattern: /\bi (?:always|never|usually|keep) (?:forget|remember|mess|get|confuse|mix|struggle|have trouble|end up|lose)\b/i,
		weight: 3,
		why: "hypothetical",
	},
	{
		pattern:
			/\b(?:for|in|on) (?:this|the current|that|these) (?:pr|pull request|mr|merge request|task|ticket|issue|change|changes|branch|commit|fix|feature|story|file|function|bug|migration|one|release only)\b|\bjust (?:this once|for now|here)\b|\bonly (?:here|in this|for this)\b|\bthis pr\b/i,
		weight: 3,
		why: "scoped",
	},
	{
		pattern:
			/\b(?:maybe|perhaps|someday|some day|eventually|one day|might|could consider|thinking (?:about|of)|not sure|i wonder|wondering|would be nice|at some point|nothing'?s decided|not decided|undecided|tbd|considering|possibly|should we|what if|i guess)\b/i,
		weight: 3,
		why: "hypothetical",
	},
	{
		pattern:
			/\b(?:[A-Z][a-z]+|someone|somebody|they|he|she|people|the (?:pm|lead|team lead|designer|manager|cto|ceo))\s+(?:thinks|thought|suggested|suggests|proposed|proposes|wants|wanted|mentioned|said|says|argues|argued|believes|feels|floated|pitched|keeps saying)\b/,
		weight: 3,
		why: "reported",
	},
	{
		pattern:
			/^(?:hi|hey|hello|thanks|thank you|thx|ty|cheers|great|nice|cool|awesome|perfect|lgtm|sounds good|ok(?:ay)?|got it|good morning|morning|yes|yep|yeah|sure|done|nope,? (?:that'?s|thats) it|that'?s it|thats it|all good|works|it works)\b[\w ,!.~']{0,30}$/i,
		weight: 4,
		why: "greeting",
	},
	{
		pattern:
			/\b(?:returns|throws|takes an?|accepts an?|is called (?:from|by|in)|is defined|is declared|is exported|is imported|extends|implements|is an? (?:function|class|method|hook|component|type|interface|enum|const)|(?:is|are) (?:generated|built|compiled|rendered) (?:from|by|with))\b/i,
		weight: 2,
		why: "code",
	},
	{ pattern: /\.(?:tsx?|jsx?|py|go|rs|java|kt|rb|swift|cs|php)(?::\d+|\s+line\s+\d+)\b|\bline \d+\b/i, weight: 2, why: "code" },
	{
		pattern:
			/\b(?:app|project|repo|codebase|package|frontend|backend|we'?re|it'?s|code) (?:is |are |'s )?(?:on|using) (?:v\d|version \d|[A-Za-z][\w.-]* v?\d)/i,
		weight: 1.5,
		why: "code",
	},
	// A request of the moment: "I need a <thing> …", "we want a new <thing> for …", "I need <doing something> …".
	{
		pattern:
			/^(?:i|we) (?:need|want) (?!you to (?:always|never))(?:a |an |the |some |new |to (?:add|build|write|fix|get)\b|(?:[\w-]+ )?[\w-]+ing\b)/i,
		weight: 2,
		why: "task",
	},
	// Today's task: an instruction that starts with a task verb, and "remember to …" for the task.
	{
		pattern: new RegExp(
			String.raw`^(?:(?:now|then|next|also|and|ok(?:ay)?|so|please|pls|first|after that|can you|could you|would you|can u|could u|let'?s|go ahead and|i need you to|i want you to|need you to)[,\s]+)*(?:${EN_TASK_VERBS})\b(?!\s*:)`,
			"i",
		),
		weight: 1.5,
		why: "task",
	},
	{
		pattern: /\b(?:remember to|don'?t forget to|make sure to)\b(?![^.]*\b(?:always|every|each|whenever|any time|future)\b)/i,
		weight: 2.5,
		why: "task",
	},
];

// ----------------------------------------------------------------------------------------------
// Korean. Stems are matched without their particles and endings: 배포 stands for 배포는, 배포할 때 and 배포돼요.

const KO_CUES: Cue[] = [
	...VALUE_CUES_KO,
	{ pattern: /(?:항상|늘|언제나|매번|언제든|무조건|반드시|절대로?)/, weight: 2, kind: "rule" },
	{ pattern: /(?:앞으로(?:는)?|이제부터|지금부터|다음부터|향후|앞으론)/, weight: 2, kind: "rule" },
	{ pattern: /(?:규칙|컨벤션|원칙|정책|룰|가이드라인|표준|관례|방침|약속|국룰)/, weight: 2, kind: "rule" },
	{
		pattern: /(?:팀 ?(?:규칙|룰|컨벤션|원칙|정책|공지|전체|공통)|우리 팀|모든 팀원|팀원 ?(?:모두|전부|다)|전사)/,
		weight: 1,
		kind: "rule",
		team: true,
	},
	{
		pattern: /(?:우리|저희|팀) ?(?:방식|스타일|관례|규칙|룰|컨벤션)|(?:게|것이|건|는 게) (?:우리|저희|팀) (?:방식|스타일|규칙|룰)/,
		weight: 2,
		kind: "rule",
	},
	{ pattern: /^(?:우리|저희)(?: 팀)?(?:은|는|도) /, weight: 1.5, kind: "rule" },
	{ pattern: /^[^\s.?!]+(?:은|는) [^?!]{1,80}(?:으로|로|형식으로|방식으로|기준으로)\s*[.!]?$/, weight: 1.5, kind: "rule" },
	{ pattern: /[^\s]+ 말고 [^.?!]{1,30}(?:으로|로|를|을|만) /, weight: 2, kind: "rule" },
	{ pattern: /(?:면|때는?|경우(?:에는?)?) [^.?!]{0,40}(?:꼭|반드시|항상|무조건)/, weight: 2, kind: "rule" },
	{
		pattern:
			/(?:해야|돼야|되어야|써야|거쳐야|받아야|올려야|지켜야|넣어야|붙여야|맞춰야|잡아야|둬야) ?(?:돼|되|해|합니다|함|됩니다|한다|된다|하고)/,
		weight: 2,
		kind: "rule",
	},
	{ pattern: /(?:요구사항|보통|대개|원칙적으로|기본적으로|기본은|필수|의무)/, weight: 1.5, kind: "rule" },
	{
		pattern: /(?:는|은) [^.?!]{0,30}(?:엔|에는|때는) 안 ?(?:해요|합니다|함|해)|(?:는|은) 안 쓰는 ?(?:걸로|것으로)|(?:으로|로) 가기로/,
		weight: 2,
		kind: "rule",
	},
	{
		pattern: /(?:하기로 (?:했|함|정했|결정)|쓰기로 (?:했|함)|가기로 (?:했|함)|로 (?:통일|정했|정함|결정)|정해져 ?있|로 고정)/,
		weight: 2,
		kind: "rule",
	},
	{
		pattern:
			/(?:하지 ?마(?:세요|요|라|십시오)?|하지 ?말(?:아|고|것|기|아 ?주세요|아 ?줘|자)|쓰지 ?마|쓰지 ?말|돌리지 ?마|올리지 ?마|넣지 ?마|건드리지 ?마|지우지 ?마|금지|(?:하면|쓰면|올리면|넣으면|돌리면|쓰시면|하시면) ?안 ?(?:돼|됩니다|되요|됨)|해선 ?안 ?(?:돼|됨)|말아 ?(?:줘|주세요|요)|마세요|말 ?것)/,
		weight: 2,
		kind: "prohibition",
	},
	{
		pattern: /(?:기억해|기억하|기억 ?해 ?(?:둬|두세요|주세요)|잊지 ?마|잊지 ?말|명심|참고로|참고해|알아 ?(?:둬|두세요|두시면)|메모해)/,
		weight: 2,
		kind: "remember",
	},
	{
		pattern: /(?:는|은|하는|안 하는|안 쓰는|쓰는) ?(?:걸로|것으로) (?:했|함|하자|정했|정함|결정)|(?:오늘|지금|이제)부터/,
		weight: 2,
		kind: "rule",
	},
	{ pattern: /(?:코드(?:엔|에는|에서는?) 안 ?나와|코드로는 (?:알 수 없|안 보여)|배경 ?(?:좀 )?(?:설명|말씀))/, weight: 1.5, kind: "fact" },
	{
		pattern:
			/(?:선호|좋아해|좋아함|싫어해|싫어함|편해|편함|해 ?줬으면|해 ?주면 좋겠|했으면 좋겠|스타일로|위주로|(?:게|는 게|것이|편이) (?:좋아|좋음|좋겠|좋습니다|나아|나음|낫))/,
		weight: 1.5,
		kind: "preference",
	},
	{
		pattern:
			/(?:짧게|간결하게|간단하게|길게 ?말고|요약해서|한국어로|영어로|존댓말|반말로)[^.?!]{0,12}(?:답|대답|설명|써|작성|말해|해 ?줘|해 ?주|부탁)/,
		weight: 2,
		kind: "preference",
	},
	{
		pattern:
			/(?:그거 아니고|그게 아니고|그거 말고|정정:|정정(?:할게|합니다|해요)|잘못 (?:알려|말했|얘기)|헷갈렸|바뀌었|바뀜|바꼈|변경됐|변경되었|옮겼|옮김|이전했|넘어갔|으로 바뀌|로 바뀌|더 이상|이제 ?(?:안|없)|이제는)/,
		weight: 1.5,
		kind: "correction",
	},
	{
		pattern: /이제(?:부터|는)? [^.?!]{0,40}(?:님이|씨가|팀이|님께서) [^.?!]{0,12}(?:해요|하세요|합니다|해|하셔요|맡아|맡고|맡으|담당)/,
		weight: 1.5,
		kind: "correction",
	},
	{
		pattern: /(?:가|이) 아니라|^(?:아니(?:요|야|고|라)?|아뇨|ㄴㄴ|노노|놉|그게 아니라|정정|아 맞다|틀렸|잘못)[\s,.]/,
		weight: 1,
		kind: "correction",
	},
	{
		pattern:
			/(?:지난번에?|아까|전에|저번에) [^.?!]{0,40}(?:라고 (?:했|말씀|얘기)|했던 거|말한 거)|(?:으로|로) (?:올렸|내렸|늘렸|줄였|바꿨|바뀌었|변경했|변경됐|옮겼|이전했|교체했|넘겼)/,
		weight: 2,
		kind: "correction",
	},
	{ pattern: /(?:담당|책임자|오너|관리(?:해|하|는|자)|맡고|맡아|맡으|전담|소유|리뷰어|소관|관할)/, weight: 1.5, kind: "fact" },
	{
		pattern: /(?:에|한테|에게|께) (?:요청|문의|말씀|얘기|연락)(?:하면|드리면|주시면) (?:돼|됩니다|됨|되고)|보면 (?:돼|됨|됩니다|되고|돼요)/,
		weight: 2,
		kind: "pointer",
	},
	{ pattern: /(?:최소 (?:지원|버전)|지원 (?:버전|범위)|부터는)/, weight: 2, kind: "fact" },
	{ pattern: /#[\w-]+ ?채널|쌓(?:여|임|입니다|이고)/, weight: 1, kind: "pointer" },
	{ pattern: /(?:한테 (?:물어|문의|요청|연락)|에게 (?:물어|문의|요청|연락)|께 (?:물어|문의|여쭤))/, weight: 1.5, kind: "fact" },
	{
		pattern:
			/(?:배포(?:돼|되|해요|합니다|함|는)|호스팅|올라가 ?있|떠 ?있|돌아가(?:요|고 있)|포트|리전|서버는|클러스터|버전은|지원(?:해|합니다|함|하는|범위)|최소 버전|최소 지원)/,
		weight: 1,
		kind: "fact",
	},
	{ pattern: /우리 (?:[^\s.?!]+ ){0,3}[^\s.?!]*(?:이야|야|예요|이에요|입니다|임|이고|써요|씀|쓰고 ?있)/, weight: 1.5, kind: "fact" },
	{ pattern: /(?:으로|로) (?:되어|돼) ?있|(?:으로|로) 설정(?:돼|되어)/, weight: 1.5, kind: "fact" },
	{
		pattern: /(?:폴더|디렉토리|디렉터리|레포|저장소|버킷|경로|페이지|시트|문서)(?:에|에서) (?:있|정리|모아|올려|보면)/,
		weight: 2,
		kind: "pointer",
	},
	{
		pattern:
			/(?:노션|위키|컨플루언스|confluence|notion|wiki|피그마|figma|구글 ?(?:드라이브|독스|시트)|드라이브|지라|jira|슬랙|slack|채널|대시보드|그라파나|grafana|런북|플레이북|문서|s3:\/\/|https?:\/\/|[\w.-]+\/[\w./-]*)[^.?!]{0,40}(?:에 있|에 정리|에서 (?:보|확인)|참고|보면 ?(?:돼|됨|되고|됩니다)|에 올려|에 다 있|에 모여|에 있어|있어요|있음|에 적혀|에 나와)/i,
		weight: 2.5,
		kind: "pointer",
	},
	{ pattern: /(?:에 있어요|에 있어|에 있음|에 있습니다|에 있고|에 모여 ?있|에 정리돼 ?있|에 정리되어 ?있)/, weight: 1, kind: "pointer" },
];

const KO_TRAPS: Trap[] = [
	{
		pattern:
			/\?\s*$|(?:맞죠|맞지|맞나요|뭐야|뭐예요|어디(?:야|예요|에 있)|왜 |어떻게 ?(?:해|돼|하)|인가요|일까요|나요|을까|ㄹ까|는지 ?(?:봐|알려))\s*[.~]*\s*$/,
		weight: 4,
		why: "question",
	},
	{ pattern: /(?:오늘|지금|현재|방금|아까|이따|이번 ?주|요즘|당분간|임시로|일단|잠깐|어제|내일)(?!부터)/, weight: 2.5, why: "ephemeral" },
	{ pattern: /(?:죽어 ?있|느리|느려|깨져 ?있|빨간불|실패하고|터졌|안 ?돌아|먹통|다운)/, weight: 2, why: "ephemeral" },
	{
		pattern: /(?:항상|맨날|늘) [^.?!]{0,20}(?:막히|헷갈|까먹|잊어|실수|틀리)|(?:내 ?(?:맥|컴|로컬|노트북))에서/,
		weight: 3,
		why: "hypothetical",
	},
	{ pattern: /(?:이번만|이번에만|예외로|한 번만)/, weight: 3, why: "scoped" },
	// Something the agent reads in the repository itself: "<path> 밑에 있는 거 보이실 거예요" (you will see it there).
	{ pattern: /(?:보이실|보일|보이시) ?(?:거예요|거에요|겁니다|거야|걸요)|보이시죠/, weight: 2, why: "code" },
	// Starting a piece of work: the sentence ends in 시작 or 착수 with an ending (시작해요, 착수합니다, 시작할게).
	{ pattern: /(?:시작|착수)(?:해요|합니다|할게요|할게|하자|해|했어요|했어)\s*[.!~]*$/, weight: 3.5, why: "task" },
	// "<place>에 <thing> 추가해야 함" (a verb of work with 해야 / 돼야): work to do, not a rule.
	{
		pattern: /(?:추가|수정|구현|개발|작성|처리|변경|삭제|정리|연동|적용|마이그레이션)(?:해야|돼야) ?(?:함|돼요|됩니다|해요|해|돼|합니다)/,
		weight: 2,
		why: "task",
	},
	{ pattern: /(?:이번 ?(?:PR|피알|작업|커밋|티켓|브랜치|건|릴리즈|스프린트|에만|만)|이 ?PR|여기서만|이것만)/i, weight: 3, why: "scoped" },
	{
		pattern: /(?:나중에|언젠가|할까|볼까|싶기도|고민 ?중|모르겠|보류|아직 ?(?:안|미정|결정)|검토 ?중|어떨까|좋을 ?듯|좋을지도|괜찮을지도)/,
		weight: 3,
		why: "hypothetical",
	},
	{
		pattern: /(?:님(?:은|이|께서는?)|씨(?:는|가))[^.?!]{0,40}(?:하자고|하시는데|했는데|라는데|래요|그러던데|말하던데|의견|생각하시|주장)/,
		weight: 3,
		why: "reported",
	},
	{
		pattern: /^(?:안녕|고마워|고맙|감사|수고|ㄳ|ㄱㅅ|굿|좋아요|좋네|오케이|ㅇㅋ|ㅇㅇ|넵|네네?|응|오 ?굿|완벽|최고)[\s\S]{0,20}$/,
		weight: 4,
		why: "greeting",
	},
	{
		// "라인" as a line of code ("42 라인", "라인 42"), not inside 온라인 / 파이프라인.
		pattern:
			/(?:리턴|반환|호출(?:해|하|돼)|정의돼|선언돼|상속|구현돼|\d+\s?번?째?\s?라인|라인\s?\d+|번째 줄|\.(?:tsx?|jsx?|py|go|java|kt):\d+)/,
		weight: 2,
		why: "code",
	},
	{
		pattern:
			/(?:해 ?줘|해 ?주세요|해 ?줄래|해 ?주실래요|고쳐|추가해|바꿔 ?줘|만들어 ?줘|봐 ?줘|봐 ?주세요|확인해 ?줘|확인해 ?주세요|짜 ?줘|돌려 ?줘|올려 ?줘|지워 ?줘|정리해 ?줘)\s*[.!~]*\s*$/,
		weight: 1.5,
		why: "task",
	},
];

export const HANGUL = /[\u1100-\u11ff\u3130-\u318f\uac00-\ud7af]/;

export interface Analysis {
	score: number;
	penalty: number;
	kinds: Map<StatementKind, number>;
	team: boolean;
	traps: Trap["why"][];
	/** The part of the penalty that comes from words about the present moment. */
	ephemeral?: number;
}

/** Weighs one sentence against the cue tables of its language (both, for mixed text). */
export function analyse(sentence: string): Analysis {
	const korean = HANGUL.test(sentence);
	const cues = korean ? [...KO_CUES, ...EN_CUES] : EN_CUES;
	const traps = korean ? [...KO_TRAPS, ...EN_TRAPS.filter((t) => t.why === "question" && t.pattern.source.startsWith("\\?"))] : EN_TRAPS;
	const kinds = new Map<StatementKind, number>();
	let score = 0;
	let team = false;
	for (const cue of cues) {
		if (!cue.pattern.test(sentence)) continue;
		score += cue.weight;
		kinds.set(cue.kind, (kinds.get(cue.kind) ?? 0) + cue.weight);
		if (cue.team) team = true;
	}
	let penalty = 0;
	let ephemeral = 0;
	const why: Trap["why"][] = [];
	for (const trap of traps) {
		if (!trap.pattern.test(sentence)) continue;
		penalty += trap.weight;
		if (trap.why === "ephemeral") ephemeral += trap.weight;
		why.push(trap.why);
	}
	return { score, penalty, kinds, team, traps: why, ephemeral };
}

/** Whether an analysed sentence states something durable. */
export function isDurable(a: Analysis): boolean {
	if (a.traps.includes("greeting") && a.score < 3) return false;
	if (a.traps.includes("question") && a.penalty >= 4) return false;
	if (a.traps.includes("scoped")) return false;
	// "Now" words in a correction say what holds from now on, not what holds only today.
	const penalty = a.kinds.has("correction") ? a.penalty - (a.ephemeral ?? 0) : a.penalty;
	return a.score >= 1.5 && a.score - penalty >= 1;
}

/**
 * The sentence's kind: a correction is about the thing it corrects (a fact, a pointer or a rule), so
 * its other cues decide the memory type while `correction` marks it.
 */
export function kindOf(a: Analysis): StatementKind {
	if (a.kinds.has("correction")) {
		if (a.kinds.has("pointer")) return "pointer";
		if (a.kinds.has("fact")) return "fact";
	}
	let best: StatementKind = "fact";
	let weight = -1;
	for (const [kind, w] of a.kinds) {
		if (kind === "correction" || kind === "remember") continue;
		if (w > weight) {
			best = kind;
			weight = w;
		}
	}
	if (weight < 0) return a.kinds.has("remember") ? "remember" : "fact";
	return best;
}

/** A short sentence that only asks to remember the one before it: "keep that in mind", "기억해 두세요". */
export const REMEMBER_ONLY =
	/^(?:please\s+)?(?:remember (?:that|this|it)|keep (?:that|this|it) in mind|don'?t forget (?:that|this|it)|note (?:that|this)|(?:꼭 )?기억해 ?(?:둬|두세요|주세요|줘|요)?|잊지 ?(?:마|말아 ?줘|마세요|말아요)|명심해 ?(?:줘|주세요)?)[.!~]*$/i;

/** Korean references back to what was just said: 거기, 그거, 그걸, 그것 ("그거 써", use that one). */
export const REFERS_BACK = /(?:거기|그거|그걸|그것)/;

/** A short sentence that only labels the one before it: "that's a <team> rule", "이건 <scope> 컨벤션임". */
export const LABEL_ONLY =
	/^(?:(?:this|that|it)(?:'s| is| was)?|these are|those are|이건|이거|그건|그거|이게|이것은|요건)\s+[^.?!]{0,40}(?:rule|convention|policy|standard|규칙|룰|컨벤션|원칙|정책|방침|국룰)[^.?!]{0,20}[.!]?$|^(?:(?:it'?s|that'?s) )?(?:a |an |our |the )?(?:team|house|project|repo|company|hard|standing)?[ -]?(?:rule|convention|policy)[.!]?$|^(?:우리|저희)? ?(?:팀|프로젝트|회사)? ?(?:규칙|룰|컨벤션|원칙|정책|방침)(?:이에요|이야|입니다|임|예요|이고요|이거든요)?[.!~]*$/i;
