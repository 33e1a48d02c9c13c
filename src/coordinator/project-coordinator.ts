import { DurableObject } from "cloudflare:workers";
import type { LanguageModel } from "ai";
import { ConsolidationError } from "../consolidate/model";
import { type ConsolidationFaults, consolidateProject } from "../consolidate/run";
import { randomId } from "../lib/ids";

export interface LastRun {
	at: string;
	outcome: "succeeded" | "nothing to do" | "failed";
	error: string | null;
	changes: number;
	outputs: number;
}

/** State kept in the object's own storage so an evicted or crashed run is retried and converges. */
export interface CoordinatorState {
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

const INITIAL: CoordinatorState = {
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
 * One instance per project (addressed by project id): it serialises consolidation in place of leases.
 * `markDirty()` coalesces triggers and arms a debounce alarm; the alarm runs one consolidation; a
 * trigger during a run leaves the project dirty, and the run's end arms exactly one re-run. A DO's
 * input gate does not cover awaits on R2, D1 or a model call, so exclusion rests on the stored
 * `running` flag, set before the first such await, and on the in-memory run that owns it: a stored
 * `running` with no run in this instance means the instance was evicted or crashed mid-run, and the
 * alarm (retried by the platform, or re-armed with backoff) runs it again.
 */
export class ProjectCoordinator extends DurableObject<Env> {
	/** The run this instance is executing, if any. */
	private active: Promise<void> | null = null;
	/** Test seams: a scripted model and fault points. Production leaves them unset. */
	model: LanguageModel | null | undefined = undefined;
	faults: ConsolidationFaults | undefined = undefined;
	onRunStart: (() => void | Promise<void>) | undefined = undefined;

	private async state(): Promise<CoordinatorState> {
		return { ...INITIAL, ...((await this.ctx.storage.get<CoordinatorState>("state")) ?? {}) };
	}

	private async arm(at: number): Promise<void> {
		const current = await this.ctx.storage.getAlarm();
		if (current === null || current > at) await this.ctx.storage.setAlarm(at);
	}

	/** Notes that new material exists; bursts of triggers become one run after the debounce. */
	async markDirty(projectId: string): Promise<CoordinatorState> {
		const state = await this.state();
		state.projectId = projectId;
		state.dirty = true;
		state.generation += 1;
		await this.ctx.storage.put("state", state);
		// While a run is in progress its end schedules the re-run.
		if (!state.running || !this.active) await this.arm(Date.now() + DEBOUNCE_MS);
		return state;
	}

	/** A run as soon as possible (the rebuild command): no debounce. */
	async requestRun(projectId: string): Promise<CoordinatorState> {
		const state = await this.markDirty(projectId);
		if (!state.running || !this.active) await this.ctx.storage.setAlarm(Date.now());
		return state;
	}

	async status(): Promise<CoordinatorState> {
		return this.state();
	}

	async alarm(): Promise<void> {
		if (this.active) return; // a run is executing in this instance; its end re-arms if needed
		const state = await this.state();
		if ((!state.dirty && !state.running) || !state.projectId) return;
		const runId = randomId(12);
		state.running = true;
		state.runId = runId;
		state.dirty = false;
		await this.ctx.storage.put("state", state);
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
			await this.onRunStart?.();
			const result = await consolidateProject(this.env, projectId, runId, { model: this.model, faults: this.faults });
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
			await this.ctx.storage.put("state", state);
			await this.ctx.storage.setAlarm(Date.now() + backoffMs(state.failures));
			return;
		}
		state.failures = 0;
		if (more) state.dirty = true;
		await this.ctx.storage.put("state", state);
		if (state.dirty) await this.arm(Date.now() + (more ? 0 : DEBOUNCE_MS));
	}
}
