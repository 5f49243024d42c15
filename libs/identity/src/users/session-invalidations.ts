import { type SignalPublisher } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS, type ServiceConfig } from '@fed/config';

/**
 * Tells every service that a user's existing sessions have ended (a role lowered, an approval
 * withdrawn), so the access tokens already issued to the user are refused everywhere within a second
 * instead of working until they expire. The state of record is `users.sessions_valid_after`.
 */
export interface SessionInvalidations {
  invalidate(userId: string, at: Date): Promise<void>;
}

/**
 * The first second (Unix) whose tokens and logins count after the user's sessions were ended at `at`.
 * Tokens carry whole seconds, so one of the cut-off's own second might predate it: it is refused too.
 */
export function sessionsValidFrom(at: Date | null): number {
  return at ? Math.floor(at.getTime() / 1000) + 1 : 0;
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
      { version: 1, subject: userId, issuedBefore },
      issuedBefore + this.acceptedForSeconds,
    );
  }
}
