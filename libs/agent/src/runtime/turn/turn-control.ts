import type { JobHold, RunJobContext } from '@fed/bus';

/**
 * Why a turn stopped early. `shutdown` hands the job back; `lost`: someone else (the reaper) ended it; `job_lost`:
 * the queue may have handed the job to another runtime, so this one writes nothing more.
 */
export type StopReason = 'cancelled' | 'timeout' | 'shutdown' | 'lost' | 'stream_failed' | 'job_lost';

export class TurnStoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`turn stopped: ${reason}`);
    this.name = 'TurnStoppedError';
  }
}

/** Without a queue that can lose jobs (tests that run a turn directly). */
const ALWAYS_HELD: Pick<RunJobContext, 'hold' | 'holdsJob'> = {
  hold: () => 'held',
  holdsJob: () => Promise.resolve(true),
};

/** One running turn as its runtime knows it: its abort signal, why it stopped, and the text it has shown. */
export class TurnControl {
  private readonly controller = new AbortController();
  private stopReason: StopReason | undefined;
  readonly startedAt = performance.now();
  /** Set once the turn has an output; read by heartbeats. */
  shownText: (() => string) | undefined;
  /** The hold on the turn's job (`RunJobContext`): writes wait while it is unconfirmed and end once it is lost. */
  jobHold: Pick<RunJobContext, 'hold' | 'holdsJob'> = ALWAYS_HELD;

  constructor(
    readonly runId: string,
    readonly conversationId: string,
  ) {}

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get reason(): StopReason | undefined {
    return this.stopReason;
  }

  hold(): JobHold {
    return this.jobHold.hold();
  }

  /** Resolves once the hold is known: true held, false lost (RunJobContext.holdsJob). */
  holdsJob(): Promise<boolean> {
    return this.jobHold.holdsJob();
  }

  /** The first reason wins: a turn cancelled and then timed out was cancelled. */
  stop(reason: StopReason): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.controller.abort(new TurnStoppedError(reason));
  }
}
