import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type SignalHandler } from '../ports';

/**
 * Parses `wire` and calls `handler` with its own copy. A malformed message is dropped; a throwing
 * (or rejecting, if async) handler must not affect the publisher or other receivers.
 */
export function deliverSafely(handler: SignalHandler<SignalTopic>, wire: string): void {
  let payload: unknown;
  try {
    payload = JSON.parse(wire);
  } catch {
    return;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return;
  try {
    const result: unknown = handler(payload as SignalPayloads[SignalTopic]);
    if (result instanceof Promise) result.catch(() => undefined);
  } catch {
    // See above: receivers are isolated from each other.
  }
}
