import { createHash } from 'node:crypto';

/**
 * The counter key of one throttle value. Accounts, addresses and logins come from requests: hashed
 * (as a JSON list, so no value can forge a separator), keys stay short whatever their text.
 */
export function throttleKey(
  kind: 'client' | 'login' | 'mail' | 'registration',
  part: string,
  ...values: string[]
): string {
  const digest = createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 32);
  return `throttle:${kind}:${part}:${digest}`;
}
