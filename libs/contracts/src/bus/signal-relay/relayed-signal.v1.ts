import { type SignalPayloads, type SignalTopic } from '../signals';

/** `POST /signals` from a local tool (platformctl) to the relay of an all-in-one platform with an in-process bus. */
export interface RelayedSignalV1<T extends SignalTopic = SignalTopic> {
  version: 1;
  topic: T;
  payload: SignalPayloads[T];
  /** Unix seconds: publish it retained until then. Absent: publish only. */
  retainUntil?: number;
}

export type RelayedSignal = RelayedSignalV1;
