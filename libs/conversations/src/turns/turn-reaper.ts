import { type ServiceConfig } from '@fed/config';
import { type Logger } from '@fed/observability';
import { type TurnsRepository } from './turns.repository';
import { type TurnStarter } from './turn-starter';

/**
 * Stall intervals before reaping: the queue re-hands a dead runtime's job within about 1¼ intervals and the last
 * heartbeat may be ⅓ older, so 3 leaves a new runtime time to claim the turn first.
 */
export const REAP_AFTER_STALLS = 3;

/** Ends turns whose runtime is gone (stale heartbeat, or never taken), so no `processing` flag outlives its turn. */
export class TurnReaper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly repository: TurnsRepository,
    private readonly starter: TurnStarter,
    private readonly config: Pick<ServiceConfig, 'agent'>,
    private readonly logger: Logger,
  ) {}

  /** With the in-process bus a turn lives only in its process: at start, every turn still processing is orphaned. */
  async start(inProcessBus: boolean): Promise<void> {
    if (inProcessBus) await this.sweep(0, 0);
    const every = Math.max(1000, Math.floor(this.config.agent.stallMs / 2));
    this.timer = setInterval(() => {
      this.running ??= this.sweep(REAP_AFTER_STALLS * this.config.agent.stallMs, this.config.agent.turnTimeoutMs)
        .then(() => undefined)
        .finally(() => {
          this.running = undefined;
        });
    }, every);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  async sweep(staleMs: number, unclaimedMs: number): Promise<string[]> {
    try {
      const ended = await this.repository.reap(staleMs, unclaimedMs);
      for (const runId of ended) {
        this.logger.warn({ runId }, 'agent turn lost its runtime: ended unfinished');
        await this.starter.endStream(runId, 'lost');
      }
      return ended;
    } catch (error) {
      this.logger.warn({ err: error }, 'reaping abandoned turns failed; retrying later');
      return [];
    }
  }
}
