import type { JobHold, Signals, Subscription } from '@fed/bus';
import type { Counter, Histogram } from 'prom-client';
import type { RunCancelledV1 } from '@fed/contracts';
import type { TurnLedger } from '@fed/conversations';
import { type Logger, type Metrics, type TurnOutcome, agentTurnDuration, agentTurns } from '@fed/observability';
import { TurnControl } from './turn-control';

/** This runtime's turns: cancelled by signal, kept alive by heartbeats (which catch lost signals), counted at end. */
export class RunningTurns {
  private readonly turns = new Map<string, TurnControl>();
  private subscription: Subscription | undefined;
  private heartbeats: NodeJS.Timeout | undefined;
  private readonly turnsEnded: Counter<'outcome'>;
  private readonly turnDuration: Histogram<'outcome'>;

  constructor(
    private readonly ledger: TurnLedger,
    private readonly signals: Signals,
    private readonly logger: Logger,
    metrics: Metrics,
  ) {
    this.turnsEnded = metrics.metric(agentTurns);
    this.turnDuration = metrics.metric(agentTurnDuration);
  }

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

  /** `outcome` undefined: no turn ended (none was claimed, or it was handed back to the queue). */
  end(control: TurnControl, outcome: TurnOutcome | undefined): void {
    if (this.turns.get(control.runId) === control) this.turns.delete(control.runId);
    if (outcome === undefined) return;
    this.turnsEnded.inc({ outcome });
    this.turnDuration.observe({ outcome }, (performance.now() - control.startedAt) / 1000);
  }

  /** Shutdown: waits for `finished`, `drainMs` or `hurry`; what still runs is then the caller's to hand back. */
  async drain(finished: Promise<void>, drainMs: number, hurry: AbortSignal): Promise<void> {
    if (this.turns.size > 0) {
      this.logger.info(
        { turns: this.turns.size, drainSeconds: drainMs / 1000 },
        'agent runtime draining: no new turns, the running ones may finish (a second signal hands them back now)',
      );
    }
    let timer: NodeJS.Timeout | undefined;
    let onHurry: (() => void) | undefined;
    const ended = await Promise.race([
      finished.then(() => 'finished' as const),
      new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), drainMs))),
      new Promise<'hurried'>((resolve) => {
        onHurry = () => resolve('hurried');
        if (hurry.aborted) onHurry();
        else hurry.addEventListener('abort', onHurry, { once: true });
      }),
    ]);
    clearTimeout(timer);
    if (onHurry) hurry.removeEventListener('abort', onHurry);
    if (ended !== 'finished' && this.turns.size > 0) {
      this.logger.warn({ turns: this.turns.size, reason: ended }, 'agent runtime handing its running turns back');
    }
  }

  /** `run.cancelled`: the one run, or every running turn of the conversation when no run is named. */
  cancel(signal: RunCancelledV1): void {
    for (const control of this.turns.values()) {
      const matches = signal.runId ? control.runId === signal.runId : control.conversationId === signal.conversationId;
      if (matches) control.stop('cancelled');
    }
  }

  /** Logged: an unconfirmed hold writes nothing until confirmed again, and a lost one is left to its new holder. */
  holdChanged(runId: string, hold: JobHold): void {
    switch (hold) {
      case 'unconfirmed':
        this.logger.warn(
          { runId },
          'agent turn paused: the run queue has not confirmed its hold on the job for a while (Redis slow or out of reach, or this process paused); it writes again once it does',
        );
        break;
      case 'held':
        this.logger.info({ runId }, 'agent turn resumed: the run queue confirmed its hold on the job again');
        break;
      case 'lost':
        this.logger.warn({ runId }, 'agent turn lost its hold on the job: another runtime may run it now');
        break;
    }
  }

  /** One ledger statement for the turns that have shown output and surely still hold their job. */
  async heartbeat(): Promise<void> {
    const beating = [...this.turns.values()].filter(
      (control) => control.shownText && !control.reason && control.hold() === 'held',
    );
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
