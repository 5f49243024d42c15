import { createHash } from 'node:crypto';

/** Request values are hashed as a JSON list, so no value can forge a separator and keys stay short. */
export function throttleKey(
  kind: 'client' | 'login' | 'mail' | 'registration',
  part: string,
  ...values: string[]
): string {
  const digest = createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 32);
  return `throttle:${kind}:${part}:${digest}`;
}
