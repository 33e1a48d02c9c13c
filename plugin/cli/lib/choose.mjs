// @ts-check
// A value that must be one of a few: taken when it is, else refused with the nearest one and the list —
// never read as something else, never accepted silently.
import { nearest } from "./suggest.mjs";

/**
 * `value` when it is one of `known`; else throws "unknown <what> "x"; did you mean `<as(y)>`? (one of …)".
 * @template {string} T
 * @param {unknown} value @param {readonly T[]} known
 * @param {{ what: string, as?: (k: string) => string, usage?: string }} how `as` writes a suggestion as
 * the user would type it (`cairn hooks install`, `--type feedback`); `usage` follows when nothing was given
 * @returns {T}
 */
export function choose(value, known, { what, as = (k) => k, usage }) {
	if (typeof value === "string" && /** @type {readonly string[]} */ (known).includes(value)) return /** @type {T} */ (value);
	if (typeof value !== "string" || value === "")
		throw new Error(`${what} is missing: give one of ${known.join(", ")}${usage ? ` (${usage})` : ""}`);
	const near = nearest(value, known);
	throw new Error(
		`unknown ${what} ${JSON.stringify(value.slice(0, 40))}${near ? `; did you mean \`${as(near)}\`?` : ""} (one of ${known.join(", ")})`,
	);
}
