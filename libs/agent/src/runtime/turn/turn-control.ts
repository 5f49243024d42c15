/**
 * Why a running turn was stopped before it ended on its own: `cancelled` (cancel), `timeout` (the
 * turn timeout), `shutdown` (its runtime stops: the job is handed back), `lost` (someone else ended
 * the turn, the reaper), `stream_failed` (its chunks can no longer be appended).
 */
export type StopReason = 'cancelled' | 'timeout' | 'shutdown' | 'lost' | 'stream_failed';

export class TurnStoppedError extends Error {
  constructor(readonly reason: StopReason) {
    super(`turn stopped: ${reason}`);
    this.name = 'TurnStoppedError';
  }
}

/** One running turn as its runtime knows it: its abort signal, why it stopped, and the text it has shown. */
export class TurnControl {
  private readonly controller = new AbortController();
  private stopReason: StopReason | undefined;
  /** Set once the turn has an output; read by heartbeats. */
  shownText: (() => string) | undefined;

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

  /** The first reason wins: a turn cancelled and then timed out was cancelled. */
  stop(reason: StopReason): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.controller.abort(new TurnStoppedError(reason));
  }
}
