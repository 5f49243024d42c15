import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type SignalHandler, type Signals, type Subscription } from '../ports';

/** In-process Signals for all-in-one mode: same semantics, delivered on a later tick. */
export class MemorySignals implements Signals {
  private readonly handlers = new Map<SignalTopic, Set<SignalHandler<SignalTopic>>>();
  private closed = false;

  async publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void> {
    if (this.closed) throw new Error('signals are closed');
    const targets = this.handlers.get(topic);
    if (!targets || targets.size === 0) return;
    // Each receiver gets its own copy, as it would from the wire.
    const wire = JSON.stringify(payload);
    for (const handler of [...targets]) {
      setImmediate(() => {
        try {
          handler(JSON.parse(wire) as SignalPayloads[T]);
        } catch {
          // A failing receiver must not affect the publisher or other receivers.
        }
      });
    }
  }

  async subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription> {
    if (this.closed) throw new Error('signals are closed');
    const erased = handler as SignalHandler<SignalTopic>;
    let targets = this.handlers.get(topic);
    if (!targets) this.handlers.set(topic, (targets = new Set()));
    targets.add(erased);
    return { unsubscribe: async () => void this.handlers.get(topic)?.delete(erased) };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.handlers.clear();
  }
}
