import { DurableObject } from "cloudflare:workers";

/** State kept in the object's own storage so an evicted or crashed run can resume. */
export interface CoordinatorState {
	dirty: boolean;
	running: boolean;
	generation: number;
	lastOutcome: string | null;
}

const INITIAL: CoordinatorState = { dirty: false, running: false, generation: 0, lastOutcome: null };
const DEBOUNCE_MS = 30_000;

/**
 * One instance per project (addressed by project id). It serialises per-project background work:
 * triggers mark it dirty and arm a debounce alarm; the alarm runs the work once. A DO's input
 * gate does not cover awaits on R2 or model calls, so exclusion relies on the stored flags.
 */
export class ProjectCoordinator extends DurableObject<Env> {
	private async state(): Promise<CoordinatorState> {
		return (await this.ctx.storage.get<CoordinatorState>("state")) ?? { ...INITIAL };
	}

	/** Notes that new material exists; coalesces bursts of triggers into one alarm. */
	async markDirty(): Promise<CoordinatorState> {
		const state = await this.state();
		state.dirty = true;
		state.generation += 1;
		await this.ctx.storage.put("state", state);
		if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(Date.now() + DEBOUNCE_MS);
		return state;
	}

	async status(): Promise<CoordinatorState> {
		return this.state();
	}

	async alarm(): Promise<void> {
		const state = await this.state();
		if (state.running || !state.dirty) return;
		// No background consolidation is registered for a project yet; record that the trigger was seen.
		state.dirty = false;
		state.lastOutcome = `idle at generation ${state.generation}`;
		await this.ctx.storage.put("state", state);
	}
}
