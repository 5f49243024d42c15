import { type JobHold } from '../ports';

/** One running job's hold, as its handler sees it (`RunJobContext.hold` and `holdsJob`). */
export interface TrackedHold {
  current(): JobHold;
  confirmed(): Promise<boolean>;
  /** The handler ended: no more timers, no more notices. */
  release(): void;
}

interface JobState {
  /**
   * No later than the last renewal of the job's lock that Redis confirmed (or than the job's start): the
   * lock is valid for at least `stallMs` after it.
   */
  renewedFrom: number;
  /** What was last reported: only changes are. */
  reported: JobHold;
  lost: boolean;
  timer: NodeJS.Timeout | undefined;
  waiters: ((held: boolean) => void)[];
}

/**
 * The holds of one consumer's running jobs, from BullMQ's lock renewals (docs/reliability.md, "Rollouts and
 * crashes"). A job is `held` while at least half the stall time is surely left on its lock (time for a write
 * sent now to land while the lock is valid, even on a slow Redis), `unconfirmed` in the other half (writes
 * wait; BullMQ renews every eighth to quarter of it, so a confirmation is then overdue), and `lost` once the
 * lock may have lapsed or its renewal was refused.
 *
 * When did a renewal reach Redis? BullMQ renews in batches, one after the other (the next batch is sent only
 * once the previous one was answered), so a renewal confirmed now was sent after the previous batch was
 * confirmed: that time, not the time of the answer, is when its lock is surely valid from. An answer read
 * late (the process paused while it waited in the socket) therefore counts for less, never for more.
 */
export class RunJobHolds {
  private readonly jobs = new Map<string, JobState>();
  /** When the last batch of renewals was confirmed (performance.now()). */
  private lastBatchAt = performance.now();

  constructor(
    private readonly stallMs: number,
    private readonly onChange: (jobId: string, hold: JobHold) => void,
  ) {}

  /** A job that starts now: its lock was just taken. */
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

  /** BullMQ's `lockRenewalFailed`: Redis says the lock is not ours any more. */
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

  /** Reports a change, settles waiters, and sets the timer for the next change. */
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
