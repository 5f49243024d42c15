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
  /**
   * Publishes, and keeps the payload until `untilSeconds` (Unix seconds) for instances that start
   * later and read `retained()` after subscribing (a revocation must reach a service started after it).
   */
  publishRetained<T extends SignalTopic>(topic: T, payload: SignalPayloads[T], untilSeconds: number): Promise<void>;
  /** The payloads published with `publishRetained` whose time has not ended, oldest end first. */
  retained<T extends SignalTopic>(topic: T): Promise<SignalPayloads[T][]>;
  subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription>;
  close(): Promise<void>;
}

/** The publishing half of Signals: what a tool that only announces changes (platformctl) needs. */
export type SignalPublisher = Pick<Signals, 'publish' | 'publishRetained'>;
