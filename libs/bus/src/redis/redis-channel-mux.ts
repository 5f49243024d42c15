import { type Redis } from 'ioredis';

export interface ChannelListener {
  message(payload: string): void;
  /** After a reconnect, and every liveness interval while out of touch: messages may have been missed. */
  resync?(): void;
}

export interface ChannelLease {
  /** Already subscribed: no message can be missed from now on. */
  live: boolean;
  /** Settles once Redis confirmed the SUBSCRIBE. */
  ready: Promise<void>;
  release(): Promise<void>;
}

interface Channel {
  listeners: Set<ChannelListener>;
  ready: Promise<void>;
  confirmed: boolean;
  linger: NodeJS.Timeout | undefined;
  /** Messages and reconnects since subscribed, listened to or not. */
  generation: number;
}

/** While `unchanged` holds, no message came since the mark, so the data behind it has not changed. */
export interface ChannelMark {
  readonly channel: string;
  readonly entry: object;
  readonly generation: number;
}

const LIVENESS_INTERVAL_MS = 5000;

/** Many listeners over one subscriber connection; `lingerMs` spares a looping reader a SUBSCRIBE per read. */
export class RedisChannelMux {
  private readonly channels = new Map<string, Channel>();
  private connectedBefore = false;
  private closed = false;
  private aliveAt = -Infinity;
  private readonly liveness: NodeJS.Timeout;
  private pinging = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly lingerMs: number,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {
    subscriber.on('message', (channel: string, payload: string) => {
      const entry = this.channels.get(channel);
      if (!entry) return;
      entry.generation++;
      for (const listener of [...entry.listeners]) this.call(() => listener.message(payload));
    });
    subscriber.on('ready', () => {
      if (!this.connectedBefore) {
        this.connectedBefore = true;
        this.aliveAt = performance.now();
        return;
      }
      // ioredis re-subscribes after a reconnect, but 'ready' comes before Redis took those SUBSCRIBEs; a PING
      // is answered after them. Until then no mark is trusted, then every listener reads again.
      this.subscriber.ping().then(
        () => {
          for (const entry of this.channels.values()) {
            entry.confirmed = true;
            entry.generation++;
            for (const listener of [...entry.listeners]) this.call(() => listener.resync?.());
          }
          this.aliveAt = performance.now();
        },
        () => undefined,
      );
    });
    subscriber.on('close', () => {
      this.aliveAt = -Infinity;
      for (const entry of this.channels.values()) {
        entry.confirmed = false;
        entry.generation++;
      }
    });
    // A connection that died silently must not leave marks trusted: one PING per interval per process.
    this.liveness = setInterval(() => void this.checkLiveness(), LIVENESS_INTERVAL_MS);
    this.liveness.unref();
  }

  /** Undefined while the channel is not surely subscribed. */
  mark(channel: string): ChannelMark | undefined {
    const entry = this.channels.get(channel);
    return entry?.confirmed ? { channel, entry, generation: entry.generation } : undefined;
  }

  /** Also false if the connection dropped or did not answer within two intervals. */
  unchanged(mark: ChannelMark): boolean {
    const entry = this.channels.get(mark.channel);
    return (
      entry === mark.entry &&
      entry.confirmed &&
      entry.generation === mark.generation &&
      performance.now() - this.aliveAt < 2 * LIVENESS_INTERVAL_MS
    );
  }

  get size(): number {
    return this.channels.size;
  }

  isLive(channel: string): boolean {
    return this.channels.get(channel)?.confirmed ?? false;
  }

  listen(channel: string, listener: ChannelListener): ChannelLease {
    if (this.closed) throw new Error('subscriber is closed');
    let entry = this.channels.get(channel);
    const live = entry?.confirmed ?? false;
    if (entry) {
      clearTimeout(entry.linger);
      entry.linger = undefined;
    } else {
      entry = this.subscribe(channel);
    }
    entry.listeners.add(listener);
    const subscribed = entry;
    let released = false;
    return {
      live,
      ready: subscribed.ready,
      release: () => {
        if (released) return Promise.resolve();
        released = true;
        subscribed.listeners.delete(listener);
        return this.unused(channel, subscribed);
      },
    };
  }

  close(): void {
    this.closed = true;
    clearInterval(this.liveness);
    for (const entry of this.channels.values()) {
      clearTimeout(entry.linger);
      entry.listeners.clear();
    }
    this.channels.clear();
  }

  private subscribe(channel: string): Channel {
    const entry: Channel = {
      listeners: new Set(),
      ready: Promise.resolve(),
      confirmed: false,
      linger: undefined,
      generation: 0,
    };
    entry.ready = this.subscriber.subscribe(channel).then(
      () => {
        entry.confirmed = true;
      },
      (error: unknown) => {
        // So the next listener tries again.
        if (this.channels.get(channel) === entry) this.channels.delete(channel);
        throw error;
      },
    );
    // Listeners await `ready` themselves; this only prevents an unhandled rejection.
    entry.ready.catch(() => undefined);
    this.channels.set(channel, entry);
    return entry;
  }

  private unused(channel: string, entry: Channel): Promise<void> {
    if (entry.listeners.size > 0 || this.channels.get(channel) !== entry) return Promise.resolve();
    if (this.lingerMs <= 0) return this.unsubscribe(channel, entry);
    entry.linger = setTimeout(() => void this.unsubscribe(channel, entry), this.lingerMs);
    entry.linger.unref();
    return Promise.resolve();
  }

  private async unsubscribe(channel: string, entry: Channel): Promise<void> {
    entry.linger = undefined;
    if (entry.listeners.size > 0 || this.channels.get(channel) !== entry || this.closed) return;
    this.channels.delete(channel);
    // Commands on one connection run in order, so a later SUBSCRIBE still wins.
    try {
      await this.subscriber.unsubscribe(channel);
    } catch (error) {
      if (!this.closed) this.onError(error as Error);
    }
  }

  private async checkLiveness(): Promise<void> {
    if (this.closed || this.channels.size === 0) return;
    // Out of touch: nudges may be missed, so every waiting reader looks for itself until the connection
    // answers again. This bounds a quiet stream's wait.
    if (performance.now() - this.aliveAt >= 2 * LIVENESS_INTERVAL_MS) {
      for (const entry of this.channels.values()) {
        for (const listener of [...entry.listeners]) this.call(() => listener.resync?.());
      }
    }
    if (this.pinging || this.subscriber.status !== 'ready') return;
    this.pinging = true;
    try {
      await this.subscriber.ping();
      this.aliveAt = performance.now();
    } catch {
      // Marks go stale by themselves, and a reconnect bumps every channel.
    } finally {
      this.pinging = false;
    }
  }

  private call(fn: () => void): void {
    try {
      fn();
    } catch {
      // One listener's failure must not keep the message from the others.
    }
  }
}
