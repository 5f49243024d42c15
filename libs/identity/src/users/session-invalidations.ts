import { type SignalPublisher } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS, type ServiceConfig } from '@fed/config';
import { type UserRole } from './user.entity';

/**
 * Tells every service that a user's existing sessions have ended (a role lowered, an approval
 * withdrawn, a password reset), so the access tokens already issued to the user are refused everywhere
 * within a second instead of working until they expire; and that a user's role changed, so an admin
 * route asks the current role from the next call. The state of record is `users.sessions_valid_after`
 * and `users.role`.
 */
export interface SessionInvalidations {
  invalidate(userId: string, at: Date): Promise<void>;
  /** Absent: only the tokens signed after the change carry the new role. */
  roleChanged?(userId: string, role: UserRole, at: Date): Promise<void>;
}

/**
 * Whether a login made at `authTime` (Unix seconds, to the millisecond where the login was stamped so)
 * was ended by the cut-off `at`: a login before the cut-off is, one at or after it is not, however
 * close. Compared in whole milliseconds, the precision of both.
 */
export function loginEndedBy(at: Date | null, authTime: number): boolean {
  return at !== null && Math.round(authTime * 1000) < at.getTime();
}

/**
 * The first second (Unix) whose tokens count after the cut-off `at`, for a token that says no more
 * than its `iat`: one of the cut-off's own second might predate it, so it is refused too.
 */
export function sessionsValidFrom(at: Date | null): number {
  return at ? Math.floor(at.getTime() / 1000) + 1 : 0;
}

/**
 * Whether an access token of the user was ended by the cut-off `at`: by the login instant it carries
 * (`auth_time_ms`), or, for a token without it, by `iat` against the second after the cut-off.
 */
export function accessTokenEndedBy(at: Date | null, token: { iat: number; auth_time_ms?: number }): boolean {
  if (at === null) return false;
  return token.auth_time_ms !== undefined ? token.auth_time_ms < at.getTime() : token.iat < sessionsValidFrom(at);
}

/** Invalidations published on `signals`, retained for as long as any service could accept an older token. */
export function signalSessionInvalidations(
  signals: SignalPublisher,
  config: Pick<ServiceConfig, 'signingKeys'>,
): SessionInvalidations {
  return new SignalSessionInvalidations(signals, config.signingKeys.tokenTtlSeconds + MAX_CLOCK_SKEW_SECONDS);
}

export class SignalSessionInvalidations implements SessionInvalidations {
  constructor(
    private readonly signals: SignalPublisher,
    /** How long a token issued before the cut-off can still be accepted: its lifetime plus the largest clock skew. */
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

  // Retained as long as a token signed before the change can be accepted: after that, every token
  // still accepted was signed after it and carries the new role itself.
  async roleChanged(userId: string, role: UserRole, at: Date): Promise<void> {
    await this.signals.publishRetained(
      'auth.role-changed',
      { version: 1, subject: userId, role, changedAtMs: at.getTime() },
      Math.ceil(at.getTime() / 1000) + this.acceptedForSeconds,
    );
  }
}
