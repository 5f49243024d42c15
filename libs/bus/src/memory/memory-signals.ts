import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type SignalHandler, type Signals, type Subscription } from '../ports';
import { deliverSafely } from '../internal/deliver-safely';

/** In-process Signals for all-in-one mode: same semantics, delivered on a later tick. */
export class MemorySignals implements Signals {
  // One entry object per subscription: the same function subscribed twice is called twice, as on Redis.
  private readonly handlers = new Map<SignalTopic, Set<{ handler: SignalHandler<SignalTopic> }>>();
  private closed = false;

  async publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void> {
    if (this.closed) throw new Error('signals are closed');
    const targets = this.handlers.get(topic);
    if (!targets || targets.size === 0) return;
    // Each receiver gets its own copy, as it would from the wire.
    const wire = JSON.stringify(payload);
    for (const entry of [...targets]) {
      setImmediate(() => {
        // Unsubscribed in the meantime: a Redis subscriber would not get it either.
        if (!targets.has(entry)) return;
        deliverSafely(entry.handler, wire);
      });
    }
  }

  async subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription> {
    if (this.closed) throw new Error('signals are closed');
    const entry = { handler: handler as SignalHandler<SignalTopic> };
    let targets = this.handlers.get(topic);
    if (!targets) this.handlers.set(topic, (targets = new Set()));
    targets.add(entry);
    return {
      unsubscribe: async () => {
        const current = this.handlers.get(topic);
        current?.delete(entry);
        if (current?.size === 0) this.handlers.delete(topic);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    // Emptying the sets also drops deliveries already scheduled.
    for (const targets of this.handlers.values()) targets.clear();
    this.handlers.clear();
  }
}
