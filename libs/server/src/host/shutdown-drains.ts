/**
 * Work finished before HTTP stops: the agent's running turns call models through this very server in
 * `platform`. Each drain bounds its own time; `hurry` (a second signal) asks it to end now.
 */
export type ShutdownDrain = (hurry: AbortSignal) => Promise<void>;

export class ShutdownDrains {
  private readonly drains: ShutdownDrain[] = [];
  private readonly hurried = new AbortController();
  private running = false;

  add(drain: ShutdownDrain): void {
    this.drains.push(drain);
  }

  /** A failing drain is reported and does not stop the others. */
  async run(onError: (error: unknown) => void): Promise<void> {
    this.running = true;
    try {
      await Promise.all(this.drains.map((drain) => drain(this.hurried.signal).catch(onError)));
    } finally {
      this.running = false;
    }
  }

  /** False when none is running, or they were already told. */
  hurry(): boolean {
    if (!this.running || this.hurried.signal.aborted) return false;
    this.hurried.abort();
    return true;
  }
}

export const SHUTDOWN_DRAINS = Symbol.for('fed.server.ShutdownDrains');
