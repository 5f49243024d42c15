import { type SignalPayloads, type SignalTopic } from '@fed/contracts';

export type SignalHandler<T extends SignalTopic> = (payload: SignalPayloads[T]) => void;

export interface Subscription {
  unsubscribe(): Promise<void>;
}

/** At most once and asynchronous; a `publish` after `subscribe` resolved reaches the subscription. */
export interface Signals {
  publish<T extends SignalTopic>(topic: T, payload: SignalPayloads[T]): Promise<void>;
  /** Also kept until `untilSeconds` for instances started later: a revocation must reach them too. */
  publishRetained<T extends SignalTopic>(topic: T, payload: SignalPayloads[T], untilSeconds: number): Promise<void>;
  /** Oldest end first. */
  retained<T extends SignalTopic>(topic: T): Promise<SignalPayloads[T][]>;
  subscribe<T extends SignalTopic>(topic: T, handler: SignalHandler<T>): Promise<Subscription>;
  close(): Promise<void>;
}

export type SignalPublisher = Pick<Signals, 'publish' | 'publishRetained'>;
