import { type SignalPayloads, type SignalTopic } from '../signals';

/**
 * A signal a local tool (platformctl) hands to a running all-in-one platform whose bus is in-process,
 * `POST /signals` on the loopback relay the platform announces in DATA_DIR; the platform publishes it.
 */
export interface RelayedSignalV1<T extends SignalTopic = SignalTopic> {
  version: 1;
  topic: T;
  payload: SignalPayloads[T];
  /** Unix seconds: publish it retained until then. Absent: publish only. */
  retainUntil?: number;
}

export type RelayedSignal = RelayedSignalV1;
