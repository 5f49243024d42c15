import type { Signals, Subscription } from '@fed/bus';
import type { RunCancelledV1 } from '@fed/contracts';
import type { TurnLedger } from '@fed/conversations';
import type { Logger } from '@fed/observability';
import { TurnControl } from './turn-control';

/**
 * The turns this runtime is running: stopped by `run.cancelled` signals, and kept alive in the
 * ledger by heartbeats (which also stop turns that were cancelled while a signal was lost, or that
 * someone else ended).
 */
export class RunningTurns {
  private readonly turns = new Map<string, TurnControl>();
  private subscription: Subscription | undefined;
  private heartbeats: NodeJS.Timeout | undefined;

  constructor(
    private readonly ledger: TurnLedger,
    private readonly signals: Signals,
    private readonly logger: Logger,
  ) {}

  /** Subscribes to cancels and starts the heartbeats (every `heartbeatMs`). */
  async open(heartbeatMs: number): Promise<void> {
    this.subscription = await this.signals.subscribe('run.cancelled', (signal) => this.cancel(signal));
    this.heartbeats = setInterval(() => void this.heartbeat(), heartbeatMs);
    this.heartbeats.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.heartbeats);
    await this.subscription?.unsubscribe().catch(() => undefined);
  }

  /** Registered before the turn is claimed, so a cancel signal sent at any time after reaches it. */
  start(runId: string, conversationId: string): TurnControl {
    const control = new TurnControl(runId, conversationId);
    this.turns.set(runId, control);
    return control;
  }

  end(control: TurnControl): void {
    if (this.turns.get(control.runId) === control) this.turns.delete(control.runId);
  }

  /** `run.cancelled`: the one run, or every running turn of the conversation when no run is named. */
  cancel(signal: RunCancelledV1): void {
    for (const control of this.turns.values()) {
      const matches = signal.runId ? control.runId === signal.runId : control.conversationId === signal.conversationId;
      if (matches) control.stop('cancelled');
    }
  }

  /** One ledger statement for every turn that has started showing output. */
  async heartbeat(): Promise<void> {
    const beating = [...this.turns.values()].filter((control) => control.shownText && !control.reason);
    if (beating.length === 0) return;
    try {
      const live = await this.ledger.heartbeat(
        beating.map((control) => ({ runId: control.runId, text: (control.shownText as () => string)() })),
      );
      const byId = new Map(live.map((turn) => [turn.runId, turn]));
      for (const control of beating) {
        const turn = byId.get(control.runId);
        if (!turn) control.stop('lost');
        else if (turn.cancelRequested) control.stop('cancelled');
      }
    } catch (error) {
      this.logger.warn({ err: error, turns: beating.length }, 'agent turn heartbeat failed; retrying at the next one');
    }
  }
}
