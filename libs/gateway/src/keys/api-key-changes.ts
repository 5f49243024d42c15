import { type SignalPublisher } from '@fed/bus';

/** The `config.changed` area of virtual keys; running gateways drop a key they cached when they hear it. */
export const API_KEYS_AREA = 'gateway.keys';

/**
 * Tells running gateways that a key was created, changed or revoked. Unheard, a gateway rereads a cached key
 * within 30 s (docs/gateway.md, "Keys, limits and quotas").
 */
export interface ApiKeyChangeNotifier {
  keyChanged(keyId: string): Promise<void>;
}

export function publishApiKeyChange(signals: SignalPublisher, keyId: string): Promise<void> {
  return signals.publish('config.changed', { version: 1, area: API_KEYS_AREA, id: keyId });
}

/**
 * Over the host's signals. The change is stored before it is announced: a bus that cannot take the signal is
 * reported, not thrown, so that the caller is not told that a stored change failed.
 */
export function signalApiKeyChanges(
  signals: SignalPublisher,
  onError: (error: unknown, keyId: string) => void,
): ApiKeyChangeNotifier {
  return {
    keyChanged: (keyId) => publishApiKeyChange(signals, keyId).catch((error: unknown) => onError(error, keyId)),
  };
}

export const UNANNOUNCED_KEY_CHANGES: ApiKeyChangeNotifier = { keyChanged: async () => undefined };
