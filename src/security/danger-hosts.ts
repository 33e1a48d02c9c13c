/**
 * Hosts as the danger check (src/security/danger.ts) weighs them: where a command or an instruction
 * points. A host is local (this machine, a private network, a reserved name), one of the public
 * package and code hosts every project uses (the targets a registry or a remote normally has), a
 * look-alike of one of those, a link shortener, or unknown. Names are compared by the site they belong
 * to, read from the Public Suffix List (src/text/domains.ts), so `github.acme.com` is the company's host,
 * not GitHub's, `github-cdn.net` is a look-alike of GitHub's, and `evil.github.io` is its owner's site,
 * not GitHub's nor `cairn.github.io`'s. Addresses are read by `ipaddr.js`: every range that is not
 * public (loopback, private, link-local, unique-local, carrier-grade NAT, unspecified, reserved) is local.
 */
import { distance } from "fastest-levenshtein";
import ipaddr from "ipaddr.js";
import { hostParts, isDomainName } from "../text/domains";

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

/** Brand words whose appearance in an unrelated site's name makes it a look-alike. */
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

export type HostKind = "local" | "official" | "lookalike" | "shortener" | "unknown";

/** Address ranges (ipaddr.js's names) that are not a host on the public internet; any other range is. */
const LOCAL_RANGES = new Set([
	"unspecified",
	"broadcast",
	"multicast",
	"loopback",
	"private",
	"linkLocal",
	"carrierGradeNat",
	"uniqueLocal",
	"deprecatedSiteLocal",
	"discard",
	"reserved",
	"benchmarking",
]);

/** The name or address of `host`, `host:port`, `[v6]` or `[v6]:port`, lower-cased. */
function bareHost(raw: string): string {
	const host = raw.toLowerCase();
	const bracketed = /^\[([^\]]*)\](?::\d+)?$/.exec(host);
	if (bracketed) return bracketed[1] ?? "";
	return ipaddr.IPv6.isValid(host) ? host : host.replace(/:\d+$/, "");
}

/** Whether an address (IPv4, IPv6, an IPv4-mapped IPv6) is outside the public internet; `null`: not an address. */
function localAddress(host: string): boolean | null {
	if (!ipaddr.isValid(host)) return null;
	// `process` reads an IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it carries.
	return LOCAL_RANGES.has(ipaddr.process(host).range());
}

/** Whether `a` is `b` with two neighbouring letters swapped (githbu / github), which an edit distance counts as two. */
function swapped(a: string, b: string): boolean {
	if (a.length !== b.length) return false;
	const diff = [...a].flatMap((ch, i) => (ch === b[i] ? [] : [i]));
	return diff.length === 2 && diff[1] === (diff[0] ?? 0) + 1 && a[diff[0] ?? 0] === b[diff[1] ?? 0] && a[diff[1] ?? 0] === b[diff[0] ?? 0];
}

export function hostKind(rawHost: string): HostKind {
	const host = bareHost(rawHost);
	const address = localAddress(host);
	if (address !== null) return address ? "local" : "unknown";
	if (!host.includes(".")) return "local";
	if (LOCAL_SUFFIXES.some((s) => host === s || host.endsWith(`.${s}`))) return "local";
	const { domain, site, subdomain } = hostParts(host);
	// A name under a company's internal zone (`git.corp.acme.net`, `npm.internal.acme.io`); not a site
	// whose own name is such a word (`internal.co.uk`, `corp.github.io`), which anyone may register.
	if (subdomain.some((label) => INTERNAL_LABELS.has(label))) return "local";
	if (SHORTENERS.has(host) || SHORTENERS.has(site) || SHORTENERS.has(domain)) return "shortener";
	// Official by the operator that holds the name: `raw.githubusercontent.com` is GitHub's, and a project's
	// own bucket or image registry under amazonaws.com is AWS's, though the list counts those as sites of their own.
	if (OFFICIAL.has(host) || OFFICIAL.has(domain)) return "official";
	const label = site.split(".")[0] ?? "";
	// A brand inside another site's name (npmjs-mirror.com, github-cdn.net, pypi-org.io, npmjs.herokuapp.com)
	// or a name one or two letters away from an official one (githbu.com, npmjs.co).
	if (BRANDS.some((b) => label !== b && label.includes(b) && (b.length >= 4 || label.startsWith(`${b}-`) || label.endsWith(`-${b}`))))
		return "lookalike";
	if (BRANDS.includes(label)) return "lookalike";
	for (const official of OFFICIAL) {
		const officialLabel = official.split(".")[0] ?? "";
		if (officialLabel.length >= 5 && label !== officialLabel && (distance(label, officialLabel) <= 1 || swapped(label, officialLabel)))
			return "lookalike";
	}
	return "unknown";
}

/** File-name endings that a bare `name.ext` token has far more often than a host does. */
const FILE_ENDINGS =
	/\.(?:sh|rs|py|md|js|mjs|cjs|ts|tsx|jsx|go|json|ya?ml|toml|lock|txt|env|zip|gz|tgz|tar|so|pl|rb|ps1|cfg|ini|conf|sql|log|pub|pem|key|crt|csv|html?|css|xml|java|kt|swift|c|h|cpp|lua|php|bat|cmd|exe|msi|pkg|dmg|deb|rpm|whl|jar|war|bin|example|sample|local|lan|dev\.example|d|ipynb|lockb|mod|sum|gradle|properties|plist|service|tf|tfvars|hcl|proto|graphql|svg|png|jpg)$/i;

const HOST_TOKEN = /(?<![\w@.-])((?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{1,24})(?::\d{2,5})?(?=[/:\s`'")\],;]|$)/gi;
const URL_PATTERN = /\b(?:https?|s3|gs|git|ssh|ftp|wss?):\/\/(?:[^@\s/`'"<>]+@)?(\[[0-9a-f:.]+(?:%[\w.-]+)?\]|[^\s/:`'"<>?#)\]]+)/gi;
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
		// A dotted identifier (`config.toml`, `os.environ`, `process.env`) is not a host unless it ends in a real
		// suffix. Some suffixes are English words (`user.name`, `res.data`): those read as hosts, as a URL's would.
		if (!isDomainName(host)) continue;
		found.set(index, { host, kind: hostKind(host), index, url: false });
	}
	return [...found.values()].sort((a, b) => a.index - b.index);
}
