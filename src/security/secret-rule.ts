/** A regular-expression rule of the secret detector (the rules: src/security/secret-rules.ts). */
export interface RegexRule {
	id: string;
	/** Global regular expression with the `d` flag; every quantifier bounded. */
	pattern: RegExp;
	/** Capture group(s) holding the secret; the first that matched is the value (default: whole match). */
	group?: number | number[];
	/** A capture group inside a leading lookbehind: its text is part of the secret, before the match. */
	pre?: number;
	/**
	 * Rejects a candidate (false), keeps it (true) or keeps it with a different end (a number: the
	 * end offset in `text`) or span ([start, end]). `text` is the window being scanned; `m.index`
	 * is relative to it.
	 */
	accept?: (value: string, m: RegExpExecArray, text: string, memo: Map<string, unknown>) => boolean | number | [number, number];
	/**
	 * A check on the finding's text alone (from its start, `pre` included, to its end); the engine
	 * remembers its answers within a scan, so a text repeating one candidate pays for it once.
	 */
	check?: (value: string) => boolean;
	/**
	 * After a rejected candidate whose quoted value holds "=" or ":", resume the scan at the value's
	 * start rather than after the match: the value may be the real assignment ('export X="API_KEY=…"').
	 */
	resumeAtValue?: boolean;
	/** Extends a finding's end over the rest of a long secret (a key block's body); bounded. */
	extend?: (text: string, end: number) => number;
}
