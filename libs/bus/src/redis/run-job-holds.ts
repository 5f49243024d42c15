import { type JobHold } from '../ports';

export interface TrackedHold {
  current(): JobHold;
  confirmed(): Promise<boolean>;
  release(): void;
}

interface JobState {
  /** No later than the last confirmed renewal (or the job's start): the lock is valid for `stallMs` after it. */
  renewedFrom: number;
  /** Only changes are reported. */
  reported: JobHold;
  lost: boolean;
  timer: NodeJS.Timeout | undefined;
  waiters: ((held: boolean) => void)[];
}

/**
 * From BullMQ's lock renewals (docs/reliability.md, "Rollouts and crashes"): `held` while at least half the
 * stall time is surely left, so a write sent now lands in time even on a slow Redis. BullMQ sends a renewal
 * batch only once the previous one was answered, so a lock is surely valid from the previous confirmation:
 * an answer read late (the process paused) counts for less, never for more.
 */
export class RunJobHolds {
  private readonly jobs = new Map<string, JobState>();
  private lastBatchAt = performance.now();

  constructor(
    private readonly stallMs: number,
    private readonly onChange: (jobId: string, hold: JobHold) => void,
  ) {}

  track(jobId: string): TrackedHold {
    const state: JobState = {
      renewedFrom: performance.now(),
      reported: 'held',
      lost: false,
      timer: undefined,
      waiters: [],
    };
    this.jobs.set(jobId, state);
    this.update(jobId, state);
    return {
      current: () => this.holdOf(state),
      confirmed: () => {
        const hold = this.holdOf(state);
        if (hold !== 'unconfirmed') return Promise.resolve(hold === 'held');
        return new Promise<boolean>((resolve) => state.waiters.push(resolve));
      },
      release: () => {
        clearTimeout(state.timer);
        if (this.jobs.get(jobId) === state) this.jobs.delete(jobId);
        for (const wake of state.waiters.splice(0)) wake(false);
      },
    };
  }

  /** BullMQ's `locksRenewed`. */
  renewed(jobIds: readonly string[]): void {
    const sentAfter = this.lastBatchAt;
    this.lastBatchAt = performance.now();
    for (const jobId of jobIds) {
      const state = this.jobs.get(jobId);
      if (!state || state.lost) continue;
      state.renewedFrom = Math.max(state.renewedFrom, sentAfter);
      this.update(jobId, state);
    }
  }

  /** BullMQ's `lockRenewalFailed`. */
  refused(jobIds: readonly string[]): void {
    for (const jobId of jobIds) {
      const state = this.jobs.get(jobId);
      if (!state || state.lost) continue;
      state.lost = true;
      this.update(jobId, state);
    }
  }

  private holdOf(state: JobState): JobHold {
    if (state.lost) return 'lost';
    const age = performance.now() - state.renewedFrom;
    if (age >= this.stallMs) return 'lost';
    return age >= this.stallMs / 2 ? 'unconfirmed' : 'held';
  }

  private update(jobId: string, state: JobState): void {
    clearTimeout(state.timer);
    state.timer = undefined;
    const hold = this.holdOf(state);
    if (hold !== state.reported) {
      state.reported = hold;
      this.onChange(jobId, hold);
    }
    if (hold === 'lost') {
      state.lost = true;
      for (const wake of state.waiters.splice(0)) wake(false);
      return;
    }
    if (hold === 'held') for (const wake of state.waiters.splice(0)) wake(true);
    const changesAt = state.renewedFrom + (hold === 'held' ? this.stallMs / 2 : this.stallMs);
    state.timer = setTimeout(() => this.update(jobId, state), Math.max(0, changesAt - performance.now()));
    state.timer.unref();
  }
}
