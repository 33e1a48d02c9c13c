import type { LanguageModel } from "ai";
import { hasModel, ModelConfigError, type ModelEnv, resolveModel } from "../llm/models";
import type { ProjectContext } from "../memory/store";
import type { MemoryScope } from "../memory/topic-file";
import { projectStore } from "../project/client";
import { type EffectiveSettings, effectiveSettings } from "../settings/settings";
import { type CandidateRow, documentsToolInUse, type RecalledMemory, type ScoredMemory, score, toCandidates, toRecalled } from "./lexical";
import { selectWithModel } from "./selector";
import { queryTerms } from "./terms";

export interface RecallRequest {
	query: string;
	recentTools?: string[];
	limit?: number;
	exclude?: string[];
	scope?: MemoryScope;
	engine?: "lexical" | "llm";
	trace?: boolean;
}

export type Engine = "lexical" | "llm" | "lexical-fallback";

export interface TraceEntry {
	name: string;
	scope: MemoryScope;
	score: number;
	bm25: number;
	typePrior: number;
	freshness: number;
	matchedTerms: string[];
	decision: "returned" | "excluded" | "skipped: documents a tool in use" | "below limit" | "not selected by model";
}

export interface RecallResult {
	engine: Engine;
	memories: RecalledMemory[];
	/** Internal: the rows served, for usage recording and injection. */
	served: ScoredMemory[];
	/** Internal: the query's distinct terms (the relevance floor counts matches against them). */
	terms: string[];
	warnings: string[];
	fallbackReason?: string;
	trace?: { terms: string[]; candidates: TraceEntry[] };
}

/** How many lexical candidates are scored (and shown to the model as a manifest). */
const MANIFEST_SIZE = 25;
/** Candidates read and scored: enough for the model's manifest and the largest limit, no more (each costs a row read). */
const CANDIDATES = MANIFEST_SIZE;

/**
 * Recall: which memories matter for this query? Lexical by default (BM25 over name, description and
 * body with field weights, type and freshness priors); optionally a small model picks from the
 * lexical candidates. Honours the master switch and scope switches, `exclude` and `recentTools`.
 */
export async function recall(
	env: Env,
	ctx: ProjectContext,
	request: RecallRequest,
	now = Date.now(),
	preloaded?: EffectiveSettings,
	/** The selector model; by default the `smol` role from the environment. */
	selectorModel?: LanguageModel | null,
): Promise<RecallResult> {
	const terms = queryTerms(request.query);
	const exclude = new Set(request.exclude ?? []);
	const recentTools = request.recentTools ?? [];
	// Settings (D1) and candidates (the project's object) concurrently: one round trip's latency. The
	// scope switches are applied to the rows after.
	const [settings, rows] = await Promise.all([
		preloaded ?? effectiveSettings(env.DB, ctx.tenantId, ctx.userId, ctx.projectId),
		terms.length > 0
			? projectStore(env, ctx.projectId).recallCandidates(ctx, terms, {
					scopes: request.scope ? [request.scope] : ["personal", "team"],
					limit: CANDIDATES + exclude.size,
				})
			: ([] as CandidateRow[]),
	]);

	const limit = request.limit ?? Number(settings["memories.recallLimit"].value);
	const warnings: string[] = [];
	if (settings["memories.enabled"].value !== true) {
		warnings.push(`memories are disabled for this project (memories.enabled is false, set by ${settings["memories.enabled"].source})`);
		return { engine: "lexical", memories: [], served: [], terms, warnings };
	}
	const off = new Set<MemoryScope>();
	for (const s of request.scope ? [request.scope] : (["personal", "team"] as MemoryScope[])) {
		const key = s === "team" ? "memories.teamMemory" : "memories.personalMemory";
		if (settings[key].value === false) {
			off.add(s);
			warnings.push(`${s} memory is turned off (${key})`);
		}
	}
	const ranked = score(
		toCandidates(rows).filter((c) => !off.has(c.row.scope)),
		terms,
		now,
	);

	const trace: TraceEntry[] = [];
	const eligible: ScoredMemory[] = [];
	for (const m of ranked) {
		const entry = { name: m.row.name, scope: m.row.scope, score: m.score, ...m.trace };
		if (exclude.has(m.row.name)) {
			trace.push({ ...entry, decision: "excluded" });
			continue;
		}
		if (documentsToolInUse(m, recentTools)) {
			trace.push({ ...entry, decision: "skipped: documents a tool in use" });
			continue;
		}
		eligible.push(m);
		trace.push({ ...entry, decision: "below limit" });
	}

	let engine: Engine = "lexical";
	let fallbackReason: string | undefined;
	let chosen = eligible.slice(0, limit);
	const modelConfigured = selectorModel !== undefined ? selectorModel !== null : hasModel(env as ModelEnv, "smol");
	const wantModel = request.engine === "llm" || (request.engine === undefined && modelConfigured);
	if (wantModel && terms.length > 0) {
		let model: LanguageModel | null = null;
		try {
			model = selectorModel !== undefined ? selectorModel : resolveModel(env as ModelEnv, "smol");
		} catch (err) {
			fallbackReason = err instanceof ModelConfigError ? err.message : "model could not be configured";
		}
		if (!model && !fallbackReason) fallbackReason = "no model is configured for the smol role";
		if (model) {
			const selection = await selectWithModel(model, request.query, recentTools, eligible.slice(0, MANIFEST_SIZE), limit);
			if (selection.ok) {
				engine = "llm";
				for (const t of trace) if (t.decision === "below limit") t.decision = "not selected by model";
				chosen = selection.memories;
			} else fallbackReason = selection.reason;
		}
		if (fallbackReason) engine = "lexical-fallback";
	}

	for (const t of trace) {
		if (chosen.some((c) => c.row.name === t.name && c.row.scope === t.scope)) t.decision = "returned";
	}
	const result: RecallResult = {
		engine,
		memories: chosen.map(toRecalled),
		served: chosen,
		terms,
		warnings,
		...(fallbackReason ? { fallbackReason } : {}),
	};
	if (request.trace) result.trace = { terms, candidates: trace };
	return result;
}
