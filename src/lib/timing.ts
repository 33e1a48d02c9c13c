import { AsyncLocalStorage } from "node:async_hooks";

/**
 * Where a request's time goes, by phase: the Worker's own steps (key check, project, settings, the call
 * to the project's object) and, inside the object, its storage calls and the checks a write runs. A
 * phase is timed with `timed(name, fn)` anywhere on the request's path; with no request being timed it
 * costs one lookup. The Worker sends the phases as a `Server-Timing` header when `CAIRN_SERVER_TIMING`
 * is set (local runs and the load benchmark, `npm run bench:load`), never in production by default.
 */
export class Timing {
	readonly phases = new Map<string, number>();

	add(name: string, ms: number): void {
		this.phases.set(name, (this.phases.get(name) ?? 0) + ms);
	}

	/** The phases as `[name, ms]` pairs, for the object's answer to carry back to the Worker. */
	entries(): [string, number][] {
		return [...this.phases];
	}

	/** The `Server-Timing` header's value: each phase with its duration, in the order first timed. */
	header(): string {
		return [...this.phases].map(([name, ms]) => `${name};dur=${ms.toFixed(2)}`).join(", ");
	}
}

const current = new AsyncLocalStorage<Timing>();

/** Runs `fn` with `timing` collecting the phases timed inside it. */
export function collecting<T>(timing: Timing, fn: () => T): T {
	return current.run(timing, fn);
}

/** The timing of the request being served, if it is being timed. */
export function currentTiming(): Timing | undefined {
	return current.getStore();
}

/** Times `fn` (sync or async) as phase `name` of the current request; runs it untimed when none is. */
export function timed<T>(name: string, fn: () => T): T {
	const timing = current.getStore();
	if (!timing) return fn();
	const started = performance.now();
	const value = fn();
	if (value instanceof Promise) {
		return value.finally(() => timing.add(name, performance.now() - started)) as T;
	}
	timing.add(name, performance.now() - started);
	return value;
}
