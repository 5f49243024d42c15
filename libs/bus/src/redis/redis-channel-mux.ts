import { type Redis } from 'ioredis';

export interface ChannelListener {
  message(payload: string): void;
  /**
   * Called after a reconnect, and every liveness interval while the connection is out of touch: messages
   * may have been missed, or may not come.
   */
  resync?(): void;
}

export interface ChannelLease {
  /** True when the channel was already subscribed, so no message can be missed from now on. */
  live: boolean;
  /** Settles once Redis confirmed the SUBSCRIBE (rejects if it could not be sent). */
  ready: Promise<void>;
  /** Stops this listener at once; resolves once the UNSUBSCRIBE (if it was the last) is done. */
  release(): Promise<void>;
}

interface Channel {
  listeners: Set<ChannelListener>;
  ready: Promise<void>;
  confirmed: boolean;
  linger: NodeJS.Timeout | undefined;
  /** Messages (and reconnects) seen on the channel since it was subscribed, listened to or not. */
  generation: number;
}

/**
 * What a reader knew of a channel before it read the data behind it: while `unchanged` says so, no
 * message came since, so the data has not changed (every write publishes on the channel).
 */
export interface ChannelMark {
  readonly channel: string;
  readonly entry: object;
  readonly generation: number;
}

/** How often the subscriber connection is checked while channels are subscribed. */
const LIVENESS_INTERVAL_MS = 5000;

/**
 * Many listeners over ONE subscriber connection: a channel is subscribed while it has listeners
 * (plus `lingerMs`, so a reader that loops on a stream does not SUBSCRIBE/UNSUBSCRIBE per read).
 */
export class RedisChannelMux {
  private readonly channels = new Map<string, Channel>();
  private connectedBefore = false;
  private closed = false;
  /** `performance.now()` when the subscriber last answered (or connected): messages were flowing then. */
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
      // ioredis re-subscribes by itself after a reconnect, but 'ready' comes before Redis has taken those
      // SUBSCRIBEs: a PING sent now is answered after them. Until then the channels count as unconfirmed
      // (no reader trusts a mark), then every listener learns of the gap and reads again.
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
      // Messages may be lost from now on until the re-subscriptions are confirmed.
      for (const entry of this.channels.values()) {
        entry.confirmed = false;
        entry.generation++;
      }
    });
    // A connection that died without a word (no reconnect, no message) must not leave marks trusted: a
    // PING through it every interval keeps them valid, one round trip per process, not per channel.
    this.liveness = setInterval(() => void this.checkLiveness(), LIVENESS_INTERVAL_MS);
    this.liveness.unref();
  }

  /** The channel's state now, for `unchanged` later; undefined while it is not subscribed for sure. */
  mark(channel: string): ChannelMark | undefined {
    const entry = this.channels.get(channel);
    return entry?.confirmed ? { channel, entry, generation: entry.generation } : undefined;
  }

  /**
   * True while no message came on the mark's channel since it was taken, and none can have been missed:
   * the channel stayed subscribed, the connection did not drop, and it answered within two intervals.
   */
  unchanged(mark: ChannelMark): boolean {
    const entry = this.channels.get(mark.channel);
    return (
      entry === mark.entry &&
      entry.confirmed &&
      entry.generation === mark.generation &&
      performance.now() - this.aliveAt < 2 * LIVENESS_INTERVAL_MS
    );
  }

  /** Number of channels subscribed (or lingering) right now. */
  get size(): number {
    return this.channels.size;
  }

  /** Whether Redis already confirmed a subscription to `channel`. */
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
        // Forget the failed entry, so the next listener tries again.
        if (this.channels.get(channel) === entry) this.channels.delete(channel);
        throw error;
      },
    );
    // Every listener awaits `ready` itself; this only keeps an unobserved failure from being "unhandled".
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
    // Commands on one connection run in order, so a SUBSCRIBE sent after this one still wins.
    try {
      await this.subscriber.unsubscribe(channel);
    } catch (error) {
      if (!this.closed) this.onError(error as Error);
    }
  }

  private async checkLiveness(): Promise<void> {
    if (this.closed || this.channels.size === 0) return;
    // Out of touch (down, reconnecting, or silent): a nudge may be missed, so every waiting reader looks
    // for itself, as often as this runs, until the connection answers again. A reader waits long on a
    // quiet stream trusting its nudges; this is what bounds its wait when they may not come.
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
      // Out of reach: marks go stale by themselves, and a reconnect bumps every channel.
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
