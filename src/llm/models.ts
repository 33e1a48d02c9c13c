import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { LanguageModel } from "ai";
import { createWorkersAI } from "workers-ai-provider";

export type ModelRole = "default" | "smol";

/** Model settings come from the environment; keys are secrets. Empty means "no model". */
export interface ModelEnv {
	AI?: Ai;
	CAIRN_MODEL_DEFAULT?: string;
	CAIRN_MODEL_SMOL?: string;
	ANTHROPIC_API_KEY?: string;
	OPENAI_API_KEY?: string;
	CAIRN_OPENAI_COMPATIBLE_API_KEY?: string;
}

export class ModelConfigError extends Error {}

/**
 * How a model call failed, told by the error's name only (never the model's words): it timed out, its answer
 * was not valid JSON of the expected shape, the provider refused or failed it, or something else. `name` is
 * the error's name, for messages that say which.
 */
export function modelFailure(err: unknown): { kind: "timeout" | "invalid" | "provider" | "other"; name: string } {
	const name = err instanceof Error ? err.name : "Error";
	if (name === "AbortError" || name === "TimeoutError") return { kind: "timeout", name };
	if (/NoObjectGenerated|NoOutput|TypeValidation|JSONParse|ZodError/i.test(name)) return { kind: "invalid", name };
	if (/APICall|RetryError|LoadAPIKey/i.test(name)) return { kind: "provider", name };
	return { kind: "other", name };
}

/**
 * Builds the model for a role from `provider:model`:
 * `workers-ai:<model>`, `anthropic:<model>`, `openai:<model>`, `openai-compatible:<model>@<baseURL>`.
 * `smol` falls back to `default`. Returns null when neither is configured (the offline path).
 */
export function resolveModel(env: ModelEnv, role: ModelRole): LanguageModel | null {
	const spec = (role === "smol" ? env.CAIRN_MODEL_SMOL || env.CAIRN_MODEL_DEFAULT : env.CAIRN_MODEL_DEFAULT)?.trim();
	if (!spec) return null;
	const colon = spec.indexOf(":");
	const provider = spec.slice(0, colon);
	const model = spec.slice(colon + 1);
	if (colon <= 0 || !model) throw new ModelConfigError(`model for role ${role} must look like provider:model`);
	switch (provider) {
		case "workers-ai":
			if (!env.AI) throw new ModelConfigError("workers-ai needs the AI binding, which is not available here");
			return createWorkersAI({ binding: env.AI })(model as Parameters<ReturnType<typeof createWorkersAI>>[0]);
		case "anthropic":
			return createAnthropic({ apiKey: env.ANTHROPIC_API_KEY })(model);
		case "openai":
			return createOpenAI({ apiKey: env.OPENAI_API_KEY })(model);
		case "openai-compatible": {
			const at = model.lastIndexOf("@");
			if (at <= 0) throw new ModelConfigError("openai-compatible models look like openai-compatible:<model>@<baseURL>");
			return createOpenAICompatible({
				name: "openai-compatible",
				baseURL: model.slice(at + 1),
				apiKey: env.CAIRN_OPENAI_COMPATIBLE_API_KEY,
			})(model.slice(0, at));
		}
		default:
			throw new ModelConfigError(`unknown model provider for role ${role}`);
	}
}

/** Whether a role has a model configured, without building it. */
export const hasModel = (env: ModelEnv, role: ModelRole) =>
	Boolean((role === "smol" ? env.CAIRN_MODEL_SMOL || env.CAIRN_MODEL_DEFAULT : env.CAIRN_MODEL_DEFAULT)?.trim());
