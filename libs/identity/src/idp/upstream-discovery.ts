import * as oidc from 'openid-client';
import { isLoopbackHttp } from './tenant-idp.rules';

// Brokering's outbound rules (libs/sign-in/src/brokering/upstream-clients.ts) and the operator's test of a tenant's
// provider both go through here, so a test sees what a sign-in will see.

/** Asymmetric only, whatever the metadata offers, so only the provider's private key can sign. */
export const ID_TOKEN_ALGORITHMS: readonly string[] = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Each request to a tenant's provider (discovery, JWKS, token, userinfo). */
export const UPSTREAM_TIMEOUT_SECONDS = 10;

/**
 * https only (plain http only for a provider on this machine, in development); no redirects; the discovery
 * document's `issuer` must be the configured one (openid-client compares them).
 */
export function discoverUpstream(issuer: string, clientId: string): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(issuer), clientId, undefined, undefined, {
    timeout: UPSTREAM_TIMEOUT_SECONDS,
    execute: isLoopbackHttp(issuer) ? [oidc.allowInsecureRequests] : [],
  });
}

/** Where openid-client looks for the discovery document of `issuer`. */
export function discoveryUrlOf(issuer: string): string {
  const url = new URL(issuer);
  url.pathname = `${url.pathname}/.well-known/openid-configuration`.replace('//', '/');
  return url.href;
}

/** What the metadata offers for ID tokens (RS256 when it names none) that brokering accepts. */
export function acceptedIdTokenAlgorithms(offered: readonly string[] | undefined): string[] {
  return (offered ?? ['RS256']).filter((alg) => ID_TOKEN_ALGORITHMS.includes(alg));
}
