import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type Redis } from 'ioredis';
import { type SignalHandler, type Signals, type Subscription } from '../ports';
import { deliverSafely } from '../internal/deliver-safely';
import { RedisChannelMux } from './redis-channel-mux';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';

/** JSON on `<prefix>signal:<topic>`. */
export class RedisSignals implements Signals {
  private readonly publisher: Redis;
  private readonly subscriber: Redis;
  private readonly mux: RedisChannelMux;
  private readonly prefix: string;
  private closed = false;

  constructor(options: RedisEndpoint) {
    this.prefix = keyspace(options.keyPrefix);
    this.publisher = createRedisClient(options, 'signals-pub');
    this.subscriber = createRedisClient(options, 'signals-sub');
    this.mux = new RedisChannelMux(this.subscriber, 0, options.onError);
  }

  async publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void> {
    this.assertOpen();
    await this.publisher.publish(this.channel(topic), JSON.stringify(payload));
  }

  async publishRetained<T extends SignalTopic>(
    topic: T,
    payload: SignalPayloads[T],
    untilSeconds: number,
  ): Promise<void> {
    this.assertOpen();
    const key = this.retainedKey(topic);
    const now = Date.now() / 1000;
    // Scored by the end of retention; the key lives as long as its last member.
    await this.publisher
      .multi()
      .zremrangebyscore(key, '-inf', now)
      .zadd(key, untilSeconds, JSON.stringify(payload))
      .expireat(key, Math.ceil(untilSeconds), 'GT')
      .expireat(key, Math.ceil(untilSeconds), 'NX')
      .exec();
    await this.publish(topic, payload);
  }

  async retained<T extends SignalTopic>(topic: T): Promise<SignalPayloads[T][]> {
    this.assertOpen();
    const members = await this.publisher.zrangebyscore(this.retainedKey(topic), `(${Date.now() / 1000}`, '+inf');
    const payloads: SignalPayloads[T][] = [];
    for (const member of members) {
      try {
        payloads.push(JSON.parse(member) as SignalPayloads[T]);
      } catch {
        // Skipped, as a malformed live signal is.
      }
    }
    return payloads;
  }

  async subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription> {
    this.assertOpen();
    const erased = handler as SignalHandler<SignalTopic>;
    const lease = this.mux.listen(this.channel(topic), { message: (wire) => deliverSafely(erased, wire) });
    try {
      // The port promises a publish made after this resolves reaches the handler.
      await lease.ready;
    } catch (error) {
      await lease.release();
      throw error;
    }
    return { unsubscribe: () => lease.release() };
  }

  async ping(): Promise<void> {
    this.assertOpen();
    await Promise.all([this.publisher.ping(), this.subscriber.ping()]);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.mux.close();
    await Promise.all([closeRedisClient(this.subscriber), closeRedisClient(this.publisher)]);
  }

  private retainedKey(topic: SignalTopic): string {
    return `${this.prefix}signal-retained:${topic}`;
  }

  private channel(topic: SignalTopic): string {
    return `${this.prefix}signal:${topic}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('signals are closed');
  }
}
