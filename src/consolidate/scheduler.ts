import { randomId } from "../lib/ids";
import { ConsolidationError } from "./model";
import type { RunOutcome } from "./run";

export interface LastRun {
	at: string;
	outcome: "succeeded" | "nothing to do" | "failed";
	error: string | null;
	changes: number;
	outputs: number;
}

/** State kept in the object's own storage so an evicted or crashed run is retried and converges. */
export interface SchedulerState {
	/** The project this instance serves (its name), recorded by the first trigger. */
	projectId: string | null;
	dirty: boolean;
	running: boolean;
	runId: string | null;
	/** Number of triggers received. */
	generation: number;
	/** Consecutive failed runs, for backoff. */
	failures: number;
	lastRun: LastRun | null;
	/** Recent runs, newest last: lets anyone check that runs never overlapped. */
	history: { runId: string; startedAt: number; endedAt: number; outcome: string }[];
}

const INITIAL: SchedulerState = {
	projectId: null,
	dirty: false,
	running: false,
	runId: null,
	generation: 0,
	failures: 0,
	lastRun: null,
	history: [],
};
export const DEBOUNCE_MS = 30_000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const HISTORY = 20;

export const backoffMs = (failures: number) => Math.min(MAX_BACKOFF_MS, DEBOUNCE_MS * 2 ** Math.max(0, failures - 1));

/**
 * When a project's consolidation runs, one at a time, inside its object. `markDirty()` coalesces
 * triggers and arms a debounce alarm; the alarm runs one consolidation; a trigger during a run leaves
 * the project dirty, and the run's end arms exactly one re-run. A DO's input gate does not cover
 * awaits on R2, D1 or a model call, so exclusion rests on the stored `running` flag, set before the
 * first such await, and on the in-memory run that owns it: a stored `running` with no run in this
 * instance means the instance was evicted or crashed mid-run, and the alarm (retried by the platform,
 * or re-armed with backoff) runs it again.
 */
export class ConsolidationScheduler {
	/** The run this instance is executing, if any. */
	private active: Promise<void> | null = null;

	constructor(
		private readonly storage: DurableObjectStorage,
		/** One consolidation of `projectId` (src/consolidate/run.ts). */
		private readonly consolidate: (projectId: string, runId: string) => Promise<RunOutcome>,
	) {}

	async state(): Promise<SchedulerState> {
		return { ...INITIAL, ...((await this.storage.get<SchedulerState>("state")) ?? {}) };
	}

	private async arm(at: number): Promise<void> {
		const current = await this.storage.getAlarm();
		if (current === null || current > at) await this.storage.setAlarm(at);
	}

	/** Notes that new material exists; bursts of triggers become one run after the debounce. */
	async markDirty(projectId: string): Promise<SchedulerState> {
		const state = await this.state();
		state.projectId = projectId;
		state.dirty = true;
		state.generation += 1;
		await this.storage.put("state", state);
		// While a run is in progress its end schedules the re-run.
		if (!state.running || !this.active) await this.arm(Date.now() + DEBOUNCE_MS);
		return state;
	}

	/** A run as soon as possible (the rebuild command): no debounce. */
	async requestRun(projectId: string): Promise<SchedulerState> {
		const state = await this.markDirty(projectId);
		if (!state.running || !this.active) await this.storage.setAlarm(Date.now());
		return state;
	}

	/** The object's alarm: runs a pending consolidation unless this instance is already running one. */
	async alarm(): Promise<void> {
		if (this.active) return; // a run is executing in this instance; its end re-arms if needed
		const state = await this.state();
		if ((!state.dirty && !state.running) || !state.projectId) return;
		const runId = randomId(12);
		state.running = true;
		state.runId = runId;
		state.dirty = false;
		await this.storage.put("state", state);
		const run = this.execute(state.projectId, runId);
		this.active = run;
		try {
			await run;
		} finally {
			this.active = null;
		}
	}

	private async execute(projectId: string, runId: string): Promise<void> {
		const startedAt = Date.now();
		let lastRun: LastRun;
		let more = false;
		try {
			const result = await this.consolidate(projectId, runId);
			more = result.more;
			lastRun = { at: new Date().toISOString(), outcome: result.outcome, error: null, changes: result.changes, outputs: result.outputs };
		} catch (err) {
			const error = err instanceof ConsolidationError ? err.message : "consolidation failed on an internal error";
			if (!(err instanceof ConsolidationError)) console.error("consolidation failed", err instanceof Error ? err.stack : String(err));
			lastRun = { at: new Date().toISOString(), outcome: "failed", error, changes: 0, outputs: 0 };
		}
		const state = await this.state();
		state.running = false;
		state.runId = null;
		state.lastRun = lastRun;
		state.history = [...state.history, { runId, startedAt, endedAt: Date.now(), outcome: lastRun.outcome }].slice(-HISTORY);
		if (lastRun.outcome === "failed") {
			// The outputs are still pending: try again later, backing off.
			state.failures += 1;
			state.dirty = true;
			await this.storage.put("state", state);
			await this.storage.setAlarm(Date.now() + backoffMs(state.failures));
			return;
		}
		state.failures = 0;
		if (more) state.dirty = true;
		await this.storage.put("state", state);
		if (state.dirty) await this.arm(Date.now() + (more ? 0 : DEBOUNCE_MS));
	}
}
