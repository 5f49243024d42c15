import { type ServerResponse } from 'node:http';

/**
 * Writes one stream's heartbeat, the stream's own bytes; false when it could not (the stream is closed,
 * not open yet, or its client has a backlog): the table then tries again at its next look.
 */
export type HeartbeatWriter = () => boolean;

/** An open stream in a heartbeat table: when something was last written to it. */
export interface Beat {
  readonly write: HeartbeatWriter;
  /** `Date.now()` of the last write to the stream, by its owner or by the table. */
  lastWrite: number;
}

/** The longest pause between two looks at the table: a heartbeat comes at most this late. */
const MAX_TICK_MS = 1000;

/**
 * The heartbeats of every open long-lived response of a process that share an interval, from one timer:
 * a stream nothing was written to for `intervalMs` gets its heartbeat. A stream whose owner never sets
 * `lastWrite` gets one every interval. An idle stream thus costs one small record and a write per
 * interval, not a timer, a read and its promises (docs/chat.md, "Pieces and heartbeats").
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
  add(write: HeartbeatWriter): Beat {
    const beat: Beat = { write, lastWrite: Date.now() };
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
      if (beat.write()) beat.lastWrite = now;
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

/**
 * Whether a heartbeat may go to the response now: not after its end, and not while its client has yet
 * to take a backlog (`writableNeedDrain`): such a stream is not idle.
 */
export function takesHeartbeat(response: ServerResponse): boolean {
  return !(response.writableEnded || response.destroyed || response.writableNeedDrain);
}

/** The writer of `text` as the response's heartbeat. */
export function responseHeartbeat(response: ServerResponse, text: string): HeartbeatWriter {
  return () => {
    if (!takesHeartbeat(response)) return false;
    response.write(text);
    return true;
  };
}
