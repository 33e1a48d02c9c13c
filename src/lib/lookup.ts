/**
 * Tables keyed by caller input (settings, roles, console filters, …) must not answer for the names
 * every plain object inherits: `constructor`, `toString`, `__proto__`. A table built here has no
 * prototype and is frozen, and `lookup` reads own entries only, so a prototype member's name is
 * simply not a key. test/prototype-keys-unit.test.ts walks the source and keeps every such table on
 * one of these (or a `Map`).
 */

/** A frozen null-prototype copy of `entries`: `key in table` and `table[key]` see only its own keys. */
export function lookupTable<T extends Record<string, unknown>>(entries: T): Readonly<T> {
	return Object.freeze(Object.assign(Object.create(null) as T, entries));
}

/** The entry of `table` under `key`, own entries only; undefined for any other name. */
export function lookup<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
	return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Whether `key` is one of `table`'s own keys (never an inherited member's name). */
export function hasKey<K extends string>(table: Readonly<Record<K, unknown>>, key: string): key is K {
	return Object.hasOwn(table, key);
}

/** The names every plain object answers to: what a lookup must never be fooled by. */
export const PROTOTYPE_NAMES: readonly string[] = Object.freeze([...Object.getOwnPropertyNames(Object.prototype), "prototype"]);
