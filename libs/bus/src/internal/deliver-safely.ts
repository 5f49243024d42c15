import { type SignalPayloads, type SignalTopic } from '@fed/contracts';
import { type SignalHandler } from '../ports';

/** A malformed message is dropped; a throwing handler must not affect the publisher or other receivers. */
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
    // Receivers are isolated from each other.
  }
}
