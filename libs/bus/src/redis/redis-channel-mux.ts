import { type Redis } from 'ioredis';

export interface ChannelListener {
  message(payload: string): void;
  /** Called after a reconnect: messages may have been missed while the connection was down. */
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
}

/**
 * Many listeners over ONE subscriber connection: a channel is subscribed while it has listeners
 * (plus `lingerMs`, so a reader that loops on a stream does not SUBSCRIBE/UNSUBSCRIBE per read).
 */
export class RedisChannelMux {
  private readonly channels = new Map<string, Channel>();
  private connectedBefore = false;
  private closed = false;

  constructor(
    private readonly subscriber: Redis,
    private readonly lingerMs: number,
    private readonly onError: (error: Error) => void = () => undefined,
  ) {
    subscriber.on('message', (channel: string, payload: string) => {
      const entry = this.channels.get(channel);
      if (!entry) return;
      for (const listener of [...entry.listeners]) this.call(() => listener.message(payload));
    });
    subscriber.on('ready', () => {
      // ioredis re-subscribes by itself after a reconnect; listeners only need to know about the gap.
      if (this.connectedBefore) {
        for (const entry of this.channels.values()) {
          for (const listener of [...entry.listeners]) this.call(() => listener.resync?.());
        }
      }
      this.connectedBefore = true;
    });
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
    for (const entry of this.channels.values()) {
      clearTimeout(entry.linger);
      entry.listeners.clear();
    }
    this.channels.clear();
  }

  private subscribe(channel: string): Channel {
    const entry: Channel = { listeners: new Set(), ready: Promise.resolve(), confirmed: false, linger: undefined };
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

  private call(fn: () => void): void {
    try {
      fn();
    } catch {
      // One listener's failure must not keep the message from the others.
    }
  }
}
