/**
 * Host names read by the Public Suffix List (through `tldts`): the registrable domain of a name, the
 * site it belongs to, and whether a dotted word ends in a real suffix at all. The danger check
 * (src/security/danger-hosts.ts) and code citations (src/text/citations.ts) both read names here.
 */
import { parse } from "tldts";

/**
 * A host name's parts. `domain` is registered under an ICANN suffix (`a.b.example.co.kr` →
 * `example.co.kr`, `evil.github.io` → `github.io`): the operator that holds the name. `site` counts the
 * platforms' own suffixes too (github.io, herokuapp.com, s3.amazonaws.com, pages.dev), whose names are
 * handed to their users: `evil.github.io` and `cairn.github.io` are two sites, both operated by github.io.
 * A name that is itself such a suffix (`github.io`, `s3.amazonaws.com`) is its operator's site.
 * An IP address or a single label is its own domain and site; under an ending the list does not know, the
 * last label stands for the suffix (`ci.acme.corp` → `acme.corp`).
 */
export interface HostParts {
	domain: string;
	site: string;
	/** The labels left of `site` (`git.corp` of `git.corp.acme.net`). */
	subdomain: string[];
}

export function hostParts(host: string): HostParts {
	const name = host.toLowerCase().replace(/\.$/, "");
	const icann = parse(name);
	const all = parse(name, { allowPrivateDomains: true });
	const domain = icann.domain ?? name;
	const site = all.domain ?? domain;
	const sub = name.endsWith(`.${site}`) ? name.slice(0, -site.length - 1) : "";
	return { domain, site, subdomain: sub ? sub.split(".") : [] };
}

/**
 * Whether a dotted word is a domain name: at least one label before a suffix in the ICANN section of the
 * list (`api.example.com`, `example.co.kr`; not `os.environ`, `config.toml`, `co.uk`). The list has
 * suffixes that are also file endings (`.md`, `.rs`, `.py`, `.sh`, `.zip`) and English words (`.name`,
 * `.data`, `.style`): a caller reading prose weighs those itself.
 */
export function isDomainName(name: string): boolean {
	const parsed = parse(name);
	return parsed.isIcann === true && parsed.domain !== null && !parsed.isIp;
}
