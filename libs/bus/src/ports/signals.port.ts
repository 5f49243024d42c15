import { type SignalPayloads, type SignalTopic } from '@fed/contracts';

export type SignalHandler<T extends SignalTopic> = (payload: SignalPayloads[T]) => void;

export interface Subscription {
  unsubscribe(): Promise<void>;
}

/**
 * Fire-and-forget facts for every instance. Delivery is at most once and asynchronous:
 * `subscribe` resolves once the subscription is live, so a later `publish` reaches it.
 */
export interface Signals {
  publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void>;
  subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription>;
  close(): Promise<void>;
}
