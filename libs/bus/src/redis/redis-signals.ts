import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type Redis } from 'ioredis';
import { type SignalHandler, type Signals, type Subscription } from '../ports';
import { deliverSafely } from '../internal/deliver-safely';
import { RedisChannelMux } from './redis-channel-mux';
import { closeRedisClient, createRedisClient, keyspace, type RedisEndpoint } from './redis-connection';

/** Signals on Redis pub/sub: one publisher and one subscriber connection, JSON on `<prefix>signal:<topic>`. */
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

  /** Round trip on both connections; rejects when either cannot reach Redis. */
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

  private channel(topic: SignalTopic): string {
    return `${this.prefix}signal:${topic}`;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('signals are closed');
  }
}
