/**
 * Hosts as the danger check (src/security/danger.ts) weighs them: where a command or an instruction
 * points. A host is local (this machine, a private network, a reserved name), one of the public
 * package and code hosts every project uses (the targets a registry or a remote normally has), a
 * look-alike of one of those, a link shortener, or unknown. Only the registrable part of a name is
 * compared, so `github.acme.com` is the company's host, not GitHub's, and `github-cdn.net` is a
 * look-alike of GitHub's.
 */

const LOCAL_SUFFIXES = [
	"localhost",
	"internal",
	"local",
	"lan",
	"corp",
	"intra",
	"intranet",
	"home.arpa",
	"svc",
	"cluster.local",
	"test",
	"example",
	"invalid",
	"localdomain",
	"private",
];

const INTERNAL_LABELS = new Set(["corp", "internal", "intranet", "intra", "private", "lan", "local"]);

/** Registrable domains of the public registries, code hosts and toolchain sites projects fetch from. */
const OFFICIAL = new Set([
	"npmjs.org",
	"npmjs.com",
	"yarnpkg.com",
	"pypi.org",
	"pythonhosted.org",
	"python.org",
	"golang.org",
	"go.dev",
	"crates.io",
	"rust-lang.org",
	"rustup.rs",
	"rubygems.org",
	"apache.org",
	"maven.org",
	"gradle.org",
	"nuget.org",
	"packagist.org",
	"docker.com",
	"docker.io",
	"ghcr.io",
	"gcr.io",
	"quay.io",
	"k8s.io",
	"github.com",
	"githubusercontent.com",
	"gitlab.com",
	"bitbucket.org",
	"anaconda.org",
	"anaconda.com",
	"pytorch.org",
	"nodejs.org",
	"deno.land",
	"jsr.io",
	"debian.org",
	"ubuntu.com",
	"microsoft.com",
	"amazonaws.com",
	"aws",
	"googleapis.com",
	"google.com",
	"cloudflare.com",
	"hashicorp.com",
	"terraform.io",
	"brew.sh",
	"cocoapods.org",
	"swift.org",
	"conda-forge.org",
	"gradle-plugins.org",
	"dot.net",
	"dotnet.microsoft.com",
	"jetbrains.com",
	"visualstudio.com",
	"huggingface.co",
	"example.com",
	"example.org",
	"example.net",
]);

/** Brand words whose appearance in an unrelated registrable name makes it a look-alike. */
const BRANDS = [
	"github",
	"gitlab",
	"npmjs",
	"npm",
	"pypi",
	"python",
	"golang",
	"crates",
	"rubygems",
	"docker",
	"google",
	"microsoft",
	"amazon",
	"aws",
	"azure",
	"cloudflare",
	"nodejs",
	"yarnpkg",
	"anthropic",
	"openai",
	"slack",
	"atlassian",
	"bitbucket",
	"hashicorp",
	"terraform",
	"kubernetes",
	"rustup",
	"pytorch",
	"ubuntu",
	"debian",
];

const SHORTENERS = new Set([
	"bit.ly",
	"tinyurl.com",
	"t.co",
	"goo.gl",
	"is.gd",
	"v.gd",
	"ow.ly",
	"buff.ly",
	"rebrand.ly",
	"cutt.ly",
	"shorturl.at",
	"rb.gy",
	"t.ly",
	"tiny.cc",
	"s.id",
	"lnkd.in",
	"git.io",
	"bit.do",
	"adf.ly",
	"shorte.st",
	"tiny.one",
	"short.io",
	"bl.ink",
	"soo.gd",
	"clck.ru",
	"qrco.de",
	"han.gl",
	"me2.do",
	"vo.la",
	"url.kr",
	"naver.me",
]);

/** Second-level labels under which names are registered in some country domains (co.uk, co.kr, com.au). */
const SECOND_LEVEL = new Set(["co", "com", "net", "org", "ac", "go", "or", "ne", "gov", "edu"]);

export type HostKind = "local" | "official" | "lookalike" | "shortener" | "unknown";

/** The registrable part of a host name: `a.b.example.co.kr` → `example.co.kr`. */
export function registrable(host: string): string {
	const labels = host.toLowerCase().replace(/\.$/, "").split(".");
	if (labels.length <= 2) return labels.join(".");
	const sld = labels.at(-2) ?? "";
	const take = SECOND_LEVEL.has(sld) && (labels.at(-1) ?? "").length === 2 ? 3 : 2;
	return labels.slice(-take).join(".");
}

const isPrivateIp = (host: string) =>
	/^(?:127\.|10\.|192\.168\.|172\.(?:1[6-9]|2\d|3[01])\.|169\.254\.|0\.0\.0\.0$)/.test(host) || host === "::1" || host === "[::1]";

/** Levenshtein distance, bounded: anything past `max` is `max + 1`. */
function distance(a: string, b: string, max: number): number {
	if (Math.abs(a.length - b.length) > max) return max + 1;
	let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
	for (let i = 1; i <= a.length; i++) {
		const cur = [i];
		let best = i;
		for (let j = 1; j <= b.length; j++) {
			const v = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1));
			cur.push(v);
			best = Math.min(best, v);
		}
		if (best > max) return max + 1;
		prev = cur;
	}
	return prev[b.length] ?? max + 1;
}

/** Whether `a` is `b` with two neighbouring letters swapped (githbu / github). */
function swapped(a: string, b: string): boolean {
	if (a.length !== b.length) return false;
	const diff = [...a].flatMap((ch, i) => (ch === b[i] ? [] : [i]));
	return diff.length === 2 && diff[1] === (diff[0] ?? 0) + 1 && a[diff[0] ?? 0] === b[diff[1] ?? 0] && a[diff[1] ?? 0] === b[diff[0] ?? 0];
}

export function hostKind(rawHost: string): HostKind {
	const host = rawHost.toLowerCase().replace(/:\d+$/, "");
	if (isPrivateIp(host) || !host.includes(".")) return "local";
	if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return "local";
	// A name under a company's internal zone (`git.corp.acme.net`, `npm.internal.acme.io`).
	if (
		host
			.split(".")
			.slice(0, -2)
			.some((label) => INTERNAL_LABELS.has(label))
	)
		return "local";
	if (SHORTENERS.has(host) || SHORTENERS.has(registrable(host))) return "shortener";
	const reg = registrable(host);
	if (OFFICIAL.has(reg) || OFFICIAL.has(host)) return "official";
	const label = reg.split(".")[0] ?? "";
	// A brand inside another registrable name (npmjs-mirror.com, github-cdn.net, pypi-org.io) or a name one
	// or two letters away from an official one (githbu.com, npmjs.co).
	if (BRANDS.some((b) => label !== b && label.includes(b) && (b.length >= 4 || label.startsWith(`${b}-`) || label.endsWith(`-${b}`))))
		return "lookalike";
	if (BRANDS.includes(label)) return "lookalike";
	for (const official of OFFICIAL) {
		const officialLabel = official.split(".")[0] ?? "";
		if (officialLabel.length >= 5 && label !== officialLabel && (distance(label, officialLabel, 1) <= 1 || swapped(label, officialLabel)))
			return "lookalike";
	}
	return "unknown";
}

/** File-name endings that a bare `name.ext` token has far more often than a host does. */
const FILE_ENDINGS =
	/\.(?:sh|rs|py|md|js|mjs|cjs|ts|tsx|jsx|go|json|ya?ml|toml|lock|txt|env|zip|gz|tgz|tar|so|pl|rb|ps1|cfg|ini|conf|sql|log|pub|pem|key|crt|csv|html?|css|xml|java|kt|swift|c|h|cpp|lua|php|bat|cmd|exe|msi|pkg|dmg|deb|rpm|whl|jar|war|bin|example|sample|local|lan|dev\.example|d|ipynb|lockb|mod|sum|gradle|properties|plist|service|tf|tfvars|hcl|proto|graphql|svg|png|jpg)$/i;

const HOST_TOKEN = /(?<![\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,24})(?::\d{2,5})?(?=[/:\s`'")\],;]|$)/gi;
const URL_PATTERN = /\b(?:https?|s3|gs|git|ssh|ftp|wss?):\/\/(?:[^@\s/`'"<>]+@)?([^\s/:`'"<>?#)\]]+)/gi;
const SCP_REMOTE = /\b[\w.-]+@((?:[a-z0-9-]+\.)+[a-z]{2,})(?=:)/gi;

export interface HostMention {
	host: string;
	kind: HostKind;
	index: number;
	/** Written as a URL with a scheme (not a bare name). */
	url: boolean;
}

/** The hosts a piece of text names: in URLs, in `user@host:` remotes, and bare names that are not file names. */
export function hostsIn(text: string): HostMention[] {
	const found = new Map<number, HostMention>();
	for (const m of text.matchAll(URL_PATTERN)) {
		const host = (m[1] ?? "").replace(/[.,;:]+$/, "");
		if (host)
			found.set(m.index ?? 0, {
				host,
				kind: m[0].startsWith("s3") || m[0].startsWith("gs") ? "unknown" : hostKind(host),
				index: m.index ?? 0,
				url: true,
			});
	}
	for (const m of text.matchAll(SCP_REMOTE)) {
		const host = m[1] ?? "";
		found.set(m.index ?? 0, { host, kind: hostKind(host), index: m.index ?? 0, url: true });
	}
	const covered = [...found.values()];
	for (const m of text.matchAll(HOST_TOKEN)) {
		const index = m.index ?? 0;
		const host = m[1] ?? "";
		if (covered.some((c) => index >= c.index && index <= c.index + c.host.length + 16)) continue;
		const followedBySlash = text[index + m[0].length] === "/";
		if (!followedBySlash && FILE_ENDINGS.test(host)) continue;
		if (!followedBySlash && /^(?:[a-z]+\.)?(?:md|js|ts|py)$/i.test(host)) continue;
		// A dotted identifier (`config.toml`, `os.environ`, `process.env`) is not a host unless its last label is a real TLD.
		if (
			!/\.(?:com|net|org|io|dev|app|co|ai|cc|sh|rs|run|cloud|tools|xyz|me|info|biz|site|online|tech|page|link|ly|gl|gd|to|tk|top|click|zip|pro|so|gg|id|kr|jp|de|uk|us|cn|ru|in|fr|nl|eu|ca|au|br|es|it|ch|se|no|pl|vc|ws|tv|fm|sbs|lol|live|host|space|store|shop|one|icu|cyou|buzz|rest|ninja|codes|software|systems|network|services|digital|works|email|cfd|lat|mov)$/i.test(
				host,
			)
		)
			continue;
		found.set(index, { host, kind: hostKind(host), index, url: false });
	}
	return [...found.values()].sort((a, b) => a.index - b.index);
}
