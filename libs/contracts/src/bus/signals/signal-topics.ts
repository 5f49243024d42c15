// Pushed to every instance. A receiver that misses one must not be wrong for long: each fact has a state
// of record elsewhere.

export interface RunCancelledV1 {
  version: 1;
  runId?: string;
  conversationId: string;
}

export interface TokenRevokedV1 {
  version: 1;
  jti: string;
  /** After this the token is expired anyway and may be forgotten. */
  expiresAt: number;
}

export interface SessionsInvalidatedV1 {
  version: 1;
  subject: string;
  /** For tokens without `auth_time_ms`, by `iat`: the second after the cut-off, since whole seconds cannot tell. */
  issuedBefore: number;
  /** Epoch ms: a token whose `auth_time_ms` is before it is refused. */
  cutOffMs?: number;
}

export interface RoleChangedV1 {
  version: 1;
  subject: string;
  role: 'admin' | 'user';
  /** Epoch ms: of two changes of one user, the later one holds. */
  changedAtMs: number;
}

export interface SigningKeyRevokedV1 {
  version: 1;
  /** Withdrawn in an emergency: no token it signed is accepted any more. */
  kid: string;
}

export interface ConfigChangedV1 {
  version: 1;
  /** E.g. `gateway.routes`, `gateway.keys`. */
  area: string;
  /** Absent: anything in the area may have changed. */
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
