import { SSE_HEARTBEAT } from '@fed/contracts';
import { type ServerResponse } from 'node:http';

/** An open stream in a heartbeat table: when something was last written to it. */
export interface Beat {
  readonly response: ServerResponse;
  /** `Date.now()` of the last write to the stream, by its relay or by the table. */
  lastWrite: number;
}

/** The longest pause between two looks at the table: a heartbeat comes at most this late. */
const MAX_TICK_MS = 1000;

/**
 * The heartbeats of every open stream of a process that share an interval, from one timer: a stream
 * nothing was written to for `intervalMs` gets `: heartbeat`. A relay waiting on an idle run stream thus
 * wakes for data only, and an idle stream costs one small record and a write per interval, not a timer,
 * a read and its promises (docs/chat.md, "Pieces and heartbeats").
 *
 * A stream waiting for its client to take a backlog (`writableNeedDrain`) gets none: it is not idle.
 */
export class HeartbeatTable {
  private readonly beats = new Set<Beat>();
  private timer: NodeJS.Timeout | undefined;
  private readonly tickMs: number;

  constructor(readonly intervalMs: number) {
    if (!(intervalMs > 0)) throw new RangeError('intervalMs must be positive');
    this.tickMs = Math.max(1, Math.min(MAX_TICK_MS, Math.floor(intervalMs / 5)));
  }

  /** Starts the stream's heartbeats, counting its silence from now. */
  add(response: ServerResponse): Beat {
    const beat: Beat = { response, lastWrite: Date.now() };
    this.beats.add(beat);
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), this.tickMs);
      this.timer.unref();
    }
    return beat;
  }

  delete(beat: Beat): void {
    this.beats.delete(beat);
    if (this.beats.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  get size(): number {
    return this.beats.size;
  }

  private tick(): void {
    const now = Date.now();
    const quietSince = now - this.intervalMs;
    for (const beat of this.beats) {
      if (beat.lastWrite > quietSince) continue;
      const { response } = beat;
      if (response.writableEnded || response.destroyed || response.writableNeedDrain) continue;
      response.write(SSE_HEARTBEAT);
      beat.lastWrite = now;
    }
  }
}

const tables = new Map<number, HeartbeatTable>();

/** The process's heartbeat table for `intervalMs`. */
export function heartbeatsEvery(intervalMs: number): HeartbeatTable {
  let table = tables.get(intervalMs);
  if (!table) tables.set(intervalMs, (table = new HeartbeatTable(intervalMs)));
  return table;
}
