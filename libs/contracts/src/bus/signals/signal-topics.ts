// Signals are small, versioned facts pushed to every instance (Redis pub/sub or in-process).
// A receiver that misses one must not be wrong for long: each fact has a state of record elsewhere.

export interface RunCancelledV1 {
  version: 1;
  runId?: string;
  conversationId: string;
}

export interface TokenRevokedV1 {
  version: 1;
  /** `jti` of the revoked access token. */
  jti: string;
  /** Unix seconds; after this the token is expired anyway and may be forgotten. */
  expiresAt: number;
}

export interface SessionsInvalidatedV1 {
  version: 1;
  /** `sub` whose logins made before the cut-off have ended. */
  subject: string;
  /**
   * Unix seconds: a token without `auth_time_ms` is refused when its `iat` is before this (the
   * second after the cut-off, since whole seconds cannot tell its own second apart).
   */
  issuedBefore: number;
  /** Epoch milliseconds of the cut-off: a token whose `auth_time_ms` is before it is refused. */
  cutOffMs?: number;
}

export interface RoleChangedV1 {
  version: 1;
  /** `sub` of the user whose role changed. */
  subject: string;
  role: 'admin' | 'user';
  /** Epoch milliseconds of the change: of two changes of one user, the later one holds. */
  changedAtMs: number;
}

export interface SigningKeyRevokedV1 {
  version: 1;
  /** `kid` of a signing key withdrawn in an emergency: no token it signed is accepted any more. */
  kid: string;
}

export interface ConfigChangedV1 {
  version: 1;
  /** What changed, e.g. `gateway.routes`, `gateway.keys`. */
  area: string;
  /** The record that changed (a key id), when one did; absent: anything in the area may have. */
  id?: string;
}

export interface SignalPayloads {
  'run.cancelled': RunCancelledV1;
  'auth.token-revoked': TokenRevokedV1;
  'auth.sessions-invalidated': SessionsInvalidatedV1;
  'auth.role-changed': RoleChangedV1;
  'auth.signing-key-revoked': SigningKeyRevokedV1;
  'config.changed': ConfigChangedV1;
}

export type SignalTopic = keyof SignalPayloads;

export const signalTopics: readonly SignalTopic[] = [
  'run.cancelled',
  'auth.token-revoked',
  'auth.sessions-invalidated',
  'auth.role-changed',
  'auth.signing-key-revoked',
  'config.changed',
];
