import { type ServerResponse } from 'node:http';

/** False when the stream is closed, not open yet, or backlogged: the table tries again next look. */
export type HeartbeatWriter = () => boolean;

export interface Beat {
  readonly write: HeartbeatWriter;
  /** By its owner or by the table. */
  lastWrite: number;
}

/** A heartbeat comes at most this late. */
const MAX_TICK_MS = 1000;

/**
 * One timer for every open stream of an interval, so an idle stream costs a small record and a write per
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

export function heartbeatsEvery(intervalMs: number): HeartbeatTable {
  let table = tables.get(intervalMs);
  if (!table) tables.set(intervalMs, (table = new HeartbeatTable(intervalMs)));
  return table;
}

/** A stream whose client has a backlog (`writableNeedDrain`) is not idle. */
export function takesHeartbeat(response: ServerResponse): boolean {
  return !(response.writableEnded || response.destroyed || response.writableNeedDrain);
}

export function responseHeartbeat(response: ServerResponse, text: string): HeartbeatWriter {
  return () => {
    if (!takesHeartbeat(response)) return false;
    response.write(text);
    return true;
  };
}
