/**
 * Code citations: the repository paths a memory is about (with a symbol or a line range where known),
 * each with the git blob id its writer saw. They come from the writer (REST, MCP `memory_write`,
 * `cairn remember --cite`), else from the memory's own text (paths that look like repository files,
 * and the identifier named beside them). A citation from text carries no blob id: the first check from
 * the repository (src/memory/code-check.ts) sets the blob the file had when the memory was written.
 *
 * Stored as written on the memory (`memories.citations`, a JSON array) and on each version
 * (`memory_versions.citations`); their check state per path lives in `code_citations`.
 */
import { z } from "zod";
import { badRequest } from "../errors";
import { isDomainName } from "./domains";

export const MAX_CITATIONS = 20;
export const MAX_CITED_PATH_CHARS = 300;

/**
 * Where a citation came from: the writer named it, it was read from the memory's text, or the agent read
 * or edited the file in the turns the memory was written from (src/consolidate/transcript-citations.ts).
 */
export type CitationSource = "writer" | "text" | "transcript";

export interface Citation {
	path: string;
	symbol?: string;
	/** A line range, `start-end` (or one line). */
	lines?: string;
	/** The git blob id (SHA-1 or SHA-256 hex) the writer saw; absent when not known. */
	blob?: string;
	source: CitationSource;
}

/** A repository-relative path: no leading slash, no `.` or `..` segment, no control character or backslash. */
export const CitedPathSchema = z
	.string()
	.min(1)
	.max(MAX_CITED_PATH_CHARS, `a cited path must be at most ${MAX_CITED_PATH_CHARS} characters`)
	.refine(
		(p) =>
			![...p].some((ch) => ch.charCodeAt(0) < 32 || ch === "\u007f" || ch === "\\") &&
			!p.startsWith("/") &&
			p.split("/").every((s) => s !== "" && s !== "." && s !== ".."),
		"a cited path must be relative to the repository root, without '.', '..' or empty segments",
	);
export const BlobIdSchema = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, "a blob id must be 40 or 64 lowercase hex digits");

/** One citation as a writer gives it (REST, MCP). */
export const CitationInputSchema = z
	.object({
		path: CitedPathSchema.describe("The file's path relative to the repository root, e.g. src/queue/worker.ts"),
		symbol: z
			.string()
			.regex(/^[\p{L}_$][\p{L}\p{N}_$.:#-]{0,199}$/u, "a symbol must be an identifier of at most 200 characters")
			.optional()
			.describe("The function, class or constant the memory is about, e.g. computeRefund"),
		lines: z
			.string()
			.regex(/^\d{1,7}(?:-\d{1,7})?$/, "lines must be a line number or a range such as 12-30")
			.optional()
			.describe("A line or a range, e.g. 12-30"),
		blob: BlobIdSchema.optional().describe("The git blob id of the file as the writer saw it (git ls-files -s / git hash-object)"),
	})
	.strict();
export const CitationsInputSchema = z.array(CitationInputSchema).max(MAX_CITATIONS, `at most ${MAX_CITATIONS} citations`);
export type CitationInput = z.infer<typeof CitationInputSchema>;

/** Validates a writer's citations; errors name the field, never echo a value. One citation per path. */
export function validateCitations(value: unknown): Citation[] {
	const parsed = CitationsInputSchema.safeParse(value);
	if (!parsed.success) throw badRequest(parsed.error.issues[0]?.message ?? "citations are invalid", { field: "citations" });
	return dedupe(parsed.data.map((c) => ({ ...c, source: "writer" as const })));
}

function dedupe(citations: Citation[]): Citation[] {
	const seen = new Set<string>();
	return citations.filter((c) => !seen.has(c.path) && seen.add(c.path));
}

/** File endings a bare file name (no directory) must have to count as a repository path. */
const CODE_EXTENSIONS = new Set(
	"ts tsx js jsx mjs cjs mts cts py rb go rs java kt kts swift c h cc cpp hpp cs php scala sql sh bash zsh ps1 json jsonc yaml yml toml ini cfg conf md mdx txt css scss sass less html vue svelte astro gradle xml proto graphql gql lock env dockerfile tf hcl ex exs erl clj dart lua r jl zig nim ml mli hs elm".split(
		" ",
	),
);
/**
 * A path whose first segment is a host name is a URL written without its scheme (`sproutapp.io/.well-known/security.txt`,
 * `github.com/acme/app/blob/main/x.ts`). Host names are written in lower case and do not end like a code file
 * (`.rs`, `.py`, `.md` and `.sh` are country domains too): `Contoso.Data/Orders.cs` is a .NET project's folder.
 */
function schemelessUrl(path: string): boolean {
	const first = path.slice(0, path.indexOf("/"));
	const ending = first.slice(first.lastIndexOf(".") + 1);
	return first === first.toLowerCase() && !CODE_EXTENSIONS.has(ending) && isDomainName(first);
}

// A path: optional `./`, directories, a file name with an extension; then optionally `:12` / `:12-30` / `#L12-L30` / `#symbol`.
const PATH_RE =
	/(?<![\w./:@-])(?:\.\/)?((?:[\w@.-]+\/)*[\w@-][\w@.-]*\.[A-Za-z][A-Za-z0-9]{0,9})(?:(?::|#L)(\d{1,7})(?:-L?(\d{1,7}))?|#([A-Za-z_$][\w$]*))?(?![\w/])/g;
/** An identifier that reads as code: camelCase, PascalCase with an inner capital, snake_case, SCREAMING_CASE, or called. */
const CODE_IDENT = /^(?:[a-z_$][\w$]*[A-Z][\w$]*|[A-Z][a-z0-9]+[A-Z][\w$]*|[A-Za-z$][A-Za-z0-9$]*_[\w$]*|[A-Z][A-Z0-9_]{2,})$/;
// "computeRefund in src/x.ts", "computeRefund() from src/x.ts", "`x` of src/x.ts"
const BEFORE_RE = /`?([A-Za-z_$][\w$]*)(?:\(\))?`?\s+(?:in|from|of|at|inside|defined in)\s+`?$/;
// "src/x.ts의 SESSION_TTL", "src/x.ts's computeRefund", "src/x.ts: MAX_RETRIES", "src/x.ts sets MAX_RETRIES"
const AFTER_RE = /^`?(?:의|'s|:|\s+(?:sets|defines|exports|declares|has))?\s*`?([A-Za-z_$][\w$]*)/;

/**
 * The repository paths a memory's text names, with the identifier named beside each (when it reads as
 * code) and a line range written after it (`src/x.ts:12-30`). Paths without a directory count only with
 * a code or configuration ending; URLs (with or without their scheme), domains and memory:// paths do not count.
 */
export function citationsFromText(text: string): Citation[] {
	const out: Citation[] = [];
	for (const m of text.matchAll(PATH_RE)) {
		const raw = m[1] ?? "";
		const start = m.index ?? 0;
		const before = text.slice(Math.max(0, start - 80), start);
		if (/[a-z][a-z0-9+.-]*:\/\/[^\s]*$/i.test(before)) continue;
		const path = raw.replace(/\.+$/, "");
		if (!CitedPathSchema.safeParse(path).success) continue;
		const ext = path.slice(path.lastIndexOf(".") + 1).toLowerCase();
		// A bare name counts by its ending alone, so `example.com` is not a file and `main.rs` is.
		if (path.includes("/") ? schemelessUrl(path) : !CODE_EXTENSIONS.has(ext)) continue;
		if (/^\d/.test(ext) || /^v?\d+(?:\.\d+)+$/.test(path)) continue;
		const citation: Citation = { path, source: "text" };
		if (m[2]) citation.lines = m[3] ? `${m[2]}-${m[3]}` : m[2];
		const named =
			m[4] ??
			[AFTER_RE.exec(text.slice(start + m[0].length, start + m[0].length + 80))?.[1], BEFORE_RE.exec(before)?.[1]].find(
				(w) => w !== undefined && CODE_IDENT.test(w),
			);
		if (named) citation.symbol = named;
		out.push(citation);
		if (out.length >= MAX_CITATIONS * 2) break;
	}
	return dedupe(out).slice(0, MAX_CITATIONS);
}

/** A stored citations column; an unreadable value reads as none. */
export function citationsOf(row: { citations?: string | null }): Citation[] {
	try {
		const value: unknown = JSON.parse(row.citations ?? "[]");
		return Array.isArray(value) ? value.filter((c): c is Citation => typeof c?.path === "string") : [];
	} catch {
		return [];
	}
}

/**
 * The citations a write stores. Given: the writer's (an empty list removes them). Absent: the writer's
 * citations already stored are kept, the paths the text names join them, then the files of the
 * transcript the write comes from and those earlier transcripts gave, within the limit.
 */
export function resolveCitations(
	text: { description: string; body: string },
	given: Citation[] | undefined,
	current: { citations?: string | null } | null,
	fromTranscript: Citation[] = [],
): Citation[] {
	if (given !== undefined) return given;
	const stored = current ? citationsOf(current) : [];
	const kept = (source: CitationSource) => stored.filter((c) => c.source === source);
	return dedupe([
		...kept("writer"),
		...citationsFromText(`${text.description}\n${text.body}`),
		...fromTranscript,
		...kept("transcript"),
	]).slice(0, MAX_CITATIONS);
}

/** The migration's data step: the citations of every stored memory, read from its text (compared from the first check on). */
export function backfillCitations(sql: SqlStorage): void {
	const rows = sql
		.exec<{ id: number; project_id: string; updated_at: string; description: string; body: string }>(
			"SELECT m.id, m.project_id, m.updated_at, f.description, f.body FROM memories m JOIN memories_fts f ON f.rowid = m.id",
		)
		.toArray();
	for (const r of rows) {
		const citations = citationsFromText(`${r.description}\n${r.body}`);
		if (citations.length === 0) continue;
		sql.exec("UPDATE memories SET citations = ? WHERE id = ?", JSON.stringify(citations), r.id);
		for (const c of citations)
			sql.exec(
				"INSERT OR IGNORE INTO code_citations (memory_id, project_id, path, written_at) VALUES (?, ?, ?, ?)",
				r.id,
				r.project_id,
				c.path,
				r.updated_at,
			);
	}
}
