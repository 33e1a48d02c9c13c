/** Fills `{{name}}` placeholders. Values are inserted verbatim once; placeholders inside values are not expanded. */
export function fillTemplate(template: string, values: Record<string, string>): string {
	return template.replace(/\{\{([a-z_]+)\}\}/g, (whole, key: string) => (Object.hasOwn(values, key) ? (values[key] ?? "") : whole));
}
