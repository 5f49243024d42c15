import { type SignalPublisher } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS, type ServiceConfig } from '@fed/config';
import { type UserRole } from './user.entity';

/**
 * Tells every service that a user's sessions ended, so tokens already issued are refused within a second
 * rather than at expiry, and that a role changed. The record is `users.sessions_valid_after` and `users.role`.
 */
export interface SessionInvalidations {
  invalidate(userId: string, at: Date): Promise<void>;
  /** Absent: only the tokens signed after the change carry the new role. */
  roleChanged?(userId: string, role: UserRole, at: Date): Promise<void>;
}

/** Compared in whole milliseconds: a login at or after the cut-off survives, however close. */
export function loginEndedBy(at: Date | null, authTime: number): boolean {
  return at !== null && Math.round(authTime * 1000) < at.getTime();
}

/** For a token with only `iat`: one from the cut-off's own second may predate it, so it is refused too. */
export function sessionsValidFrom(at: Date | null): number {
  return at ? Math.floor(at.getTime() / 1000) + 1 : 0;
}

/** By `auth_time_ms` when present, else by `iat` against the second after the cut-off. */
export function accessTokenEndedBy(at: Date | null, token: { iat: number; auth_time_ms?: number }): boolean {
  if (at === null) return false;
  return token.auth_time_ms !== undefined ? token.auth_time_ms < at.getTime() : token.iat < sessionsValidFrom(at);
}

/** Retained for as long as any service could accept an older token. */
export function signalSessionInvalidations(
  signals: SignalPublisher,
  config: Pick<ServiceConfig, 'signingKeys'>,
): SessionInvalidations {
  return new SignalSessionInvalidations(signals, config.signingKeys.tokenTtlSeconds + MAX_CLOCK_SKEW_SECONDS);
}

export class SignalSessionInvalidations implements SessionInvalidations {
  constructor(
    private readonly signals: SignalPublisher,
    /** Token lifetime plus the largest clock skew. */
    private readonly acceptedForSeconds: number,
  ) {}

  async invalidate(userId: string, at: Date): Promise<void> {
    const issuedBefore = sessionsValidFrom(at);
    await this.signals.publishRetained(
      'auth.sessions-invalidated',
      { version: 1, subject: userId, issuedBefore, cutOffMs: at.getTime() },
      issuedBefore + this.acceptedForSeconds,
    );
  }

  // After this long every accepted token was signed after the change and carries the new role itself.
  async roleChanged(userId: string, role: UserRole, at: Date): Promise<void> {
    await this.signals.publishRetained(
      'auth.role-changed',
      { version: 1, subject: userId, role, changedAtMs: at.getTime() },
      Math.ceil(at.getTime() / 1000) + this.acceptedForSeconds,
    );
  }
}
