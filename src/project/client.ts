import { fromWire } from "../errors";
import { currentTiming } from "../lib/timing";
import type { Outcome, ProjectCoordinator } from "./object";

/** The object's methods that return an Outcome, with the Outcome unwrapped: the value, or the domain error thrown. */
export type ProjectStore = {
	[K in keyof ProjectCoordinator as ProjectCoordinator[K] extends (...args: never[]) => Promise<Outcome<unknown>>
		? K
		: never]: ProjectCoordinator[K] extends (...args: infer A) => Promise<Outcome<infer R>> ? (...args: A) => Promise<R> : never;
};

/**
 * The project's own store, reached through its Durable Object (`getByName(projectId)`): the only way
 * the Worker touches a project's data. Callers have already authorised the request; the object binds
 * itself to `projectId` and refuses calls for any other project.
 */
export function projectStore(env: Env, projectId: string): ProjectStore {
	const stub = env.PROJECT_COORDINATOR.getByName(projectId) as unknown as Record<string, (...args: unknown[]) => Promise<Outcome<unknown>>>;
	return new Proxy({} as ProjectStore, {
		get(_target, method: string) {
			return async (...args: unknown[]) => {
				const timing = currentTiming();
				const started = performance.now();
				const outcome = await stub[method]?.(...args);
				if (!outcome) throw new Error(`no such project store method: ${method}`);
				if (timing) {
					// The call as the Worker waited for it, and the phases the object timed inside it.
					timing.add("object", performance.now() - started);
					for (const [name, ms] of outcome.timing ?? []) timing.add(`object.${name}`, ms);
				}
				if (!outcome.ok) throw fromWire(outcome.error);
				return outcome.value;
			};
		},
	});
}
