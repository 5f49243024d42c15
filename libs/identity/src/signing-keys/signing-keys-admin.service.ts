import { DEFAULT_MAX_TOKEN_AGE_SECONDS } from '@fed/auth';
import { type SignalPublisher } from '@fed/bus';
import { SigningKeysError } from './signing-keys.errors';
import { type SigningKeyStatus, type SigningKeysService } from './signing-keys.service';

/** Verifiers refresh their JWKS at least every 10 minutes, so all know the new key before it signs. */
export const DEFAULT_ACTIVATE_IN_SECONDS = 600;
/** About 115 days: a longer lead is a mistake rather than a plan. */
export const MAX_ACTIVATE_IN_SECONDS = 9_999_999;

/** Tells running services that a key is withdrawn; false when nobody could be told (platformctl without Redis). */
export interface SigningKeyRevocations {
  announce(kid: string): Promise<boolean>;
}

/**
 * The retained `auth.signing-key-revoked`, kept for a day (the longest a verifier accepts any token) for services
 * that start later.
 */
export function signalSigningKeyRevocations(
  signals: SignalPublisher,
  now: () => number = Date.now,
): SigningKeyRevocations {
  return {
    async announce(kid) {
      const until = Math.floor(now() / 1000) + DEFAULT_MAX_TOKEN_AGE_SECONDS;
      await signals.publishRetained('auth.signing-key-revoked', { version: 1, kid }, until);
      return true;
    },
  };
}

export interface SigningKeyRevocation {
  revoked: SigningKeyStatus;
  replacement?: SigningKeyStatus;
  /** Whether running services were told at once (else auth-service drops it within 5 s, verifiers within 10 min). */
  announced: boolean;
}

/** What an operator does with the signing keys, the same for `platformctl keys` and `/api/v1/admin/signing-keys`. */
export class SigningKeyAdministration {
  constructor(
    private readonly keys: SigningKeysService,
    private readonly revocations: SigningKeyRevocations,
  ) {}

  list(): Promise<SigningKeyStatus[]> {
    return this.keys.list();
  }

  rotate(activateInSeconds: number = DEFAULT_ACTIVATE_IN_SECONDS): Promise<SigningKeyStatus> {
    if (!Number.isInteger(activateInSeconds) || activateInSeconds < 0 || activateInSeconds > MAX_ACTIVATE_IN_SECONDS) {
      throw new SigningKeysError(
        'invalid_lead',
        `activateInSeconds must be a whole number of seconds from 0 to ${MAX_ACTIVATE_IN_SECONDS}`,
      );
    }
    return this.keys.rotate(activateInSeconds);
  }

  /** A key signing now is replaced by one that signs at once, so the provider never stops signing. */
  async revoke(kid: string): Promise<SigningKeyRevocation> {
    const { revoked, replacement, alreadyRevoked } = await this.keys.revoke(kid);
    // Also on a repeat: a retry after an announcement that failed (Redis down) still reaches every service.
    const announced = await this.revocations.announce(revoked.kid);
    if (alreadyRevoked) {
      throw new SigningKeysError(
        'already_revoked',
        `signing key ${revoked.kid} was revoked at ${revoked.revokedAt?.toISOString() ?? 'an earlier time'}`,
      );
    }
    return { revoked, ...(replacement ? { replacement } : {}), announced };
  }
}
