// A small JSON-schema → fast-check mapper for the subset Cairn's OpenAPI document uses: $ref, allOf,
// anyOf/oneOf, enum, string (minLength, maxLength, pattern), integer/number (minimum, maximum),
// boolean, null, array (items, minItems, maxItems), object (properties, required, additionalProperties).
import fc from "fast-check";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export interface Schema {
	$ref?: string;
	allOf?: Schema[];
	anyOf?: Schema[];
	oneOf?: Schema[];
	type?: string;
	enum?: Json[];
	pattern?: string;
	minLength?: number;
	maxLength?: number;
	minimum?: number;
	maximum?: number;
	items?: Schema;
	minItems?: number;
	maxItems?: number;
	properties?: Record<string, Schema>;
	required?: string[];
	additionalProperties?: Schema | boolean;
	description?: string;
	default?: Json;
	example?: Json;
}
export interface OpenApiDoc {
	paths: Record<string, Record<string, Operation>>;
	components?: { schemas?: Record<string, Schema> };
}
export interface Parameter {
	name: string;
	in: "path" | "query" | "header";
	required?: boolean;
	schema: Schema;
}
export interface Operation {
	parameters?: Parameter[];
	requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}

/** Marker placed in generated text so that an error body echoing submitted text can be recognised. */
export const ECHO_MARK = "zqEchoMark";

/** Hints the document cannot carry: known keys for open records (settings), filled in by the caller. */
export interface Hints {
	recordKeys: string[];
}

export function resolve(doc: OpenApiDoc, schema: Schema): Schema {
	let s = schema;
	for (let i = 0; s.$ref && i < 10; i++) {
		const name = s.$ref.replace("#/components/schemas/", "");
		s = doc.components?.schemas?.[name] ?? {};
	}
	if (s.allOf) {
		const parts = s.allOf.map((p) => resolve(doc, p));
		return {
			type: "object",
			properties: Object.assign({}, ...parts.map((p) => p.properties ?? {})),
			required: parts.flatMap((p) => p.required ?? []),
		};
	}
	// An untyped schema whose description names a component (`A BatchMemoryInput: …`) stands for it.
	if (!s.type && !s.anyOf && !s.oneOf && !s.enum && s.description) {
		const named = Object.keys(doc.components?.schemas ?? {}).find((k) => s.description?.includes(k));
		if (named) return resolve(doc, { $ref: `#/components/schemas/${named}` });
	}
	return s;
}

const words = fc.constantFrom(
	"database",
	"deploy",
	"friday",
	"tests",
	"café",
	"日本語",
	"emoji 🧭",
	"tab\there",
	'quote"s',
	"back\\slash",
	"<script>",
	"'; DROP TABLE memories;--",
	"[link](x)",
	"—",
	ECHO_MARK,
);

/** Free text: words, sometimes random unicode, sometimes the echo marker. */
export const text = (min: number, max: number): fc.Arbitrary<string> => {
	const cap = Math.min(max, 200);
	const base = fc.oneof(
		{ weight: 3, arbitrary: fc.array(words, { minLength: 1, maxLength: 12 }).map((w) => w.join(" ")) },
		{ weight: 1, arbitrary: fc.string({ unit: "grapheme", minLength: 0, maxLength: cap }) },
		{ weight: 1, arbitrary: fc.string({ minLength: 0, maxLength: cap }) },
	);
	return base.map((s) => {
		let out = s.replace(/[\r\n]/g, " ");
		if (out.length > max) out = out.slice(0, max);
		while (out.length < min) out += "x";
		return out;
	});
};

/** A schema-valid value. `depth` bounds recursion; large maxLength/maxItems are sampled small. */
export function arbitraryFor(doc: OpenApiDoc, schema: Schema, hints: Hints, depth = 0): fc.Arbitrary<Json> {
	const s = resolve(doc, schema);
	if (s.enum) return fc.constantFrom(...s.enum);
	const alts = s.anyOf ?? s.oneOf;
	if (alts) return fc.oneof(...alts.map((a) => arbitraryFor(doc, a, hints, depth + 1)));
	switch (s.type) {
		case "string": {
			const min = s.minLength ?? 0;
			const max = s.maxLength ?? 300;
			if (s.pattern) {
				const re = new RegExp(s.pattern);
				return fc.stringMatching(re).filter((v) => v.length >= min && v.length <= max);
			}
			return text(min, max);
		}
		case "integer":
			return fc.integer({ min: s.minimum ?? -1_000_000, max: s.maximum ?? 1_000_000 });
		case "number":
			return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true, noDefaultInfinity: true });
		case "boolean":
			return fc.boolean();
		case "null":
			return fc.constant(null);
		case "array": {
			const min = s.minItems ?? 0;
			const max = Math.min(s.maxItems ?? 5, Math.max(min, 5));
			return fc.array(arbitraryFor(doc, s.items ?? {}, hints, depth + 1), { minLength: min, maxLength: max });
		}
		default: {
			if (s.type !== "object" && !s.properties && !s.additionalProperties) {
				// Unknown / empty schema: any JSON value.
				return depth > 3 ? fc.constant(null) : (fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>);
			}
			const props = s.properties ?? {};
			const required = new Set(s.required ?? []);
			const record: Record<string, fc.Arbitrary<Json>> = {};
			for (const [k, v] of Object.entries(props)) record[k] = arbitraryFor(doc, v, hints, depth + 1);
			const fixed = fc.record(record, { requiredKeys: [...required].filter((k) => k in props) }) as fc.Arbitrary<Record<string, Json>>;
			if (s.additionalProperties && typeof s.additionalProperties === "object") {
				const value = arbitraryFor(doc, s.additionalProperties, hints, depth + 1);
				const key = hints.recordKeys.length > 0 ? fc.constantFrom(...hints.recordKeys) : fc.string({ maxLength: 20 });
				return fc.tuple(fixed, fc.dictionary(key, value, { maxKeys: 3 })).map(([a, b]) => ({ ...b, ...a }));
			}
			return fixed;
		}
	}
}
