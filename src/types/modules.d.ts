/** Markdown prompts are bundled as text (see `[[rules]]` in wrangler.toml). */
declare module "*.md" {
	const text: string;
	export default text;
}
