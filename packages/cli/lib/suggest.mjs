// @ts-check
// "Did you mean …?": the nearest of a few known words to a mistyped one.
// Written out rather than taken from an edit-distance package: the CLI ships with no dependencies, copied whole into the Claude Code plugin (plugin/cli).

/** Levenshtein distance, with an adjacent swap counted as one edit (`remeber`, `reacll`). @param {string} a @param {string} b */
export function distance(a, b) {
	const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
	for (let j = 1; j <= b.length; j++) /** @type {number[]} */ (d[0])[j] = j;
	for (let i = 1; i <= a.length; i++) {
		const row = /** @type {number[]} */ (d[i]);
		const prev = /** @type {number[]} */ (d[i - 1]);
		for (let j = 1; j <= b.length; j++) {
			const cost = a[i - 1] === b[j - 1] ? 0 : 1;
			row[j] = Math.min(
				/** @type {number} */ (prev[j]) + 1,
				/** @type {number} */ (row[j - 1]) + 1,
				/** @type {number} */ (prev[j - 1]) + cost,
			);
			if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
				row[j] = Math.min(/** @type {number} */ (row[j]), /** @type {number} */ (/** @type {number[]} */ (d[i - 2])[j - 2]) + 1);
		}
	}
	return /** @type {number} */ (/** @type {number[]} */ (d[a.length])[b.length]);
}

/**
 * The known word nearest to `word` — within two edits (one for words of four letters or fewer), or one
 * that it begins (`--typ` → `--type`) — or null.
 * @param {string} word @param {readonly string[]} known
 */
export function nearest(word, known) {
	const w = word.toLowerCase();
	let best = null;
	let bestDistance = Number.POSITIVE_INFINITY;
	for (const k of known) {
		const d = distance(w, k);
		if (d < bestDistance) {
			best = k;
			bestDistance = d;
		}
	}
	const prefixed = w.length >= 2 ? known.filter((k) => k.startsWith(w)) : [];
	if (bestDistance > (w.length <= 4 ? 1 : 2)) return prefixed.length === 1 ? (prefixed[0] ?? null) : null;
	return best;
}
