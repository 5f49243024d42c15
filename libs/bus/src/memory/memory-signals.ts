import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type SignalHandler, type Signals, type Subscription } from '../ports';
import { deliverSafely } from '../internal/deliver-safely';

/** Same semantics as Redis, delivered on a later tick. */
export class MemorySignals implements Signals {
  // One entry per subscription: the same function subscribed twice is called twice, as on Redis.
  private readonly handlers = new Map<SignalTopic, Set<{ handler: SignalHandler<SignalTopic> }>>();
  private readonly kept = new Map<SignalTopic, Map<string, number>>();
  private closed = false;

  async publishRetained<T extends SignalTopic>(
    topic: T,
    payload: SignalPayloads[T],
    untilSeconds: number,
  ): Promise<void> {
    if (this.closed) throw new Error('signals are closed');
    let entries = this.kept.get(topic);
    if (!entries) this.kept.set(topic, (entries = new Map()));
    const wire = JSON.stringify(payload);
    entries.set(wire, Math.max(untilSeconds, entries.get(wire) ?? 0));
    this.forgetEnded(entries);
    await this.publish(topic, payload);
  }

  async retained<T extends SignalTopic>(topic: T): Promise<SignalPayloads[T][]> {
    if (this.closed) throw new Error('signals are closed');
    const entries = this.kept.get(topic);
    if (!entries) return [];
    this.forgetEnded(entries);
    return [...entries].sort(([, a], [, b]) => a - b).map(([wire]) => JSON.parse(wire) as SignalPayloads[T]);
  }

  private forgetEnded(entries: Map<string, number>): void {
    const now = Date.now() / 1000;
    for (const [wire, until] of entries) if (until <= now) entries.delete(wire);
  }

  async publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void> {
    if (this.closed) throw new Error('signals are closed');
    const targets = this.handlers.get(topic);
    if (!targets || targets.size === 0) return;
    // Each receiver gets its own copy, as from the wire.
    const wire = JSON.stringify(payload);
    for (const entry of [...targets]) {
      setImmediate(() => {
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
    // Also drops deliveries already scheduled.
    for (const targets of this.handlers.values()) targets.clear();
    this.handlers.clear();
  }
}
