import { type SignalPublisher } from '@fed/bus';
import { MAX_CLOCK_SKEW_SECONDS, type ServiceConfig } from '@fed/config';
import { type EndedClientTokens } from './client.repository';
import { signalSessionInvalidations } from '../users/session-invalidations';

/** The token endpoint's client cache serves a client up to twice its one-second lifetime (sign-in ClientCache). */
export const CLIENT_CACHE_WINDOW_MS = 2000;

/** Tells every service that a client's tokens ended (disabled, deleted), so they are refused within a second. */
export interface ClientTokenRevocations {
  clientTokensEnded(ended: EndedClientTokens, at: Date): Promise<void>;
}

/**
 * Its users' access tokens by `jti` (`auth.token-revoked`, retained until they expire), its own client-credentials
 * tokens by a cut-off of its service account (`auth.sessions-invalidated`, as a user's sessions end).
 */
export function signalClientTokenRevocations(
  signals: SignalPublisher,
  config: Pick<ServiceConfig, 'signingKeys'>,
): ClientTokenRevocations {
  const serviceAccounts = signalSessionInvalidations(signals, config);
  return {
    async clientTokensEnded(ended, at) {
      // The token endpoint reads a client at most CLIENT_CACHE_WINDOW_MS late, so it may still issue one then.
      await serviceAccounts.invalidate(ended.serviceAccountId, new Date(at.getTime() + CLIENT_CACHE_WINDOW_MS));
      for (const { jti, expiresAt } of ended.accessTokens) {
        const exp = Math.floor(expiresAt.getTime() / 1000);
        await signals.publishRetained(
          'auth.token-revoked',
          { version: 1, jti, expiresAt: exp },
          exp + MAX_CLOCK_SKEW_SECONDS,
        );
      }
    },
  };
}
